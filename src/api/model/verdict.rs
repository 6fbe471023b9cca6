//! Verdicts: whether a run passed, judged by the service against each check's own bar, and
//! each simulation's outcome. The run's shape is the hosted service's; the per-simulation
//! outcome is the local service's extension, which clients must do without elsewhere.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
use super::job_status::RunPlanJobStatus;
use crate::wire_enum;

/// The bar a check must clear when its metric reference sets none: 80 % of the simulations.
pub const DEFAULT_MIN_PASS_RATE: f64 = 80.0;

/// Pass/fail of a run, judged against the criteria pinned on its plan when it started. Null on
/// a job whose plan carries nothing to judge: an absent verdict is never a pass.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// True only when every check cleared its own `minPassRate` and the run completed with
    /// full coverage.
    pub passed: bool,
    /// The mean of the checks' pass rates, 0–100; for reporting only, never judged against.
    #[serde(default)]
    #[serialize_always]
    pub score: Option<f64>,
    /// Every check the run was judged on, passing or not.
    #[serde(default)]
    pub checks: Vec<VerdictCheck>,
    /// Every criterion the run missed; empty when it passed.
    #[serde(default)]
    pub failures: Vec<VerdictFailure>,
}

impl Verdict {
    /// The checks that missed their bar, worst first.
    pub fn failing_checks(&self) -> Vec<&VerdictCheck> {
        let mut failing: Vec<&VerdictCheck> = self.checks.iter().filter(|c| !c.passed).collect();
        failing.sort_by(|a, b| a.pass_rate.unwrap_or(-1.0).total_cmp(&b.pass_rate.unwrap_or(-1.0)));
        failing
    }
}

/// How one check did: a metric that yields pass/fail (a threshold, or an authored yes/no metric).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictCheck {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    /// Simulations that have a value for this check.
    #[serde(default)]
    pub evaluated_sims: u64,
    #[serde(default)]
    pub passed_sims: u64,
    /// The share of evaluated simulations that passed, 0–100; null when none was evaluated.
    #[serde(default)]
    #[serialize_always]
    pub pass_rate: Option<f64>,
    /// The bar: the share of the run's simulations that had to pass.
    pub min_pass_rate: f64,
    /// Whether `minPassRate` is the 80 % default rather than one the metric reference set.
    #[serde(default)]
    pub inherited: bool,
    /// `passRate >= minPassRate`.
    pub passed: bool,
}

impl VerdictCheck {
    pub fn name(&self) -> String {
        check_name(self.metric_name.as_deref(), self.metric_definition_id)
    }
}

/// A check as every report and screen names it: its metric's name, or its id where it has none.
pub fn check_name(metric_name: Option<&str>, metric_definition_id: Uuid) -> String {
    metric_name.map_or_else(|| metric_definition_id.to_string(), str::to_owned)
}

/// One criterion a run missed, tagged by `type`. Unknown kinds decode as `Unknown`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type")]
pub enum VerdictFailure {
    /// The run ended in (or is still in) a status other than COMPLETED.
    #[serde(rename = "RUN_NOT_COMPLETED")]
    RunNotCompleted { status: RunPlanJobStatus },
    /// Fewer simulations were scored than the run placed.
    #[serde(rename = "INCOMPLETE_COVERAGE", rename_all = "camelCase")]
    IncompleteCoverage { evaluated_calls: u64, expected_calls: u64 },
    /// The agent never spoke on the final attempt of more than `maxShare` percent of the run's
    /// test cases.
    #[serde(rename = "AGENT_NEVER_SPOKE", rename_all = "camelCase")]
    AgentNeverSpoke {
        max_share: f64,
        never_spoke_calls: u64,
        total_calls: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_name: Option<String>,
        /// Every attempt the agent never spoke on, retried ones included.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        silent_attempts: Option<u64>,
    },
    /// A check that no simulation produced a value for.
    #[serde(rename = "METRIC_NOT_EVALUATED", rename_all = "camelCase")]
    MetricNotEvaluated {
        metric_definition_id: Uuid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metric_name: Option<String>,
    },
    /// A check whose pass rate is under its own minimum.
    #[serde(rename = "METRIC_BELOW_MIN_PASS_RATE", rename_all = "camelCase")]
    MetricBelowMinPassRate {
        metric_definition_id: Uuid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metric_name: Option<String>,
        pass_rate: f64,
        min_pass_rate: f64,
        inherited: bool,
    },
    /// A kind this build does not know.
    #[serde(other)]
    Unknown,
}

impl VerdictFailure {
    /// The failure in a sentence, as every face (console, reports) shows it.
    pub fn in_words(&self) -> String {
        match self {
            VerdictFailure::RunNotCompleted { status } => format!("The run did not complete: it is {status}"),
            VerdictFailure::IncompleteCoverage { evaluated_calls, expected_calls } => {
                format!("Only {evaluated_calls} of {expected_calls} simulations were scored")
            }
            VerdictFailure::AgentNeverSpoke { max_share, never_spoke_calls, total_calls, .. } => format!(
                "The agent never spoke on {never_spoke_calls} of {total_calls} simulations, more than the {} allowed",
                percent(*max_share)
            ),
            VerdictFailure::MetricNotEvaluated { metric_definition_id, metric_name } => {
                let name = check_name(metric_name.as_deref(), *metric_definition_id);
                format!("{name} was not evaluated on any simulation")
            }
            VerdictFailure::MetricBelowMinPassRate {
                metric_definition_id,
                metric_name,
                pass_rate,
                min_pass_rate,
                ..
            } => {
                let name = check_name(metric_name.as_deref(), *metric_definition_id);
                format!(
                    "{name} passed {} of simulations, below its minimum of {}",
                    percent_against(*pass_rate, *min_pass_rate),
                    percent(*min_pass_rate)
                )
            }
            VerdictFailure::Unknown => "A criterion this console does not know failed (see the raw view)".into(),
        }
    }
}

/// `71 %`, or `88.9 %` where the fraction matters: rounded to a tenth, as people round (8 of 9
/// is 88.9 %, 2 of 3 is 66.7 %). Beside its minimum, use [`percent_against`].
pub fn percent(rate: f64) -> String {
    rounded(rate, 1)
}

/// A pass rate beside the minimum it is held to: as [`percent`], with the decimals it takes
/// never to read as meeting a minimum it misses (79.96 against 80 reads `79.96 %`, not
/// `80 %`), nor as missing one it meets.
pub fn percent_against(rate: f64, minimum: f64) -> String {
    let reads = |decimals: usize| {
        let factor = 10f64.powi(decimals as i32);
        (rate * factor).round() / factor
    };
    let below = rate < minimum;
    match (1..=6).find(|&d| (reads(d) < minimum) == below) {
        Some(decimals) => rounded(rate, decimals),
        None => format!("{rate} %"),
    }
}

/// `rate` rounded half away from zero to `decimals`, without trailing zeros (`80 %`, `72.5 %`).
fn rounded(rate: f64, decimals: usize) -> String {
    let factor = 10f64.powi(decimals as i32);
    let value = (rate * factor).round() / factor;
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    format!("{text} %")
}

/// One check's result on one simulation from the values it produced, as the service judges it:
/// evaluated when at least one value is SUCCESS with a number, passed when none of those is
/// 0 (false). None when it was not evaluated (not applicable, missing or errored).
pub fn check_result<'a>(
    values: impl IntoIterator<Item = (Option<&'a super::CaptureStatus>, Option<f64>)>,
) -> Option<bool> {
    let mut result = None;
    for (status, value) in values {
        let success = status.is_none_or(|s| *s == super::CaptureStatus::Success);
        if let (true, Some(value)) = (success, value) {
            result = Some(result.unwrap_or(true) && value != 0.0);
        }
    }
    result
}

wire_enum! {
    /// How one simulation did on its checks (local service extension).
    pub enum SimulationOutcome {
        /// Every check it was scored on is true.
        Passed = "PASSED",
        /// At least one check is false.
        Failed = "FAILED",
        /// Some check has no value and none is false (or nothing judged it).
        NotEvaluated = "NOT_EVALUATED",
        /// The simulation failed, timed out or was interrupted.
        Error = "ERROR",
    }
}

/// A check a simulation failed, with the judge's reason.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedCheck {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    /// The value as the metric gave it (0 for a false yes/no).
    pub value: Option<f64>,
    pub value_reasoning: Option<String>,
}

/// A check with no value on a NOT_EVALUATED simulation's call, and why (local service
/// extension): the judge's own words (an abstention), the error, or the value's status.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnscoredCheck {
    pub metric_definition_id: Uuid,
    pub metric_name: String,
    /// As the call's value has it (DATA_MISSING, NOT_APPLICABLE, ERROR); null when the call has
    /// no value of the check at all.
    #[serialize_always]
    pub capture_status: Option<super::CaptureStatus>,
    /// The judge's words, or the error.
    #[serialize_always]
    pub reasoning: Option<String>,
}

/// A check that has a value on a simulation where some other check has none (local service
/// extension): its pass or fail stays visible beside the check that was not scored.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgedCheck {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    pub passed: bool,
}

impl JudgedCheck {
    /// The check's name, or its id where it has none.
    pub fn name(&self) -> String {
        check_name(self.metric_name.as_deref(), self.metric_definition_id)
    }
}

impl FailedCheck {
    /// The check's name, or its id where it has none.
    pub fn name(&self) -> String {
        check_name(self.metric_name.as_deref(), self.metric_definition_id)
    }
}

impl UnscoredCheck {
    /// `not scored: Name (the judge's words)` in one line, as every report and screen says it.
    pub fn not_scored_words(&self) -> String {
        format!("not scored: {} ({})", self.metric_name, self.why())
    }

    /// `Name: the judge's words` in one line.
    pub fn in_words(&self) -> String {
        format!("{}: {}", self.metric_name, self.why())
    }

    /// Why it has no value: the judge's words, else the value's status.
    fn why(&self) -> String {
        match (&self.reasoning, &self.capture_status) {
            (Some(reason), _) => one_line(reason),
            (None, Some(status)) => status.to_string(),
            (None, None) => "no value on this call".into(),
        }
    }
}

wire_enum! {
    /// Why a simulation's result does not count.
    pub enum InvalidationReason {
        ScriptDiverged = "SCRIPT_DIVERGED",
        RequiredStepNotReached = "REQUIRED_STEP_NOT_REACHED",
        RequiredStageIncomplete = "REQUIRED_STAGE_INCOMPLETE",
        CallerNeverTookOver = "CALLER_NEVER_TOOK_OVER",
        AgentNeverSpoke = "AGENT_NEVER_SPOKE",
    }
}

/// Present when a simulation's result does not count: it keeps its transcript, but nothing
/// scored it and it is left out of every check.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invalidation {
    pub invalidated_at: Option<Timestamp>,
    pub reason: InvalidationReason,
    pub detail: Option<String>,
}

/// Text on one line, its runs of whitespace (newlines included) as single spaces.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_never_round_up_to_a_bar() {
        assert_eq!(percent(79.96), "80 %");
        assert_eq!(percent_against(79.96, 80.0), "79.96 %", "below its minimum, never shown as it");
        assert_eq!(percent_against(79.999_99, 80.0), "79.99999 %");
        assert_eq!(percent_against(80.0, 80.0), "80 %");
        assert_eq!(percent_against(88.0 + 8.0 / 9.0, 80.0), "88.9 %");
        assert_eq!(percent(80.0), "80 %");
        assert_eq!(percent(72.5), "72.5 %");
        assert_eq!(percent(800.0 / 9.0), "88.9 %");
        assert_eq!(percent(200.0 / 3.0), "66.7 %");
        assert_eq!(percent(99.96), "100 %");
        assert_eq!(percent(100.0), "100 %");
        assert_eq!(percent(0.0), "0 %");
    }

    #[test]
    fn failures_read_in_words() {
        let below = VerdictFailure::MetricBelowMinPassRate {
            metric_definition_id: Uuid::nil(),
            metric_name: Some("Task completion".into()),
            pass_rate: 71.4,
            min_pass_rate: 90.0,
            inherited: false,
        };
        assert_eq!(below.in_words(), "Task completion passed 71.4 % of simulations, below its minimum of 90 %");
    }

    #[test]
    fn failures_round_trip_and_unknown_kinds_decode() {
        let json = serde_json::json!({"type": "INCOMPLETE_COVERAGE", "evaluatedCalls": 4, "expectedCalls": 6});
        let failure: VerdictFailure = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(failure, VerdictFailure::IncompleteCoverage { evaluated_calls: 4, expected_calls: 6 });
        assert_eq!(serde_json::to_value(&failure).unwrap(), json);
        let unknown: VerdictFailure =
            serde_json::from_value(serde_json::json!({"type": "SWEEP_WORSE", "x": 1})).unwrap();
        assert_eq!(unknown, VerdictFailure::Unknown);
    }
}
