//! Group commit for the engines' progress. Progress writes that queue while the writer is busy
//! commit together in one transaction, each in a savepoint of its own, so a write that fails
//! (or panics) undoes only itself, and a busy engine pays one commit (and writes each page it
//! shares with its neighbours, a job's counts and its index pages, once) for many writes instead
//! of one each. A failure SQLite answers by ending the whole transaction (a full disk, an I/O
//! error) fails the whole batch: every caller hears it.
//!
//! One thread of its own leads every batch: the next batch forms while it commits the last,
//! and it starts the moment that commit ends, without a hand-over between the callers'
//! threads (each woken in turn to find the queue already taken).

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use tokio::sync::oneshot;

use crate::service::store::db::{Conn, Tx};
use crate::service::store::error::StoreError;
use crate::service::store::rounds::guarded;

/// Answers a queued write once its batch's commit is known (`Some` when the commit failed).
type Reply = Box<dyn FnOnce(Option<&rusqlite::Error>) + Send>;

/// A queued write: runs in the batch's transaction, and says whether it succeeded and how to
/// answer its caller.
type Queued = Box<dyn FnOnce(&Transaction) -> (bool, Reply) + Send>;

/// The writes waiting for the next batch.
#[derive(Default)]
pub(in crate::service::store) struct Queue {
    waiting: Mutex<Waiting>,
    arrived: Condvar,
}

#[derive(Default)]
struct Waiting {
    writes: Vec<Queued>,
    /// The store was dropped: the writer commits what is left, then stops.
    stopping: bool,
}

impl Queue {
    /// Queues `f`; its result arrives on the receiver once the batch that ran it has committed.
    pub(in crate::service::store) fn push<R, E, F>(&self, f: F) -> oneshot::Receiver<Result<R, E>>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let queued: Queued = Box::new(move |tx| {
            // A panicking write is that write's own failure, not its batch's.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&Tx::new(Conn::sqlite(tx)))))
                .unwrap_or_else(|_| Err(StoreError::backend("store: a progress write panicked").into()));
            let succeeded = result.is_ok();
            let reply: Reply = Box::new(move |commit_error| {
                let answer = match commit_error {
                    Some(error) => Err(commit_failure(error).into()),
                    None => result,
                };
                let _ = sender.send(answer); // a caller that went away needs no answer
            });
            (succeeded, reply)
        });
        self.waiting().writes.push(queued);
        self.arrived.notify_one();
        receiver
    }

    /// How many writes wait.
    #[cfg(test)]
    pub(in crate::service::store) fn len(&self) -> usize {
        self.waiting().writes.len()
    }

    /// Waits until a write is queued; `false` once the store is dropped and none is left.
    fn wait_for_writes(&self) -> bool {
        let mut waiting = self.waiting();
        while waiting.writes.is_empty() && !waiting.stopping {
            waiting = self.arrived.wait(waiting).unwrap_or_else(|e| e.into_inner());
        }
        !waiting.writes.is_empty()
    }

    /// Everything queued so far.
    pub(super) fn take(&self) -> Vec<Queued> {
        std::mem::take(&mut self.waiting().writes)
    }

    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The running batch writer; dropping it (with the store) has it commit what is queued and
/// stop. It is not waited for: a process that exits first loses only progress, which the
/// engines' recovery redoes at the next start.
pub(super) struct Running {
    queue: Arc<Queue>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.queue.waiting().stopping = true;
        self.queue.arrived.notify_all();
    }
}

/// Starts the thread that leads every batch: `lead` takes what is queued and commits it.
pub(super) fn spawn(queue: Arc<Queue>, lead: impl Fn(&Queue) + Send + 'static) -> std::io::Result<Running> {
    let thread_queue = queue.clone();
    std::thread::Builder::new().name("progress-writer".into()).spawn(move || {
        while thread_queue.wait_for_writes() {
            // A write's own panic is its failure (`push`); one escaping the batch around it
            // fails that batch's callers (their answers are dropped) and the thread goes on,
            // so later writes are never left waiting for a leader that is gone.
            guarded("a batch of progress (its writes were not committed)", || lead(&thread_queue));
        }
    })?;
    Ok(Running { queue })
}

/// Runs `batch` in one transaction and answers each write. A write whose batch could not run
/// at all is dropped, and its caller told that it was not committed.
pub(super) fn commit(conn: &mut Connection, batch: Vec<Queued>) {
    let mut replies = Vec::with_capacity(batch.len());
    let outcome = run(conn, batch, &mut replies);
    for reply in replies {
        reply(outcome.as_ref().err());
    }
}

fn run(conn: &mut Connection, batch: Vec<Queued>, replies: &mut Vec<Reply>) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for queued in batch {
        tx.execute_batch("SAVEPOINT progress")?;
        let (succeeded, reply) = queued(&tx);
        replies.push(reply);
        tx.execute_batch(if succeeded { "RELEASE progress" } else { "ROLLBACK TO progress; RELEASE progress" })?;
    }
    tx.commit()
}

/// A failed commit's error, for each of the batch's callers (`rusqlite::Error` is not `Clone`).
fn commit_failure(error: &rusqlite::Error) -> StoreError {
    match error {
        rusqlite::Error::SqliteFailure(code, message) => rusqlite::Error::SqliteFailure(*code, message.clone()).into(),
        other => StoreError::backend(format!("store: {other}")),
    }
}

/// What a caller whose write was dropped unanswered (its batch failed before running it) is told.
pub(in crate::service::store) fn not_committed() -> StoreError {
    StoreError::backend("store: the write was not committed (its batch failed before it ran)")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A panic that escapes a batch (not one write's own) drops that batch's answers; the
    /// writer's thread goes on and commits the next batch.
    #[test]
    fn a_batch_that_panics_is_dropped_and_the_writer_goes_on() {
        let queue = Arc::<Queue>::default();
        let batches = AtomicUsize::new(0);
        let conn = Mutex::new(Connection::open_in_memory().unwrap());
        let _running = spawn(queue.clone(), move |queue| {
            let batch = queue.take();
            assert!(batches.fetch_add(1, Ordering::SeqCst) > 0, "the first batch fails");
            commit(&mut conn.lock().unwrap(), batch);
        });
        let first = queue.push(|_| Ok::<_, StoreError>(1));
        assert!(first.blocking_recv().is_err(), "the failed batch's caller is told it was dropped");
        let mut second = queue.push(|_| Ok::<_, StoreError>(2));
        // Polled with a deadline: a writer's thread that died would never answer.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let answer = loop {
            match second.try_recv() {
                Err(oneshot::error::TryRecvError::Empty) => {
                    assert!(std::time::Instant::now() < deadline, "the writer's thread no longer commits");
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                answer => break answer.expect("answered"),
            }
        };
        assert_eq!(answer.unwrap(), 2);
    }
}
