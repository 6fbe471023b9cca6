//! This replica's claims on work. Each replica has a name of its own; the simulations and
//! collection jobs it works on are leased to it (`store::leases`) and renewed by a heartbeat
//! while it lives (`lease_keeper`). Every write for leased work checks that this replica still
//! holds it (`require_held`), so a replica whose lease ran out leaves the work to whichever
//! replica it was handed to.

use std::sync::Arc;
use std::time::Duration;

use super::store::Kind;
use super::store::leases;
use super::store::{StoreError, StoreResult};

/// How long a lease lasts without renewal, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How many leases on one piece of work may run out before it is failed.
pub const MAX_EXPIRIES: i64 = 3;

/// Who this replica is among those sharing the store, and how long its leases last.
#[derive(Debug, Clone)]
pub struct Worker {
    pub owner: Arc<str>,
    pub lease: Duration,
}

impl Worker {
    pub fn new(lease: Duration) -> Worker {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let id = uuid::Uuid::new_v4().simple().to_string();
        let owner = format!("{}:{}:{}", host.trim(), std::process::id(), &id[..8]);
        Worker { owner: Arc::from(owner), lease: lease.max(Duration::from_secs(1)) }
    }

    /// When a lease taken or renewed now runs out (unix ms).
    pub fn until_ms(&self) -> i64 {
        now_ms() + self.lease.as_millis() as i64
    }
}

pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// The error a write answers when this replica no longer holds the work it was writing for:
/// another replica took it over (the lease ran out), and this replica's part ends there.
pub fn lost(kind: Kind, id: &str) -> StoreError {
    StoreError::LeaseLost { kind: kind.label(), id: id.to_owned() }
}

/// The wire code of `lost`.
pub const LOST: &str = "lease_lost";

/// Fails with `lost` unless `owner` holds the document.
pub fn require_held(conn: &super::store::Conn, kind: Kind, id: &str, owner: &str) -> StoreResult<()> {
    match leases::held_by(conn, kind, id, owner)? {
        true => Ok(()),
        false => Err(lost(kind, id)),
    }
}
