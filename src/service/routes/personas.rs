//! Personas: list, read, create, replace, soft delete (system personas are refused).

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;

use super::{ListParams, OwnedFilter, created, data, list_kind, now, path_id};
use crate::api::model::{Deleted, Persona, PersonaFields, Timestamp};
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{Params, Valid};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/persona", get(list).post(create))
        .route("/v1/persona/{id}", get(read).put(replace).delete(delete))
}

async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::Persona, params, OwnedFilter::default()).await
}

async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Persona, &id)?;
    let persona: Persona = state.store.read(move |c| store::require(c, Kind::Persona, &id.to_string())).await?;
    Ok(data(&persona))
}

async fn create(State(state): State<AppState>, Valid(fields): Valid<PersonaFields>) -> ServiceResult<Response> {
    let at = now();
    let persona = Persona {
        id: uuid::Uuid::new_v4(),
        is_system: Some(false),
        created_at: Some(Timestamp(at.clone())),
        updated_at: Some(Timestamp(at.clone())),
        fields,
    };
    let stored = persona.clone();
    state.store.write(move |tx| store::insert(tx, &Doc::new(Kind::Persona, stored.id, &stored, at)?)).await?;
    Ok(created(&persona))
}

async fn replace(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(fields): Valid<PersonaFields>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Persona, &id)?.to_string();
    let persona = state
        .store
        .write(move |tx| {
            let mut persona: Persona = store::require(tx, Kind::Persona, &id)?;
            if persona.is_system == Some(true) {
                return Err(ServiceError::invalid("id", "system personas cannot be changed; create your own instead"));
            }
            persona.fields = fields;
            persona.updated_at = Some(Timestamp::now());
            let created_at = persona.created_at.clone().map(|t| t.0).unwrap_or_default();
            store::update(tx, &Doc::new(Kind::Persona, &id, &persona, &created_at)?)?;
            Ok(persona)
        })
        .await?;
    Ok(data(&persona))
}

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
