//! How many simulations may start now. The limits hold across every replica sharing the
//! store, so they are counted from it (the counts triggers keep), not from what this process
//! runs (only a first look at a replica's own share counts that, `places_with_held`): a job's
//! `maxConcurrentJobs`, one simulation at a time per run plan under SEQUENTIAL_SAME_RUN_PLAN,
//! and one in the whole project under SEQUENTIAL_PROJECT, which also runs alone while it runs.
//! A job's places are shared out among the live replicas, so that each runs its part of a run
//! rather than the first to look taking them all.

use crate::api::model::{ExecutionMode, RunPlanJobStatus, SimulationJobStatus};
use crate::service::store::StoreResult;
use crate::service::store::places::{ActiveJob, Places, Statuses};
use crate::service::store::{self, Conn};

/// A run plan job whose simulations may still start.
pub const ACTIVE_JOBS: &[RunPlanJobStatus] =
    &[RunPlanJobStatus::Pending, RunPlanJobStatus::Running, RunPlanJobStatus::RunningSimulations];

/// Simulations that hold a place: picked to start, or running.
const RUNNING: &[SimulationJobStatus] = &[SimulationJobStatus::Queued, SimulationJobStatus::Processing];

/// Simulations waiting to be picked.
const WAITING: &[SimulationJobStatus] = &[SimulationJobStatus::Pending, SimulationJobStatus::RetryScheduled];

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
    /// Its share of the job's places (`share`): `None`, the whole room.
    pub share: Option<usize>,
}

/// A replica's share of a job's `max` places while `replicas` are alive: the whole room alone
/// (`None`); else an even part, the duty holder (`Store::holds_duties`, busy with the
/// deployment's one-runner duties) taking the smaller one when they do not divide and the
/// others the larger, so that the shares together cover every place. Never none: a job with
/// fewer places than replicas would otherwise rest on the others alone, and one of them alive
/// but stalled would stall it (the job's own limit still caps what all replicas pick).
pub fn share(max: usize, replicas: usize, holds_duties: bool) -> Option<usize> {
    let max = max.max(1);
    match replicas {
        0 | 1 => None,
        _ if holds_duties => Some((max / replicas).max(1)),
        _ => Some(max.div_ceil(replicas)),
    }
}

/// How many more of the job's simulations may start now.
pub fn room(conn: &Conn, job: &JobLimits) -> StoreResult<usize> {
    room_in(&places(conn, job)?, job)
}

/// Which statuses the limits count as what, as the store's status column spells them.
pub struct Counted {
    pub active_jobs: Vec<&'static str>,
    pub running: Vec<&'static str>,
    pub waiting: Vec<&'static str>,
}

impl Default for Counted {
    fn default() -> Counted {
        Counted {
            active_jobs: active_job_names(),
            running: RUNNING.iter().map(SimulationJobStatus::as_str).collect(),
            waiting: WAITING.iter().map(SimulationJobStatus::as_str).collect(),
        }
    }
}

/// What the job's limits count, in one read of the store.
pub fn places(conn: &Conn, job: &JobLimits) -> StoreResult<Places> {
    // What the replica holds counts only against a share.
    read_places(conn, job, job.share.map(|_| job.owner))
}

/// The same, with what the asking replica holds of the job known already (`held`, the
/// simulations of the job it runs): not counted in the store.
pub fn places_with_held(conn: &Conn, job: &JobLimits, held: usize) -> StoreResult<Places> {
    Ok(Places { mine: held, ..read_places(conn, job, None)? })
}

fn read_places(conn: &Conn, job: &JobLimits, owner: Option<&str>) -> StoreResult<Places> {
    let counted = Counted::default();
    let statuses = Statuses { active_jobs: &counted.active_jobs, running: &counted.running, waiting: &counted.waiting };
    store::places::read(conn, job.job_id, owner, &statuses)
}

/// How many more of the job's simulations may start, by what `places` counted.
pub fn room_in(places: &Places, job: &JobLimits) -> StoreResult<usize> {
    let mut in_project = 0;
    let mut in_plan = 0;
    for active in places.active.iter().filter(|a| a.running > 0) {
        // A SEQUENTIAL_PROJECT simulation runs alone.
        if mode_of(active)? == ExecutionMode::SequentialProject {
            return Ok(0);
        }
        in_project += active.running;
        if active.plan_id.as_deref().unwrap_or(&active.id) == job.plan_key {
            in_plan += active.running;
        }
    }
    Ok(match job.mode {
        ExecutionMode::SequentialProject => usize::from(in_project == 0),
        ExecutionMode::SequentialSameRunPlan => usize::from(in_plan == 0),
        _ => {
            let max = job.max_concurrent.max(1);
            let free = max.saturating_sub(places.running as usize);
            match job.share {
                None => free,
                Some(share) => free.min(share.saturating_sub(places.mine)),
            }
        }
    })
}

/// The execution mode of an active job's plan.
fn mode_of(job: &ActiveJob) -> StoreResult<ExecutionMode> {
    let mode = job.mode.as_ref().map(|m| serde_json::from_value::<ExecutionMode>(m.as_str().into())).transpose()?;
    Ok(mode.unwrap_or(ExecutionMode::Parallel))
}

#[cfg(test)]
mod tests {
    use super::{Counted, share};
    use crate::api::model::SimulationJobStatus;

    /// PostgreSQL's picks find the places held through an index of running simulations whose
    /// statuses are spelled in SQL (migration 13's index, migration 16's `sb_pick`): they are
    /// these.
    #[test]
    fn the_running_statuses_are_those_the_places_index_spells() {
        let spelled = format!(
            "status IN ({})",
            Counted::default().running.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
        );
        let index = include_str!("../store/postgres/migration_13.sql");
        assert!(index.contains(&format!("WHERE place IS NOT NULL AND {spelled}")), "{spelled}");
        let pick = include_str!("../store/postgres/migration_16.sql");
        assert_eq!(pick.matches(&spelled).count(), 3, "the three reads of the places in `sb_pick`");
    }

    /// And they claim the waiting simulations through an index of those alone, its status
    /// spelled in SQL (migration 16's `docs_waiting` and `sb_pick`'s claim): it is this one.
    #[test]
    fn the_waiting_status_is_the_one_docs_waiting_spells() {
        let pick = include_str!("../store/postgres/migration_16.sql");
        let pending = SimulationJobStatus::Pending.as_str();
        assert!(pick.contains(&format!("WHERE status = '{pending}' AND deleted_at IS NULL;")), "`docs_waiting`");
        assert!(pick.contains(&format!("d.status = '{pending}' AND d.deleted_at IS NULL")), "the claim");
    }

    /// Alone, the whole room; shared, parts that cover every place, the duty holder's the
    /// smaller when they do not divide.
    #[test]
    fn a_replica_takes_its_share_and_the_shares_cover_every_place() {
        assert_eq!(share(16, 1, true), None);
        assert_eq!(share(16, 0, false), None, "a count not read yet: alone");
        assert_eq!((share(16, 2, true), share(16, 2, false)), (Some(8), Some(8)));
        assert_eq!((share(15, 2, true), share(15, 2, false)), (Some(7), Some(8)));
        assert_eq!((share(16, 3, true), share(16, 3, false)), (Some(5), Some(6)));
        assert_eq!((share(1, 2, true), share(1, 2, false)), (Some(1), Some(1)), "never none");
        for max in 1..40 {
            for replicas in 2..6 {
                let holder = share(max, replicas, true).unwrap_or(max);
                let others = share(max, replicas, false).unwrap_or(max) * (replicas - 1);
                assert!(holder >= 1, "{max} places, {replicas} replicas: the holder has none");
                assert!(holder + others >= max, "{max} places, {replicas} replicas: {holder} + {others}");
                assert!(holder <= others.div_ceil(replicas - 1), "{max}, {replicas}: the holder's is the smaller");
            }
        }
    }
}
