//! The simulations this replica runs now, by job: what it holds of each job's places, known
//! without a read. The store's count went through the leases' index, which keeps an entry for
//! every simulation the replica ever ran until the table is vacuumed: that read visited all of
//! them, 9 ms at 10,000 simulations and growing with the run (issue 33).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub(super) struct Running(Mutex<HashMap<String, usize>>);

impl Running {
    /// Counts one more simulation of `job`, until the returned mark is dropped.
    pub(super) fn start(self: &Arc<Self>, job: &str) -> RunningOne {
        *self.lock().entry(job.to_owned()).or_default() += 1;
        RunningOne { running: self.clone(), job: job.to_owned() }
    }

    /// How many of `job`'s simulations this replica runs now.
    pub(super) fn of(&self, job: &str) -> usize {
        self.lock().get(job).copied().unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One simulation counted as running. Dropped — at its end, or by a panic or an abort — it is
/// counted no longer, so a simulation that never returned cannot hold a place of the share.
pub(super) struct RunningOne {
    running: Arc<Running>,
    job: String,
}

impl Drop for RunningOne {
    fn drop(&mut self) {
        let mut counts = self.running.lock();
        if let Some(count) = counts.get_mut(&self.job) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.job);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Running;

    #[test]
    fn a_simulation_counts_from_its_start_to_its_end() {
        let running = Arc::new(Running::default());
        let first = running.start("job");
        let second = running.start("job");
        let other = running.start("other");
        assert_eq!((running.of("job"), running.of("other"), running.of("none")), (2, 1, 0));
        drop(first);
        assert_eq!(running.of("job"), 1);
        drop((second, other));
        assert_eq!((running.of("job"), running.of("other")), (0, 0));
        assert!(running.lock().is_empty(), "an ended job leaves no entry behind");
    }

    #[test]
    fn a_simulation_that_panicked_is_counted_no_longer() {
        let running = Arc::new(Running::default());
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _one = running.start("job");
            panic!("a simulation that panicked");
        }));
        assert!(panicked.is_err());
        assert_eq!(running.of("job"), 0);
    }
}
