//! Scheduled plans run by themselves: the replica holding the deployment's duties
//! (`replica::duties`) looks for plans whose `nextRunAt` has come
//! and starts the due slot's job in one transaction that locks the plan, decides again on what
//! it reads there (`schedule::decide`), and claims the slot (`store::schedules`, unique per
//! plan and slot). Two replicas that see the same slot due start one job: the second waits for
//! the first's lock, then finds the slot taken.

use std::sync::Arc;
use std::time::Duration;

use super::plans;
use super::runner::Simulator;
use super::schedule::decide;
use super::start;
use crate::api::model::{RunPlan, Schedule, Timestamp};
use crate::service::error::DomainResult;
use crate::service::store::{self, Kind, Store, Tx, schedules};

/// How often a replica looks for due plans.
pub const TICK: Duration = Duration::from_secs(1);

/// What tells the scheduler the time (a test's clock, or the system's).
pub type Clock = Arc<dyn Fn() -> jiff::Timestamp + Send + Sync>;

/// The scheduler of one replica.
#[derive(Clone)]
pub struct Scheduler {
    store: Store,
    simulator: Simulator,
    clock: Clock,
}

/// What one plan's turn did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The slot's job was started.
    Started { slot: jiff::Timestamp, job: uuid::Uuid },
    /// The slot was due but its job could not start; the slot is spent, and why is logged.
    Refused { slot: jiff::Timestamp },
    /// Nothing was due (another replica ran it, or the plan changed).
    Nothing,
}

impl Scheduler {
    pub fn new(store: Store, simulator: Simulator) -> Scheduler {
        Scheduler { store, simulator, clock: Arc::new(jiff::Timestamp::now) }
    }

    /// The same, told the time by `clock`.
    pub fn with_clock(self, clock: Clock) -> Scheduler {
        Scheduler { clock, ..self }
    }

    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                // The replica holding the deployment's duties looks; the others stand by.
                if self.store.holds_duties()
                    && let Err(e) = self.tick().await
                {
                    tracing::error!("plan scheduler: {e}");
                }
                tokio::time::sleep(TICK).await;
            }
        })
    }

    /// Starts every slot due now; what each plan's turn did.
    pub async fn tick(&self) -> DomainResult<Vec<(String, Outcome)>> {
        let now = (self.clock)();
        let pending = self.store.read(schedules::pending).await?;
        let mut outcomes = Vec::new();
        for (plan_id, next) in pending {
            if Timestamp(next).parse().is_none_or(|next| next > now) {
                continue;
            }
            let outcome = self.turn(&plan_id, now).await?;
            outcomes.push((plan_id, outcome));
        }
        if outcomes.iter().any(|(_, outcome)| matches!(outcome, Outcome::Started { .. })) {
            self.simulator.wake_everywhere();
        }
        Ok(outcomes)
    }

    /// One plan's turn: its due slot started (or spent, when the job cannot start).
    async fn turn(&self, plan_id: &str, now: jiff::Timestamp) -> DomainResult<Outcome> {
        let caller = self.simulator.caller();
        let id = plan_id.to_owned();
        let started = self.store.write(move |tx| run_due(tx, &id, now, Some(caller))).await;
        match started {
            Ok(outcome) => Ok(outcome),
            Err(refusal) => {
                // The job could not start (a flow or endpoint it names is gone): nothing of it
                // was written. The slot is spent without a job, so it is not tried every tick.
                let id = plan_id.to_owned();
                let outcome = self.store.write(move |tx| run_due(tx, &id, now, None)).await?;
                tracing::warn!("scheduled plan {plan_id} did not start: {refusal}");
                Ok(outcome)
            }
        }
    }
}

/// Starts the plan's due slot, if one is due as this transaction reads the plan (locked) and its
/// runs; with no `caller`, spends the slot without a job. Sets the plan's `nextRunAt` after.
pub fn run_due(tx: &Tx, plan_id: &str, now: jiff::Timestamp, caller: Option<start::Caller>) -> DomainResult<Outcome> {
    let Some(plan) = store::get::<RunPlan>(tx, Kind::RunPlan, plan_id)? else { return Ok(Outcome::Nothing) };
    let Some(rule) = plan.plan.schedule.as_ref().and_then(Schedule::rule) else {
        return set_next(tx, &plan, now).map(|_| Outcome::Nothing);
    };
    let (runs, last) = schedules::runs(tx, plan_id)?;
    let last = last.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok());
    let since = plans::since(&plan).unwrap_or(now);
    let Some(slot) = decide(&rule, since, runs, last, now).due else {
        return set_next(tx, &plan, now).map(|_| Outcome::Nothing);
    };
    let at = Timestamp::now().0;
    // The slot is claimed first: a replica that finds it taken writes nothing.
    if !schedules::claim(tx, plan_id, slot.as_millisecond(), None, &at)? {
        return Ok(Outcome::Nothing);
    }
    let outcome = match caller {
        Some(caller) => {
            let job = start::start_scheduled(tx, &plan, caller)?;
            let job_id = job.simulation_run_plan_job_id;
            schedules::record_job(tx, plan_id, slot.as_millisecond(), &job_id.to_string())?;
            Outcome::Started { slot, job: job_id }
        }
        None => Outcome::Refused { slot },
    };
    set_next(tx, &plan, now)?;
    Ok(outcome)
}

/// Writes the plan's `nextRunAt` as its runs now stand.
fn set_next(tx: &Tx, plan: &RunPlan, now: jiff::Timestamp) -> DomainResult<()> {
    let next = plans::next_run(tx, plan, now)?;
    if next != plan.next_run_at {
        let id = plan.id.to_string();
        store::set_members(tx, Kind::RunPlan, &id, &[("$.nextRunAt", serde_json::to_string(&next)?)])?;
    }
    Ok(())
}
