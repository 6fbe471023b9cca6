//! Events get their public ids when they are published, not when they are written: a
//! transaction that took its row's sequence number early may commit after one that took a
//! later number, and a reader that had read past the later one would never see it. One
//! replica at a time (an advisory lock) numbers every committed, unnumbered event in the order
//! they were written, continuing from the last id it gave, then tells every replica.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use postgres::Client;

use super::session::{Manager, Session};
use crate::args;
use crate::service::pace::Pace;
use crate::service::store::db::Conn;
use crate::service::store::error::StoreResult;
use crate::service::store::rounds::guarded;

/// The advisory lock publishers take, one at a time.
const LOCK: i64 = 0x5b_0e_7e_47;

/// The channel a publisher tells newly published events on (the payload: the newest id).
pub(in crate::service::store) const PUBLISHED: &str = "sb_events";

/// The least time between two publishings: the commits of those milliseconds are published
/// together, one statement for many (a replica commits a few times a simulation, and each
/// commit woke a publishing of its own), and an event after a quiet while is published at once.
/// An event waits at most this long, with its statement, to be seen by the streams.
pub(in crate::service::store) const PACE: Duration = Duration::from_millis(50);

/// The `meta` key holding the last id given.
pub(in crate::service::store) const LAST_ID: &str = "events.published";

/// Whether events may be waiting to be published.
#[derive(Default)]
pub(super) struct Pending {
    waiting: Mutex<bool>,
    wake: Condvar,
}

impl Pending {
    pub(super) fn note(&self) {
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_one();
    }

    /// Waits until events may be waiting, or `timeout` passes.
    fn wait(&self, timeout: Duration) {
        let waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.wake.wait_timeout_while(waiting, timeout, |waiting| !*waiting).unwrap_or_else(|e| e.into_inner()));
    }

    /// Forgets the commits noted so far: the publishing about to run finds their events.
    fn clear(&self) {
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }
}

/// How often the publisher of the replica that holds the duties looks for events the other
/// replicas committed (they publish none themselves): under load its own commits wake it
/// sooner, so this bounds an event's wait only while this replica is idle.
const SWEEP: Duration = Duration::from_millis(250);

/// Publishes while this replica holds the deployment's duties (`duties`); one that does not
/// leaves its events to the holder's sweep, so two replicas do not wait on each other's lock.
pub(super) fn spawn(
    pool: r2d2::Pool<Manager>,
    pending: Arc<Pending>,
    duties: Arc<super::duties::Held>,
    stopping: Arc<AtomicBool>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name("event-publisher".into()).spawn(move || {
        let mut pace = Pace::new(PACE);
        loop {
            // Woken by this replica's commits; the sweep finds what the other replicas wrote.
            pending.wait(SWEEP);
            // Checked before the pace's rest, so a store dropped meanwhile is not kept waiting.
            if stopping.load(Ordering::Relaxed) {
                return;
            }
            if !duties.now() {
                pending.clear();
                continue;
            }
            std::thread::sleep(pace.rest());
            pending.clear();
            pace.begin();
            if let Some(Err(e)) = guarded("publishing events", || publish(&pool)) {
                tracing::warn!("store: publishing events: {e}");
            }
        }
    })?;
    Ok(())
}

/// Numbers the committed events that have no id yet; how many it numbered. One statement, its
/// own transaction (`sb_publish_events`, PostgreSQL migration 7): where it was seven round trips.
fn publish(pool: &r2d2::Pool<Manager>) -> StoreResult<u64> {
    let session = Session::checkout(pool)?;
    let numbered: i64 = Conn::postgres(&session)
        .value("SELECT sb_publish_events(?1, ?2, ?3)", args![LOCK, LAST_ID, PUBLISHED])?
        .unwrap_or(0);
    Ok(numbered.max(0) as u64)
}

/// The last id given (0 before the first).
pub(super) fn published(client: &mut Client) -> Result<i64, postgres::Error> {
    let row = client.query_opt("SELECT value FROM meta WHERE key = $1", &[&LAST_ID])?;
    Ok(row.and_then(|r| r.get::<_, String>(0).parse().ok()).unwrap_or(0))
}
