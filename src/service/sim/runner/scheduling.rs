//! Scheduling: which simulations start now. Each job's PENDING simulations are picked under
//! its limits (counted in the store, on places of the job's no two replicas hold) and leased to
//! this replica; a job's first pick marks it RUNNING and opens its collection job.

use std::collections::HashSet;
use std::sync::Arc;

use uuid::Uuid;

use super::Simulator;
use crate::api::model::*;
use crate::service::sim::jobs::{self, Replay, RunInputs, StoredRunPlanJob, count_simulations};
use crate::service::sim::selection::plan_metric_ids;
use crate::service::sim::work::{JobMetrics, Limits, Work};
use crate::service::sim::{limits, pick};
use crate::service::store::records::StoredCollectionJob;
use crate::service::store::{self, Dialect, Kind, StoreError, StoreResult};

/// Why one job could not be scheduled.
enum JobError {
    /// It never will be: the job fails with this reason.
    Unrunnable(String),
    /// A store error that may pass: the job is tried again on the next round.
    Passing(StoreError),
}
use JobError::{Passing, Unrunnable};

impl From<StoreError> for JobError {
    /// Text the store cannot keep will not be kept next time either.
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unstorable => Unrunnable(error.to_string()),
            error => Passing(error),
        }
    }
}

/// How long a refill on PostgreSQL waits after the end that began it, so that one pick serves
/// the ends of those milliseconds (every pick pays its counts, its locks, its claim and a round
/// trip), for a replica alone; each of several waits its part (`gather`): it holds its part of
/// the places, so its ends come that much less often, and a longer wait only leaves them empty.
/// Measured on two shared cores (docs/performance.md, stops 48, 51 and 54): 20 ms for each of
/// two replicas was clearly slower; 5 ms a little faster than 10 ms (0.95× in the
/// middle of 19 rounds, 0.82–1.14×); one replica alone a little slower with 5 ms. SQLite's
/// pick is a transaction in process: there the wait only left places empty, so it picks at once.
const GATHER: std::time::Duration = std::time::Duration::from_millis(10);

/// A refill's wait (`GATHER`) while `live` replicas share the jobs' places.
fn gather(live: usize) -> std::time::Duration {
    GATHER / live.max(1) as u32
}

/// The jobs this replica refills now, and those an end asked to refill again meanwhile.
#[derive(Default)]
pub(super) struct Refills(std::sync::Mutex<(HashSet<String>, HashSet<String>)>);

impl Refills {
    /// The caller's turn to refill `job`, or `None` when another refills it now (which is
    /// then asked to pick once more).
    fn begin<'a>(&'a self, job: &'a str) -> Option<RefillTurn<'a>> {
        let mut guard = self.lock();
        let (running, again) = &mut *guard;
        if running.insert(job.to_owned()) {
            return Some(RefillTurn { refills: self, job, over: false });
        }
        again.insert(job.to_owned());
        None
    }

    /// Takes `job`'s marks away, so that the next end refills it.
    fn end(&self, job: &str) {
        let mut guard = self.lock();
        let (running, again) = &mut *guard;
        running.remove(job);
        again.remove(job);
    }

    /// The marks: the jobs refilled now, and those asked to pick again.
    fn lock(&self) -> std::sync::MutexGuard<'_, (HashSet<String>, HashSet<String>)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One job's refill under way in this replica. Dropped — by a panic or an abort too — it
/// gives the job up, so a refill that never returned cannot leave the job marked for good
/// (every later end would ask it for one more pick, and only the loop's timer would fill).
struct RefillTurn<'a> {
    refills: &'a Refills,
    job: &'a str,
    over: bool,
}

impl RefillTurn<'_> {
    /// The ends that came since the last pick are picked for by the next: their marks go.
    fn gathered(&self) {
        let mut guard = self.refills.lock();
        guard.1.remove(self.job);
    }

    /// Whether the refill is over: `false` when an end asked for another pick meanwhile. Over,
    /// the mark goes under the same lock, so an end right after begins a refill of its own.
    fn over(&mut self) -> bool {
        let mut guard = self.refills.lock();
        let (running, again) = &mut *guard;
        if again.remove(self.job) {
            return false;
        }
        running.remove(self.job);
        self.over = true;
        true
    }
}

impl Drop for RefillTurn<'_> {
    fn drop(&mut self) {
        if !self.over {
            self.refills.end(self.job);
        }
    }
}

/// The time a pick releases retries due by: now, or for a replay every retry at once (it runs
/// as fast as it can).
fn retries_due_by(replay: &Option<Replay>) -> Timestamp {
    match replay {
        Some(_) => Timestamp::from(jiff::Timestamp::MAX),
        None => Timestamp::now(),
    }
}

/// What every simulation of one job shares.
struct JobShare<'a> {
    job_id: &'a str,
    metrics: &'a Arc<JobMetrics>,
    plan: &'a RunPlanInput,
    variables: &'a Option<RunVariables>,
    replay: &'a Option<Replay>,
}

impl Simulator {
    /// Starts every simulation the limits allow now. Each job is scheduled on its own: one
    /// that fails (a busy store, or a job the engine cannot run) never holds up the others.
    pub(super) async fn schedule(&self) -> StoreResult<()> {
        let jobs: Vec<(String, String)> = self
            .store
            .read(|c| -> StoreResult<_> {
                let active = store::in_status(c, Kind::RunPlanJob, &limits::active_job_names())?;
                Ok(active.into_iter().map(|(id, _, body)| (id, body)).collect())
            })
            .await?;
        self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).retain(|id, _| jobs.iter().any(|(j, _)| j == id));
        self.casts.retain(|id| jobs.iter().any(|(j, _)| j == id));
        for (job_id, body) in jobs {
            match self.schedule_job(&job_id, &body).await {
                Ok(()) => {}
                Err(Unrunnable(reason)) => self.fail_job(&job_id, reason).await,
                Err(Passing(e)) => tracing::warn!("simulation scheduler, job {job_id}: {e}"),
            }
        }
        Ok(())
    }

    /// Starts the simulations of one job that its limits allow now.
    async fn schedule_job(&self, job_id: &str, body: &str) -> Result<(), JobError> {
        let inputs: RunInputs =
            serde_json::from_str(body).map_err(|e| Unrunnable(format!("the job cannot be read: {e}")))?;
        let plan = inputs.plan().map_err(Unrunnable)?;
        let variables = inputs.variables().map_err(Unrunnable)?;
        let mode = plan.execution_mode_or_default();
        let plan_key = inputs.simulation_run_plan_id.map_or_else(|| job_id.to_owned(), |id| id.to_string());
        let max = plan.max_concurrent_jobs_or_default();
        let limits = Limits { job_id: job_id.to_owned(), plan_key, mode, max, share: self.share_of(max) };
        let now = retries_due_by(&inputs.replay);
        let picked = self.pick(limits, now, Look::First).await.map_err(JobError::from)?;
        if picked.is_empty() {
            return Ok(());
        }
        let metrics = self.job_metrics(job_id, &plan, inputs.replay.clone()).await.map_err(JobError::from)?;
        self.start_picked(
            &JobShare { job_id, metrics: &metrics, plan: &plan, variables: &variables, replay: &inputs.replay },
            picked,
        );
        Ok(())
    }

    /// Runs each of `picked`, simulations of `job`'s, on a task of its own.
    fn start_picked(&self, job: &JobShare, picked: Vec<SimulationJob>) {
        for simulation in picked {
            let work = Work {
                metrics: job.metrics.clone(),
                job_id: job.job_id.to_owned(),
                simulation,
                plan: job.plan.clone(),
                variables: job.variables.clone(),
                replay: job.replay.clone(),
                replayed_ms: Default::default(),
            };
            let (engine, counted) = (self.clone(), self.running.start(job.job_id));
            tokio::spawn(async move { engine.run(work, counted).await });
        }
    }

    /// Fills the place an ended simulation of `ended`'s job left, from the task that ended it:
    /// the scheduler's loop, one pass after another for every job, left places empty while it
    /// read the active jobs and picked for the others (11 of 16 in flight, issue 33). One
    /// refill a job at a time in this replica: an end while one picks has it pick once more
    /// after, so ends that come together cost one pick; another replica's refill of the job
    /// runs beside it, on other places of the job's. On PostgreSQL each pick waits `gather`
    /// first, so that the ends of those milliseconds need no pick of their own. A job under a
    /// sequential mode, whose limits span other jobs, and a pick that started nothing or failed
    /// are left to the loop, woken.
    pub(super) async fn refill(&self, ended: &Work) {
        let mode = ended.plan.execution_mode_or_default();
        if matches!(mode, ExecutionMode::SequentialProject | ExecutionMode::SequentialSameRunPlan) {
            return self.wake();
        }
        let Some(mut turn) = self.refills.begin(&ended.job_id) else {
            return; // the refill under way picks again for this end
        };
        loop {
            // The ends of the next few milliseconds free places too: one pick for all of them.
            if self.store.dialect() == Dialect::Postgres {
                tokio::time::sleep(gather(self.store.live_replicas())).await;
                turn.gathered();
            }
            self.refill_once(ended, mode.clone()).await;
            if turn.over() {
                return;
            }
        }
    }

    /// One pick for `ended`'s job (`refill`).
    async fn refill_once(&self, ended: &Work, mode: ExecutionMode) {
        let job_id = ended.job_id.clone();
        // The plan's key counts only under SEQUENTIAL_SAME_RUN_PLAN, left to the loop above.
        let max = ended.plan.max_concurrent_jobs_or_default();
        let limits = Limits { job_id: job_id.clone(), plan_key: job_id, mode, max, share: self.share_of(max) };
        let now = retries_due_by(&ended.replay);
        // The end has just freed a place: straight to the pick, which counts again.
        match self.pick(limits, now, Look::Straight).await {
            Ok(picked) if !picked.is_empty() => {
                let job = JobShare {
                    job_id: &ended.job_id,
                    metrics: &ended.metrics,
                    plan: &ended.plan,
                    variables: &ended.variables,
                    replay: &ended.replay,
                };
                self.start_picked(&job, picked)
            }
            // Nothing waiting or no room: the place this end freed goes unused by its job, so the
            // loop gives it to a job that can use it now rather than on its timer — a
            // SEQUENTIAL_PROJECT job (or one of the same plan under SEQUENTIAL_SAME_RUN_PLAN)
            // waits for every simulation of this one to settle, and only its end can tell.
            // While the job has more waiting, its picks start some and the loop sleeps on.
            _ => self.wake(),
        }
    }

    /// This replica's share of a job's `max` places now (`limits::share`): by the live
    /// replicas, counted once a second.
    fn share_of(&self, max: i64) -> Option<usize> {
        limits::share(max.max(1) as usize, self.store.live_replicas(), self.store.holds_duties())
    }

    /// Ends a job the engine cannot run, with the reason; written until it lands, like every
    /// end of a simulation.
    async fn fail_job(&self, job_id: &str, reason: String) {
        tracing::warn!("run plan job {job_id} cannot run: {reason}");
        let id = job_id.to_owned();
        self.write_until_landed("failing a run plan job", move |tx| jobs::fail(tx, &id, &reason)).await;
        self.wake();
    }

    /// The job's shared setup, from the cache, or made once: the job marked RUNNING with its
    /// collection job opened, and its metrics read.
    async fn job_metrics(
        &self,
        job_id: &str,
        plan: &RunPlanInput,
        replay: Option<Replay>,
    ) -> StoreResult<Arc<JobMetrics>> {
        if let Some(cached) = self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).get(job_id) {
            return Ok(cached.clone());
        }
        let collection_id = self.ensure_started(job_id, plan, replay).await?;
        let plan = plan.clone();
        let loaded = Arc::new(self.store.read(move |c| JobMetrics::load(c, &plan, collection_id)).await?);
        self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).insert(job_id.to_owned(), loaded.clone());
        Ok(loaded)
    }

    /// Moves retries whose time has come (`now`, on the job's clock) to PENDING, then as many
    /// PENDING simulations of the job as its limits allow to QUEUED, leased to this replica,
    /// and hands those back. With `Look::First` a read first tells whether there is room and
    /// anything waiting, so a full job costs no write; the write counts again, one replica at a
    /// time.
    async fn pick(&self, limits: Limits, now: Timestamp, look: Look) -> StoreResult<Vec<SimulationJob>> {
        let limits = Arc::new(limits);
        let worth_it = look == Look::Straight || {
            let (limits, owner) = (limits.clone(), self.worker.owner.clone());
            // What this replica holds of the job is what it runs: known, not read (`running`).
            let held = self.running.of(&limits.job_id);
            self.store
                .read(move |c| -> StoreResult<_> {
                    // Waiting simulations and the room, in one read.
                    let job = limits.as_job(&owner);
                    let places = limits::places_with_held(c, &job, held)?;
                    Ok(places.waiting > 0 && limits::room_in(&places, &job)? > 0)
                })
                .await?
        };
        if !worth_it {
            return Ok(Vec::new());
        }
        // A job whose limits are its own is picked for beside other jobs' picks and another
        // replica's pick for it; one whose limits span others is picked alone.
        let order = pick::Order {
            limits: Arc::unwrap_or_clone(limits),
            owner: self.worker.owner.to_string(),
            until_ms: self.worker.until_ms(),
            now,
        };
        pick::pick(&self.store, order).await
    }

    /// Marks the job RUNNING and opens its collection job, once; returns the collection job's id.
    async fn ensure_started(&self, job_id: &str, plan: &RunPlanInput, replay: Option<Replay>) -> StoreResult<String> {
        let job_id = job_id.to_owned();
        let plan = plan.clone();
        self.store
            .write(move |tx| {
                let mut job = StoredRunPlanJob::load(tx, &job_id)?;
                if let Some(id) = job.collection_job_id {
                    return Ok(id.to_string());
                }
                let at = Replay::now(replay.as_ref());
                let total = count_simulations(tx, &job_id)?;
                let metrics = plan_metric_ids(tx, &plan)?;
                let collection = CollectionJob {
                    id: Uuid::new_v4(),
                    status: Some(CollectionJobStatus::Processing),
                    triggered_by: Some(TriggeredBy::Simulation),
                    total_items: Some(total),
                    completed_items: Some(0),
                    failed_items: Some(0),
                    started_at: Some(at.clone()),
                    completed_at: None,
                    error_message: None,
                    policy_ids: Vec::new(),
                    created_at: Some(at.clone()),
                    updated_at: Some(at.clone()),
                };
                let request = CollectionJobInput {
                    metrics: Some(metrics.iter().map(|(id, _)| IdRef::from(*id)).collect()),
                    ..Default::default()
                };
                let stored = StoredCollectionJob {
                    simulation_run_plan_job_id: Some(job.job.simulation_run_plan_job_id),
                    ..StoredCollectionJob::new(collection.clone(), request)
                };
                stored.insert(tx)?;
                job.collection_job_id = Some(collection.id);
                if job.job.status == Some(RunPlanJobStatus::Pending) {
                    job.job.status = Some(RunPlanJobStatus::RunningSimulations);
                    job.job.started_at = Some(at);
                }
                job.save(tx)?;
                Ok(collection.id.to_string())
            })
            .await
    }
}

/// Whether a pick reads first if it is worth a write (`Scheduler::pick`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// The loop's pass over every active job: most are full, a read is cheaper than a write.
    First,
    /// A refill at an end: the end has just freed a place, so the read would almost always
    /// say yes; the write's own count decides (one round trip fewer a refill).
    Straight,
}

#[cfg(test)]
mod tests {
    use super::{Refills, gather};

    #[test]
    fn an_end_during_a_refill_asks_it_for_one_more_pick() {
        let refills = Refills::default();
        let mut turn = refills.begin("job").unwrap_or_else(|| panic!("the first end refills"));
        assert!(refills.begin("job").is_none(), "a second end leaves it to the refill under way");
        assert!(!turn.over(), "the refill picks once more for the second end");
        assert!(turn.over());
        drop(turn);
        assert!(refills.begin("job").is_some(), "the next end refills again");
    }

    /// The ends that come while a refill gathers are picked for by its pick (the places they
    /// freed are counted by it): no pick more for them; an end during the pick asks for one.
    #[test]
    fn the_ends_a_refill_gathered_cost_no_pick_of_their_own() {
        let refills = Refills::default();
        let mut turn = refills.begin("job").unwrap_or_else(|| panic!("the first end refills"));
        assert!(refills.begin("job").is_none() && refills.begin("job").is_none(), "two ends while it gathers");
        turn.gathered();
        assert!(turn.over(), "its one pick was theirs too");
        let mut turn = refills.begin("job").unwrap_or_else(|| panic!("the next end refills"));
        turn.gathered();
        assert!(refills.begin("job").is_none(), "an end while it picks");
        assert!(!turn.over(), "picked for after");
    }

    /// A replica alone waits the whole `GATHER` for ends to pick for together; each of several
    /// its part, as it holds its part of the places.
    #[test]
    fn a_refill_waits_its_part_of_the_gather() {
        let waits: Vec<u128> = (0..=4).map(|live| gather(live).as_micros()).collect();
        assert_eq!(waits, [10_000, 10_000, 5_000, 3_333, 2_500], "none counted yet is alone");
    }

    #[test]
    fn a_refill_that_panicked_leaves_its_job_to_the_next_end() {
        let refills = Refills::default();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _turn = refills.begin("job");
            assert!(refills.begin("job").is_none());
            panic!("a pick that panicked");
        }));
        assert!(panicked.is_err());
        assert!(refills.begin("job").is_some(), "the job is not left marked as being refilled");
        assert!(refills.begin("other").is_some(), "other jobs were never held up");
    }

    #[test]
    fn a_turn_that_was_over_leaves_a_later_turn_alone() {
        let refills = Refills::default();
        let mut first = refills.begin("job").unwrap_or_else(|| panic!("the first end refills"));
        assert!(first.over());
        let _second = refills.begin("job").unwrap_or_else(|| panic!("a later end refills"));
        drop(first);
        assert!(refills.begin("job").is_none(), "the first turn's drop did not end the second's");
    }
}
