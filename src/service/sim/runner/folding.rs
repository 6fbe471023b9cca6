//! Folding simulations' ends into their jobs. A simulation's end appends its part (its share of
//! the tally, the item it counts in the collection job) without touching its job's row; this
//! task applies every part appended meanwhile, a job at a time, in one transaction per job
//! (`jobs::settle_job`), and settles a job whose simulations have all ended. It wakes at an end
//! of this replica's and waits a few milliseconds for the ends that follow it; once a second it
//! looks for parts any replica left (one that stopped before folding them).

use std::time::Duration;

use super::Simulator;
use crate::service::error::ServiceResult;
use crate::service::sim::jobs::settle_job;
use crate::service::store;

/// How long a fold waits after the end that woke it, so that the ends of those milliseconds
/// are folded with it: one lock of the job's row for many ends.
const GATHER: Duration = Duration::from_millis(5);

/// How often parts are looked for with nothing woken.
const SWEEP: Duration = Duration::from_secs(1);

/// How soon a job folded and left open is folded again (see `fold_waiting`).
const AGAIN: Duration = Duration::from_millis(20);

impl Simulator {
    /// Folds ends as they are appended, for as long as the service runs.
    pub fn spawn_folds(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut folded = Vec::new();
            loop {
                let idle = if folded.is_empty() { SWEEP } else { AGAIN };
                tokio::select! {
                    _ = self.folds.notified() => tokio::time::sleep(GATHER).await,
                    _ = tokio::time::sleep(idle) => {}
                }
                match self.fold_waiting(&folded).await {
                    Ok(jobs) => folded = jobs,
                    Err(e) => tracing::warn!("folding simulations' ends: {}; trying again", e.body.message),
                }
            }
        })
    }

    /// Folds the ends of every job that has some waiting, and once more those `folded` last
    /// time; which jobs had ends. A fold counts a job's open simulations before it takes the
    /// ends, so that it never settles without a part; an end that commits between the two is
    /// taken while its simulation was counted open, and the job is left open with no part
    /// waiting: the fold after settles it. A job that settles frees room for the scheduler.
    async fn fold_waiting(&self, folded: &[String]) -> ServiceResult<Vec<String>> {
        let waiting = self.store.read(store::ends::waiting_jobs).await?;
        let again = folded.iter().filter(|job| !waiting.contains(job)).cloned().collect::<Vec<_>>();
        for job_id in waiting.iter().chain(&again) {
            let job_id = job_id.clone();
            self.store.write_progress(move |tx| settle_job(tx, &job_id)).await?;
        }
        self.wake();
        Ok(waiting)
    }
}
