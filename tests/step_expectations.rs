//! An AGENT_TURN step written in words is an expectation judged after the call (issue 28): one
//! `step_expectations` value per step the caller reached, in script order, named by the step,
//! shown beside the checks and never one of them.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::time::Duration;

use support::{dental, eventually, id_of, seeded, start};
use switchboard::api::model::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_turn_step_reached_is_judged_after_the_call_as_information() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    let plan = RunPlanInput {
        name: Some("Steps".into()),
        direction: Some(Direction::Inbound),
        max_simulation_duration_seconds: Some(600),
        flows: Some(vec![FlowSelection { id: Some(id_of(&flow)), happy_path: Some(true), ..Default::default() }]),
        agent_endpoints: Some(vec![IdRef { id: id_of(&endpoint) }]),
        metrics: Some(vec![MetricReference::by_slug("call_duration")]),
        ..Default::default()
    };
    let started = service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;

    // The happy path's AGENT_TURN steps with words, in script order (the first alternative of
    // each branch, the flow being DETERMINISTIC).
    let steps = flow["happyPath"]["steps"]
        .as_array()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| flow["graph"].as_array().unwrap());
    let mut expected = Vec::new();
    first_path(steps, &mut expected);
    assert!(expected.len() >= 2, "the seeded flow has AGENT_TURN steps: {expected:?}");

    let simulation = &job.simulation_jobs[0];
    let call = simulation.call_id.unwrap();
    let groups = service.client.call_metrics(call, ValueStatusFilter::All).await.unwrap();
    let group = groups.iter().find(|g| g.slug.as_deref() == Some("step_expectations")).expect("step values");
    let named: Vec<String> = group
        .values
        .iter()
        .map(|v| {
            let text = v.value_reasoning.clone().or(v.error_message.clone()).unwrap_or_default();
            text.split_once(") \"").map(|(step, _)| format!("{step})")).unwrap_or(text)
        })
        .collect();
    assert_eq!(named, expected, "one value per step reached, in order: {:#?}", group.values);
    assert!(group.values.iter().any(|v| v.capture_status == Some(CaptureStatus::Success)), "{:#?}", group.values);

    // Information, not a check: the verdict never names it, and no failed check is it.
    let verdict = job.verdict.unwrap();
    assert!(verdict.checks.iter().all(|c| c.metric_definition_id != group.metric_definition_id));
    assert!(simulation.failed_checks.iter().all(|f| f.metric_definition_id != group.metric_definition_id));
}

/// The AGENT_TURN steps with words along the first alternative of every branch.
fn first_path(steps: &[serde_json::Value], out: &mut Vec<String>) {
    for step in steps {
        if step["type"] == "AGENT_TURN" && step["content"].as_str().is_some_and(|c| !c.trim().is_empty()) {
            out.push(format!("step \"{}\" (AGENT_TURN)", step["ref"].as_str().unwrap()));
        }
        let next = step["steps"].as_array().map(|s| &s[..s.len().min(1)]).unwrap_or_default();
        first_path(next, out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reports_show_each_simulations_step_results_beside_the_checks() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let never = cli::duration_check(&service.client, false).await;
    let mut plan = cli::plan_input("Steps in reports", Some((&never, 100.0)), 1);
    plan.include_automatic_metrics = Some(true);
    cli::create_plan(&service.client, &plan).await;
    let (junit, markdown) = (home.path().join("junit.xml"), home.path().join("gate.md"));
    let output = cli::run(cli::against(home.path(), &service).args([
        "gate",
        "-o",
        "json",
        "Steps in reports",
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]))
    .await;
    cli::assert_exit(&output, 1);
    let report = cli::json(&output);
    let steps = report["simulations"][0]["steps"].as_array().expect("step results on the simulation");
    assert!(steps.len() >= 2, "{steps:#?}");
    assert!(steps[0]["reasoning"].as_str().unwrap().starts_with("step \"greet\" (AGENT_TURN)"), "{steps:#?}");
    assert!(
        steps
            .iter()
            .all(|s| ["MET", "NOT_MET", "NOT_APPLICABLE", "UNDECIDED"].contains(&s["result"].as_str().unwrap()))
    );
    let step_metric = id_of(&seeded("metric_definitions", |m| m["slug"] == "step_expectations")[0]).to_string();
    let checks = report["verdict"]["checks"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["metricDefinitionId"] != step_metric.as_str()), "not a check: {checks:#?}");

    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.contains("the script's steps, judged after the call</summary>") && md.contains("✓ step"), "{md}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("The script's steps, judged after the call (information, not checks):"), "{xml}");
}
