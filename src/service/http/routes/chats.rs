//! Chats, the same as calls: ingest with a transcript, list, read, transcript, latest values.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::calls::StatusParams;
use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::{CallInput, CallStatus, Chat, CursorPage, Data, MetricValueGroup, Timestamp, Transcript};
use crate::service::AppState;
use crate::service::calls::conversations;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
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
    operation_id = "listChats",
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
    operation_id = "createChat",
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
        .write(move |tx| -> ServiceResult<_> {
            let id = uuid::Uuid::new_v4();
            let ingested = conversations::ingest(tx, id, &input)?;
            let chat = Chat {
                id,
                status: Some(CallStatus::Ended),
                agent_id: input.agent_id,
                started_at: Some(ingested.started_at.clone()),
                ended_at: ingested.ended_at,
                simulation_job_id: None,
                created_at: Some(Timestamp::now()),
            };
            store::insert(tx, &Doc::of(&chat)?)?;
            Ok(chat)
        })
        .await?;
    Ok(created(&chat))
}

/// Get a chat.
#[utoipa::path(
    get,
    path = "/v1/chat/{id}",
    operation_id = "getChat",
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
    operation_id = "getChatTranscript",
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
    let transcript = state.store.read(move |c| conversations::transcript(c, Kind::Chat, &id)).await?;
    Ok(data(&transcript))
}

/// The latest value of each metric on the chat, whatever job computed it.
#[utoipa::path(
    get,
    path = "/v1/chat/{id}/metrics",
    operation_id = "getChatMetrics",
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
    let groups = state.store.read(move |c| conversations::latest_values(c, Kind::Chat, &id, &filter)).await?;
    Ok(data(&groups))
}
