//! What each AGENT_TURN step the caller reached came to, judged after the call: the local
//! service's `step_expectations` values, shown in the reports beside the checks as
//! information, never as one of them.

use serde::Serialize;

use crate::api::model::{CaptureStatus, MetricValue, MetricValueGroup};

/// The service-owned metric whose values these are.
pub const STEP_METRIC: &str = "step_expectations";

/// What one step's expectation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StepOutcome {
    Met,
    NotMet,
    /// The conversation never reached the point the step is about.
    NotApplicable,
    /// The judge could not say (no value, or it failed).
    Undecided,
}

/// One step's result: its outcome, and the judge's words naming the step and its expectation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepResult {
    pub result: StepOutcome,
    pub reasoning: String,
}

impl StepResult {
    fn of(value: &MetricValue) -> StepResult {
        let result = match (&value.capture_status, value.value) {
            (Some(CaptureStatus::Success), Some(v)) if v >= 1.0 => StepOutcome::Met,
            (Some(CaptureStatus::Success), Some(_)) => StepOutcome::NotMet,
            (Some(CaptureStatus::NotApplicable), _) => StepOutcome::NotApplicable,
            _ => StepOutcome::Undecided,
        };
        let reasoning = value.value_reasoning.clone().or_else(|| value.error_message.clone()).unwrap_or_default();
        StepResult { result, reasoning }
    }

    /// A mark for text reports.
    pub fn mark(&self) -> &'static str {
        match self.result {
            StepOutcome::Met => "✓",
            StepOutcome::NotMet => "✗",
            StepOutcome::NotApplicable => "–",
            StepOutcome::Undecided => "?",
        }
    }
}

/// The step results among a call's metric values, in script order (none when the service
/// judges no steps, as the hosted one does not).
pub fn step_results(groups: &[MetricValueGroup]) -> Vec<StepResult> {
    groups
        .iter()
        .filter(|g| g.slug.as_deref() == Some(STEP_METRIC))
        .flat_map(|g| g.values.iter().map(StepResult::of))
        .collect()
}
