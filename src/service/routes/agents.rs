//! Agents, agent endpoints (only environment and dial type change) and HTTP request definitions.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;

use super::{ListParams, OwnedFilter, data, list_kind, path_id};
use crate::api::model::{Agent, AgentEndpoint, AgentEndpointUpdate, HttpRequestDefinition, Timestamp};
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{Params, Valid};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/agent", get(list_agents))
        .route("/v1/agent/endpoint", get(list_endpoints))
        .route("/v1/agent/endpoint/{id}", get(read_endpoint).put(update_endpoint))
        .route("/v1/agent/{id}", get(read_agent))
        .route("/v1/http-request-definition", get(list_definitions))
        .route("/v1/http-request-definition/{id}", get(read_definition))
}

async fn list_agents(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::Agent, params, OwnedFilter::default()).await
}

async fn list_endpoints(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    let filter = OwnedFilter { parent_id: params.agent_id.clone(), ..Default::default() };
    list_kind(&state, Kind::AgentEndpoint, params, filter).await
}

async fn list_definitions(
    State(state): State<AppState>,
    Params(params): Params<ListParams>,
) -> ServiceResult<Response> {
    list_kind(&state, Kind::HttpRequestDefinition, params, OwnedFilter::default()).await
}

async fn read_agent(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Agent, &id)?.to_string();
    let agent: Agent = state.store.read(move |c| store::require(c, Kind::Agent, &id)).await?;
    Ok(data(&agent))
}

async fn read_endpoint(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::AgentEndpoint, &id)?.to_string();
    let endpoint: AgentEndpoint = state.store.read(move |c| store::require(c, Kind::AgentEndpoint, &id)).await?;
    Ok(data(&endpoint))
}

async fn read_definition(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::HttpRequestDefinition, &id)?.to_string();
    let definition: HttpRequestDefinition =
        state.store.read(move |c| store::require(c, Kind::HttpRequestDefinition, &id)).await?;
    Ok(data(&definition))
}

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
            let violations = update.validate_against(&endpoint);
            if !violations.is_empty() {
                return Err(ServiceError::violations(violations));
            }
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
