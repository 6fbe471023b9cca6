//! The shared engine: PostgreSQL, for several `serve` replicas over one database. Connections
//! come from a pool (r2d2) and run the store's statements synchronously on the blocking
//! threads, as SQLite's do. Writes run concurrently (READ COMMITTED): a write that reads a
//! document to change it locks its row (`Conn::row_lock`), so writes to one document take
//! turns, as they do under SQLite's one writer, without the aborts a serializable transaction
//! meets on the counts every write moves; one that deadlocked with another is run again. Events are numbered when they are published (`publisher`), so a reader never skips
//! one that commits late, and every replica hears of them (`listener`).

pub(super) mod duties;
mod floors;
mod listener;
pub(super) mod migrations;
pub(in crate::service::store) mod presence;
mod publisher;
mod session;
/// Test scaffolding: in the library only for its own tests and for the `test-support` feature
/// that `tests/` and `benches/` turn on, never in a shipped build.
#[cfg(any(test, feature = "test-support"))]
pub mod test_server;
mod types;
pub(in crate::service::store) mod watched;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::watch;

pub use session::Session;

pub(super) use listener::announce_work;
/// For the store's tests of publishing.
#[cfg(test)]
pub(super) use publisher::{LAST_ID as LAST_EVENT_ID, PACE as PUBLISH_PACE, PUBLISHED};

use super::OpenError;
use super::batch::{Applied, Batch};
use super::db::{Conn, Tx};
use super::together::{Revisions, Three};
use crate::service::store::error::{StoreError, StoreResult};

/// Connections kept open per replica.
const POOL_SIZE: u32 = 16;

/// How many of the engines' progress writes (simulations' starts and ends, picks, folds) run
/// at once in a replica alone (`Store::progress_blocking`); the others wait their turn in the
/// replica, not at the database. More at once only had more backends share the database's
/// cores: on two cores shared with the database, one replica took 0.86–0.98× the time with
/// three as with sixteen (docs/performance.md, stop 52). Replicas share the turns out
/// (`turns_at_once`). The replica's upkeep and requests to the interface take no turn.
pub(super) const PROGRESS_AT_ONCE: usize = 3;

/// A replica's part of `PROGRESS_AT_ONCE` while `live` replicas share the database: 3 alone, 2
/// each for two, 1 each for three or more. Two replicas with three each took 1.06× the time
/// of two with two each (docs/performance.md, stop 53).
pub(super) fn turns_at_once(live: usize) -> usize {
    PROGRESS_AT_ONCE.div_ceil(live.max(1))
}

/// The turns' semaphore counts parts of a turn, so that one semaphore serves every count of
/// replicas: a write takes `TURN_PARTS / turns_at_once(live)` (2, 3 or 6), the count read at
/// each turn. While the count changes, writes taken under the old one finish under it.
const TURN_PARTS: u32 = 6;

// Every count of replicas takes a whole number of parts a turn.
const _: () = {
    let mut live = 1;
    while live <= PROGRESS_AT_ONCE {
        assert!((TURN_PARTS as usize).is_multiple_of(PROGRESS_AT_ONCE.div_ceil(live)));
        live += 1;
    }
};

/// How often a write another transaction got in the way of is run again before giving up.
const ATTEMPTS: u32 = 40;

/// The PostgreSQL engine of a store.
pub(super) struct Postgres {
    pool: ClosedOffTheRuntime,
    /// Wakes the publisher after a commit that appended events.
    unpublished: Arc<publisher::Pending>,
    /// Set when the store is dropped: the listener and the publisher stop.
    stopping: Arc<AtomicBool>,
    /// Whether this replica holds the deployment's one-runner duties now (`duties`).
    duties: Arc<duties::Held>,
    /// How many replicas are alive now, this one among them (`presence`).
    live: Arc<AtomicUsize>,
    /// The turns of the engines' progress writes, in parts (`TURN_PARTS`).
    progress: Arc<tokio::sync::Semaphore>,
    /// Counts the announcements of work this replica heard (`listener::announce_work`).
    work: Arc<watch::Sender<u64>>,
    /// Where this replica's next claim of each job's waiting simulations walks from.
    floors: floors::Floors,
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Relaxed);
        // Woken, so the publisher sees it now rather than at its next sweep.
        self.unpublished.note();
    }
}

/// The store's pool, dropped on a thread of its own: the synchronous client closes a
/// connection by blocking on a runtime, which panics on a tokio worker (where the last handle
/// of a service's store is often dropped), and the publisher, which held a handle until some
/// time after the store was dropped, now stops at once.
struct ClosedOffTheRuntime(Option<r2d2::Pool<session::Manager>>);

impl ClosedOffTheRuntime {
    fn pool(&self) -> StoreResult<&r2d2::Pool<session::Manager>> {
        self.0.as_ref().ok_or_else(|| StoreError::backend("store: the PostgreSQL pool is closed"))
    }
}

impl Drop for ClosedOffTheRuntime {
    fn drop(&mut self) {
        if let Some(pool) = self.0.take() {
            let _ = std::thread::Builder::new().name("pool-close".into()).spawn(move || drop(pool));
        }
    }
}

impl Postgres {
    /// Connects to the database at `url` (a `postgres://` URL) and migrates it, with the
    /// channel that tells of every published event (its newest id). Opened by the service, it
    /// tries for the duties; by a command, never (its events are published by the holder).
    pub(super) fn open(url: &str, opener: super::Opener) -> Result<(Postgres, Arc<watch::Sender<i64>>), OpenError> {
        let mut config: postgres::Config =
            url.parse().map_err(|e| OpenError(format!("the database URL is not one PostgreSQL reads: {e}")))?;
        // Each replica's connections by name in `pg_stat_activity`, unless the URL names them:
        // what one replica's backends cost the database is then told apart from another's.
        if config.get_application_name().is_none() {
            config.application_name(&application_name());
        }
        let manager = session::Manager::new(config.clone());
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(2))
            .connection_timeout(Duration::from_secs(15))
            .build(manager)
            .map_err(|e| OpenError(format!("cannot connect to PostgreSQL: {e}")))?;
        {
            let mut connection = pool.get().map_err(|e| OpenError(format!("cannot connect to PostgreSQL: {e}")))?;
            migrations::migrate(connection.client())?;
        }
        let stopping = Arc::new(AtomicBool::new(false));
        let unpublished = Arc::new(publisher::Pending::default());
        let publishing = pool.clone();
        let duties = Arc::new(duties::Held::default());
        // A command (`secrets`) is no replica: it neither runs the duties nor takes a share.
        let live = Arc::new(AtomicUsize::new(1));
        if opener == super::Opener::Service {
            duties::spawn(config.clone(), duties.clone(), stopping.clone())
                .map_err(|e| OpenError(format!("replica duties thread: {e}")))?;
            presence::spawn(config.clone(), live.clone(), stopping.clone())
                .map_err(|e| OpenError(format!("replica presence thread: {e}")))?;
        }
        let store = Postgres {
            pool: ClosedOffTheRuntime(Some(pool)),
            unpublished: unpublished.clone(),
            stopping: stopping.clone(),
            duties: duties.clone(),
            live,
            progress: Arc::new(tokio::sync::Semaphore::new(TURN_PARTS as usize)),
            work: Arc::new(watch::channel(0).0),
            floors: floors::Floors::default(),
        };
        let last = store.read(super::outbox::last_event).map_err(|e: StoreError| OpenError(e.to_string()))?;
        let events = Arc::new(watch::channel(last).0);
        let heard = listener::Heard { events: events.clone(), work: store.work.clone() };
        listener::spawn(config, heard, stopping.clone()).map_err(|e| OpenError(format!("listener thread: {e}")))?;
        publisher::spawn(publishing, unpublished, duties, stopping)
            .map_err(|e| OpenError(format!("event publisher thread: {e}")))?;
        Ok((store, events))
    }

    /// A turn for one of the engines' progress writes, held until it is dropped: this
    /// replica's part of the turns while the replicas alive now share them (`turns_at_once`).
    pub(super) async fn progress_turn(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let parts = TURN_PARTS / turns_at_once(self.live_replicas()) as u32;
        // The semaphore is never closed: `None` cannot happen, and would only not wait.
        self.progress.clone().acquire_many_owned(parts).await.ok()
    }

    /// Changes with each announcement of work heard, this replica's own among them.
    pub(super) fn work_announced(&self) -> watch::Receiver<u64> {
        self.work.subscribe()
    }

    /// Whether this replica runs the duties that need one runner in the deployment now.
    pub(super) fn holds_duties(&self) -> bool {
        self.duties.now()
    }

    /// Where this replica's next claim of each job's waiting simulations walks from.
    pub(super) fn floors(&self) -> &floors::Floors {
        &self.floors
    }

    /// How many replicas are alive now, at least this one (counted once a second).
    pub(super) fn live_replicas(&self) -> usize {
        self.live.load(Ordering::Relaxed).max(1)
    }

    fn session(&self) -> StoreResult<Session> {
        Session::checkout(self.pool.pool()?)
    }

    /// Runs `f` on a connection of the pool, each statement in a transaction of its own (as a
    /// SQLite reader's statements are): a read pays no round trips to begin and end one.
    pub(super) fn read<R, E: From<StoreError>>(&self, f: impl FnOnce(&Conn) -> Result<R, E>) -> Result<R, E> {
        let session = self.session()?;
        f(&Conn::postgres(&session))
    }

    /// Runs `f` in one write transaction, again if it deadlocked with another. `durable`: the commit waits for the disk (a caller's write); otherwise (an
    /// engine's progress, which its recovery redoes) it does not. `alone`: an advisory lock
    /// held from before the transaction begins (so its snapshot follows the last holder's
    /// commit) until after it ends.
    pub(super) fn write<R, E: From<StoreError>>(
        &self,
        durable: bool,
        alone: Option<i64>,
        f: impl Fn(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        self.write_locked(durable, alone.map_or(Lock::None, Lock::Session), f)
    }

    /// Engine progress picking simulations to start under `pick`'s locks (see `Pick`), waiting
    /// for another transaction picking for the same job.
    pub(super) fn write_pick<R, E: From<StoreError>>(
        &self,
        pick: Pick,
        f: impl Fn(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        self.write_locked(false, Lock::Pick(pick), f)
    }

    fn write_locked<R, E: From<StoreError>>(
        &self,
        durable: bool,
        lock: Lock,
        f: impl Fn(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let session = self.session()?;
            let error = match transaction(&session, durable, lock, &f) {
                Ok(value) => {
                    if session.appended_events() {
                        self.unpublished.note();
                    }
                    return Ok(value);
                }
                Err(error) => error,
            };
            if !session.conflicted() || attempt >= ATTEMPTS {
                return Err(error);
            }
            drop(session);
            // Back off a little, at random, so that the transactions that met go on apart.
            let ceiling = 2u64.pow(attempt.min(7));
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..=ceiling)));
        }
    }
}

/// One attempt at a write on `session`: its locks, the transaction around `f`, its end.
fn transaction<R, E: From<StoreError>>(
    session: &Session,
    durable: bool,
    lock: Lock,
    f: &impl Fn(&Tx) -> Result<R, E>,
) -> Result<R, E> {
    if let Lock::Session(key) = lock {
        session.lock(key)?;
    }
    // One round trip: the setting, and a pick's locks, go with the BEGIN.
    let begin = if durable { "BEGIN" } else { "BEGIN; SET LOCAL synchronous_commit = off" };
    match lock {
        Lock::Pick(pick) => session.begin(&format!("{begin}; {}", pick.locks()))?,
        _ => session.begin(begin)?,
    }
    let result = f(&Tx::new(Conn::postgres(session)));
    let ended = session.end(result.is_ok());
    let value = result?;
    ended?;
    Ok(value)
}

impl Postgres {
    /// Applies `batch` in one statement (`sb_apply`), its own transaction, again if it
    /// deadlocked with another; with `seeing`, the same statement answers those documents'
    /// revisions too (read as the statement began).
    pub(super) fn apply(
        &self,
        batch: &Batch,
        durable: bool,
        seeing: Option<&Three>,
    ) -> StoreResult<(Applied, Revisions)> {
        batch.check_storable()?;
        let wire = batch.to_wire(!durable);
        let texts: Vec<Option<&str>> = wire.texts.iter().copied().map(Some).collect();
        let (columns, seen_args) = match seeing {
            Some(three) => three.revision_columns(super::db::Dialect::Postgres, 3)?,
            None => ("NULL, NULL, NULL".to_owned(), Vec::new()),
        };
        let sql = format!("SELECT sb_apply(?1, CAST(?2 AS TEXT[])), {columns}");
        let mut args = vec![super::db::Arg::from(&wire.json), super::db::Arg::Texts(&texts)];
        args.extend(seen_args);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let session = self.session()?;
            let answer = Conn::postgres(&session)
                .query_row(&sql, &args, |r| Ok((r.take::<i64>(0)?, [r.take(1)?, r.take(2)?, r.take(3)?])));
            match answer {
                Ok(Some((0, revisions))) => {
                    if batch.has_events() {
                        self.unpublished.note();
                    }
                    return Ok((Applied::Written, revisions));
                }
                Ok(Some((1, _))) => return Ok((Applied::Moved, Revisions::default())),
                Ok(Some((2, _))) => {
                    let guard =
                        batch.guard().ok_or_else(|| StoreError::backend("store: a lease lost without a guard"))?;
                    return Err(super::batch::lost(guard));
                }
                Ok(other) => return Err(StoreError::backend(format!("store: sb_apply answered {other:?}"))),
                Err(error) if !session.conflicted() || attempt >= ATTEMPTS => return Err(error),
                Err(_) => {}
            }
            drop(session);
            let ceiling = 2u64.pow(attempt.min(7));
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..=ceiling)));
        }
    }
}

/// The name this replica's connections give the server: `switchboard:<process id>`.
pub(super) fn application_name() -> String {
    format!("switchboard:{}", std::process::id())
}

impl Postgres {
    /// The number one statement answers, the statement its own transaction (a function's call:
    /// `sb_fold`), again if it deadlocked with another.
    pub(super) fn answer(&self, sql: &str, args: &[super::db::Arg]) -> StoreResult<i64> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let session = self.session()?;
            match Conn::postgres(&session).value::<i64>(sql, args) {
                Ok(Some(answer)) => return Ok(answer),
                Ok(None) => return Err(StoreError::backend(format!("store: no answer to {sql}"))),
                Err(error) if !session.conflicted() || attempt >= ATTEMPTS => return Err(error),
                Err(_) => {}
            }
            drop(session);
            let ceiling = 2u64.pow(attempt.min(7));
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..=ceiling)));
        }
    }
}

impl Postgres {
    /// The rows one statement answers, the statement its own transaction (a function's call:
    /// `sb_pick`), again if it deadlocked with another.
    pub(super) fn rows<T>(
        &self,
        sql: &str,
        args: &[super::db::Arg],
        mut map: impl FnMut(&mut super::db::Row) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let session = self.session()?;
            match Conn::postgres(&session).query(sql, args, &mut map) {
                Ok(rows) => {
                    return Ok(rows);
                }
                Err(error) if !session.conflicted() || attempt >= ATTEMPTS => return Err(error),
                Err(_) => {}
            }
            drop(session);
            let ceiling = 2u64.pow(attempt.min(7));
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..=ceiling)));
        }
    }
}

/// The locks a write takes on PostgreSQL beyond its rows.
#[derive(Debug, Clone, Copy)]
enum Lock {
    None,
    /// An advisory lock held from before the transaction begins until after it ends.
    Session(i64),
    /// A pick's (`Pick`), for the transaction.
    Pick(Pick),
}

/// What a pick of simulations to start waits for. Picks hold the scheduling lock shared, so
/// picks for different jobs run at the same time. A pick in this transaction takes its job's
/// lock alone and counts the room under it (a job with retries waiting); picks in one
/// statement (`sb_pick`) hold it shared and run side by side, each on places of the job's of
/// its own (PostgreSQL migration 13). A job whose limits span other jobs (a sequential mode)
/// holds the scheduling lock alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// A job whose limits are its own, by the key of its id (`Pick::job`).
    Job(i32),
    /// A job whose limits span the project.
    Alone,
}

/// How long a pick waits for its job's lock held against it: picks hold it for one statement
/// or one short transaction, so a longer wait is a holder stalled inside its
/// transaction; the pick fails (the store busy) and the scheduler picks again later.
pub(super) const PICK_WAIT: Duration = Duration::from_secs(2);

/// The first key of a job's pick lock (PostgreSQL keeps two-key advisory locks apart from the
/// one-key ones, such as the scheduling lock itself).
const PICK_CLASS: i32 = 0x5b5c;

impl Pick {
    /// The pick of job `job_id`: its key a hash of its id (FNV-1a), the same in every replica;
    /// two jobs whose keys meet only take turns, as every pick did before.
    pub fn job(job_id: &str) -> Pick {
        let hash = job_id.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
        Pick::Job(hash as i32)
    }

    /// A job's pick's keys: the scheduling lock's (held shared), and the job's two.
    pub(super) fn keys(self) -> Option<(i64, i32, i32)> {
        match self {
            Pick::Job(key) => Some((super::Alone::Scheduling.key(), PICK_CLASS, key)),
            Pick::Alone => None,
        }
    }

    /// The statements that take its locks, for the transaction.
    fn locks(self) -> String {
        let scheduling = super::Alone::Scheduling.key();
        match self {
            Pick::Job(key) => format!(
                "SELECT pg_advisory_xact_lock_shared({scheduling}); SET LOCAL lock_timeout = {wait}; \
                 SELECT pg_advisory_xact_lock({PICK_CLASS}, {key}); SET LOCAL lock_timeout = DEFAULT",
                wait = PICK_WAIT.as_millis()
            ),
            Pick::Alone => format!("SELECT pg_advisory_xact_lock({scheduling})"),
        }
    }
}
