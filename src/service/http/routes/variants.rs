//! A metric's variants: its Default and the workspace's own, listed, read, made, edited and
//! deleted in the hosted service's shapes (the rules are `metrics::variants`).

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{created, data};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{AnyBody, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::metrics::variants;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_variants, create_variant)).routes(routes!(
        read_variant,
        update_variant,
        delete_variant
    ))
}

/// List a metric's variants: its Default first, then the workspace's, oldest first.
#[utoipa::path(
    get,
    path = "/v1/metric/definitions/{id}/variants",
    operation_id = "listMetricDefinitionVariants",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug")),
    responses(
        (status = 200, description = "Every variant of the metric", body = Data<Vec<MetricVariant>>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_variants(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let found = state.store.read(move |c| variants::list(c, &id)).await?;
    Ok(data(&found))
}

/// Make a variant of a metric, configured as its Default; edit it with PUT. Threshold metrics
/// have no variants; `name` is unique among the metric's variants and not `Default`.
#[utoipa::path(
    post,
    path = "/v1/metric/definitions/{id}/variants",
    operation_id = "createMetricDefinitionVariant",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug")),
    request_body = MetricVariantInput,
    responses(
        (status = 201, description = "The new variant", body = Data<MetricVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_variant(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(input): Valid<MetricVariantInput>,
) -> ServiceResult<Response> {
    let name = input.name.unwrap_or_default();
    let variant = state.store.write(move |tx| variants::create(tx, &id, &name)).await?;
    Ok(created(&variant))
}

/// Get a variant of a metric definition.
#[utoipa::path(
    get,
    path = "/v1/metric/definitions/{id}/variants/{variant}",
    operation_id = "getMetricDefinitionVariant",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug"), ("variant" = String, Path, description = "The variant: `default`, the definition's variantId, or a workspace variant's id or name")),
    responses(
        (status = 200, description = "The variant, with the definition as it configures it", body = Data<MetricVariant>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_variant(
    State(state): State<AppState>,
    Path((id, variant)): Path<(String, String)>,
) -> ServiceResult<Response> {
    let found = state.store.read(move |c| variants::variant(c, &id, &variant)).await?;
    Ok(data(&found))
}

/// Edit a variant as a new version; `name` renames it (the version stays). A name no variant
/// has forks the definition under it (local service extension). A caller-owned metric's Default
/// is the definition itself; a service-owned metric's Default is not edited here.
///
/// Rules between members that no JSON Schema states, each a 400 naming the member:
/// `scaleMax` is greater than `scaleMin`; the shape's members fit the metric's type.
#[utoipa::path(
    put,
    path = "/v1/metric/definitions/{id}/variants/{variant}",
    operation_id = "updateMetricDefinitionVariant",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug"), ("variant" = String, Path, description = "The variant: a workspace variant's id or name (a new name forks the definition), or `default`")),
    request_body = MetricDefinitionUpdate,
    responses(
        (status = 200, description = "The variant as edited, with the definition as it configures it", body = Data<MetricVariant>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_variant(
    State(state): State<AppState>,
    Path((id, variant)): Path<(String, String)>,
    Valid(update): Valid<MetricDefinitionUpdate>,
) -> ServiceResult<Response> {
    let updated = state.store.write(move |tx| variants::update(tx, &id, &variant, update.clone())).await?;
    Ok(data(&updated))
}

/// Delete one of the workspace's variants (values it scored are kept). The Default cannot be
/// deleted.
#[utoipa::path(
    delete,
    path = "/v1/metric/definitions/{id}/variants/{variant}",
    operation_id = "deleteMetricDefinitionVariant",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug"), ("variant" = String, Path, description = "A workspace variant's id or name")),
    responses(
        (status = 200, description = "`{id, deleted: true}`", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete_variant(
    State(state): State<AppState>,
    Path((id, variant)): Path<(String, String)>,
    _body: AnyBody,
) -> ServiceResult<Response> {
    let deleted = state.store.write(move |tx| variants::delete(tx, &id, &variant)).await?;
    Ok(data(&Deleted { id: deleted, deleted: true }))
}
