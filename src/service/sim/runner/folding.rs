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

use std::collections::HashSet;
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
            let (mut again, mut busy, mut failing) = (Vec::new(), false, Failing::default());
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
                match self.fold_waiting(&again, &mut failing).await {
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
    /// its job open frees none (the ends' own refills picked already). A job whose fold fails
    /// keeps its ends for the next look and holds up no other job's fold, nor the wake; it is
    /// not counted as found, so that it alone is looked at once a second, not ten times.
    async fn fold_waiting(&self, again: &[String], failing: &mut Failing) -> StoreResult<(Vec<String>, bool)> {
        let waiting: Vec<(String, Option<Waiting>)> = match self.store.dialect() {
            Dialect::Sqlite => {
                self.store.read(store::ends::waiting_jobs).await?.into_iter().map(|j| (j, None)).collect()
            }
            Dialect::Postgres => {
                let read = self.store.read(|conn| store::folds::waiting(conn, &open_statuses())).await?;
                read.into_iter().map(|w| (w.job_id.clone(), Some(w))).collect()
            }
        };
        let waiting_ids: Vec<String> = waiting.iter().map(|(id, _)| id.clone()).collect();
        let again: Vec<String> = again.iter().filter(|job| !waiting_ids.contains(job)).cloned().collect();
        let (mut next, mut settled) = (Vec::new(), false);
        for (job_id, read) in waiting.into_iter().chain(again.into_iter().map(|job| (job, None))) {
            let folded = self.fold_one(&job_id, read.as_ref()).await;
            match failing.note(&job_id, folded) {
                Some(Folded::Again) => next.push(job_id),
                Some(Folded::Settled) => settled = true,
                Some(Folded::Done) | None => {}
            }
        }
        if settled {
            self.wake();
        }
        Ok((next, waiting_ids.iter().any(|id| !failing.holds(id))))
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

/// The jobs whose last fold failed: each warned of once, then tried quietly at every look
/// until a fold of it lands (a job that cannot be folded would otherwise warn ten times a
/// second).
#[derive(Default)]
struct Failing(HashSet<String>);

impl Failing {
    /// Whether `job`'s last fold failed.
    fn holds(&self, job: &str) -> bool {
        self.0.contains(job)
    }

    /// Notes how `job`'s fold went, and hands back what it did if it landed.
    fn note(&mut self, job: &str, folded: StoreResult<Folded>) -> Option<Folded> {
        match folded {
            Ok(folded) => {
                if self.0.remove(job) {
                    tracing::info!("folding the ends of run plan job {job}: folded again");
                }
                Some(folded)
            }
            Err(e) if self.0.insert(job.to_owned()) => {
                tracing::warn!("folding the ends of run plan job {job}: {e}; trying again at each look");
                None
            }
            Err(e) => {
                tracing::debug!("folding the ends of run plan job {job}: {e}");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::api::model::*;
    use crate::service::SimSpeed;
    use crate::service::metrics::judge::Judge;
    use crate::service::replica::leases::Worker;
    use crate::service::sim::jobs::record_simulation;
    use crate::service::sim::verdict::Tally;
    use crate::service::store::{Doc, Kind, Store, StoreResult, ends, test_server};

    /// A running job of one simulation, ended (its part appended, not yet folded).
    fn ended_job(store: &Store, job: Uuid, collection: Uuid, tally: serde_json::Value) {
        let body = json!({ "simulationRunPlanJobId": job, "status": "RUNNING_SIMULATIONS",
            "createdAt": "2026-01-01T00:00:00Z", "collectionJobId": collection, "tally": tally });
        let collection_body = json!({ "id": collection, "status": "PROCESSING", "createdAt": "2026-01-01T00:00:00Z",
            "totalItems": 1, "completedItems": 0, "failedItems": 0 });
        let simulation: SimulationJob = serde_json::from_value(json!({ "simulationJobId": Uuid::new_v4(),
            "simulationRunPlanJobId": job, "status": "COMPLETED", "outcome": "PASSED" }))
        .unwrap_or_else(|e| panic!("{e}"));
        let (job, collection) = (job.to_string(), collection.to_string());
        store
            .write_blocking(|tx| -> StoreResult<()> {
                let at = "2026-01-01T00:00:00Z";
                store::insert(tx, &Doc::new(Kind::RunPlanJob, &job, &body, at)?.status(Some("RUNNING_SIMULATIONS")))?;
                let collection_doc = Doc::new(Kind::CollectionJob, &collection, &collection_body, at)?;
                store::insert(tx, &collection_doc.status(Some("PROCESSING")))?;
                let mut pending = simulation.clone();
                pending.status = Some(SimulationJobStatus::Processing);
                store::insert(tx, &Doc::of(&pending)?)?;
                let item = ends::Item {
                    collection_id: collection.clone(),
                    failed: false,
                    at: "\"2026-01-01T00:05:00Z\"".into(),
                };
                record_simulation(tx, simulation.clone(), &job, &[], None, Some(item))
            })
            .unwrap_or_else(|e| panic!("{:?}: {e:?}", store.dialect()));
    }

    fn status(store: &Store, job: Uuid) -> String {
        let body: serde_json::Value = store
            .read_blocking(|c| store::require(c, Kind::RunPlanJob, &job.to_string()))
            .unwrap_or_else(|e| panic!("{e:?}"));
        body["status"].as_str().unwrap_or_default().to_owned()
    }

    /// A job whose fold fails (here its tally cannot be read) keeps its ends for the next look,
    /// and every other job is folded all the same: one such job once held up every run's end.
    #[test]
    fn a_job_whose_fold_fails_holds_up_no_other_jobs_fold() {
        let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
        for (_dir, store) in test_server::TestServer::both_engines() {
            let (broken, sound) = (Uuid::from_u128(1), Uuid::from_u128(2));
            ended_job(&store, broken, Uuid::from_u128(11), json!("not a tally"));
            ended_job(
                &store,
                sound,
                Uuid::from_u128(12),
                serde_json::to_value(Tally { simulations: 1, ..Tally::default() }).unwrap_or_else(|e| panic!("{e}")),
            );
            let engine = Simulator::new(
                store.clone(),
                Arc::new(Judge::Rubric),
                SimSpeed::Max,
                String::new(),
                Worker::new(std::time::Duration::from_secs(60)),
            );
            let mut failing = Failing::default();
            let mut fold =
                || runtime.block_on(engine.fold_waiting(&[], &mut failing)).unwrap_or_else(|e| panic!("{e}"));
            let (again, found) = fold();
            assert!(found && again.is_empty(), "{:?}: {again:?}", store.dialect());
            assert_eq!(status(&store, sound), "COMPLETED", "{:?}: the sound job settled", store.dialect());
            assert_eq!(status(&store, broken), "RUNNING_SIMULATIONS", "{:?}", store.dialect());
            let waiting = store.read_blocking(store::ends::waiting_jobs).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(waiting, [broken.to_string()], "{:?}: the broken job's end is kept", store.dialect());
            // Its ends alone do not keep the fold looking ten times a second.
            assert_eq!(fold(), (Vec::new(), false), "{:?}", store.dialect());
        }
    }
}
