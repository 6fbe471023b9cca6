//! Folding simulations' ends into their jobs. A simulation's end appends its part (its share of
//! the tally, the item it counts in the collection job) without touching its job's row; this
//! task applies every part appended meanwhile, a job at a time, in one transaction per job
//! (`jobs::settle_job`), and settles a job whose simulations have all ended. It wakes at an end
//! of this replica's and waits a few milliseconds for the ends that follow it; once a second (a
//! tenth of one while it finds some) it looks for parts any replica left. Only the replica
//! holding the deployment's duties folds (`replica::duties`): two folding one job took turns on
//! its row. On PostgreSQL one read takes what every waiting job's fold needs and each fold
//! that does not settle its job is one statement (`store::folds`), where it was a transaction
//! of a dozen round trips.

use std::time::Duration;

use super::Simulator;
use crate::service::sim::jobs::{Folded, decide_fold, fold_job, open_statuses};
use crate::service::store::folds::{FoldApplied, Waiting};
use crate::service::store::{self, Dialect, StoreResult};

/// How long a fold waits after the end that woke it, so that the ends of those milliseconds
/// are folded with it: one lock of the job's row for many ends.
const GATHER: Duration = Duration::from_millis(5);

/// How often parts are looked for with nothing woken.
const SWEEP: Duration = Duration::from_secs(1);

/// The same while the last look found some: the other replicas' ends do not wake this one.
const SWEEP_BUSY: Duration = Duration::from_millis(100);

/// How soon a job a fold left open for want of another (`Folded::Again`) is folded again.
const AGAIN: Duration = Duration::from_millis(20);

impl Simulator {
    /// Folds ends as they are appended, for as long as the service runs.
    pub fn spawn_folds(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let (mut again, mut busy) = (Vec::new(), false);
            loop {
                let idle = match (again.is_empty(), busy) {
                    (false, _) => AGAIN,
                    (true, true) => SWEEP_BUSY,
                    (true, false) => SWEEP,
                };
                tokio::select! {
                    _ = self.folds.notified() => tokio::time::sleep(GATHER).await,
                    _ = tokio::time::sleep(idle) => {}
                }
                // One replica folds (`replica::duties`): two folding one job wait on its row.
                if !self.store.holds_duties() {
                    (again, busy) = (Vec::new(), false);
                    continue;
                }
                match self.fold_waiting(&again).await {
                    Ok((jobs, found)) => (again, busy) = (jobs, found),
                    Err(e) => tracing::warn!("folding simulations' ends: {e}; trying again"),
                }
            }
        })
    }

    /// Folds the ends of every job that has some waiting, and once more those the last fold
    /// left open with `Folded::Again` (their last ends committed while it ran); which jobs to
    /// fold again, and whether any job had ends waiting. A job that settles frees room for the
    /// jobs that wait on it (a sequential mode's), so the scheduler is woken; a fold that leaves
    /// its job open frees none (the ends' own refills picked already).
    async fn fold_waiting(&self, again: &[String]) -> StoreResult<(Vec<String>, bool)> {
        let waiting: Vec<(String, Option<Waiting>)> = match self.store.dialect() {
            Dialect::Sqlite => {
                self.store.read(store::ends::waiting_jobs).await?.into_iter().map(|j| (j, None)).collect()
            }
            Dialect::Postgres => {
                let read = self.store.read(|conn| store::folds::waiting(conn, &open_statuses())).await?;
                read.into_iter().map(|w| (w.job_id.clone(), Some(w))).collect()
            }
        };
        let found = !waiting.is_empty();
        let again: Vec<String> =
            again.iter().filter(|job| !waiting.iter().any(|(id, _)| id == *job)).cloned().collect();
        let (mut next, mut settled) = (Vec::new(), false);
        for (job_id, read) in waiting.into_iter().chain(again.into_iter().map(|job| (job, None))) {
            match self.fold_one(&job_id, read.as_ref()).await? {
                Folded::Again => next.push(job_id),
                Folded::Settled => settled = true,
                Folded::Done => {}
            }
        }
        if settled {
            self.wake();
        }
        Ok((next, found))
    }

    /// Folds a job's ends: in one statement when `read` decides the fold and nothing moved
    /// since, else in a transaction (`fold_job`).
    async fn fold_one(&self, job_id: &str, read: Option<&Waiting>) -> StoreResult<Folded> {
        if let Some(fold) = read.map(decide_fold).transpose()?.flatten() {
            match self.store.apply_fold(fold).await? {
                FoldApplied::Written => return Ok(Folded::Done),
                // Its last simulations ended since the read: the transaction settles it.
                FoldApplied::WrittenNoneOpen | FoldApplied::Moved => {}
            }
        }
        let id = job_id.to_owned();
        self.store.write_progress(move |tx| fold_job(tx, &id)).await
    }
}
