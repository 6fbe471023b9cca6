//! The local service's store: resources as JSON documents with the columns lists filter and
//! sort on, the bulky side tables (transcripts, values, definition versions, score samples),
//! the outbox of events, and the leases engines hold on work. One interface over two engines:
//! SQLite (embedded, the default: one file, one writer) and PostgreSQL (one database shared by
//! several `serve` replicas). SQL lives here and nowhere else.

pub mod alerts;
pub mod batch;
pub mod claims;
mod db;
mod docs;
pub mod ends;
pub mod error;
pub mod fill;
pub mod folds;
pub mod held;
pub mod inserts;
mod kind;
pub mod knowledge;
pub mod leases;
mod members;
pub mod outbox;
pub mod picks;
pub mod places;
mod postgres;
pub mod records;
mod rounds;
pub mod schedules;
pub mod scores;
pub mod secrets;
pub mod shards;
mod sqlite;
mod stored;
pub mod together;
pub mod transcripts;
pub mod values;
pub mod versions;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::watch;

pub use db::{Arg, Conn, Dialect, FromCell, Row, Tx, UNSTORABLE, has_nul_escape};
pub use docs::*;
pub use error::{StoreError, StoreResult};
pub use inserts::{Inserts, insert_all};
pub use kind::Kind;
pub use postgres::Pick;
#[cfg(any(test, feature = "test-support"))]
pub use postgres::test_server;
pub use sqlite::SCHEMA_VERSION;
pub use stored::{AlertTarget, Stored};

use super::vault::Vault;

/// Where a store keeps its data.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its `postgres://` URL.
    Postgres(String),
}

impl Location {
    /// The location as it may be shown: a database URL without its password.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => redacted(url),
        }
    }
}

/// A connection string as it may be shown: rebuilt from what it names (user, hosts, ports,
/// database), so a password anywhere in it (`user:pw@`, `?password=`, `password=` in the
/// key-value form) is never part of it.
fn redacted(url: &str) -> String {
    use ::postgres::config::Host;
    let Ok(config) = url.parse::<::postgres::Config>() else {
        return "(a PostgreSQL connection string that does not parse)".to_owned();
    };
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(n, host)| {
            let host = match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match ports.get(n).or(ports.first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    let password = if config.get_password().is_some() { ":***" } else { "" };
    format!(
        "postgres://{}{password}@{}/{}",
        config.get_user().unwrap_or_default(),
        hosts.join(","),
        config.get_dbname().unwrap_or_default()
    )
}

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct OpenError(pub String);

impl From<rusqlite::Error> for OpenError {
    fn from(error: rusqlite::Error) -> Self {
        OpenError(error.to_string())
    }
}

impl From<::postgres::Error> for OpenError {
    fn from(error: ::postgres::Error) -> Self {
        OpenError(match error.as_db_error() {
            Some(db) => format!("PostgreSQL: {} ({})", db.message(), db.code().code()),
            None => format!("PostgreSQL: {error}"),
        })
    }
}

/// The store, shared by every handler and engine.
#[derive(Clone)]
pub struct Store {
    engine: Arc<Engine>,
    /// The newest committed event's id, for streams and senders to wait on.
    events: Arc<watch::Sender<i64>>,
    /// Seals and opens the secrets the store keeps (`secrets`): the keys live apart from the
    /// data, in a key file (none until `with_vault`).
    vault: Arc<Vault>,
}

enum Engine {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// Work that one replica at a time may do: its writes wait for each other across replicas (on
/// SQLite, with its one writer, every write is alone anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alone {
    /// Seeding the demo world, once per database.
    Seeding,
    /// Picking simulations to start, within the limits that hold across replicas: held shared
    /// by the picks for jobs whose limits are their own, alone by the others (`Pick`).
    Scheduling,
}

impl Alone {
    /// The advisory lock's key on PostgreSQL.
    fn key(self) -> i64 {
        match self {
            Alone::Seeding => 0x5b_5e_ed,
            Alone::Scheduling => 0x5b_5c_4e,
        }
    }
}

/// Who opens a store: on PostgreSQL only the service tries for the deployment's one-runner
/// duties (`Store::holds_duties`); a command that opens the store for a moment (`secrets
/// rotate-key`) never does, or it could take them from no server and run none until it exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    Service,
    Command,
}

impl Store {
    /// Opens the store at `location` for the service, migrating its schema.
    pub fn open(location: &Location) -> Result<Store, OpenError> {
        Store::open_by(location, Opener::Service)
    }

    /// Opens the store at `location` for `opener`, migrating its schema.
    pub fn open_by(location: &Location, opener: Opener) -> Result<Store, OpenError> {
        let (engine, events) = match location {
            Location::Sqlite(path) => {
                let (sqlite, events) = sqlite::Sqlite::open(path)?;
                (Engine::Sqlite(sqlite), events)
            }
            Location::Postgres(url) => {
                let (postgres, events) = postgres::Postgres::open(url, opener)?;
                (Engine::Postgres(postgres), events)
            }
        };
        Ok(Store { engine: Arc::new(engine), events, vault: Arc::new(Vault::none()) })
    }

    /// The same store, sealing and opening its secrets with `vault`.
    pub fn with_vault(self, vault: Arc<Vault>) -> Store {
        Store { vault, ..self }
    }

    /// What seals and opens the store's secrets.
    pub fn vault(&self) -> Arc<Vault> {
        self.vault.clone()
    }

    /// Opens a SQLite store.
    pub fn open_sqlite(path: &Path) -> Result<Store, OpenError> {
        Store::open(&Location::Sqlite(path.to_path_buf()))
    }

    pub fn dialect(&self) -> Dialect {
        match &*self.engine {
            Engine::Sqlite(_) => Dialect::Sqlite,
            Engine::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Whether this replica runs the duties one runner in the deployment does (publishing
    /// events, sending webhooks, the alert engine's ticks, folding ends): on PostgreSQL the
    /// replica holding the duties' advisory lock (`postgres::duties`), on SQLite always.
    pub fn holds_duties(&self) -> bool {
        match &*self.engine {
            Engine::Sqlite(_) => true,
            Engine::Postgres(postgres) => postgres.holds_duties(),
        }
    }

    /// How many replicas share the store now, this one among them: on PostgreSQL the
    /// sessions holding the presence lock (`postgres::presence`, counted once a second), on
    /// SQLite one.
    pub fn live_replicas(&self) -> usize {
        match &*self.engine {
            Engine::Sqlite(_) => 1,
            Engine::Postgres(postgres) => postgres.live_replicas(),
        }
    }

    /// Tells every replica's scheduler that there is work to schedule now (a run created
    /// here), rather than at each one's next pass: on PostgreSQL a notification the replicas'
    /// listeners hear; SQLite's store has no other replica to tell.
    pub async fn announce_work(&self) -> StoreResult<()> {
        match self.dialect() {
            Dialect::Sqlite => Ok(()),
            Dialect::Postgres => self.read(postgres::announce_work).await,
        }
    }

    /// Changes with each announcement of work (`announce_work`) any replica made, this one's
    /// among them; `None` on SQLite, where none is made.
    pub fn work_announced(&self) -> Option<watch::Receiver<u64>> {
        match &*self.engine {
            Engine::Sqlite(_) => None,
            Engine::Postgres(postgres) => Some(postgres.work_announced()),
        }
    }

    /// The newest committed event's id, changing as events commit.
    pub fn events(&self) -> watch::Receiver<i64> {
        self.events.subscribe()
    }

    /// Whether the store answers a query within `within`.
    pub async fn ping(&self, within: std::time::Duration) -> StoreResult<()> {
        let answered = tokio::time::timeout(within, self.read(|conn| conn.exists("SELECT 1", &[]).map(drop))).await;
        answered.unwrap_or_else(|_| Err(StoreError::backend("no answer in time")))
    }

    /// Runs `f` on a reader connection, off the async threads.
    pub async fn read<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Conn) -> Result<R, E> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_blocking(f)).await.map_err(StoreError::backend)?
    }

    /// The same, for callers already off the async threads.
    pub fn read_blocking<R, E: From<StoreError>>(&self, f: impl FnOnce(&Conn) -> Result<R, E>) -> Result<R, E> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.read(f),
            Engine::Postgres(postgres) => postgres.read(f),
        }
    }

    /// Runs `f` in one write transaction: it all commits, or none of it does, and it is on disk
    /// before this returns. `f` may run more than once (PostgreSQL runs a transaction again
    /// when a concurrent one got in its way); only the last run's writes are kept.
    pub async fn write<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: Fn(&Tx) -> Result<R, E> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_blocking(f)).await.map_err(StoreError::backend)?
    }

    /// The same for an engine's progress, which its recovery redoes after a crash: committed
    /// (safe from the process dying) without waiting for the disk, which the next synced write
    /// or checkpoint flushes. A power cut may lose the last moments of progress, never a
    /// caller's write, and never half of a transaction. On SQLite, progress queued while the
    /// writer is busy commits in one batch (`group_commit`); this returns once its batch has
    /// committed.
    pub async fn write_progress<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: Fn(&Tx) -> Result<R, E> + Send + 'static,
    {
        match &*self.engine {
            // The answer is this write's own, whichever batch carried it.
            Engine::Sqlite(sqlite) => {
                let answer = sqlite.progress.push(f);
                answer.await.unwrap_or_else(|_| Err(sqlite::group_commit::not_committed().into()))
            }
            Engine::Postgres(_) => self.postgres_progress(f).await,
        }
    }

    /// Engine progress that picks simulations to start under `pick` (see `Pick`): on
    /// PostgreSQL after another replica's pick for the same job, if one holds its lock; on
    /// SQLite, whose writes run one at a time, at its turn.
    pub async fn write_pick<R, E, F>(&self, pick: Pick, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: Fn(&Tx) -> Result<R, E> + Send + 'static,
    {
        if let Engine::Sqlite(_) = &*self.engine {
            return self.write_progress(f).await;
        }
        // No turn (`progress_blocking`): a pick in a transaction may wait up to `PICK_WAIT` for
        // other picks of the job, and a turn held meanwhile would hold up this replica's ends.
        // Picks in one statement take turns (`pick_in_one`): taking none, these always get on.
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_pick_blocking(pick, f))
            .await
            .map_err(|e| E::from(StoreError::backend(e)))?
    }

    /// The same, for callers already off the async threads.
    pub fn write_pick_blocking<R, E: From<StoreError>>(
        &self,
        pick: Pick,
        f: impl Fn(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.write(&self.events, f),
            Engine::Postgres(postgres) => postgres.write_pick(pick, f),
        }
    }

    /// Applies `batch` as an engine's progress (see `write_progress`): on PostgreSQL one
    /// statement, its own transaction (`batch`).
    pub async fn apply_progress(&self, batch: batch::Batch) -> StoreResult<batch::Applied> {
        Ok(self.apply_progress_seeing(batch, None).await?.0)
    }

    /// The same, answering with `seeing`'s revisions when it was written (none when it was
    /// not): documents read after a write, such as a simulation's set-up after its claim,
    /// are read again only when they changed, at no round trip of their own.
    pub async fn apply_progress_seeing(
        &self,
        batch: batch::Batch,
        seeing: Option<together::Three>,
    ) -> StoreResult<(batch::Applied, together::Revisions)> {
        if let Engine::Sqlite(_) = &*self.engine {
            return self.write_progress(move |tx| batch.apply_seeing_in(tx, seeing.as_ref())).await;
        }
        self.progress_blocking(move |store| store.apply_blocking_seeing(&batch, false, seeing.as_ref()))
            .await
            .map_err(StoreError::backend)?
    }

    /// Applies `batch` for callers already off the async threads; `durable`: the commit waits
    /// for the disk.
    pub fn apply_blocking(&self, batch: &batch::Batch, durable: bool) -> StoreResult<batch::Applied> {
        Ok(self.apply_blocking_seeing(batch, durable, None)?.0)
    }

    /// The same, answering with `seeing`'s revisions (`apply_progress_seeing`).
    pub fn apply_blocking_seeing(
        &self,
        batch: &batch::Batch,
        durable: bool,
        seeing: Option<&together::Three>,
    ) -> StoreResult<(batch::Applied, together::Revisions)> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.write(&self.events, |tx| batch.apply_seeing_in(tx, seeing)),
            Engine::Postgres(postgres) => postgres.apply(batch, durable, seeing),
        }
    }

    /// The same as `write_progress` with no turn (`progress_blocking`): for the replica's
    /// upkeep — its leases renewed, a stopped replica's work handed back, the shards folded —
    /// which a queue of ends must never hold past a lease's end.
    pub async fn write_upkeep<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: Fn(&Tx) -> Result<R, E> + Send + 'static,
    {
        match &*self.engine {
            Engine::Sqlite(_) => self.write_progress(f).await,
            Engine::Postgres(_) => {
                let store = self.clone();
                tokio::task::spawn_blocking(move || store.postgres_write_progress(f))
                    .await
                    .map_err(StoreError::backend)?
            }
        }
    }

    async fn postgres_progress<R, E, F>(&self, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: Fn(&Tx) -> Result<R, E> + Send + 'static,
    {
        self.progress_blocking(move |store| store.postgres_write_progress(f)).await.map_err(StoreError::backend)?
    }

    /// A progress write's transaction on PostgreSQL (its commit does not wait for the disk).
    fn postgres_write_progress<R, E: From<StoreError>>(&self, f: impl Fn(&Tx) -> Result<R, E>) -> Result<R, E> {
        match &*self.engine {
            Engine::Postgres(postgres) => postgres.write(false, None, f),
            Engine::Sqlite(_) => Err(StoreError::backend("store: not a PostgreSQL store").into()),
        }
    }

    /// Runs `work` on a blocking thread once it has a turn among the engines' progress writes
    /// on PostgreSQL (`postgres::PROGRESS_AT_ONCE`, shared out among the live replicas;
    /// SQLite's progress commits in batches on one thread and needs none). The turn moves into
    /// the thread and goes when the work ends, not when a caller that stopped waiting drops its
    /// future: the database is still busy then.
    async fn progress_blocking<R: Send + 'static>(
        &self,
        work: impl FnOnce(&Store) -> R + Send + 'static,
    ) -> Result<R, tokio::task::JoinError> {
        let turn = match &*self.engine {
            Engine::Postgres(postgres) => postgres.progress_turn().await,
            Engine::Sqlite(_) => None,
        };
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            work(&store)
        })
        .await
    }

    /// A synced write, for callers already off the async threads (seeding, engines).
    pub fn write_blocking<R, E: From<StoreError>>(&self, f: impl Fn(&Tx) -> Result<R, E>) -> Result<R, E> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.write(&self.events, f),
            Engine::Postgres(postgres) => postgres.write(true, None, f),
        }
    }

    /// A write that runs `alone`: no other replica's write with the same lock runs meanwhile,
    /// and this one reads what the last of them wrote.
    pub fn write_blocking_alone<R, E: From<StoreError>>(
        &self,
        alone: Alone,
        f: impl Fn(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.write(&self.events, f),
            Engine::Postgres(postgres) => postgres.write(true, Some(alone.key()), f),
        }
    }

    /// Leaves no earlier version of a rewritten row in SQLite's files: the log is copied into
    /// the database and emptied (the database's own freed space is zeroed by the write that
    /// freed it: `secrets::scrub_freed_space`). PostgreSQL's old row versions are removed by
    /// its vacuum.
    pub fn truncate_log(&self) -> StoreResult<()> {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite.truncate_log(),
            Engine::Postgres(_) => Ok(()),
        }
    }

    /// The SQLite engine, for the tests that look inside it.
    #[cfg(test)]
    fn sqlite(&self) -> &sqlite::Sqlite {
        match &*self.engine {
            Engine::Sqlite(sqlite) => sqlite,
            Engine::Postgres(_) => panic!("not a SQLite store"),
        }
    }
}

#[cfg(test)]
mod tests;
