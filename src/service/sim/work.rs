//! What the engine reads once for a job and for each simulation it picks, and the limits a
//! job's scheduling reads.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use uuid::Uuid;

use super::jobs::{Replay, later};
use super::limits::JobLimits;
use super::selection::plan_metric_ids;
use crate::api::model::*;
use crate::service::metrics::evaluate::Catalog;
use crate::service::store::StoreResult;

/// What every simulation of a job shares, set up when the job first schedules.
pub(super) struct JobMetrics {
    /// The job's collection job, where its simulations' values go.
    pub(super) collection_id: String,
    pub(super) catalog: Catalog,
    /// The plan's own metrics; the flow's and the automatic ones are added per simulation.
    pub(super) chosen: Vec<MetricDefinition>,
    /// Metrics the plan asks to score on the live call.
    pub(super) live_sourced: Vec<Uuid>,
}

impl JobMetrics {
    pub(super) fn load(
        conn: &crate::service::store::Conn,
        plan: &RunPlanInput,
        collection_id: String,
    ) -> StoreResult<JobMetrics> {
        let catalog = Catalog::load(conn)?;
        let ids = plan_metric_ids(conn, plan)?;
        let chosen = ids.iter().filter_map(|(id, _)| catalog.definitions.get(id).cloned()).collect();
        let live_sourced =
            ids.iter().filter(|(_, source)| *source == ConversationSource::Live).map(|(id, _)| *id).collect();
        Ok(JobMetrics { collection_id, catalog, chosen, live_sourced })
    }
}

/// What a scheduled simulation needs, read once when it is picked.
pub(super) struct Work {
    pub(super) metrics: Arc<JobMetrics>,
    pub(super) job_id: String,
    pub(super) simulation: SimulationJob,
    pub(super) plan: RunPlanInput,
    pub(super) variables: Option<RunVariables>,
    /// Set for a job of the seeded history: its clock, speed and agent build.
    pub(super) replay: Option<Replay>,
    /// How far a replayed simulation has gone on its job's clock since it started.
    pub(super) replayed_ms: AtomicI64,
}

/// A job's limits, as its scheduling reads them.
#[derive(Clone)]
pub(super) struct Limits {
    pub(super) job_id: String,
    pub(super) plan_key: String,
    pub(super) mode: ExecutionMode,
    pub(super) max: i64,
    /// This replica's share of the job's places (`limits::share`): `None`, the whole room.
    pub(super) share: Option<usize>,
}

impl Limits {
    pub(super) fn as_job<'a>(&'a self, owner: &'a str) -> JobLimits<'a> {
        JobLimits {
            job_id: &self.job_id,
            plan_key: &self.plan_key,
            mode: &self.mode,
            max_concurrent: self.max.max(1) as usize,
            owner,
            share: self.share,
        }
    }
}

impl Work {
    /// Now, on this job's clock: the wall clock, or in a replay the simulation's place on the
    /// job's clock and how far it has gone since.
    pub(super) fn now(&self) -> Timestamp {
        match &self.replay {
            None => Timestamp::now(),
            Some(replay) => {
                let start = replay.lay_out(self.simulation.place_in_run(), self.plan.max_concurrent_jobs_or_default());
                later(&start, self.replayed_ms.load(Ordering::Relaxed))
            }
        }
    }

    /// Moves a replayed simulation's clock on by `ms` (a paced run's time passing); no-op
    /// otherwise.
    pub(super) fn pass(&self, ms: i64) {
        self.replayed_ms.fetch_add(ms.max(0), Ordering::Relaxed);
    }
}
