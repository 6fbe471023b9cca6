//! Calls (ingest, list, read, transcript, latest metric values) and chats.

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{OwnedFilter, WideListParams, created, data, known_value, list_kind, path_id};
use crate::api::model::{
    Call, CallInput, CursorPage, Data, MetricValueGroup, Timestamp, Transcript, ValueStatusFilter,
};
use crate::api::validate::{Checks, Validate};
use crate::service::AppState;
use crate::service::calls::conversations;
use crate::service::calls::ingest;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, ingest))
        .routes(routes!(read))
        .routes(routes!(transcript))
        .routes(routes!(metrics))
}

/// List calls, newest first.
#[utoipa::path(
    get,
    path = "/v1/call",
    operation_id = "listCalls",
    tag = "Call",
    params(WideListParams, ("agentId" = Option<Uuid>, Query, description = "Only calls of this agent"), ("simulationRunPlanJobId" = Option<Uuid>, Query, description = "Only calls of this run plan job"), ("startedAfter" = Option<String>, Query, format = DateTime, description = "Only calls started at or after this RFC 3339 date-time"), ("startedBefore" = Option<String>, Query, format = DateTime, description = "Only calls started before this RFC 3339 date-time")),
    responses(
        (status = 200, description = "One page of calls", body = CursorPage<Call>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(
    State(state): State<AppState>,
    Params(WideListParams(params)): Params<WideListParams>,
) -> ServiceResult<Response> {
    let mut fields = Vec::new();
    if let Some(agent) = &params.agent_id {
        fields.push(("$.agentId".to_owned(), agent.clone()));
    }
    let from = utc("startedAfter", params.started_after.as_deref())?;
    let to = utc("startedBefore", params.started_before.as_deref())?;
    let window = (from.is_some() || to.is_some()).then(|| ("$.startedAt".to_owned(), from, to));
    let parent_id = params.simulation_run_plan_job_id.clone();
    list_kind(&state, Kind::Call, params, OwnedFilter { parent_id, fields, window, ..Default::default() }).await
}

/// A time bound as UTC RFC 3339, which SQLite's date functions read.
fn utc(param: &str, text: Option<&str>) -> ServiceResult<Option<String>> {
    text.map(|t| {
        Timestamp(t.to_owned())
            .parse_rfc3339()
            .map(|ts| ts.to_string())
            .ok_or_else(|| ServiceError::invalid(param, format!("{param} must be an RFC 3339 date-time")))
    })
    .transpose()
}

/// Get a call.
#[utoipa::path(
    get,
    path = "/v1/call/{id}",
    operation_id = "getCall",
    tag = "Call",
    params(("id" = Uuid, Path, description = "The call's id")),
    responses(
        (status = 200, description = "The call", body = Data<Call>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Call, &id)?.to_string();
    let call: Call = state.store.read(move |c| store::require(c, Kind::Call, &id)).await?;
    Ok(data(&call))
}

/// Get a call's transcript.
#[utoipa::path(
    get,
    path = "/v1/call/{id}/transcript",
    operation_id = "getCallTranscript",
    tag = "Call",
    params(("id" = Uuid, Path, description = "The call's id")),
    responses(
        (status = 200, description = "The transcript (empty when the call has none)", body = Data<Transcript>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn transcript(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Call, &id)?.to_string();
    let transcript = state.store.read(move |c| conversations::transcript(c, Kind::Call, &id)).await?;
    Ok(data(&transcript))
}

/// `?status=success|all`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusParams {
    /// `success` returns only SUCCESS rows; `all` also NOT_APPLICABLE, DATA_MISSING and ERROR rows,
    /// with `value` omitted.
    #[param(value_type = Option<ValueStatusFilter>, default = "success")]
    pub status: Option<String>,
}

impl Validate for StatusParams {
    fn check(&self, _c: &mut Checks, _at: &str) {}
}

impl StatusParams {
    pub fn filter(&self) -> ServiceResult<ValueStatusFilter> {
        Ok(known_value::<ValueStatusFilter>("status", self.status.as_deref())?
            .map_or(ValueStatusFilter::Success, |s| ValueStatusFilter::from(s.as_str())))
    }
}

/// Get the latest value of each metric on a call, whatever job computed it.
#[utoipa::path(
    get,
    path = "/v1/call/{id}/metrics",
    operation_id = "getCallMetrics",
    tag = "Call",
    params(("id" = Uuid, Path, description = "The call's id"), StatusParams),
    responses(
        (status = 200, description = "One group per metric definition", body = Data<Vec<MetricValueGroup>>),
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
    let id = path_id(Kind::Call, &id)?.to_string();
    let filter = q.filter()?;
    let groups = state.store.read(move |c| conversations::latest_values(c, Kind::Call, &id, &filter)).await?;
    Ok(data(&groups))
}

/// Ingest a call with its transcript.
#[utoipa::path(
    post,
    path = "/v1/call",
    operation_id = "createCall",
    tag = "Call",
    request_body = CallInput,
    responses(
        (status = 201, description = "The call", body = Data<Call>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn ingest(State(state): State<AppState>, Valid(input): Valid<CallInput>) -> ServiceResult<Response> {
    let call =
        state.store.write(move |tx| ingest::call(tx, uuid::Uuid::new_v4(), input.clone(), &Timestamp::now())).await?;
    Ok(created(&call))
}
