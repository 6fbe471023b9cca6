//! Alerts as the console and scripts read them (local service extension): each with where its
//! threshold trigger stands. Alerts are written with `config apply` (`kind: alert`).

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::data;
use crate::api::model::{AlertStatus, Data};
use crate::service::AppState;
use crate::service::alerts::status;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::openapi::{InternalError, NotFound, TooManyRequests, Unauthorized};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list)).routes(routes!(read))
}

/// List alerts with their state (local service extension).
#[utoipa::path(
    get,
    path = "/v1/alert",
    operation_id = "listAlerts",
    tag = "Alert",
    responses(
        (status = 200, description = "Every alert, oldest first, with its state", body = Data<Vec<AlertStatus>>),
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>) -> ServiceResult<Response> {
    let alerts = state.store.read(status::all).await?;
    Ok(data(&alerts))
}

/// Get an alert with its state, by id or name (local service extension).
#[utoipa::path(
    get,
    path = "/v1/alert/{idOrName}",
    operation_id = "getAlert",
    tag = "Alert",
    params(("idOrName" = String, Path, description = "The alert's id, its bundle name, or its display name")),
    responses(
        (status = 200, description = "The alert with its state", body = Data<AlertStatus>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id_or_name): Path<String>) -> ServiceResult<Response> {
    let key = id_or_name.clone();
    let found = state.store.read(move |c| status::find(c, &key)).await?;
    let alert = found.ok_or_else(|| ServiceError::not_found("alert", &id_or_name))?;
    Ok(data(&alert))
}
