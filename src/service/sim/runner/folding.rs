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

impl Simulator {
    /// Folds ends as they are appended, for as long as the service runs.
    pub fn spawn_folds(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = self.folds.notified() => tokio::time::sleep(GATHER).await,
                    _ = tokio::time::sleep(SWEEP) => {}
                }
                if let Err(e) = self.fold_waiting().await {
                    tracing::warn!("folding simulations' ends: {}; trying again", e.body.message);
                }
            }
        })
    }

    /// Folds the ends of every job that has some waiting; a job that settles frees room for
    /// the scheduler.
    async fn fold_waiting(&self) -> ServiceResult<()> {
        let jobs = self.store.read(store::ends::waiting_jobs).await?;
        for job_id in jobs {
            self.store.write_progress(move |tx| settle_job(tx, &job_id)).await?;
        }
        self.wake();
        Ok(())
    }
}
