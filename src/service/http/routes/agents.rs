//! Agents (name and description change) and agent endpoints (only environment and dial type
//! change); creating each takes the hosted service's shape (how `gate --agent-url` dials a
//! user's agent). HTTP request definitions are `request_definitions`.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, WideListParams, created, data, list_kind, now, path_id};
use crate::api::model::{
    Agent, AgentEndpoint, AgentEndpointInput, AgentEndpointUpdate, AgentInput, AgentUpdate, CursorPage, Data,
    HttpRequestDefinition, OutboundDialType, Timestamp,
};
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::{AppState, agents};

use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_agents, create_agent))
        .routes(routes!(list_endpoints, create_endpoint))
        .routes(routes!(read_endpoint, update_endpoint))
        .routes(routes!(read_agent, update_agent))
}

/// List agents.
#[utoipa::path(
    get,
    path = "/v1/agent",
    operation_id = "listAgents",
    tag = "Agent",
    params(WideListParams),
    responses(
        (status = 200, description = "One page of agents", body = CursorPage<Agent>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_agents(
    State(state): State<AppState>,
    Params(WideListParams(params)): Params<WideListParams>,
) -> ServiceResult<Response> {
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
        .write(move |tx| -> ServiceResult<_> {
            let update = update.clone();
            let mut endpoint: AgentEndpoint = store::require(tx, Kind::AgentEndpoint, &id)?;
            ServiceError::check(update.validate_against(&endpoint))?;
            if let Some(environment) = update.environment {
                endpoint.environment = Some(environment);
            }
            if let Some(dial) = update.outbound_dial_type {
                endpoint.outbound_dial_type = Some(dial);
            }
            endpoint.updated_at = Some(Timestamp::now());
            store::update(tx, &Doc::of(&endpoint)?)?;
            Ok(endpoint)
        })
        .await?;
    Ok(data(&endpoint))
}

/// Create an agent.
#[utoipa::path(
    post,
    path = "/v1/agent",
    operation_id = "createAgent",
    tag = "Agent",
    request_body = AgentInput,
    responses(
        (status = 201, description = "The agent", body = Data<Agent>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_agent(State(state): State<AppState>, Valid(input): Valid<AgentInput>) -> ServiceResult<Response> {
    let at = now();
    let agent = Agent {
        id: uuid::Uuid::new_v4(),
        name: input.name,
        description: input.description,
        custom_id: input.custom_id,
        prompt: None,
        created_at: Some(Timestamp(at.clone())),
        updated_at: Some(Timestamp(at.clone())),
    };
    let stored = agent.clone();
    state.store.write(move |tx| store::insert(tx, &Doc::of(&stored)?)).await?;
    Ok(created(&agent))
}

/// Create an agent endpoint; one that dials out through an HTTP request definition names it.
#[utoipa::path(
    post,
    path = "/v1/agent/endpoint",
    operation_id = "createAgentEndpoint",
    tag = "Agent Endpoint",
    request_body = AgentEndpointInput,
    responses(
        (status = 201, description = "The agent endpoint", body = Data<AgentEndpoint>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_endpoint(
    State(state): State<AppState>,
    Valid(input): Valid<AgentEndpointInput>,
) -> ServiceResult<Response> {
    let at = now();
    let endpoint = AgentEndpoint {
        id: uuid::Uuid::new_v4(),
        agent_id: input.agent_id,
        endpoint_type: Some(crate::api::model::EndpointType::Phone),
        value: input.value,
        environment: Some(input.environment.unwrap_or_else(|| "production".into())),
        direction: input.direction,
        outbound_dial_type: Some(input.outbound_dial_type.unwrap_or(OutboundDialType::None)),
        outbound_dial_http_request_definition_id: input.outbound_dial_http_request_definition_id,
        created_at: Some(Timestamp(at.clone())),
        updated_at: Some(Timestamp(at.clone())),
    };
    let stored = endpoint.clone();
    state
        .store
        .write(move |tx| {
            let agent_id = stored.agent_id.map(|a| a.to_string()).unwrap_or_default();
            if store::get::<Agent>(tx, Kind::Agent, &agent_id)?.is_none() {
                return Err(ServiceError::invalid("agentId", format!("no agent has the id {agent_id}")));
            }
            if let Some(definition) = stored.outbound_dial_http_request_definition_id {
                let id = definition.to_string();
                if store::get::<HttpRequestDefinition>(tx, Kind::HttpRequestDefinition, &id)?.is_none() {
                    return Err(ServiceError::invalid(
                        "outboundDialHttpRequestDefinitionId",
                        format!("no HTTP request definition has the id {id}"),
                    ));
                }
            }
            Ok(store::insert(tx, &Doc::of(&stored)?)?)
        })
        .await?;
    Ok(created(&endpoint))
}

/// Update an agent: `name` and `description` (null clears it) change; the rest stay.
#[utoipa::path(
    put,
    path = "/v1/agent/{id}",
    operation_id = "updateAgent",
    tag = "Agent",
    params(("id" = Uuid, Path, description = "The agent's id")),
    request_body = AgentUpdate,
    responses(
        (status = 200, description = "The agent as changed", body = Data<Agent>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_agent(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<AgentUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Agent, &id)?.to_string();
    let agent = state.store.write(move |tx| agents::update(tx, &id, update.clone())).await?;
    Ok(data(&agent))
}
