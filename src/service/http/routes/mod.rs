//! The HTTP interface, one file per resource group.

mod agents;
mod alerts;
mod annotations;
mod benchmarks;
mod calls;
mod chats;
mod collection;
mod config;
mod environments;
mod events;
mod flow_variants;
mod flows;
mod issues;
mod knowledge;
mod metrics;
mod personas;
mod plans;
mod policies;
mod request_definitions;
mod results;
mod simulation;
mod variants;
mod webhooks;
mod wide_list;

use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AppState;
use super::error::{ServiceError, ServiceResult};
use super::openapi::{TooManyRequests, Unauthorized, Unavailable};
use super::store::{self, Filter, Kind};
use crate::api::ErrorType;
use crate::api::model::collection::collection_limits;
use crate::api::validate::{Checks, ECHO_CHARS, Validate, clip, join, quote};
use crate::api::wire_enum::WireEnum;
pub use wide_list::WideListParams;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(health_unversioned))
        .routes(routes!(health))
        .routes(routes!(ready))
        .merge(agents::router())
        .merge(alerts::router())
        .merge(annotations::router())
        .merge(benchmarks::router())
        .merge(calls::router())
        .merge(chats::router())
        .merge(collection::router())
        .merge(config::router())
        .merge(environments::router())
        .merge(events::router())
        .merge(flows::router())
        .merge(flow_variants::router())
        .merge(issues::router())
        .merge(knowledge::router())
        .merge(metrics::router())
        .merge(personas::router())
        .merge(plans::router())
        .merge(policies::router())
        .merge(request_definitions::router())
        .merge(results::router())
        .merge(simulation::router())
        .merge(variants::router())
        .merge(webhooks::router())
}

/// Whether the key was accepted, and for which account.
#[utoipa::path(
    get,
    path = "/v1/health",
    operation_id = "getHealth",
    tag = "Health",
    responses(
        (status = 200, description = "The key was accepted", body = crate::api::model::Health),
        Unauthorized,
        TooManyRequests,
    )
)]
async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
    access: Option<axum::Extension<crate::service::Access>>,
) -> Response {
    let scope = match access.map(|a| a.0) {
        Some(crate::service::Access::ReadOnly) => "read",
        _ => "full",
    };
    // The spec's members at the top, the hosted SDK's inside `data`; both say the key's scope.
    let health = serde_json::json!({
        "authenticated": true,
        "account": &*state.account,
        "scope": scope,
        "status": "healthy",
        "timestamp": crate::api::model::Timestamp::now(),
        "version": env!("CARGO_PKG_VERSION"),
    });
    let mut body = health.clone();
    body["data"] = health;
    axum::Json(body).into_response()
}

/// The health check without the version prefix.
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "getHealthUnversioned",
    tag = "Health",
    responses(
        (status = 200, description = "The key was accepted", body = crate::api::model::Health),
        Unauthorized,
        TooManyRequests,
    )
)]
async fn health_unversioned(
    state: axum::extract::State<AppState>,
    access: Option<axum::Extension<crate::service::Access>>,
) -> Response {
    health(state, access).await
}

/// A readiness check for load balancers, served without a key: 200 while this replica's store
/// answers, 503 (with the error body) while it does not or while the replica stops.
#[utoipa::path(
    get,
    path = "/ready",
    operation_id = "getReady",
    tag = "Health",
    responses(
        (status = 200, description = "This replica can serve: its store answered", body = Object),
        Unavailable,
    ),
    security(())
)]
async fn ready(axum::extract::State(state): axum::extract::State<AppState>) -> ServiceResult<Response> {
    let closing = *state.closing.borrow();
    state.readiness.check(&state.store, closing).await?;
    Ok(axum::Json(serde_json::json!({ "status": "ready" })).into_response())
}

pub async fn unknown_route(uri: Uri) -> ServiceError {
    ServiceError::new(
        StatusCode::NOT_FOUND,
        ErrorType::NotFound,
        "resource_not_found",
        format!("no route {}", clip(uri.path(), ECHO_CHARS)),
    )
}

pub async fn method_not_allowed(method: axum::http::Method, uri: Uri) -> ServiceError {
    let message = format!("{} does not accept {}", clip(uri.path(), ECHO_CHARS), quote(method.as_str()));
    ServiceError::new(StatusCode::METHOD_NOT_ALLOWED, ErrorType::NotFound, "method_not_allowed", message)
}

/// `{data}` with 200.
pub fn data<T: Serialize>(value: &T) -> Response {
    axum::Json(serde_json::json!({ "data": value })).into_response()
}

/// `{data}` with 201.
pub fn created<T: Serialize>(value: &T) -> Response {
    (StatusCode::CREATED, axum::Json(serde_json::json!({ "data": value }))).into_response()
}

/// `{data: [...], pagination}` spliced from stored JSON, without decoding each document.
pub fn page_response(page: store::Page) -> Response {
    let mut out = String::with_capacity(page.bodies.iter().map(|b| b.len() + 1).sum::<usize>() + 96);
    out.push_str("{\"data\":[");
    out.push_str(&page.bodies.join(","));
    out.push_str("],\"pagination\":");
    let pagination = serde_json::json!({
        "total": page.total,
        "hasMore": page.next_cursor.is_some(),
        "nextCursor": page.next_cursor,
        "limit": page.limit,
    });
    out.push_str(&pagination.to_string());
    out.push('}');
    ([(axum::http::header::CONTENT_TYPE, "application/json")], out).into_response()
}

/// Query of every cursor-paged list: `limit`, `cursor` (alias `after`) and the filters lists take.
/// The document lists the filters on the operations that read them.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Page size.
    #[param(minimum = 1, maximum = 50, default = 20)]
    pub limit: Option<i64>,
    /// The `nextCursor` of a previous response; a cursor this service did not issue is a 400.
    pub cursor: Option<String>,
    /// Alias of `cursor`. Given with a different `cursor` it is a 400 naming `after` (a rule
    /// between two parameters, which their schemas cannot state).
    pub after: Option<String>,
    #[param(ignore)]
    pub status: Option<String>,
    #[param(ignore)]
    pub severity: Option<String>,
    #[param(ignore)]
    pub source: Option<String>,
    #[param(ignore)]
    pub plan_id: Option<String>,
    #[param(ignore)]
    pub simulation_run_plan_id: Option<String>,
    #[param(ignore)]
    pub agent_id: Option<String>,
    #[param(ignore)]
    pub simulation_run_plan_job_id: Option<String>,
    #[param(ignore)]
    pub started_after: Option<String>,
    #[param(ignore)]
    pub started_before: Option<String>,
    #[param(ignore)]
    pub outcome: Option<String>,
    #[param(ignore)]
    pub sort: Option<String>,
}

impl Validate for ListParams {
    fn check(&self, c: &mut Checks, at: &str) {
        self.check_within(c, at, collection_limits::LIST_LIMIT_MAX);
    }
}

impl ListParams {
    /// The checks of every list, pages of at most `limit_max`.
    fn check_within(&self, c: &mut Checks, at: &str, limit_max: i64) {
        c.range(at, "limit", self.limit, Some(collection_limits::LIST_LIMIT_MIN), Some(limit_max));
        if let (Some(cursor), Some(after)) = (&self.cursor, &self.after)
            && cursor != after
        {
            c.invalid(join(at, "after"), "after is another name of cursor; give one of them");
        }
        for (param, value) in [
            ("planId", &self.plan_id),
            ("simulationRunPlanId", &self.simulation_run_plan_id),
            ("agentId", &self.agent_id),
            ("simulationRunPlanJobId", &self.simulation_run_plan_job_id),
        ] {
            if let Some(text) = value
                && uuid::Uuid::parse_str(text).is_err()
            {
                c.invalid(join(at, param), format!("{param} must be a UUID"));
            }
        }
        for (param, value) in [("startedAfter", &self.started_after), ("startedBefore", &self.started_before)] {
            if let Some(text) = value
                && !crate::api::model::Timestamp(text.clone()).is_rfc3339()
            {
                c.invalid(join(at, param), format!("{param} must be an RFC 3339 date-time (2024-05-01T09:30:00Z)"));
            }
        }
    }
}

impl ListParams {
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref().or(self.after.as_deref())
    }

    pub fn limit(&self) -> u64 {
        self.limit.unwrap_or(collection_limits::LIST_LIMIT_DEFAULT) as u64
    }
}

/// Answers one page of a kind.
pub async fn list_kind(
    state: &AppState,
    kind: Kind,
    params: ListParams,
    filter: OwnedFilter,
) -> ServiceResult<Response> {
    let page = state
        .store
        .read(move |conn| {
            let fields = filter.fields.iter().map(|(p, v)| (p.as_str(), v.clone())).collect();
            let window = filter.window.as_ref().map(|(path, from, to)| (path.as_str(), from.clone(), to.clone()));
            let filter = Filter {
                status: filter.status.as_deref(),
                parent_id: filter.parent_id.as_deref(),
                fields,
                window,
                oldest_first: filter.oldest_first,
            };
            store::list(conn, kind, &filter, params.cursor(), params.limit())
        })
        .await?;
    Ok(page_response(page))
}

/// A list filter that can move to the store's thread.
#[derive(Debug, Default)]
pub struct OwnedFilter {
    pub status: Option<String>,
    pub parent_id: Option<String>,
    pub fields: Vec<(String, String)>,
    /// `(path, from, to)` on a timestamp member, bounds in UTC RFC 3339.
    pub window: Option<(String, Option<String>, Option<String>)>,
    pub oldest_first: bool,
}

/// Checks a filter value against an enum's known values, naming the parameter when it is not one.
pub fn known_value<E: WireEnum>(param: &str, value: Option<&str>) -> ServiceResult<Option<String>> {
    match value {
        None => Ok(None),
        Some(text) if E::from(text).is_known_value() => Ok(Some(text.to_owned())),
        Some(text) => {
            Err(ServiceError::invalid(param, format!("{param} {} is not one of {}", quote(text), E::known_list())))
        }
    }
}

/// Parses a path id: text that cannot be one is a 400 naming the path parameter, as an id
/// filter's is (the request screen refuses it first on every route whose parameter is an id;
/// this is the handler's own guard).
pub fn path_id(kind: Kind, text: &str) -> ServiceResult<uuid::Uuid> {
    uuid::Uuid::parse_str(text).map_err(|_| {
        let message = format!("id must be the {}'s id, a UUID, not {}", kind.label(), quote(text));
        ServiceError::invalid("id", message)
    })
}

/// Now, as the service writes timestamps.
pub fn now() -> String {
    crate::api::model::Timestamp::now().0
}
