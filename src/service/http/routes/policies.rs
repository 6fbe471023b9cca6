//! Metric policies: list, read, create, update (PUT, the hosted interface's verb, and PATCH,
//! this service's older one, take the same partial body) and delete (not a system policy).

use crate::service::store::Tx;
use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{AnyBody, Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::metrics::policies;
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_policies, create_policy)).routes(routes!(
        read_policy,
        update_policy,
        patch_policy,
        delete_policy
    ))
}

/// List metric policies.
#[utoipa::path(
    get,
    path = "/v1/metric/policies",
    operation_id = "listMetricPolicies",
    tag = "Metric Policy",
    params(ListParams),
    responses(
        (status = 200, description = "One page of policies", body = CursorPage<MetricPolicy>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_policies(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::MetricPolicy, params, OwnedFilter::default()).await
}

/// Get a metric policy.
#[utoipa::path(
    get,
    path = "/v1/metric/policies/{id}",
    operation_id = "getMetricPolicy",
    tag = "Metric Policy",
    params(("id" = Uuid, Path, description = "The policy's id")),
    responses(
        (status = 200, description = "The policy", body = Data<MetricPolicy>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_policy(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::MetricPolicy, &id)?.to_string();
    let policy: MetricPolicy = state.store.read(move |c| store::require(c, Kind::MetricPolicy, &id)).await?;
    Ok(data(&policy))
}

fn policy_doc(policy: &MetricPolicy) -> ServiceResult<Doc> {
    Ok(Doc::of(policy)?)
}

/// Every metric must exist and support the policy's modality; the 400 names `metrics[i].id`.
fn check_metrics(tx: &Tx, metrics: &[PolicyMetric], modality: &Modality) -> ServiceResult<()> {
    for (i, metric) in metrics.iter().enumerate() {
        let param = format!("metrics[{i}].id");
        let definition: MetricDefinition = store::get(tx, Kind::MetricDefinition, &metric.id.to_string())?
            .ok_or_else(|| ServiceError::invalid(&param, format!("{param}: no metric definition {}", metric.id)))?;
        if !definition.supports_modality(modality) {
            let name = definition.name.unwrap_or_default();
            return Err(ServiceError::invalid(&param, format!("{param}: {name} does not support {modality}s")));
        }
    }
    Ok(())
}

fn conditions(groups: Vec<ConditionGroupInput>) -> Vec<ConditionGroup> {
    groups
        .into_iter()
        .map(|group| ConditionGroup {
            conditions: group.conditions.into_iter().map(ConditionInput::into_condition).collect(),
        })
        .collect()
}

/// Create a metric policy.
#[utoipa::path(
    post,
    path = "/v1/metric/policies",
    operation_id = "createMetricPolicy",
    tag = "Metric Policy",
    request_body = PolicyInput,
    responses(
        (status = 201, description = "The policy", body = Data<MetricPolicy>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_policy(State(state): State<AppState>, Valid(input): Valid<PolicyInput>) -> ServiceResult<Response> {
    let policy = state
        .store
        .write(move |tx| -> ServiceResult<_> {
            let input = input.clone();
            let modality = input.modality.clone().unwrap_or(Modality::Call);
            let metrics = input.metrics.unwrap_or_default();
            check_metrics(tx, &metrics, &modality)?;
            let at = Timestamp::now();
            let policy = MetricPolicy {
                id: Uuid::new_v4(),
                name: input.name,
                policy_type: Some(PolicyType::User),
                status: Some(input.status.unwrap_or(PolicyStatus::Active)),
                modality: Some(modality),
                conditions: conditions(input.conditions.unwrap_or_default()),
                metrics,
                created_at: Some(at.clone()),
                updated_at: Some(at),
            };
            store::insert(tx, &policy_doc(&policy)?)?;
            Ok(policy)
        })
        .await?;
    Ok(created(&policy))
}

/// Update a metric policy: the members given change (`conditions` and `metrics` replace the
/// whole list).
#[utoipa::path(
    put,
    path = "/v1/metric/policies/{id}",
    operation_id = "updateMetricPolicy",
    tag = "Metric Policy",
    params(("id" = Uuid, Path, description = "The policy's id")),
    request_body = PolicyUpdate,
    responses(
        (status = 200, description = "The policy", body = Data<MetricPolicy>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_policy(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<PolicyUpdate>,
) -> ServiceResult<Response> {
    apply(state, id, update).await
}

/// The same update by PATCH.
#[utoipa::path(
    patch,
    path = "/v1/metric/policies/{id}",
    operation_id = "patchMetricPolicy",
    tag = "Metric Policy",
    params(("id" = Uuid, Path, description = "The policy's id")),
    request_body = PolicyUpdate,
    responses(
        (status = 200, description = "The policy", body = Data<MetricPolicy>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn patch_policy(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<PolicyUpdate>,
) -> ServiceResult<Response> {
    apply(state, id, update).await
}

async fn apply(state: AppState, id: String, update: PolicyUpdate) -> ServiceResult<Response> {
    let id = path_id(Kind::MetricPolicy, &id)?.to_string();
    let policy = state
        .store
        .write(move |tx| -> ServiceResult<_> {
            let update = update.clone();
            let mut policy: MetricPolicy = store::require(tx, Kind::MetricPolicy, &id)?;
            if let Some(metrics) = update.metrics {
                check_metrics(tx, &metrics, policy.modality.as_ref().unwrap_or(&Modality::Call))?;
                policy.metrics = metrics;
            }
            if let Some(groups) = update.conditions {
                policy.conditions = conditions(groups);
            }
            if let Some(status) = update.status {
                policy.status = Some(status);
            }
            if let Some(name) = update.name {
                policy.name = Some(name);
            }
            policy.updated_at = Some(Timestamp::now());
            store::update(tx, &policy_doc(&policy)?)?;
            Ok(policy)
        })
        .await?;
    Ok(data(&policy))
}

/// Delete a metric policy: hidden from every read, and no longer applied to new calls. System
/// policies cannot be deleted (400; set their status INACTIVE instead).
#[utoipa::path(
    delete,
    path = "/v1/metric/policies/{id}",
    operation_id = "deleteMetricPolicy",
    tag = "Metric Policy",
    params(("id" = Uuid, Path, description = "The policy's id")),
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
async fn delete_policy(
    State(state): State<AppState>,
    Path(id): Path<String>,
    _body: AnyBody,
) -> ServiceResult<Response> {
    let id = path_id(Kind::MetricPolicy, &id)?;
    let deleted = id.to_string();
    state.store.write(move |tx| policies::delete(tx, &deleted)).await?;
    Ok(data(&Deleted { id, deleted: true }))
}
