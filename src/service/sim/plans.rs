//! Saved run plans changed and deleted, and when a plan's schedule next runs it. The rules, not
//! the HTTP: the routes hand their validated input here.

use super::schedule::decide;
use super::start::{self, check_references};
use crate::api::model::*;
use crate::api::validate::Validate;
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn, Doc, Kind, Tx, schedules};

/// The code of the refusal to delete a plan a job is still running.
pub const PLAN_IN_USE: &str = "plan_in_use";

/// Applies an update to the plan `id`: the merged plan is checked as a new one would be.
pub fn update(tx: &Tx, id: &str, update: RunPlanUpdate) -> DomainResult<RunPlan> {
    let mut plan: RunPlan = store::require(tx, Kind::RunPlan, id)?;
    let input = update.apply_to(plan.plan.clone().as_input());
    DomainError::check(input.validate())?;
    let flows = check_references(tx, &input, "")?;
    let schedule_changed = input.schedule != plan.plan.schedule;
    let made = start::plan_of(tx, input, &flows, "")?;
    plan.plan = made.plan;
    plan.test_case_count = made.test_case_count;
    plan.updated_at = Some(Timestamp::now());
    if schedule_changed {
        // A new schedule counts its runs (`maxRuns`) from nothing.
        schedules::forget(tx, id)?;
    }
    plan.next_run_at = next_run(tx, &plan, jiff::Timestamp::now())?;
    save(tx, &plan)?;
    Ok(plan)
}

/// Deletes the plan `id` (kept, hidden from every read), unless a job is still running it.
pub fn delete(tx: &Tx, id: &str) -> DomainResult<()> {
    store::require::<RunPlan>(tx, Kind::RunPlan, id)?;
    let open: Vec<&str> = RunPlanJobStatus::KNOWN.iter().filter(|s| !s.is_terminal()).map(|s| s.as_str()).collect();
    let running = store::ids_in_status(tx, Kind::RunPlanJob, &open)?;
    if let Some((job, _)) = running.iter().find(|(_, parent)| parent.as_deref() == Some(id)) {
        let status = store::peek_status(tx, Kind::RunPlanJob, job)?.unwrap_or_default();
        let message = format!(
            "run plan {id} is in use: job {job} is {status}; cancel it (POST /v1/simulation/plan/job/{job}/cancel) \
             or let it end, then delete the plan"
        );
        return Err(DomainError::conflict("planId", PLAN_IN_USE, message));
    }
    schedules::forget(tx, id)?;
    store::soft_delete(tx, Kind::RunPlan, id, &Timestamp::now().0)?;
    Ok(())
}

/// When a new plan's schedule first runs it.
pub fn first_run(plan: &RunPlan) -> Option<Timestamp> {
    let rule = plan.plan.schedule.as_ref()?.rule()?;
    let now = jiff::Timestamp::now();
    let since = since(plan).unwrap_or(now);
    decide(&rule, since, 0, None, now).next.map(Timestamp::from)
}

/// When the plan's schedule next runs it, given the runs it has started so far.
pub fn next_run(conn: &Conn, plan: &RunPlan, now: jiff::Timestamp) -> DomainResult<Option<Timestamp>> {
    let Some(rule) = plan.plan.schedule.as_ref().and_then(Schedule::rule) else { return Ok(None) };
    let (runs, last) = schedules::runs(conn, &plan.id.to_string())?;
    let last = last.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok());
    Ok(decide(&rule, since(plan).unwrap_or(now), runs, last, now).next.map(Timestamp::from))
}

/// When the plan's schedule was set: slots before it are not the schedule's to run.
pub fn since(plan: &RunPlan) -> Option<jiff::Timestamp> {
    plan.updated_at.as_ref().or(plan.created_at.as_ref()).and_then(Timestamp::parse)
}

fn save(tx: &Tx, plan: &RunPlan) -> StoreResult<()> {
    store::update(tx, &Doc::of(plan)?)
}
