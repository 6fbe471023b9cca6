//! This replica's claims on work. Each replica has a name of its own; the simulations and
//! collection jobs it works on are leased to it (`store::leases`) and renewed by a heartbeat
//! while it lives. A sweep, on every replica, hands back the work whose lease ran out (its
//! replica died or lost the database): a simulation runs again from its start, a collection
//! job starts over; after `MAX_EXPIRIES` lapses the work is failed rather than tried forever.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::metrics::collection::{self, Collector};
use super::sim::jobs;
use super::sim::runner::Simulator;
use super::store::leases::{self, Lapsed};
use super::store::{Dialect, Kind, Store};

/// How long a lease lasts without renewal, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How many leases on one piece of work may run out before it is failed.
pub const MAX_EXPIRIES: i64 = 3;

/// Lapsed documents handed back per sweep (the next sweep takes the rest).
const SWEEP_BATCH: usize = 200;

/// Who this replica is among those sharing the store, and how long its leases last.
#[derive(Debug, Clone)]
pub struct Worker {
    pub owner: Arc<str>,
    pub lease: Duration,
    pub started_at: Arc<str>,
}

impl Worker {
    pub fn new(lease: Duration) -> Worker {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let id = uuid::Uuid::new_v4().simple().to_string();
        let owner = format!("{}:{}:{}", host.trim(), std::process::id(), &id[..8]);
        Worker {
            owner: Arc::from(owner),
            lease: lease.max(Duration::from_secs(1)),
            started_at: Arc::from(crate::api::model::Timestamp::now().0),
        }
    }

    /// When a lease taken or renewed now runs out (unix ms).
    pub fn until_ms(&self) -> i64 {
        now_ms() + self.lease.as_millis() as i64
    }
}

pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// Renews this replica's leases and sweeps for lapsed ones, every third of a lease. On SQLite,
/// which one process uses, every lease but this replica's lapsed when its holder stopped: the
/// first sweep hands them all back at once.
pub fn spawn(store: Store, worker: Worker, simulator: Simulator, collector: Collector) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut sole = store.dialect() == Dialect::Sqlite;
        loop {
            let (owner, started, until) = (worker.owner.clone(), worker.started_at.clone(), worker.until_ms());
            let renewed = store.write_progress(move |tx| {
                leases::heartbeat(tx, &owner, &started, until)?;
                leases::renew(tx, &owner, until)
            });
            if let Err(e) = renewed.await {
                tracing::warn!("leases not renewed: {}", e.body.message);
            }
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
                Err(e) => tracing::warn!("lapsed leases not swept: {}", e.body.message),
            }
            tokio::time::sleep(worker.lease / 3).await;
        }
    })
}

/// What a sweep handed back.
#[derive(Default)]
struct HandedBack {
    simulations: bool,
    collections: bool,
}

async fn sweep(store: &Store, worker: &Worker, sole: bool) -> Result<HandedBack, super::error::ServiceError> {
    let mut handed_back = HandedBack::default();
    for kind in [Kind::SimulationJob, Kind::CollectionJob] {
        loop {
            let not_owner = sole.then(|| worker.owner.to_string());
            let lapsed =
                store.read(move |c| leases::lapsed(c, kind, now_ms(), not_owner.as_deref(), SWEEP_BATCH)).await?;
            let full = lapsed.len() == SWEEP_BATCH;
            for work in lapsed {
                tracing::info!("the lease on {} {} ran out: handing it back", kind.label(), work.id);
                let owner = worker.owner.clone();
                let work = Arc::new(work);
                store.write_progress(move |tx| hand_back(tx, &work, &owner, sole)).await?;
                match kind {
                    Kind::SimulationJob => handed_back.simulations = true,
                    _ => handed_back.collections = true,
                }
            }
            if !full {
                break;
            }
        }
    }
    Ok(handed_back)
}

/// Hands back one lapsed piece of work, unless its lease changed since it was read.
fn hand_back(tx: &super::store::Tx, work: &Lapsed, owner: &str, sole: bool) -> super::error::ServiceResult<()> {
    let still_lapsed = match leases::holder(tx, work.kind, &work.id)? {
        None => false,
        Some(holder) if sole => holder.owner != owner,
        Some(holder) => holder.until_ms < now_ms(),
    };
    if !still_lapsed {
        return Ok(());
    }
    leases::expire(tx, work.kind, &work.id)?;
    let exhausted = work.expiries + 1 >= MAX_EXPIRIES;
    match work.kind {
        Kind::SimulationJob => jobs::hand_back(tx, &work.id, work.parent_id.as_deref().unwrap_or_default(), exhausted),
        _ => collection::hand_back(tx, &work.id, exhausted),
    }
}

/// The error a write answers when this replica no longer holds the work it was writing for:
/// another replica took it over (the lease ran out), and this replica's part ends there.
pub fn lost(kind: Kind, id: &str) -> super::error::ServiceError {
    super::error::ServiceError::new(
        axum::http::StatusCode::CONFLICT,
        crate::api::ErrorType::Conflict,
        LOST,
        format!("this replica no longer holds {} {id}", kind.label()),
    )
}

/// The code of `lost`.
pub const LOST: &str = "lease_lost";

/// Fails with `lost` unless `owner` holds the document.
pub fn require_held(conn: &super::store::Conn, kind: Kind, id: &str, owner: &str) -> super::error::ServiceResult<()> {
    match leases::held_by(conn, kind, id, owner)? {
        true => Ok(()),
        false => Err(lost(kind, id)),
    }
}
