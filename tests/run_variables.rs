//! `{{name}}` in a flow's lines is filled from the flow selection's variables however the flow
//! was chosen: by id or by slug (a selection by slug lost them, and the caller said "My name is
//! {{customerName}}").
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::time::Duration;

use support::{eventually, id_of, seeded, start};
use switchboard::api::model::*;

#[tokio::test]
async fn a_flow_chosen_by_slug_speaks_its_selections_variables() {
    let service = start(true).await;
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let plan: RunPlanInput = serde_json::from_value(serde_json::json!({
        "name": "By slug",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "agentEndpoints": [{"id": endpoint}],
        "flows": [{
            "slug": "appointment-reschedule-basic",
            "happyPath": true,
            "variables": {"customerName": "Sam Tester", "verificationDetail": "May 2, 1990"}
        }],
        "metrics": [{"slug": "call_duration"}],
    }))
    .unwrap();
    let started = service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let simulation = &job.simulation_jobs[0];
    let kept = &simulation.run_plan.as_ref().unwrap().variables;
    assert_eq!(kept.get("customerName").map(String::as_str), Some("Sam Tester"), "{kept:?}");
    let transcript = service.client.call_transcript(simulation.call_id.unwrap()).await.unwrap();
    let caller: Vec<&str> = transcript
        .entries
        .iter()
        .filter(|e| e.role == Some(ParticipantType::Customer))
        .map(|e| e.text.as_str())
        .collect();
    assert!(caller.iter().any(|line| line.contains("Sam Tester")), "{caller:#?}");
    assert!(caller.iter().all(|line| !line.contains("{{")), "every placeholder filled: {caller:#?}");
}

/// A plan by slug that leaves the flow's `{{customerName}}` and `{{verificationDetail}}` unset.
fn plan_without_variables(endpoint: uuid::Uuid) -> serde_json::Value {
    serde_json::json!({
        "name": "Unfilled",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "agentEndpoints": [{"id": endpoint}],
        "flows": [{"slug": "appointment-reschedule-basic", "happyPath": true}],
        "metrics": [{"slug": "call_duration"}],
    })
}

#[tokio::test]
async fn a_run_that_would_leave_a_placeholder_unfilled_is_refused_before_anything_runs() {
    let service = start(true).await;
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let plan: RunPlanInput = serde_json::from_value(plan_without_variables(endpoint)).unwrap();
    let jobs = || async {
        let page: CursorPage<RunPlanJob> = service
            .client
            .list_page(switchboard::api::operations::routes::RUN_PLAN_JOBS, &Default::default())
            .await
            .unwrap();
        page.data.len()
    };
    let jobs_before = jobs().await;

    let refused = service.client.run(&RunRequest { plan: Some(plan.clone()), ..Default::default() }).await.unwrap_err();
    let body = refused.api().expect("the spec's error body");
    assert_eq!(refused.status(), Some(400));
    assert_eq!(body.param.as_deref(), Some("variables.customerName"), "{body:?}");
    assert!(body.message.contains("uses {{customerName}}") && body.message.contains("CUSTOMER"), "{}", body.message);
    let violations = body.details.as_ref().unwrap()["violations"].as_array().unwrap().clone();
    let params: Vec<&str> = violations.iter().map(|v| v["param"].as_str().unwrap()).collect();
    assert_eq!(params, ["variables.customerName", "variables.verificationDetail"], "every unfilled one at once");
    assert_eq!(jobs().await, jobs_before, "nothing was started");

    // Run variables fill them: the same plan runs.
    let variables = RunVariables::Flat(
        [("customerName", "Sam Tester"), ("verificationDetail", "May 2, 1990")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    );
    let request = RunRequest { plan: Some(plan), variables: Some(variables), ..Default::default() };
    service.client.run(&request).await.expect("filled by the run's variables");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_exits_2_naming_the_unfilled_variable() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let file = home.path().join("plan.json");
    std::fs::write(&file, plan_without_variables(endpoint).to_string()).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("customerName") && stderr.contains("verificationDetail"), "{stderr}");
}

/// A `--var` no flow of the plan uses is a warning (a typo fills nothing); one a flow uses is
/// not. The run goes ahead either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_var_no_flow_uses_is_a_warning() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let file = home.path().join("plan.json");
    std::fs::write(&file, plan_without_variables(endpoint).to_string()).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args([
        "run",
        "-f",
        file.to_str().unwrap(),
        "--var",
        "customerName=Dana",
        "--var",
        "verificationDetail=1990-04-02",
        "--var",
        "custmerName=Dana",
    ]))
    .await;
    cli::assert_exit(&output, 0);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("warning: --var custmerName: no flow this plan runs uses {{custmerName}}"), "{stderr}");
    assert!(!stderr.contains("--var customerName") && !stderr.contains("--var verificationDetail"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_reference_of_a_plan_file_is_named_at_once_with_its_line() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let file = home.path().join("plan.yaml");
    let plan = format!(
        "name: Bad\ndirection: INBOUND\nmaxSimulationDurationSeconds: 300\nagentEndpoints:\n  - id: {endpoint}\nflows:\n  - slug: no-such-flow\n    happyPath: true\nmetrics:\n  - slug: task_completion\n  - slug: no_such_metric\n"
    );
    std::fs::write(&file, plan).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("plan.yaml:7: plan.flows[0].slug: no customer flow no-such-flow"), "{stderr}");
    assert!(stderr.contains("plan.yaml:11: ") && stderr.contains("no metric definition no_such_metric"), "{stderr}");
}

#[tokio::test]
async fn each_test_case_missing_a_name_is_named() {
    let service = start(true).await;
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let mut plan = plan_without_variables(endpoint);
    // The same flow twice, for two callers: both test cases lack both names.
    let second = serde_json::json!({"slug": "appointment-reschedule-basic", "happyPath": true,
        "personaOverrideId": "2d993e02-f5d1-59a6-b156-b0b497be24b5"});
    plan["flows"].as_array_mut().unwrap().push(second);
    let plan: RunPlanInput = serde_json::from_value(plan).unwrap();
    let refused = service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap_err();
    let violations = refused.api().unwrap().details.as_ref().unwrap()["violations"].as_array().unwrap().clone();
    assert_eq!(violations.len(), 4, "two names × two test cases: {violations:#?}");
    let second_case = violations.iter().filter(|v| v["message"].as_str().unwrap().starts_with("flows[1]: ")).count();
    assert_eq!(second_case, 2, "each names where the plan chose its test case: {violations:#?}");
}

/// A misspelt member of a plan file and a flow slug that is nearly one the service has each
/// get the name they were likely meant to be, at their line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelt_member_or_flow_slug_of_a_plan_file_gets_did_you_mean() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let file = home.path().join("plan.yaml");
    let plan = |flow: &str, extra: &str| {
        format!(
            "name: Typos\ndirection: INBOUND\nmaxSimulationDurationSeconds: 300\nagentEndpoints:\n  - id: {endpoint}\nflows:\n  - slug: {flow}\n    happyPath: true\n{extra}metrics:\n  - slug: call_duration\n"
        )
    };
    std::fs::write(&file, plan("appointment-reschedule-basic", "    edgeCase: ALL\n    variabels: {}\n")).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("plan.yaml:9: unknown field flows[0].edgeCase; did you mean `edgeCases`?"), "{stderr}");
    assert!(stderr.contains("plan.yaml:10: unknown field flows[0].variabels; did you mean `variables`?"), "{stderr}");

    std::fs::write(&file, plan("appointment-reschedule-basc", "")).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("plan.yaml:7: "), "at the slug's line: {stderr}");
    assert!(
        stderr.contains(
            "plan.flows[0].slug: no customer flow appointment-reschedule-basc; did you mean \
             `appointment-reschedule-basic`?"
        ),
        "{stderr}"
    );
}

/// A plan file whose flow leaves a `{{variable}}` unfilled is refused at the line of the flow
/// selection that needs it, as the file's other refusals are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfilled_variable_of_a_plan_file_is_named_at_its_flow_selections_line() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let file = home.path().join("plan.yaml");
    let plan = format!(
        "name: Unfilled\ndirection: INBOUND\nmaxSimulationDurationSeconds: 300\nagentEndpoints:\n  - id: {endpoint}\nflows:\n  - slug: appointment-reschedule-basic\n    happyPath: true\n    variables:\n      verificationDetail: May 2, 1990\nmetrics:\n  - slug: call_duration\n"
    );
    std::fs::write(&file, plan).unwrap();
    let output = cli::run(cli::against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    let stderr = cli::stderr(&output);
    assert!(stderr.contains("plan.yaml:7: ") && stderr.contains("flows[0]: flow "), "the selection's line: {stderr}");
    assert!(stderr.contains("uses {{customerName}}"), "{stderr}");
    assert!(!stderr.contains("verificationDetail}}"), "what the selection fills is not refused: {stderr}");
}
