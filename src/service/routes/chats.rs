//! Chats, the same as calls: ingest with a transcript, list, read, transcript, latest values.

use axum::extract::{Path, State};
use axum::response::Response;
use rusqlite::{OptionalExtension, params};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::calls::StatusParams;
use super::collection::value_groups;
use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::{CallInput, CallStatus, Chat, CursorPage, Data, MetricValueGroup, Timestamp, Transcript};
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{Params, Valid};
use crate::service::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, ingest))
        .routes(routes!(read))
        .routes(routes!(transcript))
        .routes(routes!(metrics))
}

/// List chats, newest first.
#[utoipa::path(
    get,
    path = "/v1/chat",
    tag = "Chat",
    params(ListParams),
    responses(
        (status = 200, description = "One page of chats", body = CursorPage<Chat>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    let fields = params.agent_id.iter().map(|a| ("$.agentId".to_owned(), a.clone())).collect();
    list_kind(&state, Kind::Chat, params, OwnedFilter { fields, ..Default::default() }).await
}

/// Ingest a chat with its transcript (the same body as a call).
#[utoipa::path(
    post,
    path = "/v1/chat",
    tag = "Chat",
    request_body = CallInput,
    responses(
        (status = 201, description = "The chat", body = Data<Chat>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn ingest(State(state): State<AppState>, Valid(input): Valid<CallInput>) -> ServiceResult<Response> {
    let chat = state
        .store
        .write(move |tx| {
            if let Some(agent) = input.agent_id
                && !store::exists(tx, Kind::Agent, &agent.to_string())?
            {
                return Err(ServiceError::invalid("agentId", format!("no agent {agent}")));
            }
            let transcript = input.transcript.unwrap_or_default();
            let started_at = input.started_at.unwrap_or_else(Timestamp::now);
            let last = transcript.entries.iter().map(|e| e.end_offset_ms).max().unwrap_or(0);
            let ended_at = started_at
                .parse()
                .and_then(|s| s.checked_add(jiff::SignedDuration::from_millis(last)).ok())
                .map(Timestamp::from);
            let chat = Chat {
                id: uuid::Uuid::new_v4(),
                status: Some(CallStatus::Ended),
                agent_id: input.agent_id,
                started_at: Some(started_at.clone()),
                ended_at,
                simulation_job_id: None,
                created_at: Some(Timestamp::now()),
            };
            store::insert(tx, &Doc::new(Kind::Chat, chat.id, &chat, started_at.0)?)?;
            tx.execute(
                "INSERT INTO transcripts (call_id, body) VALUES (?1, ?2)",
                params![chat.id.to_string(), serde_json::to_string(&transcript)?],
            )?;
            Ok(chat)
        })
        .await?;
    Ok(created(&chat))
}

/// Get a chat.
#[utoipa::path(
    get,
    path = "/v1/chat/{id}",
    tag = "Chat",
    params(("id" = uuid::Uuid, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat", body = Data<Chat>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Chat, &id)?.to_string();
    let chat: Chat = state.store.read(move |c| store::require(c, Kind::Chat, &id)).await?;
    Ok(data(&chat))
}

/// Get a chat's transcript.
#[utoipa::path(
    get,
    path = "/v1/chat/{id}/transcript",
    tag = "Chat",
    params(("id" = uuid::Uuid, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The transcript", body = Data<Transcript>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn transcript(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Chat, &id)?.to_string();
    let transcript: Transcript = state
        .store
        .read(move |c| {
            store::require::<Chat>(c, Kind::Chat, &id)?;
            let body: Option<String> =
                c.query_row("SELECT body FROM transcripts WHERE call_id = ?1", params![id], |r| r.get(0)).optional()?;
            Ok(body.map(|b| serde_json::from_str(&b)).transpose()?.unwrap_or_default())
        })
        .await?;
    Ok(data(&transcript))
}

/// The latest value of each metric on the chat, whatever job computed it.
#[utoipa::path(
    get,
    path = "/v1/chat/{id}/metrics",
    tag = "Chat",
    params(("id" = uuid::Uuid, Path, description = "The chat's id"), StatusParams),
    responses(
        (status = 200, description = "Values grouped per metric definition", body = Data<Vec<MetricValueGroup>>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn metrics(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<StatusParams>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Chat, &id)?.to_string();
    let filter = q.filter()?;
    let groups = state
        .store
        .read(move |c| {
            store::require::<Chat>(c, Kind::Chat, &id)?;
            let sql = "SELECT definition_id, body FROM metric_values WHERE seq IN (
                 SELECT MAX(seq) FROM metric_values WHERE chat_id = ?1
                 GROUP BY definition_id, json_extract(body, '$.context'), json_extract(body, '$.participantRole'),
                          json_extract(body, '$.segment.id'))
               ORDER BY seq";
            value_groups(c, sql, &id, &filter)
        })
        .await?;
    Ok(data(&groups))
}
