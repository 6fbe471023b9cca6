//! A customer flow's parts: its graph replaced whole, its happy path changed, edge cases added,
//! changed, removed and promoted. The rules are `service::flows`'.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{created, data, path_id};
use crate::api::model::{Data, Deleted, EdgeCaseInput, FlowVariant, GraphInput, GraphReplaced, VariantInput};
use crate::service::AppState;
use crate::service::flows;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{AnyBody, Decoded};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::Kind;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(replace_graph))
        .routes(routes!(update_happy_path))
        .routes(routes!(add_edge_case))
        .routes(routes!(update_edge_case, remove_edge_case))
        .routes(routes!(promote_edge_case))
}

/// The path's flow id (a UUID) and edge case id. An edge case id that is no UUID names no edge
/// case (a 404 after the body's own problems, as a missing one is).
fn ids(flow: &str, edge_case: String) -> ServiceResult<(String, String)> {
    Ok((path_id(Kind::CustomerFlow, flow)?.to_string(), edge_case))
}

/// Replace a scripted flow's graph. Steps keep their `nodeId`s (new steps get one); a merge
/// names a step's `nodeId` or `ref`. Dropping merges the flow had needs `allowUnmerge: true`.
#[utoipa::path(
    put,
    path = "/v1/customer-flow/{id}/graph",
    operation_id = "replaceCustomerFlowGraph",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    request_body = GraphInput,
    responses(
        (status = 200, description = "The graph and variants after the write", body = Data<GraphReplaced>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn replace_graph(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Decoded(input): Decoded<GraphInput>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    let replaced = state.store.write(move |tx| flows::replace_graph(tx, &id, &input)).await?;
    Ok(data(&replaced))
}

/// Update a flow's happy path: the members given change, the rest are kept.
#[utoipa::path(
    put,
    path = "/v1/customer-flow/{id}/happy-path",
    operation_id = "updateCustomerFlowHappyPath",
    tag = "Customer Flow",
    params(("id" = Uuid, Path, description = "The flow's id")),
    request_body = VariantInput,
    responses(
        (status = 200, description = "The happy path", body = Data<FlowVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_happy_path(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Decoded(given): Decoded<VariantInput>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    let happy = state.store.write(move |tx| flows::update_happy_path(tx, &id, &given)).await?;
    Ok(data(&happy))
}

/// Add an edge case; what it does not name (persona, environment) it takes from the happy path.
#[utoipa::path(
    post,
    path = "/v1/customer-flow/{id}/edge-case",
    operation_id = "addCustomerFlowEdgeCase",
    tag = "Customer Flow Edge Case",
    params(("id" = Uuid, Path, description = "The flow's id")),
    request_body = EdgeCaseInput,
    responses(
        (status = 201, description = "The edge case", body = Data<FlowVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn add_edge_case(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Decoded(given): Decoded<EdgeCaseInput>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::CustomerFlow, &id)?.to_string();
    let case = state.store.write(move |tx| flows::add_edge_case(tx, &id, &given)).await?;
    Ok(created(&case))
}

/// Update an edge case: the members given change; a null persona or environment inherits the
/// happy path's again.
#[utoipa::path(
    put,
    path = "/v1/customer-flow/{id}/edge-case/{edgeCaseId}",
    operation_id = "updateCustomerFlowEdgeCase",
    tag = "Customer Flow Edge Case",
    params(
        ("id" = Uuid, Path, description = "The flow's id"),
        ("edgeCaseId" = Uuid, Path, description = "The edge case's id"),
    ),
    request_body = VariantInput,
    responses(
        (status = 200, description = "The edge case", body = Data<FlowVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_edge_case(
    State(state): State<AppState>,
    Path((id, edge_case)): Path<(String, String)>,
    Decoded(given): Decoded<VariantInput>,
) -> ServiceResult<Response> {
    let (id, edge_case) = ids(&id, edge_case)?;
    let case = state.store.write(move |tx| flows::update_edge_case(tx, &id, &edge_case, &given)).await?;
    Ok(data(&case))
}

/// Remove an edge case from its flow.
#[utoipa::path(
    delete,
    path = "/v1/customer-flow/{id}/edge-case/{edgeCaseId}",
    operation_id = "removeCustomerFlowEdgeCase",
    tag = "Customer Flow Edge Case",
    params(
        ("id" = Uuid, Path, description = "The flow's id"),
        ("edgeCaseId" = Uuid, Path, description = "The edge case's id"),
    ),
    responses(
        (status = 200, description = "`{deleted: true}`", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn remove_edge_case(
    State(state): State<AppState>,
    Path((id, edge_case)): Path<(String, String)>,
    _body: AnyBody,
) -> ServiceResult<Response> {
    let (id, edge_case) = ids(&id, edge_case)?;
    let removed = state.store.write(move |tx| flows::remove_edge_case(tx, &id, &edge_case)).await?;
    Ok(data(&Deleted { id: removed, deleted: true }))
}

/// Promote an edge case to be the flow's happy path; the old happy path becomes an edge case.
#[utoipa::path(
    post,
    path = "/v1/customer-flow/{id}/edge-case/{edgeCaseId}/promote",
    operation_id = "promoteCustomerFlowEdgeCase",
    tag = "Customer Flow Edge Case",
    params(
        ("id" = Uuid, Path, description = "The flow's id"),
        ("edgeCaseId" = Uuid, Path, description = "The edge case's id"),
    ),
    responses(
        (status = 200, description = "The new happy path", body = Data<FlowVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn promote_edge_case(
    State(state): State<AppState>,
    Path((id, edge_case)): Path<(String, String)>,
    _body: AnyBody,
) -> ServiceResult<Response> {
    let (id, edge_case) = ids(&id, edge_case)?;
    let happy = state.store.write(move |tx| flows::promote_edge_case(tx, &id, &edge_case)).await?;
    Ok(data(&happy))
}
