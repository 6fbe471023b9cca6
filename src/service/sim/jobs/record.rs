//! The run plan job as the store keeps it: the model's members and the engine's own beside them
//! (the plan it runs, its variables, tally, replay and collection job), read and written whole
//! as one typed record. A body that does not decode is an error, never a default.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use uuid::Uuid;

use super::Replay;
use crate::api::model::{RunPlanInput, RunPlanJob, RunPlanJobStatus, RunVariables};
use crate::service::alerts::simulation::{self, EndedRun};
use crate::service::sim::verdict::Tally;
use crate::service::store::records::Kept;
use crate::service::store::{self, Conn, Doc, Kind, Stored, Tx};
use crate::service::store::{StoreError, StoreResult};

/// A stored run plan job.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredRunPlanJob {
    #[serde(flatten)]
    pub job: RunPlanJob,
    /// The plan as it was when the job started (inline plans are not saved).
    pub plan: Option<Kept<RunPlanInput>>,
    pub variables: Option<Kept<RunVariables>>,
    /// What the verdict is computed from (jobs from before verdicts have none).
    pub tally: Option<Tally>,
    pub replay: Option<Replay>,
    /// The collection job scoring its simulations, once it has started.
    pub collection_job_id: Option<Uuid>,
    /// Members this record does not name (older bodies), kept as they were.
    #[serde(flatten)]
    pub rest: serde_json::Map<String, serde_json::Value>,
}

/// What the scheduler reads of a job on every round: the plan and how to run it, without the
/// rest of a body of several KB.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInputs {
    pub simulation_run_plan_id: Option<Uuid>,
    pub plan: Option<Kept<RunPlanInput>>,
    pub variables: Option<Kept<RunVariables>>,
    pub replay: Option<Replay>,
}

impl RunInputs {
    /// The plan the job runs, or why it cannot run.
    pub fn plan(&self) -> Result<RunPlanInput, String> {
        let cannot = |why: String| format!("the job's plan cannot be read: {why}");
        let plan = self.plan.as_ref().ok_or_else(|| cannot("it has none".into()))?;
        plan.decode().map_err(|e| cannot(e.to_string()))
    }

    /// The variables the job was started with, or why they cannot be read.
    pub fn variables(&self) -> Result<Option<RunVariables>, String> {
        let variables = self.variables.as_ref().map(Kept::decode).transpose();
        variables.map_err(|e| format!("the job's variables cannot be read: {e}"))
    }
}

impl StoredRunPlanJob {
    /// The job `id`; not found when there is none.
    pub fn load(conn: &Conn, id: &str) -> StoreResult<Self> {
        store::get(conn, Kind::RunPlanJob, id)?.ok_or_else(|| StoreError::not_found(Kind::RunPlanJob, id))
    }

    /// The plan the job runs (none in jobs from before plans were kept); one that does not
    /// decode is an error.
    pub fn plan(&self) -> StoreResult<Option<RunPlanInput>> {
        Ok(self.plan.as_ref().map(Kept::decode).transpose()?)
    }

    /// The variables the job was started with; ones that do not decode are an error.
    pub fn variables(&self) -> StoreResult<Option<RunVariables>> {
        Ok(self.variables.as_ref().map(Kept::decode).transpose()?)
    }

    /// The job's status (PENDING when it has none).
    pub fn status(&self) -> RunPlanJobStatus {
        self.job.status.clone().unwrap_or(RunPlanJobStatus::Pending)
    }

    /// Brings `verdict` and `attemptSummary` up to date with the tally and status.
    pub fn with_verdict(&mut self) {
        if let Some(tally) = &self.tally {
            let status = self.status();
            self.job.verdict = tally.verdict(&status);
            self.job.attempt_summary = Some(tally.attempt_summary());
        }
    }

    pub fn insert(&self, tx: &Tx) -> StoreResult<()> {
        store::insert(tx, &Doc::of(self)?)
    }

    /// Writes the job with its verdict brought up to date; its status column follows its status.
    /// A job that ends with this write is judged by the simulation alerts watching its plan.
    pub fn save(&mut self, tx: &Tx) -> StoreResult<()> {
        self.with_verdict();
        let id = self.job.simulation_run_plan_job_id.to_string();
        let was_ended =
            store::status(tx, Kind::RunPlanJob, &id)?.is_some_and(|s| RunPlanJobStatus::from(s.as_str()).is_terminal());
        store::update(tx, &Doc::of(self)?)?;
        let status = self.status();
        match self.job.simulation_run_plan_id {
            Some(plan_id) if status.is_terminal() && !was_ended => {
                let run = EndedRun { job_id: &id, plan_id, status: &status, verdict: self.job.verdict.as_ref() };
                simulation::run_ended(tx, &run)
            }
            _ => Ok(()),
        }
    }
}

impl Stored for StoredRunPlanJob {
    const KIND: Kind = Kind::RunPlanJob;
    fn id(&self) -> String {
        self.job.simulation_run_plan_job_id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        self.job.created_at.as_ref().map(|t| t.0.clone())
    }
    /// A job is listed under the plan it runs.
    fn parent_id(&self) -> Option<String> {
        self.job.simulation_run_plan_id.map(|id| id.to_string())
    }
    fn status_column(&self) -> Option<&str> {
        self.job.status.as_ref().map(|s| s.as_str())
    }
}
