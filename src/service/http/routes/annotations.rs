//! Labels on judged values (local service extension): label one right or wrong, list them.

use axum::extract::State;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::annotations::annotate;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::Kind;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create))
}

/// Label a metric value on a call right or wrong (local service extension). The label keeps
/// the judge's value and the definition version that gave it; labelling the same value again
/// replaces its label (200), a first label answers 201.
#[utoipa::path(
    post,
    path = "/v1/metric/annotations",
    operation_id = "annotateMetricValue",
    tag = "Metric",
    request_body = AnnotationInput,
    responses(
        (status = 201, description = "The new label", body = Data<Annotation>),
        (status = 200, description = "The value's label, replaced", body = Data<Annotation>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<AnnotationInput>) -> ServiceResult<Response> {
    let (annotation, is_new) = state
        .store
        .write(move |tx| {
            let input = input.clone();
            annotate(tx, input)
        })
        .await?;
    Ok(if is_new { created(&annotation) } else { data(&annotation) })
}

/// List labels on judged values, newest first (local service extension).
#[utoipa::path(
    get,
    path = "/v1/metric/annotations",
    operation_id = "listMetricValueAnnotations",
    tag = "Metric",
    params(AnnotationQuery),
    responses(
        (status = 200, description = "One page of labels", body = CursorPage<Annotation>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(query): Params<AnnotationQuery>) -> ServiceResult<Response> {
    let params = ListParams { limit: query.limit, cursor: query.cursor, ..Default::default() };
    let mut filter = OwnedFilter { parent_id: query.call_id.map(|c| c.to_string()), ..Default::default() };
    if let Some(metric) = query.metric_definition_id {
        filter.fields.push(("$.metricDefinitionId".to_owned(), metric.to_string()));
    }
    list_kind(&state, Kind::Annotation, params, filter).await
}
