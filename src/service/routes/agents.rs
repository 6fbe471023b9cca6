//! Agents, agent endpoints (only environment and dial type change) and HTTP request definitions.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, data, list_kind, path_id};
use crate::api::model::{
    Agent, AgentEndpoint, AgentEndpointUpdate, CursorPage, Data, HttpRequestDefinition, Timestamp,
};
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{Params, Valid};
use crate::service::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_agents))
        .routes(routes!(list_endpoints))
        .routes(routes!(read_endpoint, update_endpoint))
        .routes(routes!(read_agent))
        .routes(routes!(list_definitions))
        .routes(routes!(read_definition))
}

/// List agents.
#[utoipa::path(
    get,
    path = "/v1/agent",
    operation_id = "listAgents",
    tag = "Agent",
    params(ListParams),
    responses(
        (status = 200, description = "One page of agents", body = CursorPage<Agent>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_agents(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::Agent, params, OwnedFilter::default()).await
}

/// List agent endpoints.
#[utoipa::path(
    get,
    path = "/v1/agent/endpoint",
    operation_id = "listAgentEndpoints",
    tag = "Agent Endpoint",
    params(ListParams, ("agentId" = Option<Uuid>, Query, description = "Only the endpoints of this agent")),
    responses(
        (status = 200, description = "One page of agent endpoints", body = CursorPage<AgentEndpoint>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_endpoints(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    let filter = OwnedFilter { parent_id: params.agent_id.clone(), ..Default::default() };
    list_kind(&state, Kind::AgentEndpoint, params, filter).await
}

/// List HTTP request definitions.
#[utoipa::path(
    get,
    path = "/v1/http-request-definition",
    operation_id = "listHttpRequestDefinitions",
    tag = "HTTP Request Definition",
    params(ListParams),
    responses(
        (status = 200, description = "One page of definitions", body = CursorPage<HttpRequestDefinition>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_definitions(
    State(state): State<AppState>,
    Params(params): Params<ListParams>,
) -> ServiceResult<Response> {
    list_kind(&state, Kind::HttpRequestDefinition, params, OwnedFilter::default()).await
}

/// Get an agent.
#[utoipa::path(
    get,
    path = "/v1/agent/{id}",
    operation_id = "getAgent",
    tag = "Agent",
    params(("id" = Uuid, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "The agent", body = Data<Agent>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_agent(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Agent, &id)?.to_string();
    let agent: Agent = state.store.read(move |c| store::require(c, Kind::Agent, &id)).await?;
    Ok(data(&agent))
}

/// Get an agent endpoint.
#[utoipa::path(
    get,
    path = "/v1/agent/endpoint/{id}",
    operation_id = "getAgentEndpoint",
    tag = "Agent Endpoint",
    params(("id" = Uuid, Path, description = "The endpoint's id")),
    responses(
        (status = 200, description = "The agent endpoint", body = Data<AgentEndpoint>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_endpoint(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::AgentEndpoint, &id)?.to_string();
    let endpoint: AgentEndpoint = state.store.read(move |c| store::require(c, Kind::AgentEndpoint, &id)).await?;
    Ok(data(&endpoint))
}

/// Get an HTTP request definition.
#[utoipa::path(
    get,
    path = "/v1/http-request-definition/{id}",
    operation_id = "getHttpRequestDefinition",
    tag = "HTTP Request Definition",
    params(("id" = Uuid, Path, description = "The definition's id")),
    responses(
        (status = 200, description = "The definition", body = Data<HttpRequestDefinition>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_definition(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::HttpRequestDefinition, &id)?.to_string();
    let definition: HttpRequestDefinition =
        state.store.read(move |c| store::require(c, Kind::HttpRequestDefinition, &id)).await?;
    Ok(data(&definition))
}

/// Update an agent endpoint: only `environment` and `outboundDialType` change.
#[utoipa::path(
    put,
    path = "/v1/agent/endpoint/{id}",
    operation_id = "updateAgentEndpoint",
    tag = "Agent Endpoint",
    params(("id" = Uuid, Path, description = "The endpoint's id")),
    request_body = AgentEndpointUpdate,
    responses(
        (status = 200, description = "The updated agent endpoint", body = Data<AgentEndpoint>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_endpoint(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<AgentEndpointUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::AgentEndpoint, &id)?.to_string();
    let endpoint = state
        .store
        .write(move |tx| {
            let mut endpoint: AgentEndpoint = store::require(tx, Kind::AgentEndpoint, &id)?;
            ServiceError::check(update.validate_against(&endpoint))?;
            if let Some(environment) = update.environment {
                endpoint.environment = Some(environment);
            }
            if let Some(dial) = update.outbound_dial_type {
                endpoint.outbound_dial_type = Some(dial);
            }
            endpoint.updated_at = Some(Timestamp::now());
            let created_at = endpoint.created_at.clone().map(|t| t.0).unwrap_or_default();
            let agent_id = endpoint.agent_id.map(|a| a.to_string());
            store::update(
                tx,
                &Doc::new(Kind::AgentEndpoint, &id, &endpoint, &created_at)?.parent(agent_id.as_deref()),
            )?;
            Ok(endpoint)
        })
        .await?;
    Ok(data(&endpoint))
}
