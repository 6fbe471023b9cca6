//! Simulation: the run operation, run plan jobs and simulation jobs, templates (run plans
//! themselves are `plans`).
//! Creating a job writes it and its simulation jobs as PENDING; the simulation engine runs them.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, known_value, list_kind, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::{AnyBody, Decoded, Params, Valid};
use crate::service::http::job_read;
use crate::service::http::openapi::{
    BadRequest, Busy, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::sim::{jobs, start};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_jobs))
        .routes(routes!(read_job))
        .routes(routes!(list_job_simulations))
        .routes(routes!(cancel_job))
        .routes(routes!(run))
        .routes(routes!(read_simulation_job))
        .routes(routes!(templates))
        .routes(routes!(demo_agent))
}

/// The reference agent over HTTP, so the seeded HTTP request definition really dials out.
/// Served without a key: it stands in for an agent on the public internet. Its flaws are
/// keyed on what is the same every run, not on the call id (see `reply_over_http`).
#[utoipa::path(
    post,
    path = "/demo/agent",
    operation_id = "demoAgentReply",
    tag = "Simulation",
    request_body = crate::service::sim::reference_agent::Heard,
    responses(
        (status = 200, description = "What the reference agent says back", body = crate::service::sim::reference_agent::Reply),
        BadRequest,
        PayloadTooLarge,
    ),
    security(())
)]
async fn demo_agent(Decoded(heard): Decoded<crate::service::sim::reference_agent::Heard>) -> ServiceResult<Response> {
    // The schema states `turn` as an int32, as the generator writes a u32.
    if i32::try_from(heard.turn).is_err() {
        return Err(ServiceError::invalid("turn", format!("turn must be at most {}", i32::MAX)));
    }
    let reply = crate::service::sim::reference_agent::reply_over_http(&heard);
    Ok(axum::response::IntoResponse::into_response(axum::Json(reply)))
}

/// Get a run plan job with its simulation jobs.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/job/{id}",
    operation_id = "getRunPlanJob",
    tag = "Simulation Run Plan Job",
    params(
        ("id" = Uuid, Path, description = "The run plan job's id"),
        ("simulationJobs" = Option<SimulationJobsIncluded>, Query, description = "`none` leaves the simulation jobs out (a watcher reads `counts` and the verdict, and pages the simulations it shows from `/simulation-jobs`); `all` by default (local service extension)"),
    ),
    responses(
        (status = 200, description = "The job, its simulation jobs and their counts", body = Data<RunPlanJob>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
        Busy,
    )
)]
async fn read_job(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    Path(id): Path<String>,
    Params(params): Params<JobReadParams>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlanJob, &id)?.to_string();
    let included = known_value::<SimulationJobsIncluded>("simulationJobs", params.simulation_jobs.as_deref())?;
    let with_simulations = included.as_deref() != Some("none");
    // Whole, the read is megabytes: it takes its share of the response budget before anything
    // is read. A conditional read (a watcher's poll) is most often a 304 without a body, so it
    // reads its tag first, and the budget's middleware takes the share if the body goes out.
    let conditional = headers.contains_key(axum::http::header::IF_NONE_MATCH);
    let share = if with_simulations && !conditional { Some(state.responses.stream_share().await?) } else { None };
    // Spliced from the stored documents and streamed a page at a time: a 100,000-simulation
    // job is never decoded, nor held whole.
    let read = id.clone();
    let head = state.store.read(move |c| job_read::head(c, &read, with_simulations)).await?;
    let etag = head.etag.clone();
    let body = job_read::body(state.store.clone(), id, head, with_simulations);
    let response =
        ([(axum::http::header::CONTENT_TYPE, "application/json".to_owned()), (axum::http::header::ETAG, etag)], body)
            .into_response();
    Ok(match share {
        Some(share) => share.hold(response),
        None => response,
    })
}

/// The query of a job's read.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JobReadParams {
    simulation_jobs: Option<String>,
}

impl super::Validate for JobReadParams {
    fn check(&self, _c: &mut super::Checks, _at: &str) {}
}

/// One page of a job's simulation jobs, newest first like every list (`sort=createdAt` for
/// oldest first), optionally only those in one status or with one outcome (local service
/// extension).
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/job/{id}/simulation-jobs",
    operation_id = "listRunPlanJobSimulationJobs",
    tag = "Simulation Run Plan Job",
    params(
        ("id" = Uuid, Path, description = "The run plan job's id"),
        ListParams,
        ("status" = Option<SimulationJobStatus>, Query, description = "Only simulation jobs in this status"),
        ("outcome" = Option<SimulationOutcome>, Query, description = "Only simulation jobs with this outcome"),
        ("sort" = Option<SimulationJobSort>, Query, description = "`-createdAt` (newest first, the default) or `createdAt` (oldest first)"),
    ),
    responses(
        (status = 200, description = "One page of the job's simulation jobs", body = CursorPage<SimulationJob>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_job_simulations(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(params): Params<ListParams>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlanJob, &id)?.to_string();
    let status = known_value::<SimulationJobStatus>("status", params.status.as_deref())?;
    let outcome = known_value::<SimulationOutcome>("outcome", params.outcome.as_deref())?;
    let sort = known_value::<SimulationJobSort>("sort", params.sort.as_deref())?;
    let oldest_first = sort.as_deref() == Some(SimulationJobSort::Oldest.as_str());
    let job = id.clone();
    state.store.read(move |c| store::require::<serde_json::Value>(c, Kind::RunPlanJob, &job)).await?;
    let fields = outcome.map(|o| ("$.outcome".to_string(), o)).into_iter().collect();
    let filter = OwnedFilter { status, parent_id: Some(id), fields, oldest_first, ..Default::default() };
    list_kind(&state, Kind::SimulationJob, params, filter).await
}

/// List run plan jobs.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/jobs",
    operation_id = "listRunPlanJobs",
    tag = "Simulation Run Plan Job",
    params(ListParams, ("status" = Option<RunPlanJobStatus>, Query, description = "Only jobs in this status"), ("simulationRunPlanId" = Option<Uuid>, Query, description = "Only jobs of this run plan (the hosted name)"), ("planId" = Option<Uuid>, Query, description = "Only jobs of this run plan (the older name of simulationRunPlanId; given with a different simulationRunPlanId it is a 400)")),
    responses(
        (status = 200, description = "One page of jobs (without their simulation jobs)", body = CursorPage<RunPlanJob>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_jobs(State(state): State<AppState>, Params(params): Params<ListParams>) -> ServiceResult<Response> {
    let status = known_value::<RunPlanJobStatus>("status", params.status.as_deref())?;
    let plan = match (&params.simulation_run_plan_id, &params.plan_id) {
        (Some(a), Some(b)) if a != b => {
            return Err(ServiceError::invalid("planId", "planId is the older name of simulationRunPlanId; give one"));
        }
        (a, b) => a.clone().or(b.clone()),
    };
    let filter = OwnedFilter { status, parent_id: plan, ..Default::default() };
    list_kind(&state, Kind::RunPlanJob, params, filter).await
}

/// Start a run from a saved plan or an inline plan, with runtime variables.
///
/// An IMPROV variant with no steps is played by the service's caller model (`[caller]` in
/// config.toml, or `switchboard serve --caller-model`); on a service without one the run is
/// refused with 400 `invalid_parameter` before anything starts, `param` naming the flow
/// selection's member (`flows[0].happyPath`, `plan.flows[0].edgeCases[1]`) and the message the
/// variant (title and id) and how to configure a model (local service extension).
#[utoipa::path(
    post,
    path = "/v1/simulation/run",
    operation_id = "runSimulation",
    tag = "Simulation",
    request_body = RunRequest,
    responses(
        (status = 201, description = "The PENDING run plan job", body = Data<RunStarted>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn run(State(state): State<AppState>, Valid(request): Valid<RunRequest>) -> ServiceResult<Response> {
    let caller = state.simulator.caller();
    let started = state
        .store
        .write(move |tx| {
            let request = request.clone();
            start::run(tx, request, caller)
        })
        .await?;
    state.simulator.wake_everywhere();
    Ok(created(&started))
}

/// Cancels a job: it moves to CANCELLING, and every simulation not yet ended is CANCELLED.
#[utoipa::path(
    post,
    path = "/v1/simulation/plan/job/{id}/cancel",
    operation_id = "cancelRunPlanJob",
    tag = "Simulation Run Plan Job",
    params(("id" = Uuid, Path, description = "The run plan job's id")),
    responses(
        (status = 200, description = "The CANCELLING (or CANCELLED) job, with `cancelled: true`", body = Data<RunPlanJob>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn cancel_job(State(state): State<AppState>, Path(id): Path<String>, _body: AnyBody) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlanJob, &id)?.to_string();
    let cancelled = id.clone();
    state.store.write(move |tx| jobs::cancel(tx, &cancelled)).await?;
    // The hosted answer is `{cancelled, simulationRunPlanJobId, status}`; the job's summary
    // carries the last two, and its counts besides (its simulations are read from the job).
    let mut answer = state.store.read(move |c| job_read::summary(c, &id)).await?;
    answer.insert("simulationJobs".into(), serde_json::Value::Array(Vec::new()));
    answer.insert("cancelled".into(), true.into());
    Ok(data(&answer))
}

/// Get a simulation job.
#[utoipa::path(
    get,
    path = "/v1/simulation/job/{id}",
    operation_id = "getSimulationJob",
    tag = "Simulation Job",
    params(("id" = Uuid, Path, description = "The simulation job's id")),
    responses(
        (status = 200, description = "The simulation job", body = Data<SimulationJob>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_simulation_job(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::SimulationJob, &id)?.to_string();
    let job: SimulationJob = state.store.read(move |c| store::require(c, Kind::SimulationJob, &id)).await?;
    Ok(data(&job))
}

/// Ready-made runs built from the flows, one per flow that can run, in the hosted template
/// shape. Each also carries `plan`, a complete input for `POST /v1/simulation/run`
/// (`{"plan": template.plan}`) aimed at an endpoint of the flow's agent, else at the first agent
/// endpoint there is; replace `agentEndpoints` to aim it elsewhere. With no agent endpoint at
/// all there are no templates: a run needs one.
#[utoipa::path(
    get,
    path = "/v1/simulation/template",
    operation_id = "listSimulationTemplates",
    tag = "Simulation Template",
    responses(
        (status = 200, description = "One template per flow that is not a voicemail flow and has a happy path or edge cases, each runnable as it is", body = Data<Vec<RunPlanTemplate>>),
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn templates(State(state): State<AppState>) -> ServiceResult<Response> {
    let templates = state.store.read(crate::service::sim::templates::all).await?;
    Ok(data(&templates))
}
