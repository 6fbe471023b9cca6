//! Webhooks, in the hosted SDK's routes and shapes, and their delivery attempts (ours).

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Kind, outbox};
use crate::service::webhooks;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read, delete)).routes(routes!(deliveries))
}

/// Create a webhook: the URL is sent every event of the listed types, signed (the
/// `webhook-id`, `webhook-timestamp` and `webhook-signature` headers of the Standard Webhooks
/// convention). The answer carries the signing secret; no later read shows it. Secret
/// headers (credentials, and those named in `secretHeaders`) are kept encrypted and shown
/// masked, in this answer too.
#[utoipa::path(
    post,
    path = "/v1/webhook",
    operation_id = "createWebhook",
    tag = "Webhook",
    request_body = WebhookInput,
    responses(
        (status = 201, description = "The webhook, with its signing secret", body = Data<WebhookCreated>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<WebhookInput>) -> ServiceResult<Response> {
    let vault = state.store.vault();
    let webhook = state
        .store
        .write(move |tx| {
            let input = input.clone();
            webhooks::create(tx, &vault, input)
        })
        .await?;
    Ok(created(&webhook))
}

/// List webhooks, newest first.
#[utoipa::path(
    get,
    path = "/v1/webhook",
    operation_id = "listWebhooks",
    tag = "Webhook",
    params(ListParams),
    responses(
        (status = 200, description = "One page of webhooks", body = CursorPage<Webhook>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::Webhook, params, OwnedFilter::default()).await
}

/// Get a webhook (without its signing secret).
#[utoipa::path(
    get,
    path = "/v1/webhook/{id}",
    operation_id = "getWebhook",
    tag = "Webhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "The webhook", body = Data<Webhook>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Webhook, &id)?.to_string();
    let webhook: Webhook = state.store.read(move |c| store::require(c, Kind::Webhook, &id)).await?;
    Ok(data(&webhook))
}

/// Delete a webhook: nothing more is sent to it; deliveries still pending are dropped and
/// its attempts stay readable.
#[utoipa::path(
    delete,
    path = "/v1/webhook/{id}",
    operation_id = "deleteWebhook",
    tag = "Webhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "The webhook is deleted", body = Data<WebhookDeleted>),
        Unauthorized,
        Forbidden,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::Webhook, &id)?.to_string();
    let text = id.clone();
    let deleted = state.store.write(move |tx| webhooks::delete(tx, &id)).await?;
    if !deleted {
        return Err(ServiceError::not_found(Kind::Webhook.label(), &text));
    }
    Ok(data(&WebhookDeleted { success: true }))
}

/// A webhook's delivery attempts, newest first (local service extension): each event sent,
/// which attempt, the receiver's answer or why it could not be reached, and where the
/// delivery stands (`PENDING` with its next attempt, `DELIVERED`, or `FAILED` once the retries
/// ran out).
#[utoipa::path(
    get,
    path = "/v1/webhook/{id}/deliveries",
    operation_id = "listWebhookDeliveries",
    tag = "Webhook",
    params(("id" = Uuid, Path, description = "The webhook's id"), ListParams),
    responses(
        (status = 200, description = "One page of attempts", body = CursorPage<DeliveryAttempt>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn deliveries(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(params): Params<ListParams>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::Webhook, &id)?.to_string();
    let before = match params.cursor() {
        None => None,
        Some(text) => Some(
            text.strip_prefix('a')
                .and_then(|n| n.parse::<i64>().ok())
                .ok_or_else(|| ServiceError::invalid("cursor", "cursor is not one this service issued"))?,
        ),
    };
    let limit = params.limit();
    let (attempts, total) = state
        .store
        .read(move |conn| {
            if !store::exists(conn, Kind::Webhook, &id)? {
                return Err(ServiceError::not_found(Kind::Webhook.label(), &id));
            }
            Ok(outbox::attempts(conn, &id, before, limit + 1)?)
        })
        .await?;
    let has_more = attempts.len() as u64 > limit;
    let page: Vec<_> = attempts.into_iter().take(limit as usize).collect();
    let next_cursor = if has_more { page.last().map(|(seq, _)| format!("a{seq}")) } else { None };
    let items: Vec<DeliveryAttempt> = page.into_iter().map(|(_, attempt)| attempt).collect();
    Ok(axum::Json(serde_json::json!({
        "data": items,
        "pagination": { "total": total, "hasMore": has_more, "nextCursor": next_cursor, "limit": limit },
    }))
    .into_response())
}
