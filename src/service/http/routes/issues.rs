//! Issues: create with evidence in one transaction, list, read, and change status or severity.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::{ListParams, OwnedFilter, created, data, known_value, list_kind, path_id};
use crate::api::model::{
    CursorPage, Data, Evidence, Issue, IssueInput, IssueSource, IssueStatus, IssueUpdate, Severity, Timestamp,
};
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::issues::{ORGANIZATION_ID, PROJECT_ID, issue_doc};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read, update))
}

/// List issues.
#[utoipa::path(
    get,
    path = "/v1/issue",
    operation_id = "listIssues",
    tag = "Issue",
    params(ListParams, ("status" = Option<IssueStatus>, Query, description = "Only issues in this status"), ("severity" = Option<Severity>, Query, description = "Only issues of this severity"), ("source" = Option<IssueSource>, Query, description = "Only issues from this source: TREND_ALERT for those alerts opened (local service extension)")),
    responses(
        (status = 200, description = "One page of issues", body = CursorPage<Issue>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    let status = known_value::<IssueStatus>("status", params.status.as_deref())?;
    let severity = known_value::<Severity>("severity", params.severity.as_deref())?;
    let source = known_value::<IssueSource>("source", params.source.as_deref())?;
    let fields = [("$.severity", severity), ("$.source", source)];
    let filter = OwnedFilter {
        status,
        fields: fields.into_iter().filter_map(|(path, v)| Some((path.to_owned(), v?))).collect(),
        ..Default::default()
    };
    list_kind(&state, Kind::Issue, params, filter).await
}

/// Get an issue.
#[utoipa::path(
    get,
    path = "/v1/issue/{id}",
    operation_id = "getIssue",
    tag = "Issue",
    params(("id" = Uuid, Path, description = "The issue's id")),
    responses(
        (status = 200, description = "The issue", body = Data<Issue>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Issue, &id)?.to_string();
    let issue: Issue = state.store.read(move |c| store::require(c, Kind::Issue, &id)).await?;
    Ok(data(&issue))
}

/// Create an issue, with its evidence attached in the same transaction: one invalid reference fails it all.
#[utoipa::path(
    post,
    path = "/v1/issue",
    operation_id = "createIssue",
    tag = "Issue",
    request_body = IssueInput,
    responses(
        (status = 201, description = "The issue, with source API", body = Data<Issue>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<IssueInput>) -> ServiceResult<Response> {
    let issue = state
        .store
        .write(move |tx| {
            let input = input.clone();
            let at = Timestamp::now();
            let mut evidence = Vec::new();
            // Every reference is checked before anything is written: one bad id fails it all.
            for (i, entry) in input.evidence.iter().flatten().enumerate() {
                let (kind, id, member) = match (entry.call_id, entry.chat_id) {
                    (Some(id), _) => (Kind::Call, id, "callId"),
                    (None, Some(id)) => (Kind::Chat, id, "chatId"),
                    (None, None) => unreachable!("validate() requires one"),
                };
                if !store::exists(tx, kind, &id.to_string())? {
                    return Err(ServiceError::invalid(
                        format!("evidence[{i}].{member}"),
                        format!("evidence[{i}].{member}: no {} {id}", kind.label()),
                    ));
                }
                evidence.push(Evidence {
                    id: Some(Uuid::new_v4()),
                    call_id: entry.call_id,
                    chat_id: entry.chat_id,
                    observed_at: Some(at.clone()),
                });
            }
            let title = input.title.unwrap_or_default();
            let issue = Issue {
                id: Uuid::new_v4(),
                organization_id: Some(ORGANIZATION_ID),
                project_id: Some(PROJECT_ID),
                alert_id: None,
                source: Some(IssueSource::Api),
                fingerprint: Some(format!("api:{}", Uuid::new_v5(&Uuid::NAMESPACE_OID, title.as_bytes()).simple())),
                title: Some(title),
                summary: input.summary,
                severity: input.severity,
                status: Some(IssueStatus::Open),
                event_count: Some(evidence.len().max(1) as u64),
                last_event_at: Some(at.clone()),
                opened_at: Some(at.clone()),
                resolved_at: None,
                assignee_user_id: None,
                evidence,
                created_at: Some(at.clone()),
                updated_at: Some(at.clone()),
            };
            store::insert(tx, &issue_doc(&issue)?)?;
            Ok(issue)
        })
        .await?;
    Ok(created(&issue))
}

/// Change an issue's status, severity or assignee.
#[utoipa::path(
    patch,
    path = "/v1/issue/{id}",
    operation_id = "updateIssue",
    tag = "Issue",
    params(("id" = Uuid, Path, description = "The issue's id")),
    request_body = IssueUpdate,
    responses(
        (status = 200, description = "The updated issue", body = Data<Issue>),
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
    Valid(update): Valid<IssueUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Issue, &id)?.to_string();
    let issue = state
        .store
        .write(move |tx| -> ServiceResult<_> {
            let update = update.clone();
            let mut issue: Issue = store::require(tx, Kind::Issue, &id)?;
            let at = Timestamp::now();
            if let Some(status) = update.status {
                issue.resolved_at = match status {
                    IssueStatus::Resolved if issue.status != Some(IssueStatus::Resolved) => Some(at.clone()),
                    IssueStatus::Resolved => issue.resolved_at.clone(),
                    _ => None,
                };
                issue.status = Some(status);
            }
            if let Some(severity) = update.severity {
                issue.severity = severity;
            }
            if let Some(assignee) = update.assignee_user_id {
                issue.assignee_user_id = assignee;
            }
            issue.updated_at = Some(at);
            store::update(tx, &issue_doc(&issue)?)?;
            Ok(issue)
        })
        .await?;
    Ok(data(&issue))
}
