//! Simulation: run plans, the run operation, run plan jobs and simulation jobs, templates.
//! Creating a job writes it and its simulation jobs as PENDING; the simulation engine runs them.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use rusqlite::Transaction;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::metrics::resolve_definition;
use super::{ListParams, OwnedFilter, created, data, known_value, list_kind, now, path_id};
use crate::api::model::*;
use crate::service::AppState;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::extract::{AnyBody, Params, Valid};
use crate::service::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Doc, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_plans, create_plan))
        .routes(routes!(list_jobs))
        .routes(routes!(read_job))
        .routes(routes!(cancel_job))
        .routes(routes!(read_plan))
        .routes(routes!(run))
        .routes(routes!(read_simulation_job))
        .routes(routes!(templates))
        .routes(routes!(demo_agent))
}

/// The reference agent over HTTP, so the seeded HTTP request definition really dials out.
/// Served without a key: it stands in for an agent on the public internet.
#[utoipa::path(
    post,
    path = "/demo/agent",
    tag = "Simulation",
    request_body = crate::service::sim::reference_agent::Heard,
    responses(
        (status = 200, description = "What the reference agent says back", body = crate::service::sim::reference_agent::Reply),
        BadRequest,
        PayloadTooLarge,
    ),
    security(())
)]
async fn demo_agent(axum::Json(heard): axum::Json<crate::service::sim::reference_agent::Heard>) -> Response {
    axum::response::IntoResponse::into_response(axum::Json(crate::service::sim::reference_agent::reply(&heard)))
}

/// List run plans.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan",
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
    let simulator = state.simulator.clone();
    let created_plan = state
        .store
        .write(move |tx| {
            check_references(tx, &input, "")?;
            let plan = save_plan(tx, input)?;
            let job = if plan.plan.auto_run == Some(true) { Some(start_job(tx, &plan, None)?) } else { None };
            Ok(RunPlanCreated { run_plan: plan, run_plan_job: job })
        })
        .await?;
    if created_plan.run_plan_job.is_some() {
        simulator.wake();
    }
    Ok(created(&created_plan))
}

fn save_plan(tx: &Transaction, input: RunPlanInput) -> ServiceResult<RunPlan> {
    let at = Timestamp::now();
    let plan = RunPlan { id: Uuid::new_v4(), created_at: Some(at.clone()), updated_at: Some(at.clone()), plan: input };
    store::insert(tx, &Doc::new(Kind::RunPlan, plan.id, &plan, at.0)?)?;
    Ok(plan)
}

/// Every id the plan names must exist now; each failure names its path.
fn check_references(tx: &Transaction, plan: &RunPlanInput, at: &str) -> ServiceResult<()> {
    let path = |p: String| if at.is_empty() { p } else { format!("{at}.{p}") };
    for (i, endpoint) in plan.agent_endpoints.iter().flatten().enumerate() {
        if !store::exists(tx, Kind::AgentEndpoint, &endpoint.id.to_string())? {
            let param = path(format!("agentEndpoints[{i}].id"));
            return Err(ServiceError::invalid(&param, format!("{param}: no agent endpoint {}", endpoint.id)));
        }
    }
    for (i, metric) in plan.metrics.iter().flatten().enumerate() {
        let key = metric.id.map(|id| id.to_string()).or(metric.slug_or_alias().map(str::to_owned)).unwrap_or_default();
        if resolve_definition(tx, &key).is_err() {
            let member = if metric.id.is_some() { "id" } else { "slug" };
            let param = path(format!("metrics[{i}].{member}"));
            return Err(ServiceError::invalid(&param, format!("{param}: no metric definition {key}")));
        }
    }
    for (i, persona) in plan.personas.iter().flatten().enumerate() {
        if !store::exists(tx, Kind::Persona, &persona.id.to_string())? {
            let param = path(format!("personas[{i}].id"));
            return Err(ServiceError::invalid(&param, format!("{param}: no persona {}", persona.id)));
        }
    }
    for (i, selection) in plan.flows.iter().flatten().enumerate() {
        let flow = resolve_flow(tx, selection)
            .map_err(|e| e.with_param(path(format!("flows[{i}].{}", flow_member(selection)))))?;
        if flow.is_voicemail() && plan.direction == Some(Direction::Inbound) {
            let param = path(format!("flows[{i}].id"));
            return Err(ServiceError::invalid(&param, format!("{param}: a voicemail flow needs an OUTBOUND plan")));
        }
        if let Some(persona) = selection.persona_override_id
            && !store::exists(tx, Kind::Persona, &persona.to_string())?
        {
            let param = path(format!("flows[{i}].personaOverrideId"));
            return Err(ServiceError::invalid(&param, format!("{param}: no persona {persona}")));
        }
        if let Some(EdgeCases::List(list)) = &selection.edge_cases {
            for (j, edge) in list.iter().enumerate() {
                let known = flow.edge_cases.iter().any(|e| Some(e.id) == edge.id);
                if !known {
                    let param = path(format!("flows[{i}].edgeCases[{j}].id"));
                    let id = edge.id.map(|id| id.to_string()).unwrap_or_default();
                    return Err(ServiceError::invalid(&param, format!("{param}: flow has no edge case {id}")));
                }
            }
        }
        if selection.happy_path == Some(true) && flow.happy_path.is_none() {
            let param = path(format!("flows[{i}].happyPath"));
            return Err(ServiceError::invalid(&param, format!("{param}: this flow has no happy path")));
        }
    }
    Ok(())
}

fn flow_member(selection: &FlowSelection) -> &'static str {
    if selection.id.is_some() { "id" } else { "slug" }
}

/// The flow a selection names, by id or by slug.
pub fn resolve_flow(tx: &rusqlite::Connection, selection: &FlowSelection) -> ServiceResult<CustomerFlow> {
    let found = match (&selection.id, &selection.slug) {
        (Some(id), _) => store::get(tx, Kind::CustomerFlow, &id.to_string())?,
        (None, Some(slug)) => store::find_by(tx, Kind::CustomerFlow, "$.slug", slug)?,
        (None, None) => None,
    };
    let name = selection.id.map(|i| i.to_string()).or(selection.slug.clone()).unwrap_or_default();
    found.ok_or_else(|| ServiceError::invalid("flows", format!("no customer flow {name}")))
}

/// One simulation to run: which endpoint, flow variant (or scenario) and persona.
struct Combination {
    endpoint: AgentEndpoint,
    flow: Option<JobFlow>,
    scenario: Option<ScenarioSummary>,
    persona: Option<Persona>,
}

/// Endpoints × resolved variants × iterations (or scenarios × personas), as the spec says.
fn combinations(tx: &Transaction, plan: &RunPlanInput) -> ServiceResult<Vec<Combination>> {
    let endpoints: Vec<AgentEndpoint> = plan
        .agent_endpoints
        .iter()
        .flatten()
        .map(|e| store::require(tx, Kind::AgentEndpoint, &e.id.to_string()))
        .collect::<ServiceResult<_>>()?;
    let mut variants: Vec<(Option<JobFlow>, Option<ScenarioSummary>, Option<Persona>)> = Vec::new();
    for selection in plan.flows.iter().flatten() {
        let flow = resolve_flow(tx, selection)?;
        let selection_persona: Option<Persona> =
            selection.persona_override_id.map(|id| store::require(tx, Kind::Persona, &id.to_string())).transpose()?;
        let job_flow = |variant: &FlowVariant, happy: bool| JobFlow {
            id: flow.id,
            title: flow.title.clone(),
            variant_id: Some(variant.id),
            variant_title: variant.title.clone(),
            happy_path: Some(happy),
        };
        if selection.happy_path == Some(true)
            && let Some(happy) = &flow.happy_path
        {
            let persona = selection_persona.clone().or(happy.persona_override.clone());
            variants.push((Some(job_flow(happy, true)), None, persona));
        }
        match &selection.edge_cases {
            Some(EdgeCases::All) => {
                for edge in &flow.edge_cases {
                    let persona = selection_persona.clone().or(edge.persona_override.clone());
                    variants.push((Some(job_flow(edge, false)), None, persona));
                }
            }
            Some(EdgeCases::List(list)) => {
                for chosen in list {
                    let Some(edge) = flow.edge_cases.iter().find(|e| Some(e.id) == chosen.id) else { continue };
                    let own: Option<Persona> = chosen
                        .persona_override_id
                        .map(|id| store::require(tx, Kind::Persona, &id.to_string()))
                        .transpose()?;
                    let persona = own.or(selection_persona.clone()).or(edge.persona_override.clone());
                    variants.push((Some(job_flow(edge, false)), None, persona));
                }
            }
            None => {}
        }
    }
    if plan.flows.is_none() {
        for scenario in plan.scenarios.iter().flatten() {
            for persona in plan.personas.iter().flatten() {
                let persona: Persona = store::require(tx, Kind::Persona, &persona.id.to_string())?;
                let summary = ScenarioSummary { id: scenario.id.unwrap_or_default(), description: None };
                variants.push((None, Some(summary), Some(persona)));
            }
        }
    }
    let iterations = plan.iteration_count_or_default() as usize;
    let mut out = Vec::with_capacity(endpoints.len() * variants.len() * iterations);
    for endpoint in &endpoints {
        for (flow, scenario, persona) in &variants {
            for _ in 0..iterations {
                out.push(Combination {
                    endpoint: endpoint.clone(),
                    flow: flow.clone(),
                    scenario: scenario.clone(),
                    persona: persona.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// Creates a PENDING run plan job and one PENDING simulation job per combination.
fn start_job(tx: &Transaction, plan: &RunPlan, variables: Option<&RunVariables>) -> ServiceResult<RunPlanJob> {
    let at = Timestamp::now();
    let job_id = Uuid::new_v4();
    let mut simulation_jobs = Vec::new();
    for (iteration, combo) in combinations(tx, &plan.plan)?.into_iter().enumerate() {
        let mut persona = combo.persona;
        if let Some(p) = persona.as_mut() {
            // The job's persona leaves out age, understood languages and idle settings.
            p.fields.age = None;
            p.fields.understood_languages = None;
            p.fields.idle_messages = None;
            p.fields.idle_timeout_seconds = None;
            p.fields.idle_message_max_spoken_count = None;
            p.fields.idle_message_reset_count_on_user_speech_enabled = None;
        }
        let job = SimulationJob {
            simulation_job_id: Uuid::new_v4(),
            status: Some(SimulationJobStatus::Pending),
            processing_status: None,
            persona,
            scenario: combo.scenario,
            agent_endpoint: Some(JobEndpoint {
                id: combo.endpoint.id,
                name: combo
                    .endpoint
                    .environment
                    .clone()
                    .map(|e| format!("{} ({e})", combo.endpoint.value.clone().unwrap_or_default())),
                phone_number: combo.endpoint.value.clone(),
                endpoint_type: combo.endpoint.endpoint_type.clone(),
            }),
            created_at: Some(at.clone()),
            started_at: None,
            completed_at: None,
            customer_flow: combo.flow,
            call_id: None,
            // Live enrichment provisions a number the real call must use (the spec's name).
            roark_phone_number: (plan.plan.enrich_with_live_conversation == Some(true))
                .then(|| provisioned_number(iteration)),
            simulation_run_plan_job_id: Some(job_id),
            iteration: Some(iteration as u64),
            error_message: None,
        };
        let doc = Doc::new(Kind::SimulationJob, job.simulation_job_id, &job, at.0.clone())?
            .status(Some("PENDING"))
            .parent(Some(&job_id.to_string()));
        store::insert(tx, &doc)?;
        simulation_jobs.push(job);
    }
    let job = RunPlanJob {
        simulation_run_plan_job_id: job_id,
        simulation_run_plan_id: Some(plan.id),
        status: Some(RunPlanJobStatus::Pending),
        created_at: Some(at.clone()),
        started_at: None,
        ended_at: None,
        simulation_jobs: Vec::new(),
        simulation_job_count: Some(simulation_jobs.len() as u64),
        error_message: None,
    };
    let mut body = serde_json::to_value(&job)?;
    // The engine runs from the plan as it was when the job started (inline plans are not saved).
    body["plan"] = serde_json::to_value(&plan.plan)?;
    if let Some(variables) = variables {
        body["variables"] = serde_json::to_value(variables)?;
    }
    let doc =
        Doc::new(Kind::RunPlanJob, job_id, &body, at.0)?.status(Some("PENDING")).parent(Some(&plan.id.to_string()));
    store::insert(tx, &doc)?;
    Ok(RunPlanJob { simulation_jobs, ..job })
}

/// A number in the 555-01xx fictional range, distinct per simulation of a job.
fn provisioned_number(index: usize) -> String {
    let serial = Uuid::new_v4().as_u128() % 100_000;
    format!("+1555{:05}{:02}", serial, index % 100)
}

/// A run plan job with every simulation job it holds.
fn load_job(conn: &rusqlite::Connection, id: &str) -> ServiceResult<RunPlanJob> {
    let mut job: RunPlanJob = store::require(conn, Kind::RunPlanJob, id)?;
    let mut statement =
        conn.prepare_cached("SELECT body FROM docs WHERE kind = 'simulation_job' AND parent_id = ?1 ORDER BY seq")?;
    job.simulation_jobs = statement
        .query_map([id], |r| r.get::<_, String>(0))?
        .map(|b| Ok(serde_json::from_str(&b?)?))
        .collect::<ServiceResult<_>>()?;
    job.simulation_job_count = Some(job.simulation_jobs.len() as u64);
    Ok(job)
}

/// Get a run plan job with its simulation jobs.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/job/{id}",
    tag = "Simulation Run Plan Job",
    params(("id" = Uuid, Path, description = "The run plan job's id")),
    responses(
        (status = 200, description = "The job and its simulation jobs", body = Data<RunPlanJob>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_job(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::RunPlanJob, &id)?.to_string();
    // Spliced from the stored documents: a 10,000-simulation job is never decoded.
    let body = state.store.read(move |c| raw_job(c, &id)).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `{"data": job}` with its simulation jobs, built from stored JSON without decoding it.
fn raw_job(conn: &rusqlite::Connection, id: &str) -> ServiceResult<String> {
    let job = store::get_raw(conn, Kind::RunPlanJob, id)?.ok_or_else(|| ServiceError::not_found("run plan job", id))?;
    let mut job: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&store::without_internal(Kind::RunPlanJob, job)?)?;
    let mut statement =
        conn.prepare_cached("SELECT body FROM docs WHERE kind = 'simulation_job' AND parent_id = ?1 ORDER BY seq")?;
    let simulations: Vec<String> = statement.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    job.insert("simulationJobCount".into(), simulations.len().into());
    job.remove("simulationJobs");
    let head = serde_json::to_string(&job)?;
    let head = head.strip_suffix('}').unwrap_or(&head);
    let mut out = String::with_capacity(simulations.iter().map(|s| s.len() + 1).sum::<usize>() + head.len() + 64);
    out.push_str("{\"data\":");
    out.push_str(head);
    out.push_str(if job.is_empty() { "\"simulationJobs\":[" } else { ",\"simulationJobs\":[" });
    out.push_str(&simulations.join(","));
    out.push_str("]}}");
    Ok(out)
}

/// List run plan jobs.
#[utoipa::path(
    get,
    path = "/v1/simulation/plan/jobs",
    tag = "Simulation Run Plan Job",
    params(ListParams, ("status" = Option<RunPlanJobStatus>, Query, description = "Only jobs in this status"), ("planId" = Option<Uuid>, Query, description = "Only jobs of this run plan")),
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
    let filter = OwnedFilter { status, parent_id: params.plan_id.clone(), ..Default::default() };
    list_kind(&state, Kind::RunPlanJob, params, filter).await
}

/// Start a run from a saved plan or an inline plan, with runtime variables.
#[utoipa::path(
    post,
    path = "/v1/simulation/run",
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
    let simulator = state.simulator.clone();
    let started = state
        .store
        .write(move |tx| {
            let (plan, saved) = match (&request.plan_id, request.plan.clone()) {
                (Some(id), _) => {
                    let plan: RunPlan = store::get(tx, Kind::RunPlan, &id.to_string())?
                        .ok_or_else(|| ServiceError::invalid("planId", format!("no run plan {id}")))?;
                    check_references(tx, &plan.plan, "")?;
                    (plan, true)
                }
                (None, Some(input)) => {
                    check_references(tx, &input, "plan")?;
                    if request.save_as_plan == Some(true) {
                        (save_plan(tx, input)?, true)
                    } else {
                        let at = Timestamp::now();
                        (
                            RunPlan {
                                id: Uuid::new_v4(),
                                created_at: Some(at.clone()),
                                updated_at: Some(at),
                                plan: input,
                            },
                            false,
                        )
                    }
                }
                (None, None) => unreachable!("validate() requires one"),
            };
            let job = start_job(tx, &plan, request.variables.as_ref())?;
            Ok(RunStarted {
                simulation_run_plan_job_id: job.simulation_run_plan_job_id,
                simulation_run_plan_id: saved.then_some(plan.id),
                simulation_job_count: job.simulation_jobs.len() as u64,
                saved_as_plan: saved && request.plan.is_some(),
                status: job.status,
                created_at: job.created_at,
            })
        })
        .await?;
    simulator.wake();
    Ok(created(&started))
}

/// Cancels a job: it moves to CANCELLING, and every simulation not yet ended is CANCELLED.
#[utoipa::path(
    post,
    path = "/v1/simulation/plan/job/{id}/cancel",
    tag = "Simulation Run Plan Job",
    params(("id" = Uuid, Path, description = "The run plan job's id")),
    responses(
        (status = 200, description = "The CANCELLING job", body = Data<RunPlanJob>),
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
    let job = state
        .store
        .write(move |tx| {
            let job = load_job(tx, &id)?;
            if job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
                let status = job.status.as_ref().map(|s| s.as_str()).unwrap_or_default();
                return Err(ServiceError::invalid("jobId", format!("the job has already ended ({status})")));
            }
            let at = Timestamp::now();
            for mut simulation in job.simulation_jobs.clone() {
                // A simulation mid-call belongs to the engine: it finishes, then the job settles.
                if !matches!(simulation.status, Some(SimulationJobStatus::Pending | SimulationJobStatus::Queued)) {
                    continue;
                }
                simulation.status = Some(SimulationJobStatus::Cancelled);
                simulation.completed_at = Some(at.clone());
                let doc = Doc::new(Kind::SimulationJob, simulation.simulation_job_id, &simulation, now())?
                    .status(Some("CANCELLED"))
                    .parent(Some(&id));
                store::update(tx, &doc)?;
            }
            let mut body: serde_json::Value = store::require(tx, Kind::RunPlanJob, &id)?;
            body["status"] = "CANCELLING".into();
            let plan_id = job.simulation_run_plan_id.map(|p| p.to_string());
            let doc =
                Doc::new(Kind::RunPlanJob, &id, &body, now())?.status(Some("CANCELLING")).parent(plan_id.as_deref());
            store::update(tx, &doc)?;
            // With nothing mid-call, nobody else would end the job: it is CANCELLED now.
            crate::service::sim::jobs::settle_job(tx, &id)?;
            load_job(tx, &id)
        })
        .await?;
    Ok(data(&job))
}

/// Get a simulation job.
#[utoipa::path(
    get,
    path = "/v1/simulation/job/{id}",
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

/// Ready-made plan inputs built from the seeded flows, one per flow.
#[utoipa::path(
    get,
    path = "/v1/simulation/template",
    tag = "Simulation Template",
    responses(
        (status = 200, description = "One template per flow that is not a voicemail flow", body = Data<Vec<RunPlanTemplate>>),
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn templates(State(state): State<AppState>) -> ServiceResult<Response> {
    let templates = state
        .store
        .read(|c| {
            let flows: Vec<CustomerFlow> = store::all(c, Kind::CustomerFlow)?;
            let endpoints: Vec<AgentEndpoint> = store::all(c, Kind::AgentEndpoint)?;
            Ok(flows
                .into_iter()
                .filter(|f| !f.is_voicemail())
                .map(|flow| {
                    let endpoint = endpoints.iter().find(|e| flow.agents.iter().any(|a| Some(a.id) == e.agent_id));
                    serde_json::json!({
                        "id": Uuid::new_v5(&flow.id, b"template"),
                        "name": format!("{} regression", flow.title.clone().unwrap_or_default()),
                        "plan": RunPlanInput {
                            name: Some(format!("{} regression", flow.title.clone().unwrap_or_default())),
                            direction: Some(Direction::Inbound),
                            max_simulation_duration_seconds: Some(300),
                            flows: Some(vec![FlowSelection {
                                id: Some(flow.id),
                                happy_path: Some(flow.happy_path.is_some()),
                                edge_cases: (!flow.edge_cases.is_empty()).then_some(EdgeCases::All),
                                ..Default::default()
                            }]),
                            agent_endpoints: endpoint.map(|e| vec![IdRef { id: e.id }]),
                            metrics: Some(vec![MetricReference::by_slug("call_duration"), MetricReference::by_slug("task_completion")]),
                            ..Default::default()
                        }
                    })
                })
                .collect::<Vec<_>>())
        })
        .await?;
    Ok(data(&templates))
}
