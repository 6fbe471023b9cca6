//! Metric collection jobs: list (cursor, status filter), create, read, cancel, and the exact
//! values each job produced.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::calls::StatusParams;
use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::metrics::collection_requests;
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read))
        .routes(routes!(cancel))
        .routes(routes!(values))
}

/// List metric collection jobs (cursor paging).
#[utoipa::path(
    get,
    path = "/v1/metric/collection-jobs",
    operation_id = "listCollectionJobs",
    tag = "Metric Collection Job",
    params(CollectionJobQuery),
    responses(
        (status = 200, description = "One page of jobs", body = CursorPage<CollectionJob>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(query): Params<CollectionJobQuery>) -> ServiceResult<Response> {
    let params = ListParams { limit: query.limit, cursor: query.cursor, after: query.after, ..Default::default() };
    let filter = OwnedFilter { status: query.status.map(|s| s.as_str().to_owned()), ..Default::default() };
    list_kind(&state, Kind::CollectionJob, params, filter).await
}

/// Get a metric collection job.
#[utoipa::path(
    get,
    path = "/v1/metric/collection-jobs/{id}",
    operation_id = "getCollectionJob",
    tag = "Metric Collection Job",
    params(("id" = Uuid, Path, description = "The job's id")),
    responses(
        (status = 200, description = "The job", body = Data<CollectionJob>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::CollectionJob, &id)?.to_string();
    let job: CollectionJob = state.store.read(move |c| store::require(c, Kind::CollectionJob, &id)).await?;
    Ok(data(&job))
}

/// Creates a PENDING job after checking every reference; the metric engine picks it up.
#[utoipa::path(
    post,
    path = "/v1/metric/collection-jobs",
    operation_id = "createCollectionJob",
    tag = "Metric Collection Job",
    request_body = CollectionJobInput,
    responses(
        (status = 201, description = "The PENDING job", body = Data<CollectionJob>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(mut input): Valid<CollectionJobInput>) -> ServiceResult<Response> {
    let collector = state.collector.clone();
    // The hosted single `policyId` is a list of one here.
    if let Some(policy) = input.policy_id.take() {
        input.policy_ids = Some(vec![policy]);
    }
    let job = state
        .store
        .write(move |tx| {
            let input = input.clone();
            collection_requests::create(tx, input)
        })
        .await?;
    collector.wake();
    Ok(created(&job))
}

/// Cancels a job that has not ended; what was computed is kept.
#[utoipa::path(
    post,
    path = "/v1/metric/collection-jobs/{id}/cancel",
    operation_id = "cancelCollectionJob",
    tag = "Metric Collection Job",
    params(("id" = Uuid, Path, description = "The job's id")),
    responses(
        (status = 200, description = "The CANCELED job", body = Data<CollectionJob>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::CollectionJob, &id)?.to_string();
    let job = state.store.write(move |tx| collection_requests::cancel(tx, &id)).await?;
    Ok(data(&job))
}

/// Get exactly the metric values this job produced, even where later jobs overwrote them.
#[utoipa::path(
    get,
    path = "/v1/metric/collection-jobs/{id}/metric-values",
    operation_id = "listCollectionJobMetricValues",
    tag = "Metric Collection Job",
    params(("id" = Uuid, Path, description = "The job's id"), StatusParams),
    responses(
        (status = 200, description = "One group per metric definition", body = Data<Vec<MetricValueGroup>>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn values(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<StatusParams>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::CollectionJob, &id)?.to_string();
    let filter = q.filter()?;
    let groups = state.store.read(move |c| collection_requests::values(c, &id, &filter)).await?;
    Ok(data(&groups))
}
