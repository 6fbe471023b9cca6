//! Verdicts: the service judges every run against each check's own bar and says why, and each
//! simulation carries its outcome and the checks it failed.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use futures_util::TryStreamExt;
use support::{Service, dental, eventually, id_of, raw, seeded, start, start_with};
use switchboard::api::ListQuery;
use switchboard::api::model::*;
use switchboard::service::SimSpeed;

/// A plan of only the given metrics: no flow or automatic metric joins them.
fn plan_of(metrics: Vec<MetricReference>, iterations: i64) -> RunPlanInput {
    let (flow, endpoint) = dental();
    RunPlanInput {
        name: Some("Verdict test".into()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(iterations),
        max_simulation_duration_seconds: Some(600),
        flows: Some(vec![FlowSelection { id: Some(id_of(&flow)), happy_path: Some(true), ..Default::default() }]),
        agent_endpoints: Some(vec![IdRef { id: id_of(&endpoint) }]),
        metrics: Some(metrics),
        include_flow_metrics: Some(false),
        include_automatic_metrics: Some(false),
        ..Default::default()
    }
}

async fn duration_check(service: &Service, always: bool) -> MetricDefinition {
    support::duration_check(&service.client, always).await
}

fn by_id(definition: &MetricDefinition, min_pass_rate: Option<f64>) -> MetricReference {
    MetricReference { id: Some(definition.id), min_pass_rate, ..Default::default() }
}

async fn run_to_end(service: &Service, input: RunPlanInput) -> RunPlanJob {
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await
}

#[tokio::test]
async fn a_run_fails_on_the_check_below_its_own_bar_and_says_which() {
    let service = start(true).await;
    let passes = duration_check(&service, true).await;
    let fails = duration_check(&service, false).await;
    let observed = MetricReference::by_slug("call_duration");
    let input = plan_of(vec![by_id(&fails, Some(50.0)), by_id(&passes, Some(100.0)), observed], 2);
    let job = run_to_end(&service, input).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));

    let verdict = job.verdict.expect("two checks: a verdict");
    assert!(!verdict.passed);
    assert_eq!(verdict.score, Some(50.0), "the mean of 0 and 100");
    let ids: Vec<_> = verdict.checks.iter().map(|c| c.metric_definition_id).collect();
    assert_eq!(ids, vec![fails.id, passes.id], "call_duration is an observation, not a check");
    let failing = &verdict.checks[0];
    assert_eq!((failing.evaluated_sims, failing.passed_sims, failing.pass_rate), (2, 0, Some(0.0)));
    assert_eq!((failing.min_pass_rate, failing.inherited, failing.passed), (50.0, false, false));
    assert!(verdict.checks[1].passed);
    assert_eq!(
        verdict.failures,
        vec![VerdictFailure::MetricBelowMinPassRate {
            metric_definition_id: fails.id,
            metric_name: fails.name.clone(),
            pass_rate: 0.0,
            min_pass_rate: 50.0,
            inherited: false,
        }]
    );
    assert_eq!(verdict.failures[0].in_words(), "Call was instant passed 0 % of simulations, below its minimum of 50 %");
    for simulation in &job.simulation_jobs {
        assert_eq!(simulation.outcome, Some(SimulationOutcome::Failed));
        assert_eq!(simulation.failed_checks.len(), 1);
        let failed = &simulation.failed_checks[0];
        assert_eq!(failed.metric_definition_id, fails.id);
        assert_eq!(failed.value, Some(0.0));
        assert!(failed.value_reasoning.as_deref().is_some_and(|r| !r.is_empty()), "the judge's reason travels along");
    }
}

#[tokio::test]
async fn a_run_whose_checks_all_clear_passes_and_its_verdict_is_listed() {
    let service = start(true).await;
    let passes = duration_check(&service, true).await;
    let job = run_to_end(&service, plan_of(vec![by_id(&passes, None)], 2)).await;
    let verdict = job.verdict.clone().expect("a verdict");
    assert!(verdict.passed, "{:?}", verdict.failures);
    assert!(verdict.failures.is_empty());
    assert_eq!(verdict.score, Some(100.0));
    assert_eq!((verdict.checks[0].min_pass_rate, verdict.checks[0].inherited), (80.0, true), "the default bar");
    assert!(job.simulation_jobs.iter().all(|s| s.outcome == Some(SimulationOutcome::Passed)));

    let listed: Vec<RunPlanJob> =
        service.client.list_all("/v1/simulation/plan/jobs", ListQuery::default()).try_collect().await.unwrap();
    let same = listed.iter().find(|j| j.simulation_run_plan_job_id == job.simulation_run_plan_job_id).unwrap();
    assert_eq!(same.verdict.as_ref(), Some(&verdict), "the list carries the same verdict");
    let single = service.client.get_simulation_job(job.simulation_jobs[0].simulation_job_id).await.unwrap();
    assert_eq!(single.outcome, Some(SimulationOutcome::Passed));
}

#[tokio::test]
async fn a_plan_with_nothing_to_judge_has_a_null_verdict_never_a_pass() {
    let service = start(true).await;
    let job = run_to_end(&service, plan_of(vec![MetricReference::by_slug("call_duration")], 1)).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    assert_eq!(job.verdict, None);
    let (status, body, _) = raw(
        &service.base_url(),
        reqwest::Method::GET,
        &format!("/v1/simulation/plan/job/{}", job.simulation_run_plan_job_id),
        Some(&format!("Bearer {}", service.running.api_key.expose())),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert!(body["data"]["verdict"].is_null() && body["data"].as_object().unwrap().contains_key("verdict"));
    assert_eq!(job.simulation_jobs[0].outcome, Some(SimulationOutcome::NotEvaluated));
}

#[tokio::test]
async fn the_flows_and_automatic_checks_join_at_the_default_bar() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    let input = RunPlanInput {
        flows: Some(vec![FlowSelection {
            id: Some(id_of(&flow)),
            happy_path: Some(true),
            edge_cases: Some(EdgeCases::All),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: id_of(&endpoint) }]),
        include_flow_metrics: None,
        include_automatic_metrics: None,
        ..plan_of(
            vec![
                MetricReference { min_pass_rate: Some(60.0), ..MetricReference::by_slug("task_completion") },
                MetricReference::by_slug("call_duration"),
            ],
            1,
        )
    };
    let job = run_to_end(&service, input).await;
    let verdict = job.verdict.expect("a verdict");
    let names: Vec<String> = verdict.checks.iter().map(VerdictCheck::name).collect();
    let slug_of = |id: uuid::Uuid| {
        seeded("metric_definitions", |d| d["id"] == id.to_string().as_str())
            .first()
            .map(|d| d["slug"].as_str().unwrap().to_owned())
    };
    let slugs: Vec<String> = verdict.checks.iter().filter_map(|c| slug_of(c.metric_definition_id)).collect();
    assert_eq!(slugs[0], "task_completion", "{names:?}");
    assert!(
        slugs.contains(&"agent_expectations".to_owned()) && slugs.contains(&"keypad_entry".to_owned()),
        "{names:?}"
    );
    assert_eq!((verdict.checks[0].min_pass_rate, verdict.checks[0].inherited), (60.0, false));
    assert!(verdict.checks[1..].iter().all(|c| c.min_pass_rate == 80.0 && c.inherited));
    // The verdict agrees with the simulations it was counted from.
    for check in &verdict.checks {
        let failed = job
            .simulation_jobs
            .iter()
            .filter(|s| s.failed_checks.iter().any(|f| f.metric_definition_id == check.metric_definition_id))
            .count() as u64;
        assert_eq!(check.evaluated_sims - check.passed_sims, failed, "{}", check.name());
    }
    for simulation in &job.simulation_jobs {
        let expected = if simulation.failed_checks.is_empty() {
            [SimulationOutcome::Passed, SimulationOutcome::NotEvaluated].to_vec()
        } else {
            vec![SimulationOutcome::Failed]
        };
        assert!(expected.contains(simulation.outcome.as_ref().unwrap()), "{:?}", simulation.outcome);
    }
}

#[tokio::test]
async fn the_verdict_is_live_while_the_run_goes_on_and_a_cancelled_run_never_passes() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        switchboard::service::Options { sim_speed: SimSpeed::Factor(2.0), ..support::options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let passes = duration_check(&service, true).await;
    let mut input = plan_of(vec![by_id(&passes, None)], 6);
    input.max_concurrent_jobs = Some(1);
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    let job = service.client.get_run_plan_job(id).await.unwrap();
    let verdict = job.verdict.expect("judged from the start");
    assert!(!verdict.passed);
    assert!(matches!(verdict.failures[0], VerdictFailure::RunNotCompleted { .. }), "{:?}", verdict.failures);
    // Nothing evaluated yet (or, on a slow machine, the first few): a rate only from values.
    let check = &verdict.checks[0];
    assert_eq!(check.pass_rate.is_none(), check.evaluated_sims == 0, "{check:?}");

    let cancelled = service.client.cancel_run_plan_job(id).await.unwrap();
    let counts = cancelled.counts.clone().expect("the answer counts the simulations");
    assert!(counts.by_status.get("CANCELLED").is_some_and(|n| *n > 0), "{counts:?}");
    let ended = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let verdict = ended.verdict.expect("a verdict");
    assert!(!verdict.passed);
    assert!(
        verdict.failures.contains(&VerdictFailure::RunNotCompleted { status: RunPlanJobStatus::Cancelled }),
        "{:?}",
        verdict.failures
    );
    assert!(verdict.failures.iter().any(|f| matches!(f, VerdictFailure::IncompleteCoverage { .. })));
    for simulation in ended.simulation_jobs.iter().filter(|s| s.status == Some(SimulationJobStatus::Cancelled)) {
        assert_eq!(simulation.outcome, Some(SimulationOutcome::NotEvaluated));
        assert!(simulation.error_message.as_deref().is_some_and(|m| m.contains("cancelled")));
    }
}

#[tokio::test]
async fn min_pass_rate_is_kept_on_the_plan_and_validated() {
    let service = start(true).await;
    let mut input =
        plan_of(vec![MetricReference { min_pass_rate: Some(90.0), ..MetricReference::by_slug("task_completion") }], 1);
    let created = service.client.create_run_plan(&input).await.unwrap().run_plan;
    let read = service.client.get_run_plan(created.id).await.unwrap();
    assert_eq!(read.plan.metrics.unwrap()[0].min_pass_rate, Some(90.0));

    for bad in [100.5, -1.0] {
        input.metrics =
            Some(vec![MetricReference { min_pass_rate: Some(bad), ..MetricReference::by_slug("task_completion") }]);
        let error = service.client.create_run_plan(&input).await.unwrap_err();
        assert_eq!(error.status(), Some(400));
        assert_eq!(error.param(), Some("metrics[0].minPassRate"), "{error}");
        let inline = RunRequest { plan: Some(input.clone()), ..Default::default() };
        let error = service.client.run(&inline).await.unwrap_err();
        assert_eq!(error.param(), Some("plan.metrics[0].minPassRate"), "{error}");
    }
    let key = format!("Bearer {}", service.running.api_key.expose());
    let mut body = serde_json::to_value(&input).unwrap();
    body["metrics"][0]["minPassRate"] = "ninety".into();
    let (status, error, _) = raw(
        &service.base_url(),
        reqwest::Method::POST,
        "/v1/simulation/plan",
        Some(&key),
        Some(body.to_string().into_bytes()),
    )
    .await;
    assert_eq!(status, 400);
    assert!(error["message"].as_str().unwrap().contains("minPassRate"), "{error}");
}

/// A judged check the offline judge abstains on every time ("the parcel was delivered": no
/// dental call speaks of delivering anything): each value is DATA_MISSING saying why and
/// that a judge model can be set, each simulation is NOT_EVALUATED, and the run fails on the
/// check never evaluated. A missing value is never a pass.
#[tokio::test]
async fn a_check_the_offline_judge_abstains_on_is_not_evaluated_and_the_run_fails() {
    let service = start(true).await;
    let abstained = service
        .client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Parcel delivered".into()),
            metric_type: Some(MetricType::Boolean),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: Some("The parcel was delivered to the caller's door.".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let job = run_to_end(&service, plan_of(vec![by_id(&abstained, None)], 2)).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    for simulation in &job.simulation_jobs {
        assert_eq!(simulation.outcome, Some(SimulationOutcome::NotEvaluated), "{simulation:?}");
        let groups = service.client.call_metrics(simulation.call_id.unwrap(), ValueStatusFilter::All).await.unwrap();
        let value = groups.iter().find(|g| g.metric_definition_id == abstained.id).unwrap().values[0].clone();
        assert_eq!((value.capture_status, value.value), (Some(CaptureStatus::DataMissing), None));
        let why = value.value_reasoning.unwrap_or_default();
        assert!(why.starts_with("Cannot tell") && why.contains("[judge]"), "{why}");
        assert_eq!(value.error_message.as_deref(), Some(why.as_str()));
    }
    let verdict = job.verdict.expect("a verdict");
    assert!(!verdict.passed, "{verdict:?}");
    assert_eq!((verdict.checks[0].evaluated_sims, verdict.checks[0].pass_rate), (0, None));
    assert!(verdict.failures.iter().any(|f| matches!(f, VerdictFailure::MetricNotEvaluated { .. })), "{verdict:?}");
    assert!(verdict.failures.iter().any(|f| matches!(f, VerdictFailure::IncompleteCoverage { .. })), "{verdict:?}");
}
