//! Knowledge bases: metadata only; the content stays in its own table for the judge.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;

use super::{ListParams, OwnedFilter, data, list_kind, path_id};
use crate::api::model::KnowledgeBase;
use crate::service::AppState;
use crate::service::error::ServiceResult;
use crate::service::extract::Params;
use crate::service::store::{self, Kind};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/knowledge-base", get(list)).route("/v1/knowledge-base/{id}", get(read))
}

async fn list(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::KnowledgeBase, params, OwnedFilter::default()).await
}

async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::KnowledgeBase, &id)?.to_string();
    let base: KnowledgeBase = state.store.read(move |c| store::require(c, Kind::KnowledgeBase, &id)).await?;
    Ok(data(&base))
}
