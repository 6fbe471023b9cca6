//! The duties one runner in the deployment does: publishing events, sending webhooks, the
//! alert engine's and the plan scheduler's ticks, and folding simulations' ends into their
//! jobs. Each is safe on several replicas (their claims and locks see to it), but on two they
//! did the same work twice and waited on each other's locks (issue 33: a second replica added
//! service CPU, round trips and lock waits, not throughput). So one replica at a time runs
//! them: the one holding a session-level advisory lock on a connection of its own
//! (`store::postgres::duties`, asked through `Store::holds_duties`). The lock frees when that
//! connection drops — its replica stopped, was killed or lost the database — and another
//! replica takes the duties over a few seconds later. On SQLite, one process, they always run.
//!
//! Holding the lock promises the deployment that the duties run here, so every engine is
//! `supervise`d: one that panics or ends is logged and started again, never left stopped
//! behind a lock that keeps the other replicas standing by.

use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use super::lease_keeper::AbortOnDrop;

/// How long a replica without the duties waits before it asks again. The same second as the
/// store's `TRY_EVERY` by intent but kept apart: this is how stale an engine's answer may be
/// (an in-memory read, cheap to ask often), that is a round trip to the database.
pub const LOOK_AGAIN: Duration = Duration::from_secs(1);

/// The pause before an engine that stopped is started again; it doubles, up to `LONGEST_PAUSE`,
/// while the engine keeps stopping within `SETTLED` of its start (a fault it meets every time
/// is logged once a minute, not in a busy loop).
const FIRST_PAUSE: Duration = Duration::from_millis(100);
const LONGEST_PAUSE: Duration = Duration::from_secs(60);
const SETTLED: Duration = Duration::from_secs(60);

/// Runs the engine `start` spawns and starts it again, after an error in the log, whenever it
/// panics or ends (the engines loop for as long as the service runs). Aborting the returned
/// task stops the engine with it.
pub fn supervise<F>(engine: &'static str, start: F) -> JoinHandle<()>
where
    F: Fn() -> JoinHandle<()> + Send + 'static,
{
    tokio::spawn(async move {
        let mut pause = FIRST_PAUSE;
        loop {
            let started = Instant::now();
            let mut running = AbortOnDrop(start());
            match (&mut running.0).await {
                Err(stopped) if stopped.is_panic() => {
                    tracing::error!(engine, "the {engine} engine panicked: {stopped}; starting it again in {pause:?}")
                }
                Err(stopped) => tracing::error!(engine, "the {engine} engine stopped: {stopped}; starting it again"),
                Ok(()) => tracing::error!(engine, "the {engine} engine ended; starting it again in {pause:?}"),
            }
            if started.elapsed() >= SETTLED {
                pause = FIRST_PAUSE;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    /// Polls `done` until it holds, or fails after ten seconds.
    async fn eventually(what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < deadline, "{what}: not within ten seconds");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test]
    async fn an_engine_that_panics_or_ends_is_started_again() {
        let starts = Arc::new(AtomicUsize::new(0));
        let counting = starts.clone();
        let supervisor = supervise("test", move || {
            let start = counting.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                match start {
                    0 => panic!("a fold that panicked"),
                    1 => {} // an engine that returned
                    _ => std::future::pending().await,
                }
            })
        });
        eventually("started a third time", || starts.load(Ordering::SeqCst) == 3).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(starts.load(Ordering::SeqCst), 3, "an engine that runs on is left alone");
        supervisor.abort();
    }

    #[tokio::test]
    async fn aborting_the_supervisor_stops_its_engine() {
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let (stopped, running) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (stopping, started) = (stopped.clone(), running.clone());
        let supervisor = supervise("test", move || {
            let (flag, started) = (Flag(stopping.clone()), started.clone());
            tokio::spawn(async move {
                let _flag = flag;
                started.store(true, Ordering::SeqCst);
                std::future::pending::<()>().await
            })
        });
        eventually("the engine runs", || running.load(Ordering::SeqCst)).await;
        supervisor.abort();
        eventually("the engine stopped with its supervisor", || stopped.load(Ordering::SeqCst)).await;
    }
}
