//! How many simulations may start now. The limits hold across every replica sharing the
//! store, so they are counted from it (the counts triggers keep), not from what this process
//! runs: a job's `maxConcurrentJobs`, one simulation at a time per run plan under
//! SEQUENTIAL_SAME_RUN_PLAN, and one in the whole project under SEQUENTIAL_PROJECT, which also
//! runs alone while it runs. A job's places are shared out among the live replicas, so that
//! each runs its part of a run rather than the first to look taking them all.

use crate::api::model::{ExecutionMode, RunPlanJobStatus, SimulationJobStatus};
use crate::service::replica::leases::now_ms;
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn, Kind, leases};

/// A run plan job whose simulations may still start.
pub const ACTIVE_JOBS: &[RunPlanJobStatus] =
    &[RunPlanJobStatus::Pending, RunPlanJobStatus::Running, RunPlanJobStatus::RunningSimulations];

/// Simulations that hold a place: picked to start, or running.
const RUNNING: &[SimulationJobStatus] = &[SimulationJobStatus::Queued, SimulationJobStatus::Processing];

/// `ACTIVE_JOBS` as the store's status column spells them.
pub fn active_job_names() -> Vec<&'static str> {
    ACTIVE_JOBS.iter().map(RunPlanJobStatus::as_str).collect()
}

/// What a job's limits are: its own id, its plan's (the job's own for an inline plan), its
/// execution mode and its concurrency.
pub struct JobLimits<'a> {
    pub job_id: &'a str,
    pub plan_key: &'a str,
    pub mode: &'a ExecutionMode,
    pub max_concurrent: usize,
    /// The replica asking.
    pub owner: &'a str,
}

/// How many more of the job's simulations may start now.
pub fn room(conn: &Conn, job: &JobLimits) -> StoreResult<usize> {
    let held: Vec<&str> = RUNNING.iter().map(SimulationJobStatus::as_str).collect();
    let running = |id: &str| store::count_children(conn, Kind::SimulationJob, id, &held);
    let mut in_project = 0;
    let mut in_plan = 0;
    for (id, plan) in store::ids_in_status(conn, Kind::RunPlanJob, &active_job_names())? {
        let n = running(&id)?;
        if n == 0 {
            continue;
        }
        // A SEQUENTIAL_PROJECT simulation runs alone.
        if mode_of(conn, &id)? == ExecutionMode::SequentialProject {
            return Ok(0);
        }
        in_project += n;
        if plan.as_deref().unwrap_or(&id) == job.plan_key {
            in_plan += n;
        }
    }
    Ok(match job.mode {
        ExecutionMode::SequentialProject => usize::from(in_project == 0),
        ExecutionMode::SequentialSameRunPlan => usize::from(in_plan == 0),
        _ => {
            let max = job.max_concurrent.max(1);
            let free = max.saturating_sub(running(job.job_id)? as usize);
            match leases::live_replicas(conn, now_ms())? {
                1 => free,
                replicas => {
                    let mine = leases::held_under(conn, Kind::SimulationJob, job.job_id, job.owner)?;
                    free.min(max.div_ceil(replicas).saturating_sub(mine))
                }
            }
        }
    })
}

/// The execution mode of a job's plan (read alone from its document).
fn mode_of(conn: &Conn, job_id: &str) -> StoreResult<ExecutionMode> {
    let mode = store::peek_member(conn, Kind::RunPlanJob, job_id, "$.plan.executionMode")?;
    let mode = mode.map(|m| serde_json::from_str::<Option<ExecutionMode>>(&m)).transpose()?;
    Ok(mode.flatten().unwrap_or(ExecutionMode::Parallel))
}
