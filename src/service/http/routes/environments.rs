//! Simulation environments: list, read, create, update in part, delete. Seeded ones are the
//! curated set every workspace shares and cannot be changed.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::environment_limits::VOLUME_DEFAULT;
use crate::api::model::{CursorPage, Data, Deleted, Environment, EnvironmentInput, EnvironmentUpdate, Timestamp};
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind, Tx};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read, update, delete))
}

/// The ids of the seeded environments, which no caller changes.
fn is_seeded(id: &uuid::Uuid) -> bool {
    crate::service::seed::seeded_environment_ids().contains(id)
}

/// Refuses a name another environment has: flows name environments by name.
fn refuse_taken_name(tx: &Tx, name: &str, own: Option<uuid::Uuid>) -> ServiceResult<()> {
    let other: Option<Environment> = store::find_by(tx, Kind::SimulationEnvironment, "$.name", name)?;
    if other.is_some_and(|o| o.id != own) {
        let message = format!("another environment is named {}", crate::api::validate::quote(name));
        return Err(ServiceError::invalid("name", message));
    }
    Ok(())
}

/// List simulation environments: the workspace's own and the seeded ones.
#[utoipa::path(
    get,
    path = "/v1/simulation/environment",
    operation_id = "listSimulationEnvironments",
    tag = "Simulation Environment",
    params(ListParams),
    responses(
        (status = 200, description = "One page of environments", body = CursorPage<Environment>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::SimulationEnvironment, params, OwnedFilter::default()).await
}

/// Get a simulation environment.
#[utoipa::path(
    get,
    path = "/v1/simulation/environment/{id}",
    operation_id = "getSimulationEnvironment",
    tag = "Simulation Environment",
    params(("id" = Uuid, Path, description = "The environment's id")),
    responses(
        (status = 200, description = "The environment", body = Data<Environment>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::SimulationEnvironment, &id)?.to_string();
    let environment: Environment =
        state.store.read(move |c| store::require(c, Kind::SimulationEnvironment, &id)).await?;
    Ok(data(&environment))
}

/// Create a simulation environment: a noise bed and the level it plays at.
#[utoipa::path(
    post,
    path = "/v1/simulation/environment",
    operation_id = "createSimulationEnvironment",
    tag = "Simulation Environment",
    request_body = EnvironmentInput,
    responses(
        (status = 201, description = "The environment", body = Data<Environment>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<EnvironmentInput>) -> ServiceResult<Response> {
    let now = Timestamp::now();
    let environment = Environment {
        id: Some(uuid::Uuid::new_v4()),
        name: input.name.clone(),
        description: input.description.clone(),
        background_noise: input.background_noise.clone(),
        background_noise_volume: Some(input.background_noise_volume.unwrap_or(VOLUME_DEFAULT)),
        created_at: Some(now.clone()),
        updated_at: Some(now.clone()),
    };
    let stored = environment.clone();
    state
        .store
        .write(move |tx| -> ServiceResult<_> {
            refuse_taken_name(tx, stored.name.as_deref().unwrap_or_default(), None)?;
            Ok(store::insert(tx, &Doc::of(&stored)?)?)
        })
        .await?;
    Ok(created(&environment))
}

/// Update a simulation environment: the members given change, the rest are kept.
#[utoipa::path(
    put,
    path = "/v1/simulation/environment/{id}",
    operation_id = "updateSimulationEnvironment",
    tag = "Simulation Environment",
    params(("id" = Uuid, Path, description = "The environment's id")),
    request_body = EnvironmentUpdate,
    responses(
        (status = 200, description = "The environment", body = Data<Environment>),
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
    Valid(EnvironmentUpdate(changes, _)): Valid<EnvironmentUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::SimulationEnvironment, &id)?;
    let environment = state
        .store
        .write(move |tx| {
            let mut environment: Environment = store::require(tx, Kind::SimulationEnvironment, &id.to_string())?;
            if is_seeded(&id) {
                return Err(ServiceError::invalid("id", "seeded environments cannot be changed; create your own"));
            }
            if let Some(name) = &changes.name {
                refuse_taken_name(tx, name, Some(id))?;
                environment.name = Some(name.clone());
            }
            if let Some(noise) = &changes.background_noise {
                environment.background_noise = Some(noise.clone());
            }
            if let Some(volume) = changes.background_noise_volume {
                environment.background_noise_volume = Some(volume);
            }
            if let Some(description) = &changes.description {
                environment.description = Some(description.clone());
            }
            environment.updated_at = Some(Timestamp::now());
            store::update(tx, &Doc::of(&environment)?)?;
            Ok(environment)
        })
        .await?;
    Ok(data(&environment))
}

/// Delete a simulation environment. Flows that used it keep the copy they hold.
#[utoipa::path(
    delete,
    path = "/v1/simulation/environment/{id}",
    operation_id = "deleteSimulationEnvironment",
    tag = "Simulation Environment",
    params(("id" = Uuid, Path, description = "The environment's id")),
    responses(
        (status = 200, description = "The environment is deleted", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::SimulationEnvironment, &id)?;
    state
        .store
        .write(move |tx| {
            let _: Environment = store::require(tx, Kind::SimulationEnvironment, &id.to_string())?;
            if is_seeded(&id) {
                return Err(ServiceError::invalid("id", "seeded environments cannot be deleted"));
            }
            store::soft_delete(tx, Kind::SimulationEnvironment, &id.to_string(), &super::now())?;
            Ok(())
        })
        .await?;
    Ok(data(&Deleted { id, deleted: true }))
}
