//! The embedded engine: SQLite (bundled) in WAL mode, one writer connection and a few readers
//! (WAL lets them read while it writes). Engine progress commits in groups on a thread of its
//! own; checkpoints run on another.

mod checkpoint;
pub(super) mod group_commit;
pub(super) mod migrations;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, TransactionBehavior};
use tokio::sync::watch;

pub use migrations::SCHEMA_VERSION;

use super::db::{Conn, Tx};
use super::{OpenError, outbox};
use crate::service::store::error::{StoreError, StoreResult};

const READERS: usize = 4;

/// The SQLite engine of a store.
pub(super) struct Sqlite {
    /// Handed over fairly (`parking_lot`): a caller's synced write waiting for it goes next,
    /// rather than behind the progress writer taking it again batch after batch.
    pub(super) writer: Arc<parking_lot::Mutex<Writer>>,
    readers: Vec<Mutex<Connection>>,
    /// Keeps the checkpoint thread going; it stops when the store is dropped.
    _checkpointer: checkpoint::Running,
    /// Engine progress waiting to be committed with the next batch.
    pub(super) progress: Arc<group_commit::Queue>,
    /// Keeps the thread that commits the progress going while the store lives.
    _progress_writer: group_commit::Running,
}

impl Sqlite {
    /// Opens (and migrates) the database at `path`, with the channel that tells of every
    /// committed event (its newest id).
    pub(super) fn open(path: &Path) -> Result<(Sqlite, Arc<watch::Sender<i64>>), OpenError> {
        let mut writer = Connection::open(path)?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        writer.pragma_update(None, "synchronous", "FULL")?;
        writer.pragma_update(None, "foreign_keys", "ON")?;
        // A write's undo pages (statement journals, savepoints) stay in memory, not a temp file.
        writer.pragma_update(None, "temp_store", "MEMORY")?;
        // A thread of its own checkpoints (`checkpoint`); the writer only if that one falls
        // 40 MB of log behind.
        writer.pragma_update(None, "wal_autocheckpoint", checkpoint::WRITER_FALLBACK_PAGES)?;
        // A log that grew while readers held it back is cut back to this after a checkpoint.
        writer.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
        writer.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations::migrate(&mut writer)?;
        let readers = (0..READERS)
            .map(|_| {
                let conn = Connection::open(path)?;
                conn.busy_timeout(std::time::Duration::from_secs(5))?;
                Ok(Mutex::new(conn))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let last = outbox::last_event(&Conn::sqlite(&writer)).map_err(|e| OpenError(e.to_string()))?;
        let events = Arc::new(watch::channel(last).0);
        let writer = Arc::new(parking_lot::Mutex::new(Writer { conn: writer, durability: Durability::Synced }));
        let checkpointer = checkpoint::spawn(path)?;
        let progress = Arc::<group_commit::Queue>::default();
        let progress_writer = {
            let (writer, events) = (writer.clone(), events.clone());
            group_commit::spawn(progress.clone(), move |queue| commit_progress(&writer, queue, &events))
                .map_err(|e| OpenError(format!("progress writer thread: {e}")))?
        };
        let sqlite =
            Sqlite { writer, readers, _checkpointer: checkpointer, progress, _progress_writer: progress_writer };
        Ok((sqlite, events))
    }

    /// Runs `f` on a reader connection.
    pub(super) fn read<R, E>(&self, f: impl FnOnce(&Conn) -> Result<R, E>) -> Result<R, E> {
        let guard = self
            .readers
            .iter()
            .find_map(|reader| reader.try_lock().ok())
            .unwrap_or_else(|| self.readers[0].lock().unwrap_or_else(|e| e.into_inner()));
        f(&Conn::sqlite(&guard))
    }

    /// Copies the whole log into the database and empties it (waiting for readers), so that
    /// page images an earlier write left in it are gone from the disk.
    pub(super) fn truncate_log(&self) -> StoreResult<()> {
        let writer = self.writer.lock();
        writer.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0))?;
        Ok(())
    }

    /// A synced write: committed and on disk before this returns.
    pub(super) fn write<R, E: From<StoreError>>(
        &self,
        events: &watch::Sender<i64>,
        f: impl FnOnce(&Tx) -> Result<R, E>,
    ) -> Result<R, E> {
        let mut writer = self.writer.lock();
        writer.durable(Durability::Synced).map_err(StoreError::from)?;
        // IMMEDIATE: the write lock is taken at the start, never upgraded from a read.
        let tx = writer.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(StoreError::from)?;
        let result = f(&Tx::new(Conn::sqlite(&tx)))?;
        tx.commit().map_err(StoreError::from)?;
        announce_events(events, &writer.conn);
        Ok(result)
    }
}

/// Leads a batch of progress (on the progress writer's thread): commits whatever is queued,
/// then hands the writer to a synced write waiting for it, if any.
fn commit_progress(writer: &parking_lot::Mutex<Writer>, queue: &group_commit::Queue, events: &watch::Sender<i64>) {
    let mut writer = writer.lock();
    let batch = queue.take();
    if batch.is_empty() {
        return; // defensive: the one leader takes only after a write has queued
    }
    match writer.durable(Durability::Progress) {
        // On failure the batch is dropped and its callers hear that it was not committed.
        Err(e) => tracing::error!("store: setting progress durability: {e}"),
        Ok(()) => {
            group_commit::commit(&mut writer.conn, batch);
            announce_events(events, &writer.conn);
        }
    }
    parking_lot::MutexGuard::unlock_fair(writer);
}

/// Wakes the event streams and the webhook sender when a write appended events.
fn announce_events(events: &watch::Sender<i64>, conn: &Connection) {
    if let Ok(last) = outbox::last_event(&Conn::sqlite(conn)) {
        events.send_if_modified(|seen| std::mem::replace(seen, last) != last);
    }
}

/// Whether a write waits for the disk before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// A caller's write: on disk before it is acknowledged.
    Synced,
    /// An engine's progress: committed (safe from the process dying) but not yet synced.
    Progress,
}

/// The one connection that writes, and the sync mode it is in.
pub(super) struct Writer {
    pub(super) conn: Connection,
    durability: Durability,
}

impl Writer {
    /// Puts the connection in `durability`'s sync mode. WAL mode: FULL syncs the log at each
    /// commit, NORMAL only at checkpoints.
    fn durable(&mut self, durability: Durability) -> rusqlite::Result<()> {
        if self.durability != durability {
            let mode = if durability == Durability::Synced { "FULL" } else { "NORMAL" };
            self.conn.pragma_update(None, "synchronous", mode)?;
            self.durability = durability;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
