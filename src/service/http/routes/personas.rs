//! Personas: list, read, create, update in part, soft delete (system personas are refused).

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, now, path_id};
use crate::api::model::{CursorPage, Data, Deleted, Persona, PersonaFields, PersonaUpdate, Timestamp};
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read, update, delete))
}

/// List personas.
#[utoipa::path(
    get,
    path = "/v1/persona",
    operation_id = "listPersonas",
    tag = "Simulation Persona",
    params(ListParams),
    responses(
        (status = 200, description = "One page of personas", body = CursorPage<Persona>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::Persona, params, OwnedFilter::default()).await
}

/// Get a persona.
#[utoipa::path(
    get,
    path = "/v1/persona/{id}",
    operation_id = "getPersona",
    tag = "Simulation Persona",
    params(("id" = Uuid, Path, description = "The persona's id")),
    responses(
        (status = 200, description = "The persona", body = Data<Persona>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Persona, &id)?;
    let persona: Persona = state.store.read(move |c| store::require(c, Kind::Persona, &id.to_string())).await?;
    Ok(data(&persona))
}

/// Create a persona.
#[utoipa::path(
    post,
    path = "/v1/persona",
    operation_id = "createPersona",
    tag = "Simulation Persona",
    request_body = PersonaFields,
    responses(
        (status = 201, description = "The persona", body = Data<Persona>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(fields): Valid<PersonaFields>) -> ServiceResult<Response> {
    let at = now();
    let persona = Persona {
        id: uuid::Uuid::new_v4(),
        is_system: Some(false),
        phone_number: None,
        created_at: Some(Timestamp(at.clone())),
        updated_at: Some(Timestamp(at.clone())),
        fields: fields.with_defaults(),
    };
    let stored = persona.clone();
    state.store.write(move |tx| store::insert(tx, &Doc::of(&stored)?)).await?;
    Ok(created(&persona))
}

/// Update a persona: the members given change, the rest are kept. System personas cannot be changed.
#[utoipa::path(
    put,
    path = "/v1/persona/{id}",
    operation_id = "updatePersona",
    tag = "Simulation Persona",
    params(("id" = Uuid, Path, description = "The persona's id")),
    request_body = PersonaUpdate,
    responses(
        (status = 200, description = "The persona", body = Data<Persona>),
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
    Valid(PersonaUpdate(changes, _)): Valid<PersonaUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Persona, &id)?.to_string();
    let persona = state
        .store
        .write(move |tx| {
            let mut persona: Persona = store::require(tx, Kind::Persona, &id)?;
            if persona.is_system == Some(true) {
                return Err(ServiceError::invalid("id", "system personas cannot be changed; create your own instead"));
            }
            persona.fields = persona.fields.merged(&changes).map_err(ServiceError::internal)?.with_defaults();
            persona.updated_at = Some(Timestamp::now());
            store::update(tx, &Doc::of(&persona)?)?;
            Ok(persona)
        })
        .await?;
    Ok(data(&persona))
}

/// Soft-delete a persona: hidden from reads and new simulations, history kept. System personas cannot be deleted.
#[utoipa::path(
    delete,
    path = "/v1/persona/{id}",
    operation_id = "deletePersona",
    tag = "Simulation Persona",
    params(("id" = Uuid, Path, description = "The persona's id")),
    responses(
        (status = 200, description = "The persona is deleted", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Persona, &id)?;
    state
        .store
        .write(move |tx| {
            let persona: Persona = store::require(tx, Kind::Persona, &id.to_string())?;
            if persona.is_system == Some(true) {
                return Err(ServiceError::invalid("personaId", "system personas cannot be deleted"));
            }
            store::soft_delete(tx, Kind::Persona, &id.to_string(), &now())?;
            Ok(())
        })
        .await?;
    Ok(data(&Deleted { id, deleted: true }))
}
