//! What `gate` decided and the reports it writes (JUnit, JSON, Markdown, GitHub's step summary
//! and outputs). Everything here reads the service's `verdict` and each simulation's `outcome`:
//! the only arithmetic is `--min-pass-rate` raising each check's own bar.

pub mod github;
pub mod json;
pub mod junit;
pub mod markdown;
mod steps;
pub mod text;
mod unscored;

use serde::Serialize;

pub use steps::{STEP_METRIC, StepOutcome, StepResult, step_results};
pub use unscored::{UnscoredCheck, unscored_checks};

use crate::api::model::{RunPlanJob, SimulationJob, SimulationOutcome, Verdict, VerdictFailure};

/// The gate's result, as the hosted CI action names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GateResult {
    Passed,
    Failed,
    TimedOut,
}

impl GateResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GateResult::Passed => "PASSED",
            GateResult::Failed => "FAILED",
            GateResult::TimedOut => "TIMED_OUT",
        }
    }
}

/// How to make a run judgeable, said whenever a run has no verdict.
pub const NO_VERDICT: &str = "nothing to judge: the run's verdict is null because its plan has no checks, and a missing \
verdict is never a pass. Make a metric a check: reference a threshold (create one with `switchboard api POST \
/v1/metric/definitions/SLUG/thresholds -d '{\"operator\":\"LESS_THAN\",\"value\":\"120\"}'`) or a yes/no metric in \
the plan's `metrics`, with `minPassRate` for its bar (80 % when unset)";

/// Everything the reports are written from.
#[derive(Debug, Clone)]
pub struct GateReport {
    pub result: GateResult,
    /// The job as last read (final, unless the gate timed out).
    pub job: RunPlanJob,
    pub plan_name: Option<String>,
    /// The verdict judged: the service's, with each bar raised to `--min-pass-rate` when given.
    pub verdict: Option<Verdict>,
    /// The service's verdict as sent, when `--min-pass-rate` changed it.
    pub service_verdict: Option<Verdict>,
    pub min_pass_rate: Option<f64>,
    /// Why it failed or timed out, in words.
    pub message: Option<String>,
    /// Each simulation's conversation, by simulation id (none with `--no-transcripts`, or for
    /// a simulation whose call could not be read).
    pub transcripts: std::collections::HashMap<uuid::Uuid, Vec<crate::api::model::TranscriptEntry>>,
    /// Each simulation's AGENT_TURN step results, by simulation id (information, not checks).
    pub steps: std::collections::HashMap<uuid::Uuid, Vec<StepResult>>,
    /// Each simulation the service did not score and gave no reason for: the checks with no
    /// value on its call, by simulation id (read with the steps).
    pub unscored: std::collections::HashMap<uuid::Uuid, Vec<UnscoredCheck>>,
}

impl GateReport {
    /// Judges a job by its verdict: PASSED only when the (raised) verdict passed and the job
    /// ended in time; a null verdict FAILS.
    pub fn judge(
        job: RunPlanJob,
        plan_name: Option<String>,
        min_pass_rate: Option<f64>,
        timed_out: bool,
    ) -> GateReport {
        let service_verdict = job.verdict.clone();
        let verdict = match (&service_verdict, min_pass_rate) {
            (Some(verdict), Some(bar)) => Some(raise(verdict, bar)),
            (verdict, _) => verdict.clone(),
        };
        let (result, message) = match &verdict {
            _ if timed_out => (GateResult::TimedOut, Some("the run did not end within --timeout".to_string())),
            None => (GateResult::Failed, Some(NO_VERDICT.to_string())),
            Some(v) if v.passed => (GateResult::Passed, None),
            Some(v) => (GateResult::Failed, v.failures.first().map(VerdictFailure::in_words)),
        };
        let raised = verdict != service_verdict;
        // The local service names a simulation's unscored checks itself; others are read later.
        let unscored = job
            .simulation_jobs
            .iter()
            .filter(|s| !s.unscored_checks.is_empty())
            .map(|s| (s.simulation_job_id, s.unscored_checks.clone()))
            .collect();
        GateReport {
            result,
            job,
            plan_name,
            verdict,
            service_verdict: if raised { service_verdict } else { None },
            min_pass_rate,
            message,
            transcripts: Default::default(),
            steps: Default::default(),
            unscored,
        }
    }

    /// Whether the service sent each simulation's outcome (the local service does; the hosted
    /// one judges only the run, so reports then use the checks alone).
    pub fn per_simulation(&self) -> bool {
        self.job.simulation_jobs.iter().any(|s| s.outcome.is_some())
    }

    /// The check pass rates' mean: the verdict's score (GitHub's `pass-rate`).
    pub fn score(&self) -> Option<f64> {
        self.verdict.as_ref().and_then(|v| v.score)
    }

    /// Simulations that count for no check (NOT_EVALUATED), each with why: the service's
    /// reason (an invalidation, an error), else the checks with no value on its call.
    pub fn not_scored(&self, at_most: usize) -> Vec<(&SimulationJob, String)> {
        self.job
            .simulation_jobs
            .iter()
            .filter(|s| s.outcome == Some(SimulationOutcome::NotEvaluated))
            .take(at_most)
            .map(|s| (s, self.why_not_scored(s)))
            .collect()
    }

    /// Why a NOT_EVALUATED simulation counts for no check, in one line.
    pub fn why_not_scored(&self, sim: &SimulationJob) -> String {
        let said = sim.why_not_passed();
        if !said.is_empty() {
            return said;
        }
        match self.unscored.get(&sim.simulation_job_id) {
            Some(checks) => checks.iter().map(UnscoredCheck::not_scored_words).collect::<Vec<_>>().join("; "),
            None => "the service gave no reason (see `switchboard call get CALL` and the call's metric values)".into(),
        }
    }

    /// Why a NOT_EVALUATED simulation says nothing of `check`: the check's own missing value
    /// where it had none; where it passed on the call, that it did and why the simulation still
    /// counts for no check; else why the simulation counts for no check.
    pub fn why_not_scored_on(&self, sim: &SimulationJob, check: uuid::Uuid) -> String {
        let own =
            self.unscored.get(&sim.simulation_job_id).and_then(|c| c.iter().find(|c| c.metric_definition_id == check));
        let explained = sim.invalidation.is_none() && sim.error_message.is_none();
        let judged = sim.judged_checks.iter().find(|c| c.metric_definition_id == check);
        match (own, judged) {
            (Some(own), _) if explained => own.in_words(),
            (None, Some(judged)) if explained => {
                let unscored = self.unscored.get(&sim.simulation_job_id).map(Vec::as_slice).unwrap_or_default();
                let others: Vec<String> = unscored.iter().map(UnscoredCheck::not_scored_words).collect();
                let result = if judged.passed { "passed" } else { "failed" };
                format!("{result} on this call, not counted: {}", others.join("; "))
            }
            _ => self.why_not_scored(sim),
        }
    }

    /// Failing simulations, worst first: errors, then by how many checks they failed.
    pub fn worst(&self, at_most: usize) -> Vec<&SimulationJob> {
        let mut failing: Vec<&SimulationJob> = self
            .job
            .simulation_jobs
            .iter()
            .filter(|s| matches!(s.outcome, Some(SimulationOutcome::Failed | SimulationOutcome::Error)))
            .collect();
        let weight = |s: &SimulationJob| match s.outcome {
            Some(SimulationOutcome::Error) => usize::MAX,
            _ => s.failed_checks.len(),
        };
        failing.sort_by_key(|s| std::cmp::Reverse(weight(s)));
        failing.truncate(at_most);
        failing
    }
}

/// The verdict with every check's bar raised to at least `bar` (never lowered). Raising only
/// tightens: a check passes when the service passed it and `passRate >= bar`; the run passes
/// only when the service passed it and nothing failed under the raised bars. A check whose bar
/// was raised gets its "below its minimum" failure restated at the raised bar.
pub fn raise(verdict: &Verdict, bar: f64) -> Verdict {
    let mut raised = verdict.clone();
    let mut restated = Vec::new();
    for check in &mut raised.checks {
        if bar <= check.min_pass_rate {
            continue;
        }
        check.min_pass_rate = bar;
        check.inherited = false;
        check.passed = check.passed && check.pass_rate.is_some_and(|rate| rate >= bar);
        restated.push(check.metric_definition_id);
    }
    raised.failures.retain(|f| match f {
        VerdictFailure::MetricBelowMinPassRate { metric_definition_id, .. } => !restated.contains(metric_definition_id),
        _ => true,
    });
    for check in raised.checks.iter().filter(|c| !c.passed && restated.contains(&c.metric_definition_id)) {
        if let Some(pass_rate) = check.pass_rate {
            raised.failures.push(VerdictFailure::MetricBelowMinPassRate {
                metric_definition_id: check.metric_definition_id,
                metric_name: check.metric_name.clone(),
                pass_rate,
                min_pass_rate: check.min_pass_rate,
                inherited: check.inherited,
            });
        }
    }
    raised.passed = verdict.passed && raised.failures.is_empty() && raised.checks.iter().all(|c| c.passed);
    raised
}

/// A check whose iterations disagreed on one test case: some judged simulations of the test
/// case failed it and others did not. Reports list these apart from plain failures; they still
/// count against the verdict (flakiness never loosens it).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlakyCheck {
    /// Flow · variant · persona.
    pub test_case: String,
    pub metric_definition_id: uuid::Uuid,
    pub metric_name: String,
    /// Judged simulations of the test case that failed the check, of those judged.
    pub failed: usize,
    pub judged: usize,
}

impl FlakyCheck {
    /// `failed 1 of 3 iterations`.
    pub fn in_words(&self) -> String {
        format!("{} · {}: failed {} of {} iterations", self.test_case, self.metric_name, self.failed, self.judged)
    }
}

/// The job's flaky checks, by test case then check. Only simulations whose checks count
/// (`SimulationJob::counts_for_checks`, as in the verdict and `diff`) are judged; an errored,
/// unscored or invalidated one says nothing of a check.
pub fn flaky_checks(sims: &[SimulationJob]) -> Vec<FlakyCheck> {
    use std::collections::BTreeMap;
    let judged = |s: &&SimulationJob| s.outcome.is_some() && s.counts_for_checks();
    let mut cases: BTreeMap<String, Vec<&SimulationJob>> = BTreeMap::new();
    for sim in sims.iter().filter(judged) {
        cases.entry(test_case(sim)).or_default().push(sim);
    }
    let mut out = Vec::new();
    for (test_case, sims) in cases {
        let mut failed: BTreeMap<uuid::Uuid, (String, usize)> = BTreeMap::new();
        for check in sims.iter().flat_map(|s| &s.failed_checks) {
            let name = check.name();
            failed.entry(check.metric_definition_id).or_insert((name, 0)).1 += 1;
        }
        for (id, (name, count)) in failed {
            if count < sims.len() {
                out.push(FlakyCheck {
                    test_case: test_case.clone(),
                    metric_definition_id: id,
                    metric_name: name,
                    failed: count,
                    judged: sims.len(),
                });
            }
        }
    }
    out
}

/// Who spoke a turn, in the reports' words.
pub fn speaker(entry: &crate::api::model::TranscriptEntry) -> &'static str {
    use crate::api::model::ParticipantType;
    match entry.role {
        Some(ParticipantType::Agent) => "Agent",
        Some(ParticipantType::Customer | ParticipantType::SimulatedCustomer) => "Caller",
        _ => "Speaker",
    }
}

/// A simulation's test case: flow, variant and persona, without the iteration.
pub fn test_case(sim: &SimulationJob) -> String {
    let name = case_name(sim);
    match name.rsplit_once(" · #") {
        Some((case, _)) => case.to_owned(),
        None => name,
    }
}

pub use crate::columns::simulation::case_name;

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> Verdict {
        serde_json::from_value(serde_json::json!({
            "passed": true, "score": 90.0,
            "checks": [
                {"metricDefinitionId": "00000000-0000-0000-0000-000000000001", "metricName": "A", "evaluatedSims": 10,
                 "passedSims": 9, "passRate": 90.0, "minPassRate": 80.0, "inherited": true, "passed": true},
                {"metricDefinitionId": "00000000-0000-0000-0000-000000000002", "metricName": "B", "evaluatedSims": 10,
                 "passedSims": 10, "passRate": 100.0, "minPassRate": 95.0, "inherited": false, "passed": true}
            ],
            "failures": []
        }))
        .unwrap()
    }

    fn sim(variant: &str, iteration: u64, outcome: &str, failed: &[&str]) -> SimulationJob {
        let failed: Vec<serde_json::Value> = failed
            .iter()
            .map(|n| serde_json::json!({"metricDefinitionId": format!("00000000-0000-0000-0000-00000000000{n}"), "metricName": n}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "simulationJobId": uuid::Uuid::new_v4(),
            "customerFlow": {"id": "00000000-0000-0000-0000-0000000000f1", "title": "Flow", "variantTitle": variant},
            "iteration": iteration, "outcome": outcome, "failedChecks": failed, "status": "COMPLETED",
        }))
        .unwrap()
    }

    #[test]
    fn a_check_failed_on_some_iterations_of_a_test_case_is_flaky_and_on_all_is_not() {
        let sims = vec![
            sim("Edge", 0, "FAILED", &["1"]),
            sim("Edge", 1, "PASSED", &[]),
            sim("Edge", 2, "FAILED", &["1", "2"]),
            sim("Edge", 3, "ERROR", &[]),
            sim("Happy", 0, "FAILED", &["1"]),
            sim("Happy", 1, "FAILED", &["1"]),
        ];
        let flaky = flaky_checks(&sims);
        let words: Vec<String> = flaky.iter().map(FlakyCheck::in_words).collect();
        assert_eq!(
            words,
            ["Flow · Edge · 1: failed 2 of 3 iterations", "Flow · Edge · 2: failed 1 of 3 iterations"],
            "an errored simulation says nothing of a check; a check failed every time is a plain failure"
        );
    }

    #[test]
    fn raising_the_bar_never_lowers_one_and_fails_checks_under_it() {
        let raised = raise(&verdict(), 92.0);
        assert_eq!(raised.checks[0].min_pass_rate, 92.0);
        assert_eq!(raised.checks[1].min_pass_rate, 95.0, "a higher bar of the check's own stays");
        assert!(!raised.checks[0].passed && raised.checks[1].passed);
        assert!(!raised.passed);
        assert_eq!(raised.failures.len(), 1);
        assert!(raised.failures[0].in_words().starts_with("A passed 90 %"), "{}", raised.failures[0].in_words());
        let lower = raise(&verdict(), 50.0);
        assert_eq!(lower, verdict(), "a lower bar changes nothing");
    }

    #[test]
    fn raising_never_passes_what_the_service_failed() {
        // The service failed check B (say its own rule is stricter than the rate) and the run.
        let mut v = verdict();
        v.passed = false;
        v.checks[1].passed = false;
        let raised = raise(&v, 99.0);
        assert!(!raised.checks[1].passed, "100 % clears 99, but the service said no");
        assert!(!raised.passed);
        let mut failed_without_words = verdict();
        failed_without_words.passed = false;
        assert!(!raise(&failed_without_words, 10.0).passed, "a failed run stays failed at any bar");
    }

    #[test]
    fn non_check_failures_survive_raising() {
        let mut v = verdict();
        v.passed = false;
        v.failures.push(VerdictFailure::IncompleteCoverage { evaluated_calls: 8, expected_calls: 10 });
        let raised = raise(&v, 10.0);
        assert!(!raised.passed);
        assert_eq!(
            raised.failures,
            vec![VerdictFailure::IncompleteCoverage { evaluated_calls: 8, expected_calls: 10 }]
        );
    }
}
