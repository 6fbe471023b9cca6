//! Judging runs. Which metrics are checks; each simulation's outcome from its values; and the
//! run's verdict, kept as a tally on the job that grows by one simulation at a time, so a
//! verdict costs the same to read whatever the run's size.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::model::*;

/// The largest share of a run (percent) the agent may never speak on while the run can pass.
pub const AGENT_NEVER_SPOKE_MAX_SHARE: f64 = 10.0;

/// Whether a metric is a check (see `MetricDefinition::is_check`).
pub fn is_check(definition: &MetricDefinition) -> bool {
    definition.is_check()
}

/// Whether the agent said nothing at all on a call (it answered, then silence or a hang-up):
/// such a simulation grades nothing and is left out of every check.
pub fn agent_never_spoke(transcript: &Transcript) -> bool {
    !transcript.entries.iter().any(|e| e.role == Some(ParticipantType::Agent) && !e.text.trim().is_empty())
}

/// One check's result on one simulation: true passed, false failed.
pub type CheckResult = (Uuid, bool);

/// A simulation's outcome, judged from the values its checks produced.
pub struct Judged {
    pub outcome: SimulationOutcome,
    pub failed_checks: Vec<FailedCheck>,
    /// Every check that has a value, and whether it passed.
    pub results: Vec<CheckResult>,
    /// The checks left without a value (not those that do not apply), and why.
    pub unscored: Vec<UnscoredCheck>,
    /// Every check that has a value, named, and whether it passed.
    pub judged: Vec<JudgedCheck>,
}

/// Judges a completed simulation: FAILED when any check is false (a known failure is a
/// failure, whatever else is missing), NOT_EVALUATED when none is false and some check has no
/// value (or there is none to judge), PASSED when every check is true. A check
/// with several values (one per turn, say) passes only if all of them are true. A check that
/// does not apply to the simulation (every value NOT_APPLICABLE, like a keypad check on a
/// script without a keypad step) is left out of it rather than missing.
pub fn judge_simulation(checks: &[&MetricDefinition], values: &[(Uuid, MetricValue)]) -> Judged {
    let mut results = Vec::new();
    let mut failed_checks = Vec::new();
    let mut unscored = Vec::new();
    let mut missing = checks.is_empty();
    for check in checks {
        let successes: Vec<&MetricValue> = values
            .iter()
            .filter(|(id, v)| *id == check.id && v.capture_status.as_ref().is_none_or(|s| *s == CaptureStatus::Success))
            .map(|(_, v)| v)
            .filter(|v| v.value.is_some())
            .collect();
        if successes.is_empty() {
            let mut own = values.iter().filter(|(id, _)| *id == check.id).peekable();
            let does_not_apply =
                own.peek().is_some() && own.all(|(_, v)| v.capture_status == Some(CaptureStatus::NotApplicable));
            if !does_not_apply {
                missing = true;
                unscored.push(unscored_check(check, values));
            }
            continue;
        }
        match successes.iter().find(|v| v.value == Some(0.0)) {
            Some(false_value) => {
                results.push((check.id, false));
                failed_checks.push(FailedCheck {
                    metric_definition_id: check.id,
                    metric_name: check.name.clone(),
                    value: false_value.value,
                    value_reasoning: false_value.value_reasoning.clone(),
                });
            }
            None => results.push((check.id, true)),
        }
    }
    let outcome = if !failed_checks.is_empty() {
        SimulationOutcome::Failed
    } else if missing {
        SimulationOutcome::NotEvaluated
    } else {
        SimulationOutcome::Passed
    };
    let judged = results
        .iter()
        .filter_map(|(id, passed)| checks.iter().find(|c| c.id == *id).map(|c| (c, *passed)))
        .map(|(check, passed)| JudgedCheck { metric_definition_id: check.id, metric_name: check.name.clone(), passed })
        .collect();
    Judged { outcome, failed_checks, results, unscored, judged }
}

/// A check with no successful value on a call, with the judge's own words where it gave any
/// (an abstention says more than its status).
fn unscored_check(check: &MetricDefinition, values: &[(Uuid, MetricValue)]) -> UnscoredCheck {
    let own: Vec<&MetricValue> = values.iter().filter(|(id, _)| *id == check.id).map(|(_, v)| v).collect();
    let value = own.iter().find(|v| v.value_reasoning.is_some()).or(own.first());
    UnscoredCheck {
        metric_definition_id: check.id,
        metric_name: check.name.clone().unwrap_or_else(|| check.id.to_string()),
        capture_status: value.and_then(|v| v.capture_status.clone()),
        reasoning: value.and_then(|v| v.value_reasoning.clone().or_else(|| v.error_message.clone())),
    }
}

/// The outcome of a simulation that ended without completing.
pub fn outcome_when_not_completed(status: &SimulationJobStatus) -> SimulationOutcome {
    match status {
        SimulationJobStatus::Cancelled => SimulationOutcome::NotEvaluated,
        _ => SimulationOutcome::Error,
    }
}

/// One check's counters, fixed (but for the counts) when the job starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckTally {
    pub metric_definition_id: Uuid,
    pub metric_name: Option<String>,
    pub min_pass_rate: f64,
    pub inherited: bool,
    pub evaluated: u64,
    pub passed: u64,
}

/// What the verdict is computed from, kept on the job and updated as each simulation ends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub checks: Vec<CheckTally>,
    /// Simulations the run placed.
    pub simulations: u64,
    /// Simulations that ended, whatever their outcome.
    pub ended: u64,
    /// Simulations that completed and were judged (PASSED or FAILED): one whose judge could
    /// not give a value (NOT_EVALUATED) ran but is not covered, so it cannot help a run pass.
    pub scored: u64,
    /// Simulations the agent never spoke on.
    pub never_spoke: u64,
    /// Ended simulations by outcome.
    pub by_outcome: BTreeMap<String, u64>,
    /// Simulations placed as retries of one the agent never spoke on.
    #[serde(default)]
    pub retries: u64,
    /// Simulations the agent never spoke on, the retried ones included.
    #[serde(default)]
    pub silent_attempts: u64,
}

impl Tally {
    /// The checks a run is judged on: the plan's own metrics that are checks, at the bar each
    /// reference sets, then the flows' and automatic ones the run adds, at the default bar.
    pub fn new(plan_checks: Vec<(MetricDefinition, f64, bool)>, simulations: u64) -> Tally {
        let mut checks: Vec<CheckTally> = Vec::new();
        for (definition, min_pass_rate, inherited) in plan_checks {
            if is_check(&definition) && !checks.iter().any(|c| c.metric_definition_id == definition.id) {
                checks.push(CheckTally {
                    metric_definition_id: definition.id,
                    metric_name: definition.name.clone(),
                    min_pass_rate,
                    inherited,
                    evaluated: 0,
                    passed: 0,
                });
            }
        }
        Tally { checks, simulations, ..Tally::default() }
    }

    /// Counts a silent simulation that a retry replaces: not its test case's final attempt.
    pub fn add_retried(&mut self) {
        self.add_part(&TallyPart::retried());
    }

    /// Counts one simulation that has just ended as its test case's final attempt.
    pub fn add(&mut self, simulation: &SimulationJob, results: &[CheckResult]) {
        self.add_part(&TallyPart::ended(simulation, results));
    }

    /// Counts one ended simulation's part (see `TallyPart`).
    pub fn add_part(&mut self, part: &TallyPart) {
        if part.retried {
            self.silent_attempts += 1;
            self.retries += 1;
            return;
        }
        self.ended += 1;
        *self.by_outcome.entry(part.outcome.clone()).or_default() += 1;
        if part.never_spoke {
            self.never_spoke += 1;
            self.silent_attempts += 1;
            return;
        }
        if !part.scored {
            return;
        }
        self.scored += 1;
        let by_id: HashMap<Uuid, bool> = part.results.iter().copied().collect();
        for check in &mut self.checks {
            if let Some(passed) = by_id.get(&check.metric_definition_id) {
                check.evaluated += 1;
                check.passed += u64::from(*passed);
            }
        }
    }

    /// The run's simulations against its test cases.
    pub fn attempt_summary(&self) -> AttemptSummary {
        AttemptSummary {
            attempt_count: self.simulations + self.retries,
            retry_count: self.retries,
            silent_attempt_count: self.silent_attempts,
            still_silent_test_case_count: self.never_spoke,
            test_case_count: self.simulations,
        }
    }

    /// The verdict now, given the job's status; None when there is nothing to judge.
    pub fn verdict(&self, status: &RunPlanJobStatus) -> Option<Verdict> {
        if self.checks.is_empty() {
            return None;
        }
        let ended = status.is_terminal();
        let checks: Vec<VerdictCheck> = self
            .checks
            .iter()
            .map(|c| {
                let pass_rate = (c.evaluated > 0).then(|| c.passed as f64 * 100.0 / c.evaluated as f64);
                VerdictCheck {
                    metric_definition_id: c.metric_definition_id,
                    metric_name: c.metric_name.clone(),
                    evaluated_sims: c.evaluated,
                    passed_sims: c.passed,
                    pass_rate,
                    min_pass_rate: c.min_pass_rate,
                    inherited: c.inherited,
                    passed: pass_rate.is_some_and(|rate| rate >= c.min_pass_rate),
                }
            })
            .collect();
        let mut failures = Vec::new();
        if *status != RunPlanJobStatus::Completed {
            failures.push(VerdictFailure::RunNotCompleted { status: status.clone() });
        }
        let expected = self.simulations.saturating_sub(self.never_spoke);
        if ended && self.scored < expected {
            failures
                .push(VerdictFailure::IncompleteCoverage { evaluated_calls: self.scored, expected_calls: expected });
        }
        if self.simulations > 0 {
            let share = self.never_spoke as f64 * 100.0 / self.simulations as f64;
            if share > AGENT_NEVER_SPOKE_MAX_SHARE {
                failures.push(VerdictFailure::AgentNeverSpoke {
                    max_share: AGENT_NEVER_SPOKE_MAX_SHARE,
                    never_spoke_calls: self.never_spoke,
                    total_calls: self.simulations,
                    agent_name: None,
                    silent_attempts: Some(self.silent_attempts),
                });
            }
        }
        for check in &checks {
            match check.pass_rate {
                None if ended => failures.push(VerdictFailure::MetricNotEvaluated {
                    metric_definition_id: check.metric_definition_id,
                    metric_name: check.metric_name.clone(),
                }),
                Some(rate) if rate < check.min_pass_rate => failures.push(VerdictFailure::MetricBelowMinPassRate {
                    metric_definition_id: check.metric_definition_id,
                    metric_name: check.metric_name.clone(),
                    pass_rate: rate,
                    min_pass_rate: check.min_pass_rate,
                    inherited: check.inherited,
                }),
                _ => {}
            }
        }
        let rates: Vec<f64> = checks.iter().filter_map(|c| c.pass_rate).collect();
        let score = (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64);
        Some(Verdict { passed: failures.is_empty(), score, checks, failures })
    }
}

/// What one ended simulation adds to its job's tally, kept in a row of its own until the job's
/// next fold (`store::ends`): the tally's counters only grow, so parts fold in any order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TallyPart {
    /// A silent attempt whose test case was given another: not a final attempt.
    #[serde(default)]
    pub retried: bool,
    /// The simulation's outcome (`NONE` without one).
    #[serde(default)]
    pub outcome: String,
    #[serde(default)]
    pub never_spoke: bool,
    /// Completed and judged (PASSED or FAILED).
    #[serde(default)]
    pub scored: bool,
    /// The checks it was judged on, when scored.
    #[serde(default)]
    pub results: Vec<CheckResult>,
}

impl TallyPart {
    /// The part of a silent simulation that a retry replaces.
    pub fn retried() -> TallyPart {
        TallyPart { retried: true, ..TallyPart::default() }
    }

    /// The part of a simulation that has just ended as its test case's final attempt.
    pub fn ended(simulation: &SimulationJob, results: &[CheckResult]) -> TallyPart {
        let outcome = simulation.outcome.as_ref().map_or("NONE", |o| o.as_str()).to_owned();
        let never_spoke =
            simulation.invalidation.as_ref().is_some_and(|i| i.reason == InvalidationReason::AgentNeverSpoke);
        // The rule `diff` and `flaky` count by too.
        let scored = simulation.outcome.is_some() && simulation.counts_for_checks();
        let results = if scored { results.to_vec() } else { Vec::new() };
        TallyPart { retried: false, outcome, never_spoke, scored, results }
    }
}

#[cfg(test)]
mod tests;
