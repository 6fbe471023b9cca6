//! Run plan jobs and the simulation jobs they hold.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
use super::persona::Persona;
use super::verdict::{FailedCheck, Invalidation, SimulationOutcome, Verdict};
use crate::wire_enum;

wire_enum! {
    /// Status of a run plan job. The hosted service also sends stages of its own.
    pub enum RunPlanJobStatus {
        Pending = "PENDING",
        Running = "RUNNING",
        RunningSimulations = "RUNNING_SIMULATIONS",
        Completed = "COMPLETED",
        Failed = "FAILED",
        TimedOut = "TIMED_OUT",
        Cancelling = "CANCELLING",
        Cancelled = "CANCELLED",
    }
}

impl RunPlanJobStatus {
    /// Whether the job can still change.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::TimedOut | Self::Cancelled)
    }
}

wire_enum! {
    /// Status of one simulation job.
    pub enum SimulationJobStatus {
        Pending = "PENDING",
        Queued = "QUEUED",
        Processing = "PROCESSING",
        Completed = "COMPLETED",
        Failed = "FAILED",
        TimedOut = "TIMED_OUT",
        Cancelled = "CANCELLED",
    }
}

impl SimulationJobStatus {
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::TimedOut | Self::Cancelled)
    }
}

wire_enum! {
    /// Where a processing simulation job is.
    pub enum ProcessingStatus {
        Connecting = "CONNECTING",
        Simulating = "SIMULATING",
        CollectingMetrics = "COLLECTING_METRICS",
        Processed = "PROCESSED",
    }
}

wire_enum! {
    /// Kind of an agent endpoint.
    pub enum EndpointType { Phone = "PHONE", Chat = "CHAT", Websocket = "WEBSOCKET", Sip = "SIP" }
}

/// A run plan job with its simulation jobs.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanJob {
    pub simulation_run_plan_job_id: Uuid,
    pub simulation_run_plan_id: Option<Uuid>,
    pub status: Option<RunPlanJobStatus>,
    pub created_at: Option<Timestamp>,
    pub started_at: Option<Timestamp>,
    /// Null until the job has ended.
    #[serialize_always]
    pub ended_at: Option<Timestamp>,
    #[serde(default)]
    pub simulation_jobs: Vec<SimulationJob>,
    /// How many simulation jobs the job holds, where a list leaves them out.
    pub simulation_job_count: Option<u64>,
    pub error_message: Option<String>,
    /// Pass/fail, updated live and final once the job ends; null when the plan carries nothing
    /// to judge (which is never a pass).
    #[serde(default)]
    #[serialize_always]
    pub verdict: Option<Verdict>,
    /// Its simulations counted by status and by outcome (local service extension, on a single
    /// job's read): what a watcher needs without reading every simulation.
    pub counts: Option<SimulationCounts>,
}

wire_enum! {
    /// Whether a job's read carries its simulation jobs (`?simulationJobs=`, local extension).
    pub enum SimulationJobsIncluded { All = "all", Omitted = "none" }
}

/// A job's simulations counted (local service extension).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationCounts {
    pub total: u64,
    /// Simulation status to how many are in it.
    #[serde(default)]
    pub by_status: std::collections::BTreeMap<String, u64>,
    /// Outcome to how many have it; simulations without one yet are not counted here.
    #[serde(default)]
    pub by_outcome: std::collections::BTreeMap<String, u64>,
}

/// One simulation: a persona running one flow variant (or scenario) against one endpoint.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationJob {
    pub simulation_job_id: Uuid,
    pub status: Option<SimulationJobStatus>,
    pub processing_status: Option<ProcessingStatus>,
    /// The persona, without age, understood languages or idle settings.
    pub persona: Option<Persona>,
    pub scenario: Option<ScenarioSummary>,
    pub agent_endpoint: Option<JobEndpoint>,
    pub created_at: Option<Timestamp>,
    pub started_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    /// The flow variant this simulation runs (local service; absent for scenarios).
    pub customer_flow: Option<JobFlow>,
    /// The call the simulation produced.
    pub call_id: Option<Uuid>,
    /// The provisioned number under live enrichment.
    pub roark_phone_number: Option<String>,
    pub simulation_run_plan_job_id: Option<Uuid>,
    pub iteration: Option<u64>,
    pub error_message: Option<String>,
    /// How it did on its checks (local service extension); null while it runs.
    #[serde(default)]
    #[serialize_always]
    pub outcome: Option<SimulationOutcome>,
    /// The checks it failed, with the judge's reasoning (local service extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_checks: Vec<FailedCheck>,
    /// Present when the result does not count (the agent never spoke, say); null otherwise.
    #[serde(default)]
    #[serialize_always]
    pub invalidation: Option<Invalidation>,
}

/// `{id, description}` of a scenario on a simulation job.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScenarioSummary {
    pub id: Uuid,
    pub description: Option<String>,
}

/// The endpoint a simulation job dials.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobEndpoint {
    pub id: Uuid,
    pub name: Option<String>,
    pub phone_number: Option<String>,
    pub endpoint_type: Option<EndpointType>,
}

/// The flow and variant a simulation job runs.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobFlow {
    pub id: Uuid,
    pub title: Option<String>,
    pub variant_id: Option<Uuid>,
    pub variant_title: Option<String>,
    /// Whether the variant is the happy path (false for an edge case).
    pub happy_path: Option<bool>,
}
