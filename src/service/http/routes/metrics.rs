//! Metric definitions: versions and thresholds (their variants are `variants`).

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Body, Params, Valid, validated};
use crate::service::http::openapi::{
    BadRequest, Conflict, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::metrics::definitions;
use crate::service::store::Kind;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update))
        .routes(routes!(versions))
        .routes(routes!(create_threshold))
}

/// List metric definitions.
#[utoipa::path(
    get,
    path = "/v1/metric/definitions",
    operation_id = "listMetricDefinitions",
    tag = "Metric",
    params(ListParams),
    responses(
        (status = 200, description = "One page of definitions", body = CursorPage<MetricDefinition>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::MetricDefinition, params, OwnedFilter::default()).await
}

/// Get a metric definition by uuid or slug.
#[utoipa::path(
    get,
    path = "/v1/metric/definitions/{id}",
    operation_id = "getMetricDefinition",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug")),
    responses(
        (status = 200, description = "The definition", body = Data<MetricDefinition>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let definition = state.store.read(move |c| definitions::resolve(c, &id)).await?;
    Ok(data(&definition))
}

/// List a metric definition's versions, newest first.
#[utoipa::path(
    get,
    path = "/v1/metric/definitions/{id}/versions",
    operation_id = "listMetricDefinitionVersions",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug")),
    responses(
        (status = 200, description = "Every version", body = Data<Vec<MetricDefinition>>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn versions(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let versions = state.store.read(move |c| definitions::versions(c, &id)).await?;
    Ok(data(&versions))
}

/// Create a caller-owned custom metric.
///
/// Rules between members that no JSON Schema states, each a 400 naming the member:
/// `scaleMax` is greater than `scaleMin`; `type` and `outputType`, when both are given, agree;
/// an LLM_JUDGE metric has `llmPrompt`, a FORMULA metric `formula` and `sources`; the
/// shape's members fit its type (scale labels inside the scale, at least two classification
/// options); every id names something that exists. A taken slug is a 409 `slug_taken`.
#[utoipa::path(
    post,
    path = "/v1/metric/definitions",
    operation_id = "createMetricDefinition",
    tag = "Metric",
    request_body = MetricDefinitionInput,
    responses(
        (status = 201, description = "The definition, at version 1", body = Data<MetricDefinition>),
        BadRequest,
        Unauthorized,
        Forbidden,
        Conflict,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<MetricDefinitionInput>) -> ServiceResult<Response> {
    let definition = state
        .store
        .write(move |tx| {
            let input = input.clone();
            definitions::create(tx, input)
        })
        .await?;
    Ok(created(&definition))
}

/// Update a caller-owned metric definition as a new immutable version; only supplied fields change. Immutable fields and service-owned metrics are rejected.
///
/// Rules between members that no JSON Schema states, each a 400 naming the member:
/// `scaleMax` is greater than `scaleMin` (the stored one where only one is given); the shape's
/// members fit the metric's type; every id names something that exists.
#[utoipa::path(
    put,
    path = "/v1/metric/definitions/{id}",
    operation_id = "updateMetricDefinition",
    tag = "Metric",
    params(("id" = String, Path, description = "The metric definition's uuid or slug")),
    request_body = MetricDefinitionUpdate,
    responses(
        (status = 200, description = "The definition at its new version", body = Data<MetricDefinition>),
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
    Valid(update): Valid<MetricDefinitionUpdate>,
) -> ServiceResult<Response> {
    let definition = state
        .store
        .write(move |tx| {
            let update = update.clone();
            definitions::update(tx, &id, update)
        })
        .await?;
    Ok(data(&definition))
}

/// Create a threshold on a metric: a boolean metric that fires when the source meets the comparison.
#[utoipa::path(
    post,
    path = "/v1/metric/definitions/{id}/thresholds",
    operation_id = "createThreshold",
    tag = "Metric",
    params(("id" = String, Path, description = "The source metric's uuid or slug")),
    request_body = ThresholdInput,
    responses(
        (status = 201, description = "The new THRESHOLD metric", body = Data<MetricDefinition>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_threshold(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body,
) -> ServiceResult<Response> {
    // The metric is looked up first: an unknown one is a 404 whatever the body says.
    let lookup = id.clone();
    state.store.read(move |c| definitions::resolve(c, &lookup)).await?;
    let input: ThresholdInput = validated(&body)?;
    let definition = state
        .store
        .write(move |tx| {
            let input = input.clone();
            definitions::create_threshold(tx, &id, input)
        })
        .await?;
    Ok(created(&definition))
}
