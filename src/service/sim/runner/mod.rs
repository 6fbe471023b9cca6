//! Runs run plan jobs: schedules PENDING simulations within the plan's execution mode and
//! concurrency, simulates each call at the configured speed, stores the call, collects the
//! plan's metrics into the job's collection job, and moves every status:
//! simulations PENDING → QUEUED → PROCESSING (CONNECTING → SIMULATING → COLLECTING_METRICS →
//! COMPLETED; at max speed and in replays only CONNECTING is written before the end) →
//! COMPLETED or FAILED; the job PENDING → RUNNING_SIMULATIONS → COMPLETED (FAILED if none
//! succeeded), or CANCELLING → CANCELLED. A simulation the agent never spoke on is retried,
//! when the plan asks, as a new RETRY_SCHEDULED simulation that waits out the backoff.
//!
//! Several replicas may share the store and one run: each picks simulations under the limits
//! counted in the store (`limits`), on places of the job's that no two replicas hold
//! (`store::Pick`), and leases what it picked (`leases`); every write for a simulation checks that this replica still holds it, so one
//! whose lease ran out (and was handed to another replica) is left to that one.

mod casts;
mod failure;
mod folding;
mod running;
mod scheduling;
mod simulation;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::call_record::insert_call;
use super::conversation::ModelCaller;
use super::jobs::{Retry, save_simulation, settle_job};
use super::work::{JobMetrics, Work};
use crate::api::model::*;
use crate::service::SimSpeed;
use crate::service::error::{DomainError, DomainResult};
use crate::service::metrics::judge::Judge;
use crate::service::replica::leases::{self, Worker};
use crate::service::store::{self, Kind, Store, StoreError, StoreResult};
use failure::SimulationError;
use simulation::Simulation;

/// How often the scheduler looks for work nothing woke it for: a retry whose time came, a
/// stopped replica's simulations handed back, a run another replica's announcement missed.
const SCHEDULE_EVERY: Duration = Duration::from_millis(500);

/// Returns at the next announcement of work (`Simulator::wake_everywhere`); never without a
/// channel (SQLite) or once its sender is gone.
async fn announcement(announced: &mut Option<tokio::sync::watch::Receiver<u64>>) {
    let heard = match announced {
        Some(receiver) => receiver.changed().await.is_ok(),
        None => false,
    };
    if !heard {
        std::future::pending::<()>().await;
    }
}

/// The simulation engine.
#[derive(Clone)]
pub struct Simulator {
    store: Store,
    judge: Arc<Judge>,
    speed: SimSpeed,
    base_url: String,
    http: reqwest::Client,
    wake: Arc<Notify>,
    /// Wakes the fold of simulations' ends into their jobs (`folding`).
    folds: Arc<Notify>,
    /// This replica, and how long its leases last.
    worker: Worker,
    /// Each active job's metrics, loaded when it first schedules and dropped once it ends.
    job_metrics: Arc<Mutex<HashMap<String, Arc<JobMetrics>>>>,
    /// Each active job's set-up documents, read again only when one changed (`casts`).
    casts: Arc<casts::Casts>,
    /// The jobs whose places an end is filling now (`scheduling::refill`).
    refills: Arc<scheduling::Refills>,
    /// The simulations this replica runs now, by job (`running`).
    running: Arc<running::Running>,
    /// How long an HTTP agent may take to answer one turn.
    turn_timeout: Duration,
    /// The language model that plays the caller, when the service has one (`[caller]`).
    caller: Option<Arc<ModelCaller>>,
}

impl Simulator {
    pub fn new(store: Store, judge: Arc<Judge>, speed: SimSpeed, base_url: String, worker: Worker) -> Simulator {
        Simulator {
            store,
            judge,
            speed,
            base_url,
            http: reqwest::Client::new(),
            wake: Arc::new(Notify::new()),
            folds: Arc::new(Notify::new()),
            worker,
            job_metrics: Arc::default(),
            casts: Arc::default(),
            refills: Arc::default(),
            running: Arc::default(),
            turn_timeout: super::agent_link::TURN_TIMEOUT,
            caller: None,
        }
    }

    /// The same, giving an HTTP agent `timeout` to answer each turn.
    pub fn with_turn_timeout(self, timeout: Duration) -> Simulator {
        Simulator { turn_timeout: timeout, ..self }
    }

    /// The same, with `caller` playing the simulated callers.
    pub fn with_caller(self, caller: Option<ModelCaller>) -> Simulator {
        Simulator { caller: caller.map(Arc::new), ..self }
    }

    /// Whether a caller model plays the callers (an improv variant with no steps needs one).
    pub fn caller(&self) -> super::start::Caller {
        if self.caller.is_some() { super::start::Caller::Model } else { super::start::Caller::Offline }
    }

    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Wakes this replica's scheduler and every other's: a run was created here. The others
    /// otherwise found it at their next pass (`SCHEDULE_EVERY`), which left a second replica's
    /// places empty for a quarter of a second on average at a run's start. Sent from a task of
    /// its own, so that a busy pool never holds up the answer to the request that created the
    /// run; one that fails is only late (the passes find the run).
    pub fn wake_everywhere(&self) {
        self.wake();
        let store = self.store.clone();
        tokio::spawn(async move {
            if let Err(e) = store.announce_work().await {
                tracing::warn!("the other replicas not told of a new run: {e}");
            }
        });
    }

    /// Schedules as work arrives (what a stopped replica left is handed back by `lease_keeper`).
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut announced = self.store.work_announced();
            loop {
                if let Err(e) = self.schedule().await {
                    tracing::error!("simulation scheduler: {e}");
                }
                tokio::select! {
                    _ = self.wake.notified() => {}
                    _ = announcement(&mut announced) => {}
                    _ = tokio::time::sleep(SCHEDULE_EVERY) => {}
                }
            }
        })
    }

    /// One simulation, start to finish; its slot is released whatever happens. It counts as
    /// running in this replica (`counted`, from `start_picked`) until its end is written and
    /// its job settled, or another replica took it over.
    async fn run(&self, work: Work, counted: running::RunningOne) {
        let work = Arc::new(work);
        let id = work.simulation.simulation_job_id;
        let settled = {
            let (engine, work) = (self.clone(), work.clone());
            // A panic fails the simulation like any error instead of leaving it PROCESSING.
            tokio::spawn(async move { engine.simulate(&work).await })
                .await
                .unwrap_or_else(|panic| Err(DomainError::fault(format!("simulation {id}: {panic}")).into()))
        };
        if let Err(SimulationError::Store(e @ StoreError::LeaseLost { .. })) = &settled {
            // Another replica took the simulation over; what it does with it is its own.
            tracing::info!("simulation {id}: {e}");
            self.wake();
            return;
        }
        if let Err(e) = &settled {
            let (message, owner) = e.failure();
            let job_id = work.job_id.clone();
            let now = work.now();
            let worker = self.worker.clone();
            self.write_until_landed("failing a simulation", move |tx| -> StoreResult<_> {
                let id = id.to_string();
                if !store::leases::held_by(tx, Kind::SimulationJob, &id, &worker.owner)? {
                    return Ok(()); // taken over meanwhile
                }
                let mut simulation: SimulationJob = store::require(tx, Kind::SimulationJob, &id)?;
                if !simulation.status.as_ref().is_some_and(SimulationJobStatus::is_terminal) {
                    simulation.status = Some(SimulationJobStatus::Failed);
                    simulation.error_message = Some(message.clone());
                    simulation.completed_at = Some(now.clone());
                    simulation.failure_owner = Some(owner.clone());
                    save_simulation(tx, &simulation, &job_id)?;
                }
                store::leases::release(tx, Kind::SimulationJob, &id)
            })
            .await;
        }
        if !matches!(settled, Ok(true)) {
            let job_id = work.job_id.clone();
            self.write_until_landed("settling run plan job", move |tx| settle_job(tx, &job_id)).await;
        }
        // Ended: not counted while the refill gathers and picks for the place it left.
        drop(counted);
        self.refill(&work).await;
    }

    /// Writes an end that must not be lost while the service runs (a simulation's failure, its
    /// job's settling): a failed write (a busy lock, say) is tried again for up to a minute, so
    /// a passing error never leaves a simulation PROCESSING and its job open. After that, its
    /// lease runs out and the sweep (`leases`) hands it back.
    async fn write_until_landed<F>(&self, what: &'static str, write: F)
    where
        F: Fn(&crate::service::store::Tx) -> StoreResult<()> + Send + Sync + 'static,
    {
        let write = Arc::new(write);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let mut pause = Duration::from_millis(20);
        loop {
            let attempt = write.clone();
            let Err(e) = self.store.write_progress(move |tx| attempt(tx)).await else { return };
            // Only the store's own failures pass; a missing simulation or job will stay missing.
            if !e.may_pass() {
                tracing::error!("{what}: {e}");
                return;
            }
            if std::time::Instant::now() >= deadline {
                tracing::error!("{what}: {e}; gave up, its lease will run out and hand it back");
                return;
            }
            tracing::warn!("{what}: {e}; trying again");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    /// Runs the simulation through its phases; `true` once its end is recorded (the next fold
    /// counts it into its job).
    async fn simulate(&self, work: &Work) -> Result<bool, SimulationError> {
        let Some(mut simulation) = Simulation::claim(self, work).await? else { return Ok(false) };
        let scene = simulation.set_up().await?;
        let outcome = simulation.converse(&scene).await?;
        let collection = simulation.collect(&scene, &outcome).await?;
        simulation.settle(&outcome, collection).await?;
        // Its part in the job's tally and collection job is counted by the next fold.
        self.folds.notify_one();
        Ok(true)
    }

    /// The retry a silent simulation gets, if its plan retries and it has attempts left: when it
    /// dials (the plan's backoff in simulated seconds, on the job's clock) and its place.
    fn retry_for(&self, work: &Work, simulation: &SimulationJob) -> Option<Retry> {
        let attempt = simulation.attempt_number.unwrap_or(1);
        let max_attempts = work.plan.max_no_response_retries_or_default().max(0) as u32 + 1;
        if attempt >= max_attempts {
            return None;
        }
        let backoff_ms = work.plan.no_response_retry_backoff_seconds_or_default().max(0) * 1000;
        let wall_ms = match self.speed {
            SimSpeed::Max => 0,
            SimSpeed::Factor(factor) if work.replay.is_none() => (backoff_ms as f64 / factor).round() as i64,
            SimSpeed::Factor(_) => 0, // history replays as fast as it can
        };
        let now = work.now().parse().unwrap_or_else(jiff::Timestamp::now);
        let at = now.checked_add(jiff::SignedDuration::from_millis(wall_ms)).unwrap_or(now);
        Some(Retry { scheduled_at: Timestamp::from(at), attempt_number: attempt + 1 })
    }

    /// Holds the simulation open (up to 15 simulated minutes) for a call posted to
    /// `POST /v1/call` that used the provisioned number and started inside the window.
    async fn wait_for_live_call(
        &self,
        number: &str,
        started: Option<Timestamp>,
    ) -> DomainResult<Option<(Call, Transcript)>> {
        let window_start = started.as_ref().and_then(Timestamp::parse).unwrap_or_else(jiff::Timestamp::now);
        let window = jiff::SignedDuration::from_secs(run_plan_limits::LIVE_ENRICHMENT_WAIT_SECONDS);
        let window_end = window_start.checked_add(window).unwrap_or(window_start);
        let wall = match self.speed {
            SimSpeed::Max => Duration::ZERO,
            SimSpeed::Factor(f) => Duration::from_secs_f64(run_plan_limits::LIVE_ENRICHMENT_WAIT_SECONDS as f64 / f),
        };
        let deadline = std::time::Instant::now() + wall;
        loop {
            let number = number.to_owned();
            let found = self
                .store
                .read(move |c| -> DomainResult<_> {
                    let body = store::newest_by_any(c, Kind::Call, &["$.toNumber", "$.fromNumber"], &number)?;
                    let Some(body) = body else { return Ok(None) };
                    let call: Call = serde_json::from_str(&body)?;
                    let transcript: Transcript = store::transcripts::get(c, &call.id.to_string())?;
                    Ok(Some((call, transcript)))
                })
                .await?;
            if let Some((call, transcript)) = found {
                let inside = call
                    .started_at
                    .as_ref()
                    .and_then(Timestamp::parse)
                    .is_some_and(|s| s >= window_start && s <= window_end);
                if inside {
                    return Ok(Some((call, transcript)));
                }
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Simulated time against wall time.
    async fn pace(&self, simulated_ms: i64) {
        match self.speed {
            SimSpeed::Max => tokio::task::yield_now().await,
            SimSpeed::Factor(factor) => {
                tokio::time::sleep(Duration::from_secs_f64(simulated_ms.max(0) as f64 / 1000.0 / factor)).await;
            }
        }
    }

    async fn save(&self, simulation: SimulationJob, job_id: &str) -> StoreResult<()> {
        let (job_id, owner) = (job_id.to_owned(), self.worker.owner.clone());
        self.store
            .write_progress(move |tx| {
                let id = simulation.simulation_job_id.to_string();
                leases::require_held(tx, Kind::SimulationJob, &id, &owner)?;
                save_simulation(tx, &simulation, &job_id)
            })
            .await
    }

    /// Writes the call and its transcript, and the simulation (now naming the call) with them.
    async fn store_call(
        &self,
        call: &Call,
        job_id: &str,
        simulation: &SimulationJob,
        transcript: &Transcript,
    ) -> StoreResult<()> {
        let (stored, transcript, job_id) = (call.clone(), serde_json::to_string(transcript)?, job_id.to_owned());
        let (simulation, owner) = (simulation.clone(), self.worker.owner.clone());
        self.store
            .write_progress(move |tx| {
                let id = simulation.simulation_job_id.to_string();
                leases::require_held(tx, Kind::SimulationJob, &id, &owner)?;
                insert_call(tx, &stored, &transcript)?;
                save_simulation(tx, &simulation, &job_id)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use super::announcement;

    /// The scheduler wakes at each announcement heard, and never without a channel (SQLite) or
    /// once the store that sent them is gone (its timer goes on).
    #[test]
    fn an_announcement_wakes_the_scheduler_once() {
        let (announce, heard) = tokio::sync::watch::channel(0_u64);
        let mut heard = Some(heard);
        assert!(announcement(&mut heard).now_or_never().is_none(), "nothing announced yet");
        announce.send_modify(|n| *n += 1);
        assert!(announcement(&mut heard).now_or_never().is_some(), "announced: woken");
        assert!(announcement(&mut heard).now_or_never().is_none(), "the same announcement wakes once");
        drop(announce);
        assert!(announcement(&mut heard).now_or_never().is_none(), "the store gone: never");
        assert!(announcement(&mut None).now_or_never().is_none(), "SQLite: never");
    }
}
