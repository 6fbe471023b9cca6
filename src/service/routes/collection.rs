//! Metric collection jobs: list (cursor, status filter), create, read, cancel, and the exact
//! values each job produced.

use axum::extract::{Path, State};
use axum::response::Response;
use rusqlite::Connection;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::calls::StatusParams;
use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{Params, Valid};
use crate::service::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

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
            let checks: [(&str, Kind, Vec<Uuid>); 4] = [
                ("metrics", Kind::MetricDefinition, input.metrics.iter().flatten().map(|m| m.id).collect()),
                ("policyIds", Kind::MetricPolicy, input.policy_ids.clone().unwrap_or_default()),
                ("callIds", Kind::Call, input.call_ids.clone().unwrap_or_default()),
                ("chatIds", Kind::Chat, input.chat_ids.clone().unwrap_or_default()),
            ];
            for (member, kind, ids) in &checks {
                for (i, id) in ids.iter().enumerate() {
                    if !store::exists(tx, *kind, &id.to_string())? {
                        let param =
                            if *member == "metrics" { format!("metrics[{i}].id") } else { format!("{member}[{i}]") };
                        return Err(ServiceError::invalid(&param, format!("{param}: no {} {id}", kind.label())));
                    }
                }
            }
            let at = Timestamp::now();
            let items = input.call_ids.as_ref().map_or(0, Vec::len) + input.chat_ids.as_ref().map_or(0, Vec::len);
            let job = CollectionJob {
                id: Uuid::new_v4(),
                status: Some(CollectionJobStatus::Pending),
                triggered_by: Some(TriggeredBy::UserApi),
                total_items: Some(items as u64),
                completed_items: Some(0),
                failed_items: Some(0),
                started_at: None,
                completed_at: None,
                error_message: None,
                policy_ids: input.policy_ids.clone().unwrap_or_default(),
                created_at: Some(at.clone()),
                updated_at: Some(at.clone()),
            };
            let mut body = serde_json::to_value(&job)?;
            body["request"] = serde_json::to_value(&input)?;
            store::insert(tx, &Doc::new(Kind::CollectionJob, job.id, &body, at.0)?.status(Some("PENDING")))?;
            Ok(job)
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
    let job = state
        .store
        .write(move |tx| {
            let mut body: serde_json::Value = store::require(tx, Kind::CollectionJob, &id)?;
            let job: CollectionJob = serde_json::from_value(body.clone())?;
            if job.status.as_ref().is_some_and(CollectionJobStatus::is_terminal) {
                let status = job.status.as_ref().map(|s| s.as_str()).unwrap_or_default();
                return Err(ServiceError::invalid("jobId", format!("the job has already ended ({status})")));
            }
            let at = Timestamp::now();
            body["status"] = "CANCELED".into();
            body["completedAt"] = serde_json::to_value(&at)?;
            body["updatedAt"] = serde_json::to_value(&at)?;
            let created_at = job.created_at.map(|t| t.0).unwrap_or_default();
            store::update(tx, &Doc::new(Kind::CollectionJob, &id, &body, created_at)?.status(Some("CANCELED")))?;
            Ok(serde_json::from_value::<CollectionJob>(body)?)
        })
        .await?;
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
    let groups = state
        .store
        .read(move |c| {
            store::require::<serde_json::Value>(c, Kind::CollectionJob, &id)?;
            value_groups(c, store::values::of_job(c, &id)?, &filter)
        })
        .await?;
    Ok(data(&groups))
}

/// Groups stored values (definition id, value body) by definition, in first-seen order, with
/// each group's header read from the current definition.
pub fn value_groups(
    conn: &Connection,
    rows: Vec<(String, String)>,
    filter: &ValueStatusFilter,
) -> ServiceResult<Vec<MetricValueGroup>> {
    let mut groups: Vec<MetricValueGroup> = Vec::new();
    for (definition_id, body) in rows {
        let mut value: MetricValue = serde_json::from_str(&body)?;
        let success = value.capture_status == Some(CaptureStatus::Success);
        if *filter == ValueStatusFilter::Success && !success {
            continue;
        }
        if !success {
            value.value = None;
        }
        // Values have no TURN context in the hosted interface: a turn is a segment range.
        if value.context == Some(MetricContext::Turn) {
            value.context = Some(MetricContext::SegmentRange);
        }
        let index = match groups.iter().position(|g| g.metric_definition_id.to_string() == definition_id) {
            Some(index) => index,
            None => {
                let definition: Option<MetricDefinition> = store::get(conn, Kind::MetricDefinition, &definition_id)?;
                groups.push(group_header(&definition_id, definition));
                groups.len() - 1
            }
        };
        groups[index].values.push(value);
    }
    Ok(groups)
}

fn group_header(id: &str, definition: Option<MetricDefinition>) -> MetricValueGroup {
    let definition_id = Uuid::parse_str(id).unwrap_or_default();
    match definition {
        // Every member the hosted interface requires is there, even for a metric since deleted.
        Some(d) => MetricValueGroup {
            metric_definition_id: d.id,
            slug: d.slug.clone(),
            metric_id: d.slug,
            name: d.name,
            description: Some(d.description.unwrap_or_default()),
            metric_type: d.metric_type,
            scope: d.scope,
            unit: d.unit,
            values: Vec::new(),
        },
        None => MetricValueGroup {
            metric_definition_id: definition_id,
            slug: Some(id.to_owned()),
            metric_id: Some(id.to_owned()),
            name: Some(id.to_owned()),
            description: Some(String::new()),
            metric_type: Some(MetricType::Numeric),
            scope: Some(MetricScope::Global),
            unit: None,
            values: Vec::new(),
        },
    }
}
