//! A pick: a job's retries whose time has come moved to PENDING, then as many of its PENDING
//! simulations as its limits allow moved to QUEUED, leased to the picking replica. A job whose
//! limits are its own is picked in one statement on PostgreSQL (`store::picks`, three round
//! trips fewer than the transaction); the transaction (`in_transaction`) picks a job under a
//! sequential mode, whose limits span others, a job with retries waiting (whose due time is
//! read on the job's clock here), and every job on SQLite.

use std::sync::Arc;

use super::jobs::release_due_retries;
use super::limits;
use super::work::Limits;
use crate::api::model::{ExecutionMode, SimulationJob, SimulationJobStatus, Timestamp};
use crate::service::store::picks::{InOne, PickedInOne};
use crate::service::store::{self, Dialect, Kind, Pick, Store, StoreResult, Tx};

/// One pick: for the job under `limits`, by replica `owner`, its leases until `until_ms`, its
/// retries due by `now` (on the job's clock).
pub(super) struct Order {
    pub(super) limits: Limits,
    pub(super) owner: String,
    pub(super) until_ms: i64,
    pub(super) now: Timestamp,
}

impl Order {
    /// The claim of the job's PENDING simulations.
    fn claim(&self) -> store::claims::Claim<'_> {
        store::claims::Claim {
            kind: Kind::SimulationJob,
            parent_id: &self.limits.job_id,
            from: SimulationJobStatus::Pending.as_str(),
            to: SimulationJobStatus::Queued.as_str(),
            owner: &self.owner,
            until_ms: self.until_ms,
        }
    }

    /// Whether the job's limits span other jobs: it is picked alone.
    fn alone(&self) -> bool {
        matches!(self.limits.mode, ExecutionMode::SequentialProject | ExecutionMode::SequentialSameRunPlan)
    }
}

/// Picks as `order` says and hands back the simulations picked (after another pick for the
/// job, if one holds its lock).
pub(super) async fn pick(store: &Store, order: Order) -> StoreResult<Vec<SimulationJob>> {
    if store.dialect() == Dialect::Postgres && !order.alone() {
        match in_one(store, &order).await? {
            PickedInOne::Claimed(bodies) => return decoded(&bodies),
            PickedInOne::RetriesWaiting => {}
        }
    }
    let pick = if order.alone() { Pick::Alone } else { Pick::job(&order.limits.job_id) };
    let order = Arc::new(order);
    store.write_pick(pick, move |tx| in_transaction(tx, &order)).await
}

/// The pick in one statement (`sb_pick`), with the statuses and the mode the limits count.
pub(super) async fn in_one(store: &Store, order: &Order) -> StoreResult<PickedInOne> {
    let counted = limits::Counted::default();
    store.pick_in_one(order.in_one(&counted)).await
}

impl Order {
    /// The pick in one statement, counting as `counted` says.
    fn in_one<'a>(&'a self, counted: &'a limits::Counted) -> InOne<'a> {
        let job = self.limits.as_job(&self.owner);
        InOne {
            claim: self.claim(),
            max: job.max_concurrent,
            running: &counted.running,
            active_jobs: &counted.active_jobs,
            retry: SimulationJobStatus::RetryScheduled.as_str(),
            alone_mode: ExecutionMode::SequentialProject.as_str(),
            share: job.share,
        }
    }
}

/// The pick as one transaction, under the lock `pick` took.
pub(super) fn in_transaction(tx: &Tx, order: &Order) -> StoreResult<Vec<SimulationJob>> {
    release_due_retries(tx, &order.limits.job_id, &order.now)?;
    let room = limits::room(tx, &order.limits.as_job(&order.owner))?;
    if room == 0 {
        return Ok(Vec::new());
    }
    // Moved to QUEUED and leased to this replica in the claim itself.
    decoded(&store::claims::move_leased(tx, &order.claim(), room)?)
}

fn decoded(bodies: &[String]) -> StoreResult<Vec<SimulationJob>> {
    Ok(bodies.iter().map(|body| serde_json::from_str::<SimulationJob>(body)).collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests;
