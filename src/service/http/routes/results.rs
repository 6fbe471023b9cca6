//! A run's results in one read: the hosted run report's shape, built by `service::sim::run_report`.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{data, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::ServiceResult;
use crate::service::http::openapi::{InternalError, NotFound, TooManyRequests, Unauthorized};
use crate::service::sim::run_report::run_results;
use crate::service::store::Kind;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(results))
}

/// Everything needed to compare the run with another, in one request: the run, each metric's
/// aggregate (with the definition version that scored it), every simulation with its check
/// results and call-level values, and the verdict. Safe while the run goes on: counts reflect
/// what has landed. The local service leaves out the hosted report's breakdowns, comparison,
/// debrief and sweep attribution, and sends `reasoning` as null (read it from the call's metrics).
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/job/{id}/check-results",
    operation_id = "getRunPlanJobResults",
    tag = "Simulation Run Plan Job",
    params(("id" = Uuid, Path, description = "The run plan job's id")),
    responses(
        (status = 200, description = "The run's results", body = Data<RunResults>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn results(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlanJob, &id)?.to_string();
    let results = state.store.read(move |c| run_results(c, &id)).await?;
    Ok(data(&results))
}
