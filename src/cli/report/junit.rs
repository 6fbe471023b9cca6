//! JUnit XML in the shape Jenkins and Maven Surefire read (`tests/fixtures/junit/jenkins.xsd`):
//! one `testsuite` per check, with one `testcase` per simulation (named by flow, variant,
//! persona and iteration) and one for the check's bar; a `run` suite for what the verdict says
//! about the run as a whole. A simulation that failed or erred carries its conversation, with
//! the time of each turn, in its own `system-out`.

use std::fmt::Write;

use super::{GateReport, StepResult, case_name, speaker};
use crate::api::model::{
    SimulationJob, SimulationOutcome, TranscriptEntry, Verdict, VerdictCheck, VerdictFailure, one_line, percent,
    percent_against,
};

/// One test case's result.
enum Case {
    Passed,
    Failure { kind: &'static str, message: String, text: String },
    Error { message: String },
    Skipped { message: String },
}

struct TestCase {
    name: String,
    classname: String,
    seconds: f64,
    result: Case,
    /// The conversation of a simulation that failed or erred, for the case's own `system-out`.
    output: Option<String>,
}

struct Suite {
    name: String,
    cases: Vec<TestCase>,
    properties: Vec<(String, String)>,
}

/// The report as XML.
pub fn render(report: &GateReport, hostname: &str) -> String {
    let suites = suites(report);
    let timestamp = timestamp(report);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (id, suite) in suites.iter().enumerate() {
        let count = |f: fn(&Case) -> bool| suite.cases.iter().filter(|c| f(&c.result)).count();
        let failures = count(|c| matches!(c, Case::Failure { .. }));
        let errors = count(|c| matches!(c, Case::Error { .. }));
        let skipped = count(|c| matches!(c, Case::Skipped { .. }));
        let time: f64 = suite.cases.iter().map(|c| c.seconds).sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" package=\"switchboard\" id=\"{id}\" timestamp=\"{timestamp}\" hostname=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">",
            attr(&suite.name),
            attr(hostname),
            suite.cases.len(),
        );
        xml.push_str("    <properties>\n");
        for (name, value) in &suite.properties {
            let _ = writeln!(xml, "      <property name=\"{}\" value=\"{}\"/>", attr(name), attr(value));
        }
        xml.push_str("    </properties>\n");
        for case in &suite.cases {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                attr(&case.name),
                attr(&case.classname),
                case.seconds
            );
            if matches!(case.result, Case::Passed) && case.output.is_none() {
                xml.push_str("/>\n");
                continue;
            }
            xml.push_str(">\n");
            match &case.result {
                Case::Passed => {}
                Case::Failure { kind, message, text } => {
                    let _ = writeln!(
                        xml,
                        "      <failure type=\"{kind}\" message=\"{}\">{}</failure>",
                        attr(message),
                        text_node(text)
                    );
                }
                Case::Error { message } => {
                    let _ = writeln!(
                        xml,
                        "      <error type=\"SIMULATION_ERROR\" message=\"{}\">{}</error>",
                        attr(message),
                        text_node(message)
                    );
                }
                Case::Skipped { message } => {
                    let _ = writeln!(xml, "      <skipped message=\"{}\"/>", attr(message));
                }
            }
            if let Some(output) = &case.output {
                let _ = writeln!(xml, "      <system-out>{}</system-out>", text_node(output));
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("    <system-out/>\n    <system-err/>\n  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn suites(report: &GateReport) -> Vec<Suite> {
    let job_id = report.job.simulation_run_plan_job_id.to_string();
    let Some(verdict) = &report.verdict else {
        let case = TestCase {
            name: "the run has a verdict".into(),
            classname: "run".into(),
            seconds: 0.0,
            result: Case::Failure {
                kind: "NO_VERDICT",
                message: "nothing to judge".into(),
                text: super::NO_VERDICT.into(),
            },
            output: None,
        };
        return vec![Suite {
            name: "run".into(),
            cases: vec![case],
            properties: vec![("runPlanJobId".into(), job_id)],
        }];
    };
    let per_simulation = report.per_simulation();
    let mut suites = vec![run_suite(report, verdict, &job_id)];
    for check in &verdict.checks {
        let name = check.name();
        let mut cases = vec![bar_case(check)];
        if per_simulation {
            let judged =
                report.job.simulation_jobs.iter().filter(|sim| sim.outcome.as_ref().is_some_and(judged)).count();
            // Every judged simulation carries a value for this check only when the check counts
            // them all; otherwise a FAILED simulation may lack it, and is not reported as passing it.
            let everywhere = check.evaluated_sims as usize >= judged;
            cases.extend(report.job.simulation_jobs.iter().map(|sim| {
                let transcript = report.transcripts.get(&sim.simulation_job_id).map(Vec::as_slice);
                let steps = report.steps.get(&sim.simulation_job_id).map(Vec::as_slice).unwrap_or_default();
                let why = report.why_not_scored_on(sim, check.metric_definition_id);
                sim_case(sim, check, everywhere, &why, (transcript, steps))
            }));
        }
        let mut properties = vec![
            ("metricDefinitionId".to_string(), check.metric_definition_id.to_string()),
            ("minPassRate".into(), check.min_pass_rate.to_string()),
            ("passRate".into(), check.pass_rate.map(|r| r.to_string()).unwrap_or_default()),
            ("runPlanJobId".into(), job_id.clone()),
        ];
        if !per_simulation {
            properties.push((
                "note".into(),
                "the service sent no per-simulation outcomes; only the check is reported".into(),
            ));
        }
        suites.push(Suite { name, cases, properties });
    }
    suites
}

/// The run as a whole: one failing case per failure that is not a check's.
fn run_suite(report: &GateReport, verdict: &Verdict, job_id: &str) -> Suite {
    let run_failures: Vec<&VerdictFailure> = verdict
        .failures
        .iter()
        .filter(|f| {
            !matches!(f, VerdictFailure::MetricBelowMinPassRate { .. } | VerdictFailure::MetricNotEvaluated { .. })
        })
        .collect();
    let mut cases: Vec<TestCase> = run_failures
        .iter()
        .map(|failure| TestCase {
            name: failure.in_words(),
            classname: "run".into(),
            seconds: 0.0,
            result: Case::Failure { kind: kind(failure), message: failure.in_words(), text: failure.in_words() },
            output: None,
        })
        .collect();
    if cases.is_empty() {
        cases.push(TestCase {
            name: "the run completed and every simulation was scored".into(),
            classname: "run".into(),
            seconds: 0.0,
            result: Case::Passed,
            output: None,
        });
    }
    let status = report.job.status.as_ref().map(|s| s.to_string()).unwrap_or_default();
    let properties = vec![
        ("runPlanJobId".to_string(), job_id.to_string()),
        ("status".into(), status),
        ("result".into(), report.result.as_str().into()),
        ("score".into(), verdict.score.map(|s| s.to_string()).unwrap_or_default()),
    ];
    Suite { name: "run".into(), cases, properties }
}

fn kind(failure: &VerdictFailure) -> &'static str {
    match failure {
        VerdictFailure::RunNotCompleted { .. } => "RUN_NOT_COMPLETED",
        VerdictFailure::IncompleteCoverage { .. } => "INCOMPLETE_COVERAGE",
        VerdictFailure::AgentNeverSpoke { .. } => "AGENT_NEVER_SPOKE",
        VerdictFailure::MetricNotEvaluated { .. } => "METRIC_NOT_EVALUATED",
        VerdictFailure::MetricBelowMinPassRate { .. } => "METRIC_BELOW_MIN_PASS_RATE",
        VerdictFailure::Unknown => "UNKNOWN",
    }
}

/// The check against its own bar.
fn bar_case(check: &VerdictCheck) -> TestCase {
    let rate = check.pass_rate.map(|r| percent_against(r, check.min_pass_rate)).unwrap_or_else(|| "no value".into());
    let name = format!("pass rate ≥ {}", percent(check.min_pass_rate));
    let result = match check.pass_rate {
        _ if check.passed => Case::Passed,
        None => Case::Failure {
            kind: "METRIC_NOT_EVALUATED",
            message: format!("{} was not evaluated on any simulation", check.name()),
            text: format!("{} of the run's simulations produced a value for {}", check.evaluated_sims, check.name()),
        },
        Some(_) => Case::Failure {
            kind: "METRIC_BELOW_MIN_PASS_RATE",
            message: format!(
                "{} passed {rate} of simulations, below its minimum of {}",
                check.name(),
                percent(check.min_pass_rate)
            ),
            text: format!("{} of {} evaluated simulations passed", check.passed_sims, check.evaluated_sims),
        },
    };
    TestCase { name, classname: check.name(), seconds: 0.0, result, output: None }
}

/// One simulation on one check.
fn sim_case(
    sim: &SimulationJob,
    check: &VerdictCheck,
    evaluated_everywhere: bool,
    why_not_scored: &str,
    (transcript, steps): (Option<&[TranscriptEntry]>, &[StepResult]),
) -> TestCase {
    let failed = sim.failed_checks.iter().find(|f| f.metric_definition_id == check.metric_definition_id);
    let result = match (&sim.outcome, failed) {
        (_, Some(failed)) => {
            let value = failed.value.map(|v| v.to_string()).unwrap_or_else(|| "none".into());
            let reasoning = failed.value_reasoning.clone().unwrap_or_default();
            Case::Failure {
                kind: "CHECK_FAILED",
                message: format!("value {value}: {}", one_line(&reasoning)),
                text: format!(
                    "value: {value}\nreasoning: {reasoning}\ncall: {}",
                    sim.call_id.map(|c| c.to_string()).unwrap_or_default()
                ),
            }
        }
        (Some(SimulationOutcome::Error), None) => {
            Case::Error { message: sim.error_message.clone().unwrap_or_else(|| "the simulation failed".into()) }
        }
        (Some(SimulationOutcome::NotEvaluated), None) => {
            // A check judged on the call says so itself; one not scored is "not evaluated".
            let judged_here = sim.judged_checks.iter().any(|c| c.metric_definition_id == check.metric_definition_id);
            let message =
                if judged_here { why_not_scored.to_string() } else { format!("not evaluated: {why_not_scored}") };
            Case::Skipped { message }
        }
        (None, None) => Case::Skipped { message: "the simulation did not finish".into() },
        // PASSED means every check had a value and passed.
        (Some(SimulationOutcome::Passed), None) => Case::Passed,
        // FAILED on other checks, with a check not scored: the service says which.
        (Some(SimulationOutcome::Failed), None) if !sim.unscored_checks.is_empty() => {
            match sim.unscored_checks.iter().find(|c| c.metric_definition_id == check.metric_definition_id) {
                Some(own) => Case::Skipped { message: format!("not evaluated: {}", own.in_words()) },
                None => Case::Passed,
            }
        }
        // FAILED on other checks: this one passed only if it was evaluated here.
        (Some(SimulationOutcome::Failed), None) if evaluated_everywhere => Case::Passed,
        (Some(SimulationOutcome::Failed), None) => Case::Skipped {
            message: format!(
                "failed on other checks; {} has no value on some simulations and the service does not say which",
                check.name()
            ),
        },
        (Some(_), None) => {
            Case::Skipped { message: "the service's outcome for this simulation is unknown here".into() }
        }
    };
    let output = match result {
        Case::Failure { .. } | Case::Error { .. } => {
            transcript.filter(|t| !t.is_empty()).map(|turns| conversation(turns, steps))
        }
        _ => None,
    };
    TestCase { name: case_name(sim), classname: check.name(), seconds: seconds(sim), result, output }
}

/// The whole conversation with the times of each turn on the call's clock, then what the
/// script's AGENT_TURN steps came to.
fn conversation(entries: &[TranscriptEntry], steps: &[StepResult]) -> String {
    let mut text = String::new();
    for entry in entries {
        let (from, to) = (entry.start_offset_ms as f64 / 1000.0, entry.end_offset_ms as f64 / 1000.0);
        let _ = writeln!(text, "[{from:.1}–{to:.1} s] {}: {}", speaker(entry), entry.text);
    }
    if !steps.is_empty() {
        text.push_str("\nThe script's steps, judged after the call (information, not checks):\n");
        for step in steps {
            let _ = writeln!(text, "{} {}", step.mark(), step.reasoning);
        }
    }
    text
}

/// An outcome from which the simulation's checks were judged.
fn judged(outcome: &SimulationOutcome) -> bool {
    matches!(outcome, SimulationOutcome::Passed | SimulationOutcome::Failed)
}

fn seconds(sim: &SimulationJob) -> f64 {
    let start = sim.started_at.as_ref().and_then(|t| t.parse());
    let end = sim.completed_at.as_ref().and_then(|t| t.parse());
    match (start, end) {
        (Some(start), Some(end)) => ((end.as_millisecond() - start.as_millisecond()).max(0) as f64) / 1000.0,
        _ => 0.0,
    }
}

/// The schema's timestamp: `YYYY-MM-DDTHH:MM:SS`, no zone (UTC).
fn timestamp(report: &GateReport) -> String {
    let when = report
        .job
        .started_at
        .as_ref()
        .or(report.job.created_at.as_ref())
        .and_then(|t| t.parse())
        .unwrap_or_else(jiff::Timestamp::now);
    when.strftime("%Y-%m-%dT%H:%M:%S").to_string()
}

fn attr(text: &str) -> String {
    escape(text, true)
}

fn text_node(text: &str) -> String {
    escape(text, false)
}

/// XML escaping; characters XML 1.0 cannot carry are dropped.
fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escaping_keeps_xml_well_formed() {
        assert_eq!(super::attr("a \"b\" <c> & d\ne\u{1}"), "a &quot;b&quot; &lt;c&gt; &amp; d&#10;e");
        assert_eq!(super::text_node("x\n\"y\""), "x\n\"y\"");
    }
}

#[cfg(test)]
mod hosted {
    use super::super::{GateReport, GateResult, markdown};
    use crate::api::model::RunPlanJob;

    /// A job as the hosted service sends it: a verdict, and simulations without outcomes.
    fn hosted_job() -> RunPlanJob {
        serde_json::from_value(serde_json::json!({
            "simulationRunPlanJobId": "00000000-0000-0000-0000-0000000000aa",
            "status": "COMPLETED",
            "startedAt": "2026-11-23T10:00:00Z",
            "simulationJobs": [
                {"simulationJobId": "00000000-0000-0000-0000-000000000001", "status": "COMPLETED"},
                {"simulationJobId": "00000000-0000-0000-0000-000000000002", "status": "COMPLETED"}
            ],
            "verdict": {"passed": false, "score": 50.0, "checks": [{
                "metricDefinitionId": "00000000-0000-0000-0000-0000000000c1", "metricName": "Task completion",
                "evaluatedSims": 2, "passedSims": 1, "passRate": 50.0, "minPassRate": 80.0, "inherited": true, "passed": false
            }], "failures": [{"type": "METRIC_BELOW_MIN_PASS_RATE", "metricDefinitionId": "00000000-0000-0000-0000-0000000000c1",
                "metricName": "Task completion", "passRate": 50.0, "minPassRate": 80.0, "inherited": true}]}
        }))
        .unwrap()
    }

    #[test]
    fn a_check_missing_on_a_failed_simulation_is_never_reported_as_passed() {
        let mut job = hosted_job();
        let id = job.verdict.as_ref().unwrap().checks[0].metric_definition_id;
        let other = uuid::Uuid::from_u128(0xc2);
        let mut checks = job.verdict.as_ref().unwrap().checks.clone();
        let mut second = checks[0].clone();
        second.metric_definition_id = other;
        second.metric_name = Some("Politeness".into());
        second.evaluated_sims = 1;
        second.passed_sims = 1;
        checks.push(second);
        job.verdict.as_mut().unwrap().checks = checks;
        for (sim, outcome) in job.simulation_jobs.iter_mut().zip(["FAILED", "FAILED"]) {
            sim.outcome = Some(serde_json::from_value(serde_json::json!(outcome)).unwrap());
        }
        job.simulation_jobs[0].failed_checks =
            vec![serde_json::from_value(serde_json::json!({
            "metricDefinitionId": id, "metricName": "Task completion", "value": 0.0, "valueReasoning": "no booking"
        }))
        .unwrap()];
        job.simulation_jobs[1].failed_checks = vec![
            serde_json::from_value(serde_json::json!({
                "metricDefinitionId": other, "metricName": "Politeness", "value": 0.0, "valueReasoning": "rude"
            }))
            .unwrap(),
        ];
        let report = GateReport::judge(job, None, None, false);
        assert!(report.per_simulation());
        let xml = super::render(&report, "localhost");
        let politeness = xml.split("<testsuite ").find(|s| s.contains("name=\"Politeness\"")).unwrap();
        // Politeness counted one simulation of two: the first simulation (FAILED on Task
        // completion only) may lack it, so it is skipped, not passed.
        assert!(politeness.contains("has no value on some simulations"), "{politeness}");
        let task = xml.split("<testsuite ").find(|s| s.contains("name=\"Task completion\"")).unwrap();
        // Task completion counted both: the second simulation passed it.
        assert!(!task.contains("<skipped"), "{task}");
    }

    #[test]
    fn a_hosted_verdict_is_reported_on_its_checks_alone() {
        let report = GateReport::judge(hosted_job(), Some("Nightly".into()), None, false);
        assert_eq!(report.result, GateResult::Failed);
        assert!(!report.per_simulation());
        let xml = super::render(&report, "localhost");
        assert!(xml.contains("name=\"Task completion\"") && xml.contains("tests=\"1\" failures=\"1\""), "{xml}");
        assert!(xml.contains("only the check is reported"), "{xml}");
        assert!(!xml.contains("CHECK_FAILED"), "no per-simulation cases without outcomes: {xml}");
        let md = markdown::render(&report);
        assert!(
            md.contains("no per-simulation outcomes")
                && md.contains("| Task completion | 50 % (1/2) | 80 % (default) | ❌ |"),
            "{md}"
        );
    }
}
