//! Run plans: list, read, create, update and delete. Creating one with the deprecated autoRun
//! starts it; a plan a job is still running is not deleted.

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{AnyBody, Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Conflict, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::sim::{plans, start};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_plans, create_plan)).routes(routes!(read_plan, update_plan, delete_plan))
}

/// List run plans.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan",
    operation_id = "listRunPlans",
    tag = "Simulation Run Plan",
    params(ListParams),
    responses(
        (status = 200, description = "One page of run plans", body = CursorPage<RunPlan>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_plans(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    list_kind(&state, Kind::RunPlan, params, OwnedFilter::default()).await
}

/// Get a run plan.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/{id}",
    operation_id = "getRunPlan",
    tag = "Simulation Run Plan",
    params(("id" = Uuid, Path, description = "The run plan's id")),
    responses(
        (status = 200, description = "The run plan", body = Data<RunPlan>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_plan(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlan, &id)?.to_string();
    let plan: RunPlan = state.store.read(move |c| store::require(c, Kind::RunPlan, &id)).await?;
    Ok(data(&plan))
}

/// Create a run plan; start it later with the run operation (or now with the deprecated autoRun).
#[utoipa::path(
    post,
    path = "/v1/simulation/plan",
    operation_id = "createRunPlan",
    tag = "Simulation Run Plan",
    request_body = RunPlanInput,
    responses(
        (status = 201, description = "The run plan, and its job when autoRun was true", body = Data<RunPlanCreated>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_plan(State(state): State<AppState>, Valid(input): Valid<RunPlanInput>) -> ServiceResult<Response> {
    let caller = state.simulator.caller();
    let created_plan = state
        .store
        .write(move |tx| {
            let input = input.clone();
            start::create_plan(tx, input, caller)
        })
        .await?;
    if created_plan.run_plan_job.is_some() {
        state.simulator.wake_everywhere();
    }
    Ok(created(&created_plan))
}

/// Update a run plan: the members given replace the plan's (`flows`, `scenarios` and `personas`
/// whole lists; `[]` detaches them), and the plan that makes is checked as a new one would be.
/// `schedule` sets or (with null) takes off when the plan runs by itself (local service
/// extension).
#[utoipa::path(
    put,
    path = "/v1/simulation/plan/{id}",
    operation_id = "updateRunPlan",
    tag = "Simulation Run Plan",
    params(("id" = Uuid, Path, description = "The run plan's id")),
    request_body = RunPlanUpdate,
    responses(
        (status = 200, description = "The run plan as changed", body = Data<RunPlan>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_plan(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<RunPlanUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlan, &id)?.to_string();
    let plan = state
        .store
        .write(move |tx| {
            let update = update.clone();
            plans::update(tx, &id, update)
        })
        .await?;
    Ok(data(&plan))
}

/// Delete a run plan: hidden from every read, its jobs kept. Refused with 409 `plan_in_use`
/// while a job of the plan has not ended.
#[utoipa::path(
    delete,
    path = "/v1/simulation/plan/{id}",
    operation_id = "deleteRunPlan",
    tag = "Simulation Run Plan",
    params(("id" = Uuid, Path, description = "The run plan's id")),
    responses(
        (status = 200, description = "`{deleted: true}`", body = Data<Deleted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn delete_plan(State(state): State<AppState>, Path(id): Path<String>, _body: AnyBody) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlan, &id)?.to_string();
    let deleted = id.clone();
    state.store.write(move |tx| plans::delete(tx, &deleted)).await?;
    Ok(data(&Deleted { id: path_id(Kind::RunPlan, &id)?, deleted: true }))
}
