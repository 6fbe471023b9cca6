//! Group commit for the engines' progress. Progress writes that queue while the writer is busy
//! commit together in one transaction, each in a savepoint of its own, so a write that fails
//! (or panics) undoes only itself, and a busy engine pays one commit (and writes each page it
//! shares with its neighbours, a job's counts and its index pages, once) for many writes instead
//! of one each. A failure SQLite answers by ending the whole transaction (a full disk, an I/O
//! error) fails the whole batch: every caller hears it.

use std::sync::Mutex;

use rusqlite::{Connection, Transaction, TransactionBehavior};
use tokio::sync::oneshot;

use crate::service::error::{ServiceError, ServiceResult};

/// Answers a queued write once its batch's commit is known (`Some` when the commit failed).
type Reply = Box<dyn FnOnce(Option<&rusqlite::Error>) + Send>;

/// A queued write: runs in the batch's transaction, and says whether it succeeded and how to
/// answer its caller.
type Queued = Box<dyn FnOnce(&Transaction) -> (bool, Reply) + Send>;

/// The writes waiting for the next batch.
#[derive(Default)]
pub(super) struct Queue(Mutex<Vec<Queued>>);

impl Queue {
    /// Queues `f`; its result arrives on the receiver once the batch that ran it has committed.
    pub(super) fn push<R, F>(&self, f: F) -> oneshot::Receiver<ServiceResult<R>>
    where
        R: Send + 'static,
        F: FnOnce(&Transaction) -> ServiceResult<R> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let queued: Queued = Box::new(move |tx| {
            // A panicking write is that write's own failure, not its batch's.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(tx)))
                .unwrap_or_else(|_| Err(ServiceError::internal("store: a progress write panicked")));
            let succeeded = result.is_ok();
            let reply: Reply = Box::new(move |commit_error| {
                let answer = match commit_error {
                    Some(error) => Err(commit_failure(error)),
                    None => result,
                };
                let _ = sender.send(answer); // a caller that went away needs no answer
            });
            (succeeded, reply)
        });
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(queued);
        receiver
    }

    /// How many writes wait.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Everything queued so far (nothing when an earlier batch took this caller's write too).
    pub(super) fn take(&self) -> Vec<Queued> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
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
fn commit_failure(error: &rusqlite::Error) -> ServiceError {
    match error {
        rusqlite::Error::SqliteFailure(code, message) => rusqlite::Error::SqliteFailure(*code, message.clone()).into(),
        other => ServiceError::internal(format!("store: {other}")),
    }
}

/// What a caller whose write was dropped unanswered (its batch failed before running it) is told.
pub(super) fn not_committed() -> ServiceError {
    ServiceError::internal("store: the write was not committed (its batch failed before it ran)")
}
