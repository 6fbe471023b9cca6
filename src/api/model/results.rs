//! A run's results in one read (`GET /v1/simulation/plan/job/{jobId}/check-results`): the hosted
//! service's run report, of which the local service sends the run, its summary, each metric's
//! aggregate and each simulation's check results and call-level values. What a comparison of
//! two runs is built from, without reading every call: with the local extensions (`testCases`,
//! each call's `testCaseId`, a failed check's `reasoning`) it is all a comparison reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
use super::metric::MetricType;
use super::persona::Persona;
use super::simulation::{JobEndpoint, JobFlow, RunPlanJobStatus, ScenarioSummary};
use super::verdict::Verdict;
use crate::wire_enum;

/// `data` of the results read. The hosted report also carries breakdowns, a comparison, a
/// debrief and a sweep attribution, which the local service leaves out.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunResults {
    pub run: RunSummaryHead,
    pub summary: Option<ResultsSummary>,
    /// Checks first, then other metrics.
    #[serde(default)]
    pub metrics: Vec<ResultsMetric>,
    /// Every simulation of the run, with its check results.
    #[serde(default)]
    pub calls: Vec<ResultsCall>,
    /// The run's test cases, each once, with what it ran with (local service extension): what
    /// pairs a simulation with its counterpart in another run. Each call names its own.
    pub test_cases: Option<Vec<ResultsTestCase>>,
    /// Null until the run ends, and for a run with nothing to judge.
    #[serde(default)]
    #[serialize_always]
    pub verdict: Option<Verdict>,
}

/// One test case of the run (local service extension): the flow and variant or the scenario,
/// the persona and the endpoint its simulations ran with, and its variables. Its iterations
/// are the calls whose `testCaseId` is its.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsTestCase {
    /// A name-based UUID (v5) of what identifies the test case, so that the same test case has
    /// the same id in every run.
    pub test_case_id: Uuid,
    pub customer_flow: Option<JobFlow>,
    pub scenario: Option<ScenarioSummary>,
    /// The persona as its first simulation carried it.
    pub persona: Option<Persona>,
    pub agent_endpoint: Option<JobEndpoint>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, String>,
}

/// Which run the results are of.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSummaryHead {
    pub simulation_run_plan_job_id: Uuid,
    pub simulation_run_plan_id: Option<Uuid>,
    pub simulation_run_plan_name: Option<String>,
    pub status: Option<RunPlanJobStatus>,
    pub created_at: Option<Timestamp>,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    /// Wall-clock run time; null until the run ends.
    pub duration_ms: Option<i64>,
}

/// Counts over the run's simulations.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsSummary {
    /// Every simulation of the run.
    #[serde(default)]
    pub total_calls: u64,
    /// Simulations whose results count: all but the invalidated ones.
    #[serde(default)]
    pub counted_calls: u64,
    /// Counted simulations that produced a conversation.
    #[serde(default)]
    pub completed_calls: u64,
    /// Counted simulations at least one check graded.
    #[serde(default)]
    pub evaluated_calls: u64,
    #[serde(default)]
    pub passed_calls: u64,
    #[serde(default)]
    pub failed_calls: u64,
    /// passedCalls / evaluatedCalls, 0–100.
    pub call_pass_rate: Option<f64>,
    /// Every (check, simulation) result pooled, 0–100.
    pub check_pass_rate: Option<f64>,
    /// The mean of the checks' pass rates, as `verdict.score`.
    pub score: Option<f64>,
}

/// One metric over the run.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsMetric {
    pub metric_definition_id: Uuid,
    /// The metric's slug.
    pub metric_id: Option<String>,
    pub name: Option<String>,
    pub output_type: Option<MetricType>,
    /// One of the checks the run is judged on.
    #[serde(default)]
    pub is_check: bool,
    /// The check's tally; null for a metric that is not a check.
    pub check: Option<MetricCheckTally>,
    /// For NUMERIC, SCALE, COUNT and OFFSET metrics; null when nothing was captured.
    pub numeric: Option<NumericSummary>,
    /// Counted simulations with at least one value.
    #[serde(default)]
    pub evaluated_calls: u64,
    /// Values across those simulations (a per-turn metric has several per call).
    #[serde(default)]
    pub sample_size: u64,
    pub unit_symbol: Option<String>,
    /// The definition's version that scored this run (local service extension): the one
    /// current when the run's metrics were read.
    pub version_id: Option<Uuid>,
    /// Its version number (local service extension).
    pub version: Option<u64>,
}

/// A check's tally over the run.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricCheckTally {
    #[serde(default)]
    pub evaluated_calls: u64,
    #[serde(default)]
    pub passed_calls: u64,
    #[serde(default)]
    pub failed_calls: u64,
    /// 0–100; null when nothing was evaluated.
    pub pass_rate: Option<f64>,
}

/// A numeric metric's call-level values over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NumericSummary {
    pub average: f64,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    pub p95: f64,
}

wire_enum! {
    /// Where a simulation is, as the results read says it.
    pub enum CallResultStatus {
        Queued = "QUEUED", Connecting = "CONNECTING", InCall = "IN_CALL", Processing = "PROCESSING",
        Completed = "COMPLETED", Error = "ERROR", TimedOut = "TIMED_OUT", Cancelled = "CANCELLED",
        Invalidated = "INVALIDATED", NotRun = "NOT_RUN",
    }
}

/// One simulation's results.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsCall {
    pub simulation_job_id: Uuid,
    pub call_id: Option<Uuid>,
    pub status: Option<CallResultStatus>,
    /// False for an invalidated simulation: listed, never scored.
    #[serde(default)]
    pub counted: bool,
    /// Passed every check that graded it; null when none did, or it does not count.
    pub passed: Option<bool>,
    /// The checks that graded it.
    #[serde(default)]
    pub checks: Vec<CallCheck>,
    /// Call-level values of the run's other metrics.
    #[serde(default)]
    pub values: Vec<CallValue>,
    pub persona_name: Option<String>,
    pub agent_name: Option<String>,
    pub duration_ms: Option<i64>,
    /// The variables the simulation ran with (local service extension).
    pub variables: Option<BTreeMap<String, String>>,
    /// Its test case in `testCases` (local service extension).
    pub test_case_id: Option<Uuid>,
}

/// One check's result on one simulation.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallCheck {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    pub passed: bool,
    /// The judge's reasoning where the check failed (local service extension).
    pub reasoning: Option<String>,
}

/// One call-level value of a metric that is not a check.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallValue {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    pub output_type: Option<MetricType>,
    pub participant_role: Option<String>,
    pub reasoning: Option<String>,
    pub value: Option<ResultValue>,
}

/// A value as the results read gives it: a number, a yes/no or a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ResultValue {
    Number(f64),
    Bool(bool),
    Text(String),
}

impl ResultValue {
    /// The value as a number: yes/no as 1/0; None for text.
    pub fn number(&self) -> Option<f64> {
        match self {
            ResultValue::Number(n) => Some(*n),
            ResultValue::Bool(b) => Some(f64::from(u8::from(*b))),
            ResultValue::Text(_) => None,
        }
    }
}
