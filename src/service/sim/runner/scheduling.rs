//! Scheduling: which simulations start now. Each job's PENDING simulations are picked under
//! its limits (counted in the store, one replica at a time for a job) and leased to this replica; a
//! job's first pick marks it RUNNING and opens its collection job.

use std::sync::Arc;

use uuid::Uuid;

use super::Simulator;
use crate::api::model::*;
use crate::service::sim::jobs::release_due_retries;
use crate::service::sim::jobs::{self, Replay, RunInputs, StoredRunPlanJob, count_simulations};
use crate::service::sim::limits;
use crate::service::sim::selection::plan_metric_ids;
use crate::service::sim::work::{JobMetrics, Limits, Work};
use crate::service::store::records::StoredCollectionJob;
use crate::service::store::{self, Kind, Pick, StoreError, StoreResult};

/// Why one job could not be scheduled.
enum JobError {
    /// It never will be: the job fails with this reason.
    Unrunnable(String),
    /// A store error that may pass: the job is tried again on the next round.
    Passing(StoreError),
}
use JobError::{Passing, Unrunnable};

impl From<StoreError> for JobError {
    /// Text the store cannot keep will not be kept next time either.
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unstorable => Unrunnable(error.to_string()),
            error => Passing(error),
        }
    }
}

impl Simulator {
    /// Starts every simulation the limits allow now. Each job is scheduled on its own: one
    /// that fails (a busy store, or a job the engine cannot run) never holds up the others.
    pub(super) async fn schedule(&self) -> StoreResult<()> {
        let jobs: Vec<(String, String)> = self
            .store
            .read(|c| -> StoreResult<_> {
                let active = store::in_status(c, Kind::RunPlanJob, &limits::active_job_names())?;
                Ok(active.into_iter().map(|(id, _, body)| (id, body)).collect())
            })
            .await?;
        self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).retain(|id, _| jobs.iter().any(|(j, _)| j == id));
        self.casts.retain(|id| jobs.iter().any(|(j, _)| j == id));
        for (job_id, body) in jobs {
            match self.schedule_job(&job_id, &body).await {
                Ok(()) => {}
                Err(Unrunnable(reason)) => self.fail_job(&job_id, reason).await,
                Err(Passing(e)) => tracing::warn!("simulation scheduler, job {job_id}: {e}"),
            }
        }
        Ok(())
    }

    /// Starts the simulations of one job that its limits allow now.
    async fn schedule_job(&self, job_id: &str, body: &str) -> Result<(), JobError> {
        let inputs: RunInputs =
            serde_json::from_str(body).map_err(|e| Unrunnable(format!("the job cannot be read: {e}")))?;
        let plan = inputs.plan().map_err(Unrunnable)?;
        let variables = inputs.variables().map_err(Unrunnable)?;
        let mode = plan.execution_mode_or_default();
        let plan_key = inputs.simulation_run_plan_id.map_or_else(|| job_id.to_owned(), |id| id.to_string());
        let limits = Limits { job_id: job_id.to_owned(), plan_key, mode, max: plan.max_concurrent_jobs_or_default() };
        // A replay's retries are due at once: it runs as fast as it can.
        let now = match inputs.replay {
            Some(_) => Timestamp::from(jiff::Timestamp::MAX),
            None => Timestamp::now(),
        };
        let picked = self.pick(limits, now).await.map_err(JobError::from)?;
        if picked.is_empty() {
            return Ok(());
        }
        let metrics = self.job_metrics(job_id, &plan, inputs.replay.clone()).await.map_err(JobError::from)?;
        for simulation in picked {
            let work = Work {
                metrics: metrics.clone(),
                job_id: job_id.to_owned(),
                simulation,
                plan: plan.clone(),
                variables: variables.clone(),
                replay: inputs.replay.clone(),
                replayed_ms: Default::default(),
            };
            let engine = self.clone();
            tokio::spawn(async move { engine.run(work).await });
        }
        Ok(())
    }

    /// Ends a job the engine cannot run, with the reason; written until it lands, like every
    /// end of a simulation.
    async fn fail_job(&self, job_id: &str, reason: String) {
        tracing::warn!("run plan job {job_id} cannot run: {reason}");
        let id = job_id.to_owned();
        self.write_until_landed("failing a run plan job", move |tx| jobs::fail(tx, &id, &reason)).await;
        self.wake();
    }

    /// The job's shared setup, from the cache, or made once: the job marked RUNNING with its
    /// collection job opened, and its metrics read.
    async fn job_metrics(
        &self,
        job_id: &str,
        plan: &RunPlanInput,
        replay: Option<Replay>,
    ) -> StoreResult<Arc<JobMetrics>> {
        if let Some(cached) = self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).get(job_id) {
            return Ok(cached.clone());
        }
        let collection_id = self.ensure_started(job_id, plan, replay).await?;
        let plan = plan.clone();
        let loaded = Arc::new(self.store.read(move |c| JobMetrics::load(c, &plan, collection_id)).await?);
        self.job_metrics.lock().unwrap_or_else(|e| e.into_inner()).insert(job_id.to_owned(), loaded.clone());
        Ok(loaded)
    }

    /// Moves retries whose time has come (`now`, on the job's clock) to PENDING, then as many
    /// PENDING simulations of the job as its limits allow to QUEUED, leased to this replica,
    /// and hands those back. A read first tells whether there is room and anything waiting, so
    /// a full job costs no write; the write counts again, one replica at a time.
    async fn pick(&self, limits: Limits, now: Timestamp) -> StoreResult<Vec<SimulationJob>> {
        let limits = Arc::new(limits);
        let worth_it = {
            let (limits, owner) = (limits.clone(), self.worker.owner.clone());
            self.store
                .read(move |c| -> StoreResult<_> {
                    // Waiting simulations and the room, in one read.
                    let job = limits.as_job(&owner);
                    let places = limits::places(c, &job)?;
                    Ok(places.waiting > 0 && limits::room_in(&places, &job)? > 0)
                })
                .await?
        };
        if !worth_it {
            return Ok(Vec::new());
        }
        let worker = self.worker.clone();
        // A job whose limits are its own is picked for beside other jobs' picks, and passed by
        // while another replica picks for it; one whose limits span others is picked alone.
        let pick = match limits.mode {
            ExecutionMode::SequentialProject | ExecutionMode::SequentialSameRunPlan => Pick::Alone,
            _ => Pick::job(&limits.job_id),
        };
        let picked = self
            .store
            .write_pick(pick, move |tx| -> StoreResult<_> {
                let job_id = limits.job_id.as_str();
                release_due_retries(tx, job_id, &now)?;
                let room = limits::room(tx, &limits.as_job(&worker.owner))?;
                if room == 0 {
                    return Ok(Vec::new());
                }
                // Moved to QUEUED and leased to this replica in the claim itself.
                let claim = store::claims::Claim {
                    kind: Kind::SimulationJob,
                    parent_id: job_id,
                    from: SimulationJobStatus::Pending.as_str(),
                    to: SimulationJobStatus::Queued.as_str(),
                    owner: &worker.owner,
                    until_ms: worker.until_ms(),
                };
                let picked = store::claims::move_leased(tx, &claim, room)?
                    .iter()
                    .map(|body| serde_json::from_str::<SimulationJob>(body))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(picked)
            })
            .await?;
        Ok(picked.unwrap_or_default())
    }

    /// Marks the job RUNNING and opens its collection job, once; returns the collection job's id.
    async fn ensure_started(&self, job_id: &str, plan: &RunPlanInput, replay: Option<Replay>) -> StoreResult<String> {
        let job_id = job_id.to_owned();
        let plan = plan.clone();
        self.store
            .write(move |tx| {
                let mut job = StoredRunPlanJob::load(tx, &job_id)?;
                if let Some(id) = job.collection_job_id {
                    return Ok(id.to_string());
                }
                let at = Replay::now(replay.as_ref());
                let total = count_simulations(tx, &job_id)?;
                let metrics = plan_metric_ids(tx, &plan)?;
                let collection = CollectionJob {
                    id: Uuid::new_v4(),
                    status: Some(CollectionJobStatus::Processing),
                    triggered_by: Some(TriggeredBy::Simulation),
                    total_items: Some(total),
                    completed_items: Some(0),
                    failed_items: Some(0),
                    started_at: Some(at.clone()),
                    completed_at: None,
                    error_message: None,
                    policy_ids: Vec::new(),
                    created_at: Some(at.clone()),
                    updated_at: Some(at.clone()),
                };
                let request = CollectionJobInput {
                    metrics: Some(metrics.iter().map(|(id, _)| IdRef::from(*id)).collect()),
                    ..Default::default()
                };
                let stored = StoredCollectionJob {
                    simulation_run_plan_job_id: Some(job.job.simulation_run_plan_job_id),
                    ..StoredCollectionJob::new(collection.clone(), request)
                };
                stored.insert(tx)?;
                job.collection_job_id = Some(collection.id);
                if job.job.status == Some(RunPlanJobStatus::Pending) {
                    job.job.status = Some(RunPlanJobStatus::RunningSimulations);
                    job.job.started_at = Some(at);
                }
                job.save(tx)?;
                Ok(collection.id.to_string())
            })
            .await
    }
}
