//! Starting runs: a plan's references checked, its combinations resolved (endpoints × flow
//! variants × iterations, or the deprecated scenarios × personas), and a PENDING job written
//! with one PENDING simulation job each and the tally its verdict will be kept in.

use crate::service::store::Tx;
use uuid::Uuid;

mod combinations;
mod placing;
mod refusals;

use combinations::{Combination, combinations};
use placing::Placing;

use refusals::refuse_improv_without_caller;
pub use refusals::{Caller, check_references, needs_caller_model, resolve_flow, resolve_flows};

use crate::api::model::flow_and_automatic_metrics;
use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::metrics::definitions;
use crate::service::sim::verdict::Tally;
use crate::service::store::{self, Doc, Kind};

use std::collections::HashMap;

/// Saves a plan and, with the deprecated `autoRun`, starts it.
pub fn create_plan(tx: &Tx, input: RunPlanInput, caller: Caller) -> DomainResult<RunPlanCreated> {
    let flows = check_references(tx, &input, "")?;
    let plan = plan_of(tx, input, &flows, "")?;
    store::insert(tx, &Doc::of(&plan)?)?;
    let job = if plan.plan.auto_run == Some(true) {
        refuse_improv_without_caller(&plan.plan, &flows, "", caller)?;
        Some(start_job(tx, &plan, &flows, None, "")?)
    } else {
        None
    };
    Ok(RunPlanCreated { run_plan: plan, run_plan_job: job })
}

/// A plan as it is kept (saved or run inline): every default written out, every metric named by
/// its `id` as well, how many test cases it places, and when its schedule first runs it.
/// `flows` are those its selections name, in order (`check_references`).
pub fn plan_of(tx: &Tx, input: RunPlanInput, flows: &[CustomerFlow], at: &str) -> DomainResult<RunPlan> {
    let mut plan = input.resolved();
    for reference in plan.metrics.iter_mut().flatten() {
        let key = reference.id.map(|id| id.to_string()).or(reference.slug_or_alias().map(str::to_owned));
        if let Some(definition) = key.map(|key| definitions::find(tx, &key)).transpose()?.flatten() {
            reference.id = Some(definition.id);
        }
    }
    let test_cases = combinations(tx, &plan, flows, at)?.len() as u64;
    let now = Timestamp::now();
    Ok(RunPlan {
        id: Uuid::new_v4(),
        created_at: Some(now.clone()),
        updated_at: Some(now),
        test_case_count: Some(test_cases),
        is_config_managed: Some(false),
        template: None,
        comparison_property: None,
        comparison_baseline: None,
        evaluators: Vec::new(),
        next_run_at: None,
        plan,
    })
    .map(|mut plan| {
        plan.next_run_at = super::plans::first_run(&plan);
        plan
    })
}

/// Starts the job of a scheduled plan's slot, as the run operation would start the saved plan.
pub fn start_scheduled(tx: &Tx, plan: &RunPlan, caller: Caller) -> DomainResult<RunPlanJob> {
    let flows = check_references(tx, &plan.plan, "")?;
    refuse_improv_without_caller(&plan.plan, &flows, "", caller)?;
    let starting = Starting { plan, flows: &flows, variables: None, at_path: "" };
    starting.start(tx, Timestamp::now(), JobTrigger::Scheduled)
}

/// The run operation: a saved plan by id, or an inline plan (saved when asked).
pub fn run(tx: &Tx, request: RunRequest, caller: Caller) -> DomainResult<RunStarted> {
    let at = if request.plan.is_some() { "plan" } else { "" };
    let (plan, flows, saved) = match (request.plan_id, request.plan.clone()) {
        (Some(id), _) => {
            let plan: RunPlan = store::get(tx, Kind::RunPlan, &id.to_string())?
                .ok_or_else(|| DomainError::invalid("planId", format!("no run plan {id}")))?;
            let flows = check_references(tx, &plan.plan, "")?;
            (plan, flows, true)
        }
        (None, Some(input)) => {
            let flows = check_references(tx, &input, "plan")?;
            let mut plan = plan_of(tx, input, &flows, "plan")?;
            let save = request.save_as_plan == Some(true);
            if save {
                store::insert(tx, &Doc::of(&plan)?)?;
            } else if let Some(saved) = saved_plan_named(tx, plan.name())? {
                // An inline copy of a saved plan (`--agent-url`, `--only`, `--rerun-failed`) is
                // one of its runs: listed, counted and shown under it, not under an id of its own.
                plan.id = saved;
            }
            (plan, flows, save)
        }
        (None, None) => return Err(DomainError::invalid("planId", "give planId or plan")),
    };
    refuse_improv_without_caller(&plan.plan, &flows, at, caller)?;
    let job = start_job(tx, &plan, &flows, request.variables.as_ref(), at)?;
    Ok(RunStarted {
        simulation_run_plan_job_id: job.simulation_run_plan_job_id,
        // An unsaved inline plan has an id of its own too (the hosted interface always names one).
        simulation_run_plan_id: Some(plan.id),
        simulation_job_count: job.simulation_job_count.unwrap_or_default(),
        saved_as_plan: saved && request.plan.is_some(),
        status: job.status,
        created_at: job.created_at,
    })
}

/// The saved plan named `name`, when exactly one is (found by the stored member, no plan
/// decoded: a run asks this of every saved plan).
fn saved_plan_named(tx: &Tx, name: &str) -> DomainResult<Option<Uuid>> {
    let named = store::ids_where(tx, Kind::RunPlan, "$.name", name, 2)?;
    match named.as_slice() {
        [id] => Uuid::parse_str(id).map(Some).map_err(|e| DomainError::fault(format!("run plan {id}: {e}"))),
        _ => Ok(None),
    }
}

/// Creates a PENDING run plan job and one PENDING simulation job per combination.
fn start_job(
    tx: &Tx,
    plan: &RunPlan,
    flows: &[CustomerFlow],
    variables: Option<&RunVariables>,
    at_path: &str,
) -> DomainResult<RunPlanJob> {
    Starting { plan, flows, variables, at_path }.start(tx, Timestamp::now(), JobTrigger::TriggeredFromApi)
}

/// The same, created at `at` by `trigger` (the seeded history's nights are SCHEDULED).
pub fn start_job_at(
    tx: &Tx,
    plan: &RunPlan,
    variables: Option<&RunVariables>,
    at_path: &str,
    at: Timestamp,
    trigger: JobTrigger,
) -> DomainResult<RunPlanJob> {
    let flows = resolve_flows(tx, &plan.plan)?;
    Starting { plan, flows: &flows, variables, at_path }.start(tx, at, trigger)
}

/// A job about to start: its plan, the flows the plan's selections name (read once for the
/// whole start), the run's values, and where the plan sits in the request (for refusals).
struct Starting<'a> {
    plan: &'a RunPlan,
    flows: &'a [CustomerFlow],
    variables: Option<&'a RunVariables>,
    at_path: &'a str,
}

impl Starting<'_> {
    /// Writes the job and its simulations, created at `at` by `trigger`.
    fn start(&self, tx: &Tx, at: Timestamp, trigger: JobTrigger) -> DomainResult<RunPlanJob> {
        let Starting { plan, flows, variables, at_path } = *self;
        let agents = store::all::<Agent>(tx, Kind::Agent)?.into_iter().map(|a| (a.id, a)).collect();
        let combinations = combinations(tx, &plan.plan, flows, at_path)?;
        combinations.check_filled(variables)?;
        let placing = Placing { plan, variables, job_id: Uuid::new_v4(), at: &at, agents };
        let mut placed: u64 = 0;
        let mut inserts = store::Inserts::new(tx);
        for (placement, combo) in combinations.iter().enumerate() {
            placing.place(&mut inserts, placement, combo)?;
            placed += 1;
        }
        inserts.finish()?;
        let tally = Tally::new(plan_checks(tx, &plan.plan, flows)?, placed);
        placing.place_job(tx, tally, placed, trigger)
    }
}

/// The metrics a run is judged by, with the bar each must clear: the plan's own at the bar its
/// reference sets, then the flows' and the automatic ones at the default. Metrics the run will
/// skip (live-only without live enrichment) are left out. Which of them are checks is
/// `verdict::is_check`'s to say. `flows` are those the plan's selections name, in order.
fn plan_checks(
    tx: &Tx,
    plan: &RunPlanInput,
    flows: &[CustomerFlow],
) -> DomainResult<Vec<(MetricDefinition, f64, bool)>> {
    let live = plan.enrich_with_live_conversation == Some(true);
    let runs = |d: &MetricDefinition| live || d.requires_live_conversation != Some(true);
    let mut out: Vec<(MetricDefinition, f64, bool)> = Vec::new();
    for reference in plan.metrics.iter().flatten() {
        let key = reference.id.map(|id| id.to_string()).or(reference.slug_or_alias().map(str::to_owned));
        let Some(definition) = key.map(|key| definitions::find(tx, &key)).transpose()?.flatten() else { continue };
        if runs(&definition) && !out.iter().any(|(d, ..)| d.id == definition.id) {
            let (rate, inherited) = reference.min_pass_rate_or_default();
            out.push((definition, rate, inherited));
        }
    }
    if plan.runs_flows() {
        let all: HashMap<Uuid, MetricDefinition> =
            store::all::<MetricDefinition>(tx, Kind::MetricDefinition)?.into_iter().map(|d| (d.id, d)).collect();
        let chosen: Vec<MetricDefinition> = out.iter().map(|(d, ..)| d.clone()).collect();
        for flow in flows {
            for definition in flow_and_automatic_metrics(plan, flow, &all, &chosen) {
                if runs(&definition) && !out.iter().any(|(d, ..)| d.id == definition.id) {
                    out.push((definition, DEFAULT_MIN_PASS_RATE, true));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
