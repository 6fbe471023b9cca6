//! Checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the commit
//! that crosses its threshold, so the one writer stops to copy the log into the database and
//! wait for the disk; here a connection of its own copies it (PASSIVE: never blocking the
//! writer or a reader) while the writer goes on.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use rusqlite::Connection;

use crate::service::store::rounds::guarded;

/// How often the log is copied into the database.
const EVERY: Duration = Duration::from_millis(250);

/// The writer checkpoints itself only when the log has grown this many pages (40 MB): a
/// fallback should this thread fall behind.
pub(super) const WRITER_FALLBACK_PAGES: i64 = 10_000;

/// The running checkpointer; dropping it stops the thread at once.
pub(super) struct Running {
    _stop: mpsc::Sender<()>,
}

/// Starts the checkpointer for the database at `path`.
pub(super) fn spawn(path: &Path) -> rusqlite::Result<Running> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    let (stop, stopped) = mpsc::channel::<()>();
    let spawned = std::thread::Builder::new().name("checkpoint".into()).spawn(move || {
        // Nothing is ever sent: the wait ends by timing out, or when the store is dropped.
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
            // (busy, frames in the log, frames copied); a busy checkpoint is simply tried again.
            let checkpoint = || conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0));
            if let Some(Err(e)) = guarded("the checkpoint", checkpoint) {
                tracing::warn!("store checkpoint: {e}");
            }
        }
    });
    spawned.map_err(|e| rusqlite::Error::InvalidParameterName(format!("checkpoint thread: {e}")))?;
    Ok(Running { _stop: stop })
}
