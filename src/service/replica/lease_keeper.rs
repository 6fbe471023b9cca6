//! The lease keeper: every third of a lease it renews this replica's leases, all but those
//! taken moments before (`renewal_margin`; who is alive is told by
//! `store::postgres::presence`, not by a table the replicas write),
//! and sweeps, on every replica, for work whose lease ran out (its replica died or lost the
//! database) to hand it back: a simulation runs again from its start, a collection job starts
//! over; after `MAX_EXPIRIES` lapses the work is failed rather than tried forever.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::error::{DomainError, DomainResult};
use super::leases::{MAX_EXPIRIES, Worker, now_ms};
use super::metrics::collector::{self, Collector};
use super::sim::jobs;
use super::sim::runner::Simulator;
use super::store::leases::{self, Lapsed};
use super::store::{Dialect, Kind, Store, Tx, shards};

/// Lapsed documents handed back per sweep (the next sweep takes the rest).
const SWEEP_BATCH: usize = 200;

/// Renews this replica's leases, and sweeps for lapsed ones, each every third of a lease, on
/// tasks of their own (a long sweep never holds off this replica's own renewal). On SQLite,
/// which one process uses, every lease but this replica's lapsed when its holder stopped: the
/// first sweep hands them all back at once. The sweep also folds the count shards of ended
/// connections (`store::shards`) once a minute.
pub fn spawn(store: Store, worker: Worker, simulator: Simulator, collector: Collector) -> JoinHandle<()> {
    let renewing = {
        let (store, worker) = (store.clone(), worker.clone());
        tokio::spawn(async move {
            loop {
                let (owner, until) = (worker.owner.clone(), worker.until_ms());
                let due = until - renewal_margin(worker.lease);
                let renewed = store.write_upkeep(move |tx| leases::renew(tx, &owner, due, until));
                if let Err(e) = renewed.await {
                    tracing::warn!("leases not renewed: {e}");
                }
                tokio::time::sleep(worker.lease / 3).await;
            }
        })
    };
    tokio::spawn(async move {
        let _renewing = AbortOnDrop(renewing);
        let mut sole = store.dialect() == Dialect::Sqlite;
        let mut folded_at: Option<std::time::Instant> = None;
        loop {
            match sweep(&store, &worker, sole).await {
                Ok(handed_back) => {
                    sole = false;
                    if handed_back.simulations {
                        simulator.wake();
                    }
                    if handed_back.collections {
                        collector.wake();
                    }
                }
                Err(e) => tracing::warn!("lapsed leases not swept: {e}"),
            }
            if folded_at.is_none_or(|at| at.elapsed() >= FOLD_EVERY) {
                match store.write_upkeep(shards::fold).await {
                    Ok(folded) => tracing::debug!("{folded} count rows folded"),
                    Err(e) => tracing::warn!("count shards not folded: {e}"),
                }
                folded_at = Some(std::time::Instant::now());
            }
            tokio::time::sleep(worker.lease / 3).await;
        }
    })
}

/// How much less than a whole lease a renewal leaves a lease it passes by: a fifteenth (a
/// second of the default fifteen). Renewals come every third of a lease, so a lease passed by
/// still has three fifths of one left at the next renewal (two thirds when every lease was
/// renewed each time), and more than a quarter after a renewal that failed (a third before);
/// the leases taken in that last fifteenth (under load, most of them: a simulation at full
/// speed lasts milliseconds) are neither rewritten nor locked.
fn renewal_margin(lease: std::time::Duration) -> i64 {
    (lease / 15).as_millis() as i64
}

/// How often the count shards of ended connections are folded.
const FOLD_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Stops the renewing task with the sweeping one (the service aborts the keeper as it stops).
pub(super) struct AbortOnDrop(pub(super) JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a sweep handed back.
#[derive(Default)]
struct HandedBack {
    simulations: bool,
    collections: bool,
}

async fn sweep(store: &Store, worker: &Worker, sole: bool) -> Result<HandedBack, DomainError> {
    let mut handed_back = HandedBack::default();
    for kind in [Kind::SimulationJob, Kind::CollectionJob] {
        loop {
            let not_owner = sole.then(|| worker.owner.to_string());
            let lapsed =
                store.read(move |c| leases::lapsed(c, kind, now_ms(), not_owner.as_deref(), SWEEP_BATCH)).await?;
            let full = lapsed.len() == SWEEP_BATCH;
            let mut failed = false;
            for work in lapsed {
                tracing::info!("the lease on {} {} ran out: handing it back", kind.label(), work.id);
                let (owner, id) = (worker.owner.clone(), work.id.clone());
                let work = Arc::new(work);
                // One that cannot be handed back now does not hold up the rest; the next sweep
                // tries it again.
                if let Err(e) = store.write_upkeep(move |tx| hand_back(tx, &work, &owner, sole)).await {
                    tracing::warn!("{} {id} not handed back: {e}", kind.label());
                    failed = true;
                    continue;
                }
                match kind {
                    Kind::SimulationJob => handed_back.simulations = true,
                    _ => handed_back.collections = true,
                }
            }
            // A batch with a failure stops here, so a batch that keeps failing is not read again
            // and again.
            if !full || failed {
                break;
            }
        }
    }
    Ok(handed_back)
}

/// Hands back one lapsed piece of work, unless its lease changed since it was read.
fn hand_back(tx: &Tx, work: &Lapsed, owner: &str, sole: bool) -> DomainResult<()> {
    let still_lapsed = match leases::holder(tx, work.kind, &work.id)? {
        None => false,
        Some(holder) if sole => holder.owner != owner,
        Some(holder) => holder.until_ms < now_ms(),
    };
    if !still_lapsed {
        return Ok(());
    }
    let exhausted = leases::expire(tx, work.kind, &work.id)? >= MAX_EXPIRIES;
    match work.kind {
        Kind::SimulationJob => {
            Ok(jobs::hand_back(tx, &work.id, work.parent_id.as_deref().unwrap_or_default(), exhausted)?)
        }
        _ => Ok(collector::hand_back(tx, &work.id, exhausted)?),
    }
}
