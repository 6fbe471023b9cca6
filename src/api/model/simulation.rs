//! Run plan jobs and the simulation jobs they hold.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
pub use super::job_status::{RunPlanJobStatus, SimulationJobSort, SimulationJobStatus};
use super::persona::Persona;
use super::verdict::{FailedCheck, Invalidation, JudgedCheck, SimulationOutcome, UnscoredCheck, Verdict, one_line};
use crate::wire_enum;

wire_enum! {
    /// Where a simulation job is (the hosted interface's stages; COMPLETED once it is done).
    pub enum ProcessingStatus {
        Pending = "PENDING",
        ReservingCapacity = "RESERVING_CAPACITY",
        Connecting = "CONNECTING",
        WaitingForOutboundCall = "WAITING_FOR_OUTBOUND_CALL",
        Simulating = "SIMULATING",
        Ending = "ENDING",
        Analyzing = "ANALYZING",
        WaitingForLiveConversation = "WAITING_FOR_LIVE_CONVERSATION",
        Evaluating = "EVALUATING",
        CollectingMetrics = "COLLECTING_METRICS",
        Completed = "COMPLETED",
    }
}

wire_enum! {
    /// Kind of an agent endpoint.
    pub enum EndpointType {
        Phone = "PHONE",
        Websocket = "WEBSOCKET",
        Livekit = "LIVEKIT",
        SmallWebrtc = "SMALL_WEBRTC",
        ElevenlabsWs = "ELEVENLABS_WS",
        Kore = "KORE",
        GoogleCes = "GOOGLE_CES",
        Daily = "DAILY",
    }
}

wire_enum! {
    /// Who started a run plan job.
    pub enum JobTrigger {
        Scheduled = "SCHEDULED",
        UserTriggeredFromUi = "USER_TRIGGERED_FROM_UI",
        ReRun = "RE_RUN",
        TriggeredFromApi = "TRIGGERED_FROM_API",
        System = "SYSTEM",
    }
}

wire_enum! {
    /// Where a simulation's background noise came from.
    pub enum NoiseSource { Environment = "ENVIRONMENT", Persona = "PERSONA" }
}

wire_enum! {
    /// How live enrichment went for a simulation.
    pub enum EnrichmentOutcome {
        NotRequested = "NOT_REQUESTED", Waiting = "WAITING", Merged = "MERGED", TimedOut = "TIMED_OUT",
        Skipped = "SKIPPED", UnknownOutcome = "UNKNOWN",
    }
}

wire_enum! {
    /// Whose side a simulation failed on: the service's, or the agent's.
    pub enum FailureOwner { Roark = "ROARK", Agent = "AGENT" }
}

/// A run plan job with its simulation jobs.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanJob {
    pub simulation_run_plan_job_id: Uuid,
    /// The plan it ran: a saved plan's id, or for an unsaved inline run an id of its own that
    /// names no saved plan.
    pub simulation_run_plan_id: Option<Uuid>,
    pub status: Option<RunPlanJobStatus>,
    pub triggered_by: Option<JobTrigger>,
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
    /// The run's simulations against its test cases (job reads; absent from lists).
    pub attempt_summary: Option<AttemptSummary>,
    /// Retries waiting out their backoff, soonest first (job reads; absent from lists).
    pub pending_retries: Option<Vec<PendingRetry>>,
    /// Its simulations counted by status and by outcome (local service extension, on a single
    /// job's read): what a watcher needs without reading every simulation.
    pub counts: Option<SimulationCounts>,
}

/// A run's simulations against its test cases; differs from a plain count only when the plan
/// retries simulations the agent never spoke on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptSummary {
    /// Every simulation placed, retries included.
    pub attempt_count: u64,
    /// Simulations placed as a retry of one the agent never spoke on.
    pub retry_count: u64,
    /// Simulations the agent never spoke on, including the ones a retry replaced.
    pub silent_attempt_count: u64,
    /// Test cases whose final attempt the agent still never spoke on (what AGENT_NEVER_SPOKE counts).
    pub still_silent_test_case_count: u64,
    /// Test cases in the run, each with a single final attempt.
    pub test_case_count: u64,
}

/// A retry waiting out its backoff before it dials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingRetry {
    /// Its place among its test case's attempts, 2 for the first retry.
    pub attempt_number: u32,
    /// The plan's `maxNoResponseRetries` plus 1.
    pub max_attempts: u32,
    pub scheduled_at: Option<Timestamp>,
    pub simulation_job_id: Uuid,
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
    /// The persona the simulation ran as (every member, as the hosted interface sends it; the
    /// spec's shape leaves some out).
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
    /// Which iteration of its test case it is, from 0 (`iterationCount` iterations per test
    /// case).
    pub iteration: Option<u64>,
    /// Its place among its run's simulations, from 0 (local service extension): keys its call
    /// and its slot on a replayed clock. Absent on simulations placed before it existed, whose
    /// `iteration` was that place.
    pub placement: Option<u64>,
    pub error_message: Option<String>,
    /// How it did on its checks (local service extension); null while it runs.
    #[serde(default)]
    #[serialize_always]
    pub outcome: Option<SimulationOutcome>,
    /// The checks it failed, with the judge's reasoning (local service extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_checks: Vec<FailedCheck>,
    /// The checks that had no value on its call, and why, on a simulation judged without
    /// them (NOT_EVALUATED, or FAILED on another check) (local service extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unscored_checks: Vec<UnscoredCheck>,
    /// Beside `unscoredChecks`: every check that had a value, passed or failed, so one check
    /// not scored hides no other (local service extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged_checks: Vec<JudgedCheck>,
    /// Present when the result does not count (the agent never spoke, say); null otherwise.
    #[serde(default)]
    #[serialize_always]
    pub invalidation: Option<Invalidation>,
    /// Its place among its test case's attempts: 1, or more for a retry.
    pub attempt_number: Option<u32>,
    /// The simulation this one retries because the agent never spoke on it; null on a first attempt.
    #[serialize_always]
    pub retry_of_simulation_job_id: Option<Uuid>,
    /// When a RETRY_SCHEDULED retry dials; null on a first attempt.
    #[serialize_always]
    pub scheduled_at: Option<Timestamp>,
    pub background_noise: Option<JobBackgroundNoise>,
    /// How live enrichment went.
    pub enrichment: Option<Enrichment>,
    /// Whose side a failed simulation failed on; null otherwise.
    #[serialize_always]
    pub failure_owner: Option<FailureOwner>,
    /// Place in the service's queue; always null here (nothing queues across projects).
    #[serialize_always]
    pub queue_position: Option<u32>,
    pub run_plan: Option<JobRunPlan>,
}

/// The noise a simulated call had, and whether the environment or the persona set it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobBackgroundNoise {
    pub background_noise: super::persona::BackgroundNoise,
    pub background_noise_volume: f64,
    pub source: NoiseSource,
}

/// Live enrichment of one simulation.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enrichment {
    pub requested: bool,
    pub outcome: EnrichmentOutcome,
    pub wait_started_at: Option<Timestamp>,
    pub wait_ended_at: Option<Timestamp>,
}

/// The plan a simulation ran under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobRunPlan {
    pub id: Uuid,
    pub name: String,
    #[serde(default)]
    pub variables: std::collections::BTreeMap<String, String>,
}

/// `{id, description}` of a scenario on a simulation job.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScenarioSummary {
    pub id: Uuid,
    pub description: Option<String>,
}

/// The endpoint a simulation job dials. Its kind is sent under both names: `type` (the hosted
/// SDK's) and `endpointType` (the spec's).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobEndpoint {
    pub id: Uuid,
    pub name: Option<String>,
    #[serialize_always]
    pub phone_number: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<EndpointType>,
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

impl RunPlanJob {
    /// Whether the job has ended, by its status or its end time (a service may send either).
    pub fn has_ended(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.is_terminal()) || self.ended_at.is_some()
    }

    /// The verdict in one word, as every screen and report says it: RUNNING until the job
    /// ends, then PASSED or FAILED; `—` when there is nothing to judge or no verdict was sent.
    pub fn verdict_word(&self) -> &'static str {
        match &self.verdict {
            None => "—",
            Some(_) if !self.has_ended() => "RUNNING",
            Some(v) if v.passed => "PASSED",
            Some(_) => "FAILED",
        }
    }
}

impl SimulationJob {
    /// Its place among its run's simulations (`placement`, or the `iteration` that held it
    /// before).
    pub fn place_in_run(&self) -> u64 {
        self.placement.or(self.iteration).unwrap_or(0)
    }

    /// Whether its check results count toward the run's pass rates: the one rule the verdict
    /// (`gate`), `diff` and `flaky` share. A simulation the service judged (PASSED or FAILED) on
    /// a completed call counts; a NOT_EVALUATED one (a check left without a value, none false)
    /// counts for no check, not even the ones it has values for. Without an outcome (a service
    /// that judges only the run) a completed simulation counts where it has values. An
    /// invalidated simulation never counts.
    pub fn counts_for_checks(&self) -> bool {
        let completed = self.status == Some(SimulationJobStatus::Completed);
        let judged = match &self.outcome {
            None => true,
            Some(outcome) => matches!(outcome, SimulationOutcome::Passed | SimulationOutcome::Failed),
        };
        completed && judged && self.invalidation.is_none()
    }

    /// Why a simulation did not pass, in one line: each failed check with the judge's reason,
    /// else why its result does not count, else the error that stopped it.
    /// The same for a narrow column: the first failed check and how many more, then its
    /// reason (`Keypad entry (+1 more): …`), so a cut line still says there are others.
    pub fn why_in_brief(&self) -> String {
        let Some((first, rest)) = self.failed_checks.split_first() else { return self.why_not_passed() };
        let name = first.name();
        let more = if rest.is_empty() { String::new() } else { format!(" (+{} more)", rest.len()) };
        let unscored: Vec<&str> = self.unscored_checks.iter().map(|c| c.metric_name.as_str()).collect();
        // A check not scored stays named even where the reason is cut.
        let not_scored =
            if unscored.is_empty() { String::new() } else { format!(" · not scored: {}", unscored.join(", ")) };
        match &first.value_reasoning {
            Some(reason) => format!("{name}{more}{not_scored}: {}", one_line(reason)),
            None => format!("{name}{more}{not_scored}"),
        }
    }

    /// Why it did not pass: its failed checks, its invalidation, its error, else the checks the
    /// service left without a value.
    pub fn why_not_passed(&self) -> String {
        let beside = self.checks_beside_unscored();
        if !self.failed_checks.is_empty() {
            let reasons: Vec<String> = self
                .failed_checks
                .iter()
                .map(|c| {
                    let name = c.name();
                    match &c.value_reasoning {
                        Some(reason) => format!("{name}: {}", one_line(reason)),
                        None => name,
                    }
                })
                .collect();
            return std::iter::once(reasons.join("; ")).chain(beside).collect::<Vec<_>>().join("; ");
        }
        if let Some(invalidation) = &self.invalidation {
            let detail = invalidation.detail.as_deref().map(one_line).unwrap_or_default();
            return format!("{}: {detail}", invalidation.reason).trim_end_matches(": ").to_string();
        }
        if let Some(message) = &self.error_message {
            return one_line(message);
        }
        beside.unwrap_or_default()
    }

    /// The checks that passed, then those not scored: `passed: Call length; not scored:
    /// Sincere (Cannot tell: …)`. None when every check has a value. Failed checks are said first
    /// by `why_not_passed`, with their reasons.
    fn checks_beside_unscored(&self) -> Option<String> {
        if self.unscored_checks.is_empty() {
            return None;
        }
        // The short part first, so a cell cut after the judge's long words still shows it.
        let passed: Vec<String> = self.judged_checks.iter().filter(|c| c.passed).map(JudgedCheck::name).collect();
        let passed = (!passed.is_empty()).then(|| format!("passed: {}", passed.join(", ")));
        let not_scored = self.unscored_checks.iter().map(UnscoredCheck::not_scored_words);
        Some(passed.into_iter().chain(not_scored).collect::<Vec<_>>().join("; "))
    }
}
