//! Knowledge bases: made from text or an uploaded text file; read as metadata only, the content
//! staying in its own table for the judge.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::{CursorPage, Data, KnowledgeBase, KnowledgeBaseInput};
use crate::service::AppState;
use crate::service::agents::knowledge;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(read))
}

/// List knowledge bases (metadata only).
#[utoipa::path(
    get,
    path = "/v1/knowledge-base",
    operation_id = "listKnowledgeBases",
    tag = "Knowledge Base",
    params(ListParams),
    responses(
        (status = 200, description = "One page of knowledge bases", body = CursorPage<KnowledgeBase>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::KnowledgeBase, params, OwnedFilter::default()).await
}

/// Get a knowledge base: metadata only, never its content.
#[utoipa::path(
    get,
    path = "/v1/knowledge-base/{id}",
    operation_id = "getKnowledgeBase",
    tag = "Knowledge Base",
    params(("id" = uuid::Uuid, Path, description = "The knowledge base's id")),
    responses(
        (status = 200, description = "The knowledge base", body = Data<KnowledgeBase>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::KnowledgeBase, &id)?.to_string();
    let base: KnowledgeBase = state.store.read(move |c| store::require(c, Kind::KnowledgeBase, &id)).await?;
    Ok(data(&base))
}

/// Create a knowledge base from text (`content`) or an uploaded text file (`file`, base64), for
/// metrics to read as ground truth (local service extension: the hosted SDK has no such
/// method). The answer, like every read, is the metadata: the content is never returned.
#[utoipa::path(
    post,
    path = "/v1/knowledge-base",
    operation_id = "createKnowledgeBase",
    tag = "Knowledge Base",
    request_body = KnowledgeBaseInput,
    responses(
        (status = 201, description = "The knowledge base, READY", body = Data<KnowledgeBase>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create(State(state): State<AppState>, Valid(input): Valid<KnowledgeBaseInput>) -> ServiceResult<Response> {
    let base = state.store.write(move |tx| knowledge::create(tx, input.clone())).await?;
    Ok(created(&base))
}
