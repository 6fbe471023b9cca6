//! Reading runs for a comparison from any service that speaks the interface: the results read
//! (on the local service one request a run, which lists the run's test cases; elsewhere with
//! the job read beside it), or, where the service has no results read (or
//! `ReadPath::CallByCall` is asked for), the job read and each call's metrics, a few at a time.

use std::collections::HashMap;

use futures_util::{StreamExt, TryStreamExt};
use uuid::Uuid;

use super::context::Edits;
use super::flaky::PlanStability;
use super::run::{CallMetrics, ReadPath, Run};
use crate::api::model::*;
use crate::api::{Client, Error, ListQuery};

/// How many calls' metrics are read at once on the call-by-call path.
const CALLS_AT_ONCE: usize = 8;

/// Reads run plan job `id` for comparing. `path` None tries the results read and falls back
/// to reading call by call when the service has no such route.
pub async fn read_run(client: &Client, id: Uuid, path: Option<ReadPath>) -> Result<Run, Error> {
    match by_results(client, id, path).await? {
        Some(run) => Ok(run),
        None => call_by_call(client, id).await,
    }
}

/// Reads two runs for comparing, as `read_run` does. The results reads go side by side (each
/// is a large read, and the service builds each on its own thread); reading call by call goes
/// one run after the other, since each run holds every call's metrics while it is read.
pub async fn read_pair(
    client: &Client,
    base: Uuid,
    head: Uuid,
    path: Option<ReadPath>,
) -> (Result<Run, Error>, Result<Run, Error>) {
    let (base_read, head_read) = tokio::join!(by_results(client, base, path), by_results(client, head, path));
    let base = match base_read {
        Ok(Some(run)) => Ok(run),
        Ok(None) => call_by_call(client, base).await,
        Err(error) => Err(error),
    };
    let head = match head_read {
        Ok(Some(run)) => Ok(run),
        Ok(None) => call_by_call(client, head).await,
        Err(error) => Err(error),
    };
    (base, head)
}

/// The run from its results read; None where it is to be read call by call instead (asked
/// for, or the service has no results read). A results read that lists the run's test cases
/// (the local service's) is all that is read; one that does not is read with the whole job,
/// which says what each simulation ran with.
async fn by_results(client: &Client, id: Uuid, path: Option<ReadPath>) -> Result<Option<Run>, Error> {
    if path == Some(ReadPath::CallByCall) {
        return Ok(None);
    }
    let results = match client.run_results(id).await {
        Ok(results) => results,
        Err(error) if path.is_none() && error.status() == Some(404) => {
            tracing::info!("no results read for run plan job {id} ({error}); reading call by call");
            return Ok(None);
        }
        Err(error) => return Err(error),
    };
    if let Some(run) = Run::from_results_alone(&results) {
        return Ok(Some(run));
    }
    let job = client.get_run_plan_job(id).await?;
    Ok(Some(Run::from_results(&job, &results)))
}

/// The run from its job read and each call's metrics, a few calls at a time.
async fn call_by_call(client: &Client, id: Uuid) -> Result<Run, Error> {
    let job = client.get_run_plan_job(id).await?;
    let checks: Vec<Uuid> = job.verdict.iter().flat_map(|v| &v.checks).map(|c| c.metric_definition_id).collect();
    let checks = &checks;
    let calls: Vec<Uuid> = job.simulation_jobs.iter().filter_map(|s| s.call_id).collect();
    // Each call's read is cut to what the comparison keeps as soon as it arrives.
    let metrics: HashMap<Uuid, CallMetrics> = futures_util::stream::iter(calls)
        .map(|call| async move {
            let groups = client.call_metrics(call, ValueStatusFilter::All).await?;
            Ok::<_, Error>((call, CallMetrics::of(&groups, checks)))
        })
        .buffer_unordered(CALLS_AT_ONCE)
        .try_collect()
        .await?;
    let mut run = Run::from_calls(&job, &metrics);
    if let Some(plan) = job.simulation_run_plan_id {
        run.plan_name = client.get_run_plan(plan).await.ok().and_then(|p| p.plan.name);
    }
    Ok(run)
}

/// Every metric value group of each of `calls`, reading a few calls at a time.
pub async fn calls_metrics(client: &Client, calls: Vec<Uuid>) -> Result<Vec<MetricValueGroup>, Error> {
    let per_call: Vec<Vec<MetricValueGroup>> = futures_util::stream::iter(calls)
        .map(|call| async move { client.call_metrics(call, ValueStatusFilter::All).await })
        .buffer_unordered(CALLS_AT_ONCE)
        .try_collect()
        .await?;
    Ok(per_call.into_iter().flatten().collect())
}

/// When the endpoints, their HTTP request definitions and the flows the runs used were last
/// edited. What the service will not say is left out (never an error).
pub async fn edits(client: &Client, runs: &[&Run]) -> Edits {
    let mut edits = Edits::default();
    let mut endpoints: Vec<Uuid> = runs.iter().flat_map(|r| r.cases.iter().filter_map(|c| c.key.endpoint_id)).collect();
    endpoints.sort_unstable();
    endpoints.dedup();
    for id in endpoints {
        let Ok(endpoint) = client.get_agent_endpoint(id).await else { continue };
        if let Some(at) = endpoint.updated_at.clone() {
            edits.endpoints.insert(id, at);
        }
        if let Some(definition) = endpoint.outbound_dial_http_request_definition_id
            && let Ok(definition) = client.get_http_request_definition(definition).await
            && let Some(at) = definition.updated_at
        {
            edits.http_definitions.insert(id, at);
        }
    }
    let mut flows: Vec<Uuid> = runs.iter().flat_map(|r| r.cases.iter().filter_map(|c| c.key.flow_id)).collect();
    flows.sort_unstable();
    flows.dedup();
    for id in flows {
        if let Ok(flow) = client.get_flow(id).await
            && let Some(at) = flow.updated_at
        {
            edits.flows.insert(id, at);
        }
    }
    edits
}

/// People's labels on judged values (a local service extension), every one or one metric's.
pub async fn labels(client: &Client, metric: Option<Uuid>) -> Result<Vec<Annotation>, Error> {
    let mut query = ListQuery::default().limit(50);
    if let Some(metric) = metric {
        query = query.filter("metricDefinitionId", metric);
    }
    client.list_all(crate::api::routes::ANNOTATIONS, query).try_collect().await
}

/// Plan `plan`'s stability over its last `count` ended runs, read one after the other.
pub async fn plan_stability(client: &Client, plan: Uuid, count: usize) -> Result<PlanStability, Error> {
    let jobs = recent_jobs(client, plan, count).await?;
    let mut runs = Vec::with_capacity(jobs.len());
    for job in &jobs {
        runs.push(read_run(client, job.simulation_run_plan_job_id, None).await?);
    }
    let edits = edits(client, &runs.iter().collect::<Vec<_>>()).await;
    Ok(PlanStability {
        run_plan_id: plan,
        run_plan_job_ids: runs.iter().map(|r| r.job_id).collect(),
        checks: super::flaky::stability(&runs, &edits),
    })
}

/// The last `count` ended runs of plan `plan`, oldest first.
pub async fn recent_jobs(client: &Client, plan: Uuid, count: usize) -> Result<Vec<RunPlanJob>, Error> {
    let query = ListQuery::default().filter("simulationRunPlanId", plan).limit(50);
    let jobs: Vec<RunPlanJob> = client.list_all("/v1/simulation/plan/jobs", query).try_collect().await?;
    let mut ended: Vec<RunPlanJob> = jobs
        .into_iter()
        .filter(|j| j.simulation_run_plan_id == Some(plan))
        .filter(|j| j.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal))
        .collect();
    ended.sort_by_key(|j| j.started_at.clone().or(j.created_at.clone()).and_then(|t| t.parse()));
    let skip = ended.len().saturating_sub(count);
    Ok(ended.into_iter().skip(skip).collect())
}
