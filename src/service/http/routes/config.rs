//! Config as code: apply a bundle, or see what applying it would change. The rules live in
//! `service::config`.

use axum::extract::State;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::data;
use crate::api::model::Data;
use crate::api::model::config::{ConfigBundle, ConfigChanges, ConfigRecordEntry};
use crate::service::AppState;
use crate::service::config;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::Valid;
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, PayloadTooLarge, TooManyRequests, Unauthorized,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(apply)).routes(routes!(diff)).routes(routes!(records))
}

/// Reconcile the workspace with a bundle: resources made or changed to match it, and (unless
/// `prune` is false) the ones an earlier apply made that it no longer holds deleted. Identity is
/// by `kind` and `name`. All or nothing: a bundle with any problem is refused whole, every
/// problem listed.
#[utoipa::path(
    post,
    path = "/v1/config/apply",
    operation_id = "applyConfig",
    tag = "Config",
    request_body = ConfigBundle,
    responses(
        (status = 200, description = "What the apply changed", body = Data<ConfigChanges>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn apply(State(state): State<AppState>, Valid(bundle): Valid<ConfigBundle>) -> ServiceResult<Response> {
    let vault = state.store.vault();
    let changes = state.store.write(move |tx| config::run(tx, Some(tx), &vault, &bundle)).await?;
    Ok(data(&changes))
}

/// What applying a bundle would change, refusals included; nothing is written.
#[utoipa::path(
    post,
    path = "/v1/config/diff",
    operation_id = "diffConfig",
    tag = "Config",
    request_body = ConfigBundle,
    responses(
        (status = 200, description = "What an apply would change", body = Data<ConfigChanges>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn diff(State(state): State<AppState>, Valid(bundle): Valid<ConfigBundle>) -> ServiceResult<Response> {
    let vault = state.store.vault();
    let changes = state.store.read(move |conn| config::run(conn, None, &vault, &bundle)).await?;
    Ok(data(&changes))
}

/// What earlier applies made, each by its bundle name (a local service extension): `config
/// export` reads it so that every resource comes back under the name its bundle gave it.
#[utoipa::path(
    get,
    path = "/v1/config/records",
    operation_id = "listConfigRecords",
    tag = "Config",
    responses(
        (status = 200, description = "Each resource an apply made, by kind and name", body = Data<Vec<ConfigRecordEntry>>),
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn records(State(state): State<AppState>) -> ServiceResult<Response> {
    let records = state.store.read(config::records).await?;
    Ok(data(&records))
}
