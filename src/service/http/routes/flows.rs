//! Customer flows: list, read, create, update, delete, and duplicate (a deep copy; voicemail
//! flows are refused). The rules are `service::flows`'; the graph, happy path and edge cases
//! are `flow_variants`.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::{Agent, CursorPage, CustomerFlow, Data, Deleted, FlowInput, FlowUpdate};
use crate::service::AppState;
use crate::service::flows;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{AnyBody, Body, Decoded, Params};
use crate::service::http::openapi::{
    BadRequest, Conflict, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read, update, delete)).routes(routes!(duplicate))
}

/// Create a customer flow: SCRIPTED with its `graph`, or IMPROV with its agents, happy path and
/// edge cases. Every problem is named at once in `details.violations`.
#[utoipa::path(
    post,
    path = "/v1/customer-flow",
    operation_id = "createCustomerFlow",
    tag = "Customer Flow",
    request_body = FlowInput,
    responses(
        (status = 201, description = "The flow", body = Data<CustomerFlow>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Decoded(input): Decoded<FlowInput>) -> ServiceResult<Response> {
    let flow = state.store.write(move |tx| flows::create(tx, &input)).await?;
    Ok(created(&flow))
}

/// Update a customer flow: the members given change, the rest are kept. System and voicemail
/// flows are refused.
#[utoipa::path(
    put,
    path = "/v1/customer-flow/{id}",
    operation_id = "updateCustomerFlow",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    request_body = FlowUpdate,
    responses(
        (status = 200, description = "The flow as changed", body = Data<CustomerFlow>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Decoded(changes): Decoded<FlowUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    let flow = state.store.write(move |tx| flows::update(tx, &id, &changes)).await?;
    Ok(data(&flow))
}

/// Delete a customer flow: hidden from every read. Refused with 409 `flow_in_use` while a job
/// of a plan that runs it has not ended; system and voicemail flows are refused with 400.
#[utoipa::path(
    delete,
    path = "/v1/customer-flow/{id}",
    operation_id = "deleteCustomerFlow",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    responses(
        (status = 200, description = "`{deleted: true}`", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete(State(state): State<AppState>, Path(id): Path<String>, _body: AnyBody) -> ServiceResult<Response> {
    let flow = path_id(Kind::CustomerFlow, &id)?;
    let id = flow.to_string();
    state.store.write(move |tx| flows::delete(tx, &id)).await?;
    Ok(data(&Deleted { id: flow, deleted: true }))
}

/// List customer flows.
#[utoipa::path(
    get,
    path = "/v1/customer-flow",
    operation_id = "listCustomerFlows",
    tag = "Customer Flow",
    params(ListParams),
    responses(
        (status = 200, description = "One page of flows", body = CursorPage<CustomerFlow>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::CustomerFlow, params, OwnedFilter::default()).await
}

/// Get a customer flow.
#[utoipa::path(
    get,
    path = "/v1/customer-flow/{id}",
    operation_id = "getCustomerFlow",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    responses(
        (status = 200, description = "The flow", body = Data<CustomerFlow>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    let flow: CustomerFlow = state.store.read(move |c| store::require(c, Kind::CustomerFlow, &id)).await?;
    Ok(data(&flow))
}

/// Duplicate a customer flow into a new project-owned flow. Any body is accepted; an object's `title` names the copy and its `agentIds` (the hosted SDK's members) link other agents. Voicemail flows cannot be duplicated.
#[utoipa::path(
    post,
    path = "/v1/customer-flow/{id}/duplicate",
    operation_id = "duplicateCustomerFlow",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    responses(
        (status = 201, description = "The copy", body = Data<CustomerFlow>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn duplicate(State(state): State<AppState>, Path(id): Path<String>, Body(body): Body) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    // Any body is accepted (the spec); an object may carry the hosted SDK's `title` and `agentIds`.
    let options: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let title = options.get("title").and_then(serde_json::Value::as_str).map(str::to_owned);
    let agent_ids: Option<Vec<String>> = options
        .get("agentIds")
        .and_then(serde_json::Value::as_array)
        .map(|ids| ids.iter().map(|v| v.as_str().unwrap_or_default().to_owned()).collect());
    let copy = state
        .store
        .write(move |tx| {
            let agent_ids = agent_ids.clone();
            let title = title.clone();
            let original: CustomerFlow = store::require(tx, Kind::CustomerFlow, &id)?;
            if original.is_voicemail() {
                return Err(ServiceError::invalid(
                    "flowId",
                    "voicemail flows are service-managed and cannot be duplicated",
                ));
            }
            let mut copy = flows::duplicate::deep_copy(&original);
            if let Some(title) = title.filter(|t| !t.trim().is_empty()) {
                copy.title = Some(title);
            }
            if let Some(ids) = agent_ids {
                copy.agents = Vec::new();
                for (i, agent) in ids.iter().enumerate() {
                    let found: Option<Agent> = store::get(tx, Kind::Agent, agent)?;
                    let param = format!("agentIds[{i}]");
                    copy.agents.push(
                        found.ok_or_else(|| ServiceError::invalid(&param, format!("{param}: no agent {agent}")))?,
                    );
                }
            }
            store::insert(tx, &Doc::of(&copy)?)?;
            Ok(copy)
        })
        .await?;
    Ok(created(&copy))
}
