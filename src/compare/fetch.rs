//! Reading runs for a comparison from any service that speaks the interface: the job read plus
//! the results read (one request), or, where the service has no results read (or
//! `ReadPath::CallByCall` is asked for), each call's metrics, a few at a time.

use std::collections::HashMap;

use futures_util::{StreamExt, TryStreamExt};
use uuid::Uuid;

use super::context::Edits;
use super::run::{ReadPath, Run};
use crate::api::model::*;
use crate::api::{Client, Error, ListQuery};

/// How many calls' metrics are read at once on the call-by-call path.
const CALLS_AT_ONCE: usize = 8;

/// Reads run plan job `id` for comparing. `path` None tries the results read and falls back
/// to reading call by call when the service has no such route.
pub async fn read_run(client: &Client, id: Uuid, path: Option<ReadPath>) -> Result<Run, Error> {
    let job = if path != Some(ReadPath::CallByCall) {
        // The job and its results are read side by side: each is a large read on a large run.
        let (job, results) = tokio::join!(client.get_run_plan_job(id), client.run_results(id));
        let job = job?;
        match results {
            Ok(results) => return Ok(Run::from_results(&job, &results)),
            Err(error) if path.is_none() && error.status() == Some(404) => {
                tracing::info!("no results read for run plan job {id} ({error}); reading call by call");
            }
            Err(error) => return Err(error),
        }
        job
    } else {
        client.get_run_plan_job(id).await?
    };
    let calls: Vec<Uuid> = job.simulation_jobs.iter().filter_map(|s| s.call_id).collect();
    let metrics: HashMap<Uuid, Vec<MetricValueGroup>> = futures_util::stream::iter(calls)
        .map(|call| async move { client.call_metrics(call, ValueStatusFilter::All).await.map(|m| (call, m)) })
        .buffer_unordered(CALLS_AT_ONCE)
        .try_collect()
        .await?;
    let mut run = Run::from_calls(&job, &metrics);
    if let Some(plan) = job.simulation_run_plan_id {
        run.plan_name = client.get_run_plan(plan).await.ok().and_then(|p| p.plan.name);
    }
    Ok(run)
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
