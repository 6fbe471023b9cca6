use super::*;

fn definition(slug: &str, metric_type: MetricType, calculation: CalculationType, system: bool) -> MetricDefinition {
    serde_json::from_value(serde_json::json!({
        "id": Uuid::new_v5(&Uuid::NAMESPACE_URL, slug.as_bytes()),
        "slug": slug,
        "name": slug.replace('_', " "),
        "type": metric_type.as_str(),
        "calculationType": calculation.as_str(),
        "source": if system { "SYSTEM" } else { "CUSTOM" },
    }))
    .unwrap()
}

fn value(id: Uuid, v: Option<f64>, status: CaptureStatus, reasoning: &str) -> (Uuid, MetricValue) {
    let mut value: MetricValue = serde_json::from_value(serde_json::json!({})).unwrap();
    value.value = v;
    value.capture_status = Some(status);
    value.value_reasoning = Some(reasoning.into());
    (id, value)
}

fn completed() -> SimulationJob {
    serde_json::from_value(serde_json::json!({
        "simulationJobId": Uuid::new_v4(),
        "status": "COMPLETED",
        "outcome": "PASSED",
    }))
    .unwrap()
}

#[test]
fn checks_are_thresholds_authored_booleans_and_the_automatic_metrics() {
    use CalculationType::*;
    assert!(is_check(&definition("task_completion", MetricType::Boolean, LlmJudge, true)));
    assert!(is_check(&definition("duration_under_2m", MetricType::Boolean, Threshold, false)));
    assert!(is_check(&definition("keypad_entry", MetricType::Boolean, Provider, true)));
    assert!(is_check(&definition("agent_expectations", MetricType::Boolean, LlmJudge, true)));
    assert!(is_check(&definition("my_formula_flag", MetricType::Boolean, Formula, false)));
    // Observations: readings, and provider yes/no fields whose `true` has no passing side.
    assert!(!is_check(&definition("call_duration", MetricType::Numeric, Provider, true)));
    assert!(!is_check(&definition("comprehension_failure", MetricType::Boolean, Provider, true)));
    assert!(!is_check(&definition("empathy_rating", MetricType::Scale, LlmJudge, false)));
}

#[test]
fn a_simulation_fails_on_any_false_check_and_names_it() {
    use CalculationType::*;
    let task = definition("task_completion", MetricType::Boolean, LlmJudge, true);
    let keypad = definition("keypad_entry", MetricType::Boolean, Provider, true);
    let checks = [&task, &keypad];
    let all_true = [
        value(task.id, Some(1.0), CaptureStatus::Success, "done"),
        value(keypad.id, Some(1.0), CaptureStatus::Success, "pressed"),
    ];
    let judged = judge_simulation(&checks, &all_true);
    assert_eq!(judged.outcome, SimulationOutcome::Passed);
    assert_eq!(judged.results, vec![(task.id, true), (keypad.id, true)]);

    let one_false = [
        value(task.id, Some(1.0), CaptureStatus::Success, "done"),
        value(keypad.id, Some(1.0), CaptureStatus::Success, "first turn"),
        value(keypad.id, Some(0.0), CaptureStatus::Success, "the caller pressed 2; the agent ignored it"),
    ];
    let judged = judge_simulation(&checks, &one_false);
    assert_eq!(judged.outcome, SimulationOutcome::Failed);
    assert_eq!(judged.failed_checks.len(), 1);
    assert_eq!(judged.failed_checks[0].metric_definition_id, keypad.id);
    assert_eq!(judged.failed_checks[0].value_reasoning.as_deref(), Some("the caller pressed 2; the agent ignored it"));

    let missing = [
        value(task.id, Some(1.0), CaptureStatus::Success, "done"),
        value(keypad.id, None, CaptureStatus::Error, "judge down"),
    ];
    let judged = judge_simulation(&checks, &missing);
    assert_eq!(judged.outcome, SimulationOutcome::NotEvaluated);
    assert_eq!(judged.results, vec![(task.id, true)]);

    assert_eq!(judge_simulation(&[], &[]).outcome, SimulationOutcome::NotEvaluated, "nothing judged it: never a pass");

    // A value the judge abstained on (DATA_MISSING) is missing like an error: never a pass.
    let abstained = [
        value(task.id, None, CaptureStatus::DataMissing, "Cannot tell: … set a judge model under [judge]"),
        value(keypad.id, Some(1.0), CaptureStatus::Success, "pressed"),
    ];
    let judged = judge_simulation(&checks, &abstained);
    assert_eq!(judged.outcome, SimulationOutcome::NotEvaluated);
    assert_eq!(judged.results, vec![(keypad.id, true)], "the abstained check is not counted as passed");

    // A check that does not apply to this simulation (a keypad check on a script without a
    // keypad step) leaves it out: the others decide.
    let not_applicable = [
        value(task.id, Some(1.0), CaptureStatus::Success, "done"),
        value(keypad.id, None, CaptureStatus::NotApplicable, "the script has no keypad step"),
    ];
    let judged = judge_simulation(&checks, &not_applicable);
    assert_eq!(judged.outcome, SimulationOutcome::Passed);
    assert_eq!(judged.results, vec![(task.id, true)], "not counted for the keypad check");
    let only_not_applicable = [value(keypad.id, None, CaptureStatus::NotApplicable, "no keypad step")];
    assert_eq!(judge_simulation(&checks, &only_not_applicable).outcome, SimulationOutcome::NotEvaluated);
}

fn tally(bars: &[(f64, bool)], simulations: u64) -> (Tally, Vec<Uuid>) {
    let definitions: Vec<MetricDefinition> = (0..bars.len())
        .map(|i| definition(&format!("check_{i}"), MetricType::Boolean, CalculationType::LlmJudge, false))
        .collect();
    let ids = definitions.iter().map(|d| d.id).collect();
    let plan = definitions.into_iter().zip(bars).map(|(d, (rate, inherited))| (d, *rate, *inherited)).collect();
    (Tally::new(plan, simulations), ids)
}

#[test]
fn each_check_clears_its_own_bar_never_pooled() {
    // A at 100 % (bar 40), B at 60 % (bar 80): the mean, 80, would clear a pooled bar of 80.
    let (mut t, ids) = tally(&[(40.0, false), (80.0, true)], 5);
    for i in 0..5 {
        t.add(&completed(), &[(ids[0], true), (ids[1], i < 3)]);
    }
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(!v.passed);
    assert_eq!(v.score, Some(80.0));
    assert_eq!(v.checks[0].pass_rate, Some(100.0));
    assert!(v.checks[0].passed);
    assert_eq!(v.checks[1].pass_rate, Some(60.0));
    assert!(!v.checks[1].passed);
    assert_eq!(
        v.failures,
        vec![VerdictFailure::MetricBelowMinPassRate {
            metric_definition_id: ids[1],
            metric_name: Some("check 1".into()),
            pass_rate: 60.0,
            min_pass_rate: 80.0,
            inherited: true,
        }]
    );
}

#[test]
fn a_run_passes_only_once_completed_with_full_coverage() {
    let (mut t, ids) = tally(&[(80.0, true)], 3);
    t.add(&completed(), &[(ids[0], true)]);
    t.add(&completed(), &[(ids[0], true)]);
    let running = t.verdict(&RunPlanJobStatus::Running).unwrap();
    assert!(!running.passed, "a running job has not passed yet");
    assert_eq!(running.failures, vec![VerdictFailure::RunNotCompleted { status: RunPlanJobStatus::Running }]);

    let mut failed = completed();
    failed.status = Some(SimulationJobStatus::Failed);
    failed.outcome = Some(SimulationOutcome::Error);
    t.add(&failed, &[]);
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(!v.passed);
    assert_eq!(v.failures, vec![VerdictFailure::IncompleteCoverage { evaluated_calls: 2, expected_calls: 3 }]);
    assert_eq!(t.by_outcome.get("ERROR"), Some(&1));

    let (mut t, ids) = tally(&[(80.0, true)], 2);
    t.add(&completed(), &[(ids[0], true)]);
    t.add(&completed(), &[(ids[0], true)]);
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(v.passed && v.failures.is_empty());
    assert_eq!(v.score, Some(100.0));
}

#[test]
fn a_simulation_the_judge_could_not_evaluate_is_not_coverage() {
    // Nine simulations the judge errored on and one that passed: the check reads 100 % of
    // the one it saw, but the run covered one call in ten and must not pass.
    let (mut t, ids) = tally(&[(80.0, true)], 10);
    let mut unjudged = completed();
    unjudged.outcome = Some(SimulationOutcome::NotEvaluated);
    for _ in 0..9 {
        t.add(&unjudged, &[]);
    }
    t.add(&completed(), &[(ids[0], true)]);
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(!v.passed);
    assert_eq!(v.checks[0].pass_rate, Some(100.0));
    assert_eq!(v.failures, vec![VerdictFailure::IncompleteCoverage { evaluated_calls: 1, expected_calls: 10 }]);
    assert_eq!(t.by_outcome.get("NOT_EVALUATED"), Some(&9));
}

#[test]
fn a_check_nothing_evaluated_fails_the_run_once_it_ends() {
    let (mut t, ids) = tally(&[(80.0, true), (0.0, false)], 1);
    t.add(&completed(), &[(ids[0], true)]);
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(!v.passed, "a bar of 0 still needs a value");
    assert_eq!(v.checks[1].pass_rate, None);
    assert_eq!(
        v.failures,
        vec![VerdictFailure::MetricNotEvaluated { metric_definition_id: ids[1], metric_name: Some("check 1".into()) }]
    );
}

#[test]
fn an_agent_that_never_spoke_is_left_out_of_the_checks_and_fails_the_run_past_the_share() {
    let (mut t, ids) = tally(&[(80.0, true)], 4);
    for _ in 0..3 {
        t.add(&completed(), &[(ids[0], true)]);
    }
    let mut silent = completed();
    silent.outcome = Some(SimulationOutcome::NotEvaluated);
    silent.invalidation =
        Some(Invalidation { invalidated_at: None, reason: InvalidationReason::AgentNeverSpoke, detail: None });
    t.add(&silent, &[(ids[0], false)]);
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert_eq!(v.checks[0].evaluated_sims, 3, "the silent simulation is not scored");
    assert_eq!(
        v.failures,
        vec![VerdictFailure::AgentNeverSpoke {
            max_share: AGENT_NEVER_SPOKE_MAX_SHARE,
            never_spoke_calls: 1,
            total_calls: 4,
            agent_name: None,
            silent_attempts: Some(1),
        }]
    );
}

#[test]
fn a_retried_silent_attempt_is_not_final_and_the_retry_decides() {
    let ids: Vec<Uuid> = (0..1).map(|_| Uuid::new_v4()).collect();
    let check = definition("task_completion", MetricType::Boolean, CalculationType::LlmJudge, true);
    let mut t = Tally::new(vec![(MetricDefinition { id: ids[0], ..check }, 80.0, true)], 2);
    // Test case 1: silent, retried, then the agent speaks and passes.
    t.add_retried();
    t.add(&completed(), &[(ids[0], true)]);
    // Test case 2: silent on its last attempt too.
    t.add_retried();
    let mut silent = completed();
    silent.invalidation =
        Some(Invalidation { invalidated_at: None, reason: InvalidationReason::AgentNeverSpoke, detail: None });
    t.add(&silent, &[]);
    let summary = t.attempt_summary();
    assert_eq!(
        (summary.attempt_count, summary.retry_count, summary.silent_attempt_count),
        (4, 2, 3),
        "every attempt placed, the two retries, and the three silent ones"
    );
    assert_eq!((summary.still_silent_test_case_count, summary.test_case_count), (1, 2));
    let v = t.verdict(&RunPlanJobStatus::Completed).unwrap();
    assert!(
        v.failures.iter().any(|f| matches!(
            f,
            VerdictFailure::AgentNeverSpoke { never_spoke_calls: 1, total_calls: 2, silent_attempts: Some(3), .. }
        )),
        "the verdict counts test cases whose last attempt was silent: {:?}",
        v.failures
    );
    assert_eq!(v.checks[0].evaluated_sims, 1);
}

#[test]
fn nothing_to_judge_is_no_verdict() {
    let t = Tally::new(
        vec![(definition("call_duration", MetricType::Numeric, CalculationType::Provider, true), 80.0, true)],
        3,
    );
    assert!(t.checks.is_empty());
    assert_eq!(t.verdict(&RunPlanJobStatus::Completed), None);
}

/// One check abstaining hides no other: a known failure is a failure, and both the failed and
/// the passed checks are named beside the one not scored.
#[test]
fn a_check_not_scored_leaves_the_others_results_visible_and_a_known_failure_fails() {
    use CalculationType::*;
    let task = definition("task_completion", MetricType::Boolean, LlmJudge, true);
    let keypad = definition("keypad_entry", MetricType::Boolean, Provider, true);
    let sincere = definition("sounds_sincere", MetricType::Boolean, LlmJudge, false);
    let checks = [&task, &keypad, &sincere];
    let values = [
        value(task.id, Some(1.0), CaptureStatus::Success, "done"),
        value(keypad.id, Some(0.0), CaptureStatus::Success, "the agent ignored the 2"),
        value(sincere.id, None, CaptureStatus::DataMissing, "Cannot tell: no line says it"),
    ];
    let judged = judge_simulation(&checks, &values);
    assert_eq!(judged.outcome, SimulationOutcome::Failed, "a known failure beats a missing value");
    assert_eq!(judged.unscored.len(), 1);
    let results: Vec<(String, bool)> = judged.judged.iter().map(|c| (c.name(), c.passed)).collect();
    assert_eq!(results, [("task completion".to_string(), true), ("keypad entry".to_string(), false)]);

    let mut sim = completed();
    sim.outcome = Some(judged.outcome);
    sim.failed_checks = judged.failed_checks;
    sim.unscored_checks = judged.unscored;
    sim.judged_checks = judged.judged;
    assert_eq!(
        sim.why_not_passed(),
        "keypad entry: the agent ignored the 2; passed: task completion; not scored: sounds sincere (Cannot tell: no \
         line says it)"
    );
    assert_eq!(sim.why_in_brief(), "keypad entry · not scored: sounds sincere: the agent ignored the 2");

    // With nothing false it is NOT_EVALUATED, and still says what passed.
    sim.outcome = Some(SimulationOutcome::NotEvaluated);
    sim.failed_checks.clear();
    sim.judged_checks.retain(|c| c.passed);
    let why = sim.why_not_passed();
    assert_eq!(why, "passed: task completion; not scored: sounds sincere (Cannot tell: no line says it)");
    assert_eq!(sim.why_in_brief(), why);
}
