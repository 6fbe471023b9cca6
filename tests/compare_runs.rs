//! `switchboard diff` on runs that differ on purpose, against a real local service: the seeded
//! nightly history (the newest night's reference agent is a build with a regression on the
//! "presses 2" edge case; every night has a call whose booking is not saved, so one test case
//! disagrees with itself), a custom judged check whose prompt changes between two runs (a new
//! definition version), and two plans that share only the happy path. Every classification is
//! asserted: REGRESSED, FIXED, UNCHANGED, FLAKY, NEW, GONE, and a regression with a changed
//! metric version labelled as a possible judge change.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::time::Duration;

use cli::*;
use serde_json::Value;
use support::{Service, eventually, seeded, start_with};
use switchboard::api::ListQuery;
use switchboard::api::model::*;
use uuid::Uuid;

const PRESSES_2: &str = "Caller presses 2 to choose another time";

async fn service_with_history() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { seed_history: true, ..support::options(dir.path(), true) };
    start_with(options, dir).await
}

/// The seeded nightly plan's three jobs, oldest first, once each has ended.
async fn nights(service: &Service) -> Vec<Uuid> {
    let plan = seeded("run_plans", |p| p["name"] == SEEDED_PLAN)[0]["id"].as_str().unwrap().parse::<Uuid>().unwrap();
    eventually(Duration::from_secs(120), || async {
        let listed: Vec<RunPlanJob> = futures_util::TryStreamExt::try_collect(
            service.client.list_all("/v1/simulation/plan/jobs", ListQuery::default()),
        )
        .await
        .unwrap();
        let mut jobs: Vec<RunPlanJob> = listed.into_iter().filter(|j| j.simulation_run_plan_id == Some(plan)).collect();
        jobs.sort_by_key(|j| j.created_at.as_ref().and_then(Timestamp::parse));
        let ended = jobs.iter().all(|j| j.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal));
        (jobs.len() == 3 && ended).then(|| jobs.iter().map(|j| j.simulation_run_plan_job_id).collect())
    })
    .await
}

/// Runs a saved plan to its end; the job's id.
async fn run_to_end(service: &Service, plan: Uuid) -> Uuid {
    let started =
        service.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.expect("run starts");
    let id = started.simulation_run_plan_job_id;
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(())
    })
    .await;
    id
}

/// `switchboard diff BASE HEAD --output json --all`, its exit code and report.
async fn diff(home: &std::path::Path, service: &Service, base: Uuid, head: Uuid, extra: &[&str]) -> (i32, Value) {
    let output = run(against(home, service)
        .args(["diff", &base.to_string(), &head.to_string(), "--output", "json", "--all"])
        .args(extra))
    .await;
    let code = output.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 1, "diff ran: {}\n{}", stdout(&output), stderr(&output));
    (code, json(&output))
}

/// The test case whose name contains `name`.
fn case<'a>(report: &'a Value, name: &str) -> &'a Value {
    let cases = report["cases"].as_array().unwrap();
    cases.iter().find(|c| c["name"].as_str().unwrap().contains(name)).unwrap_or_else(|| {
        panic!("no test case {name:?} in {:#?}", cases.iter().map(|c| &c["name"]).collect::<Vec<_>>())
    })
}

/// The test cases of a report that ran in both runs, or in one (`presence`).
fn presence<'a>(report: &'a Value, presence: &str) -> Vec<&'a Value> {
    report["cases"].as_array().unwrap().iter().filter(|c| c["presence"] == presence).collect()
}

/// A test case's check by definition id.
fn check<'a>(case: &'a Value, id: &str) -> &'a Value {
    case["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metricDefinitionId"] == id)
        .unwrap_or_else(|| panic!("no check {id} on {}: {:#}", case["name"], case["checks"]))
}

/// Every (test case, check, change) of a report.
fn changes(report: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for case in report["cases"].as_array().unwrap() {
        for check in case["checks"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap().to_owned();
            out.push((name, check["name"].as_str().unwrap().to_owned(), check["change"].as_str().unwrap().to_owned()));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nightly_regression_is_regressed_its_reverse_fixed_and_a_flaky_case_kept_apart() {
    let service = service_with_history().await;
    let home = tempfile::tempdir().unwrap();
    let nights = nights(&service).await;
    let task_completion = seeded("metric_definitions", |d| d["slug"] == "task_completion")[0]["id"].clone();
    let task_completion = task_completion.as_str().unwrap();

    // Night 2 → night 3: the build that ignores a keypad choice fails "presses 2" on all three
    // iterations, where it passed all three; that is beyond chance (Fisher p = 0.05).
    let (code, report) = diff(home.path(), &service, nights[1], nights[2], &["--fail-on-regression"]).await;
    assert_eq!(code, 1, "--fail-on-regression exits 1 on a regression");
    assert_eq!(report["regressed"], true);
    let presses_2 = case(&report, PRESSES_2);
    let regressed = check(presses_2, task_completion);
    assert_eq!(regressed["change"], "REGRESSED", "{regressed:#}");
    assert_eq!(regressed["possibleJudgeChange"], false, "the judge did not change: the agent did");
    assert_eq!((regressed["base"]["passed"].as_u64(), regressed["head"]["passed"].as_u64()), (Some(3), Some(0)));
    assert_eq!(report["cases"][0]["name"], presses_2["name"], "the worst test case comes first");
    let reasons: Vec<&Value> =
        presses_2["headSimulations"].as_array().unwrap().iter().map(|s| &s["reasons"][task_completion]).collect();
    assert!(reasons.iter().all(|r| r.as_str().is_some_and(|r| r.contains("can't change it"))), "{reasons:#?}");
    // The injected regression, on its test case only: task completion, and the variant's own
    // expectation (after the press of 2 the build offers no other time to read back).
    let regressions: Vec<_> = changes(&report).into_iter().filter(|c| c.2 == "REGRESSED").collect();
    let regressed_checks: Vec<&str> = regressions.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(regressed_checks, ["Task completion", "Agent expectations"], "only the injected regression");
    let names = presses_2["name"].as_str().unwrap();
    assert!(regressions.iter().all(|c| c.0 == names), "on its own test case only: {regressions:#?}");

    // The same build two nights running: the calls are the same, so nothing regressed; the
    // test case whose iterations disagree (one booking not saved) is FLAKY, not UNCHANGED.
    let (code, report) = diff(home.path(), &service, nights[0], nights[1], &["--fail-on-regression"]).await;
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["regressed"], false);
    let all = changes(&report);
    assert!(all.iter().all(|c| c.2 == "UNCHANGED" || c.2 == "FLAKY"), "{all:#?}");
    assert!(all.iter().any(|c| c.2 == "FLAKY"), "a test case disagreeing with itself is flaky: {all:#?}");
    assert!(all.iter().any(|c| c.2 == "UNCHANGED"), "{all:#?}");
    for case in report["cases"].as_array().unwrap() {
        for check in case["checks"].as_array().unwrap() {
            let mixed = |side: &str| {
                let (p, n) = (check[side]["passed"].as_u64().unwrap(), check[side]["evaluated"].as_u64().unwrap());
                p != 0 && p != n
            };
            let flaky = check["change"] == "FLAKY";
            assert_eq!(flaky, mixed("base") || mixed("head"), "FLAKY exactly where iterations disagree: {check:#}");
            assert_eq!(check["flaky"], flaky);
        }
    }

    // Night 3 → night 2: the same test case, the other way, is FIXED; nothing regressed.
    let (code, report) = diff(home.path(), &service, nights[2], nights[1], &["--fail-on-regression"]).await;
    assert_eq!(code, 0);
    assert_eq!(check(case(&report, PRESSES_2), task_completion)["change"], "FIXED");

    // The hosted-style path (each call's metrics) reaches the same classifications, asked
    // for or because the service has no results read (a 404 there).
    let (_, by_results) = diff(home.path(), &service, nights[1], nights[2], &[]).await;
    let (_, call_by_call) = diff(home.path(), &service, nights[1], nights[2], &["--call-by-call"]).await;
    assert_eq!(by_results["head"]["readPath"], "RESULTS");
    assert_eq!(call_by_call["head"]["readPath"], "CALL_BY_CALL");
    assert_eq!(changes(&by_results), changes(&call_by_call));
    let hosted = support::proxy::without(&service.base_url(), |path| path.ends_with("/check-results")).await;
    let output = run(switchboard(home.path())
        .env("SWITCHBOARD_BASE_URL", &hosted)
        .env("SWITCHBOARD_API_KEY", service.running.api_key.expose())
        .args(["diff", &nights[1].to_string(), &nights[2].to_string(), "--output", "json", "--all"]))
    .await;
    let without_results = json(&output);
    assert_eq!(
        (without_results["base"]["readPath"].as_str(), without_results["head"]["readPath"].as_str()),
        (Some("CALL_BY_CALL"), Some("CALL_BY_CALL"))
    );
    assert_eq!(changes(&by_results), changes(&without_results));
    // The same test cases and simulations either way: the results read names each test case
    // as the job does.
    let names = |r: &Value| {
        r["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].clone(), c["headSimulations"].as_array().unwrap().len()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&by_results), names(&without_results));
    let reasons = |r: &Value| case(r, PRESSES_2)["headSimulations"].clone();
    assert_eq!(reasons(&by_results), reasons(&without_results), "the judge's reasons, either way");
    // On the local service the results read is all that is read of a run: with the job read
    // hidden, the diff is the same.
    let job_read = |path: &str| {
        let rest = path.strip_prefix("/v1/simulation/plan/job/").unwrap_or_default();
        !rest.is_empty() && !rest.contains('/')
    };
    let lean = support::proxy::without(&service.base_url(), job_read).await;
    let output = run(switchboard(home.path())
        .env("SWITCHBOARD_BASE_URL", &lean)
        .env("SWITCHBOARD_API_KEY", service.running.api_key.expose())
        .args(["diff", &nights[1].to_string(), &nights[2].to_string(), "--output", "json", "--all"]))
    .await;
    assert_exit(&output, 0);
    let without_job = json(&output);
    assert_eq!(without_job["head"]["readPath"], "RESULTS");
    assert_eq!(changes(&by_results), changes(&without_job));
    assert_eq!(names(&by_results), names(&without_job));
    assert_eq!(reasons(&by_results), reasons(&without_job));
    assert_eq!(without_job["base"]["startedAt"], by_results["base"]["startedAt"]);
    assert_eq!(without_job["checks"], by_results["checks"], "the pooled checks, versions and all");

    // Numeric metrics: mean, p50 and p95 in both runs, over every simulation; the same build
    // two nights running is within noise on each.
    let measures = by_results["measures"].as_array().unwrap();
    let duration = measures
        .iter()
        .find(|m| m["name"].as_str().is_some_and(|n| n.contains("Call duration")))
        .unwrap_or_else(|| panic!("{measures:#?}"));
    for side in ["base", "head"] {
        let spread = &duration[side];
        assert_eq!(spread["count"], by_results[side]["simulations"], "{duration:#}");
        let (p50, p95) = (spread["p50"].as_f64().unwrap(), spread["p95"].as_f64().unwrap());
        assert!(p50 > 0.0 && p50 <= p95, "{duration:#}");
    }
    let (_, same_build) = diff(home.path(), &service, nights[0], nights[1], &[]).await;
    for measure in same_build["measures"].as_array().unwrap() {
        assert_eq!(measure["beyondNoise"], false, "{measure:#}");
    }

    // Markdown for a pull request: the regression first among the test cases, the metrics table.
    let output = run(against(home.path(), &service).args([
        "diff",
        &nights[1].to_string(),
        &nights[2].to_string(),
        "--output",
        "markdown",
    ]))
    .await;
    assert_exit(&output, 0);
    let md = stdout(&output);
    assert!(md.starts_with("## ❌ diff · Brightsmile reschedule regression"), "{md}");
    assert!(md.contains("| Metric (mean / p50 / p95) |"), "{md}");
    let first = md
        .lines()
        .skip_while(|l| !l.starts_with("### Test cases"))
        .find(|l| l.starts_with("| REGRESSED") || l.starts_with("| FLAKY") || l.starts_with("| FIXED"));
    assert!(
        first.is_some_and(|l| l.starts_with("| REGRESSED") && l.contains(PRESSES_2) && l.contains("0 % (0/3)")),
        "{md}"
    );
    assert!(md.contains("unchanged test case checks not listed"), "{md}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flaky_ranks_the_case_that_disagrees_with_itself_first_and_counts_the_regression_as_a_flip() {
    let service = service_with_history().await;
    let home = tempfile::tempdir().unwrap();
    let nights = nights(&service).await;
    let task_completion = seeded("metric_definitions", |d| d["slug"] == "task_completion")[0]["id"].clone();
    let output =
        run(against(home.path(), &service).args(["flaky", SEEDED_PLAN, "--runs", "3", "--output", "json"])).await;
    assert_exit(&output, 0);
    let report = json(&output);
    let read: Vec<Uuid> =
        report["runPlanJobIds"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().parse().unwrap()).collect();
    assert_eq!(read, nights, "the three nights, oldest first");
    let checks = report["checks"].as_array().unwrap();
    let of = |name: &str| {
        checks
            .iter()
            .find(|c| c["testCase"].as_str().unwrap().contains(name) && c["metricDefinitionId"] == task_completion)
            .unwrap_or_else(|| panic!("no {name} in {checks:#?}"))
    };
    // "presses 2" passed twice, then failed on the regressed build: one flip of two
    // comparisons (nothing the interface shows changed between the nights).
    let presses_2 = of(PRESSES_2);
    assert_eq!((presses_2["flips"].as_u64(), presses_2["comparisons"].as_u64()), (Some(1), Some(2)), "{presses_2:#}");
    assert_eq!(presses_2["mixedRuns"], 0);
    let history: Vec<u64> =
        presses_2["history"].as_array().unwrap().iter().map(|r| r["passed"].as_u64().unwrap()).collect();
    assert_eq!(history, vec![3, 3, 0]);
    // The worst first: the least steady check leads, and it is one whose iterations disagreed.
    let stability = |c: &Value| c["stability"].as_f64().unwrap_or(2.0);
    assert!(checks.windows(2).all(|w| stability(&w[0]) <= stability(&w[1])), "worst first: {checks:#?}");
    assert!(checks[0]["mixedRuns"].as_u64().unwrap() > 0, "{:#}", checks[0]);
    assert!(stability(&checks[0]) < stability(presses_2));

    // The table: only unsteady checks, with each night's pass count.
    let output =
        run(against(home.path(), &service).args(["flaky", SEEDED_PLAN, "--runs", "3", "--output", "table"])).await;
    assert_exit(&output, 0);
    let text = stdout(&output);
    assert!(text.contains("STABILITY") && text.contains("HISTORY"), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains(PRESSES_2) && l.contains("Task completion"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("1 of 2") && line.contains("3/3 3/3 0/3"), "{line}");
    assert!(text.contains("steady test case checks not shown"), "{text}");
}

/// A run of a saved plan's inline copy (here narrowed with --only; --agent-url runs one too) is
/// one of the plan's runs: `job list --plan NAME` lists it and `flaky` counts it, and with fewer
/// than two runs `flaky` says what compares them instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_copy_of_a_saved_plan_is_listed_and_counted_under_its_name() {
    let home = tempfile::tempdir().unwrap();
    let kept = home.path().join("kept");
    let kept = kept.to_str().unwrap();
    let gate = ["gate", SEEDED_PLAN, "--only", "presses 2", "--embedded", "--keep", kept, "-o", "json"];
    let output = run(switchboard(home.path()).args(gate)).await;
    let job = json(&output)["runPlanJobId"].as_str().map(str::to_owned);
    let job = job.unwrap_or_else(|| panic!("the narrowed run ran: {}", stderr(&output)));

    let listed = ["job", "list", "--plan", SEEDED_PLAN, "--data-dir", kept, "-o", "json"];
    let output = run(switchboard(home.path()).args(listed)).await;
    assert_exit(&output, 0);
    let listed = json(&output);
    let ids: Vec<&str> =
        listed["data"].as_array().unwrap().iter().map(|j| j["simulationRunPlanJobId"].as_str().unwrap()).collect();
    assert_eq!(ids, [job.as_str()], "job list --plan lists the inline copy's run");

    let output = run(switchboard(home.path()).args(["flaky", SEEDED_PLAN, "--data-dir", kept, "-o", "json"])).await;
    assert_exit(&output, 0);
    assert_eq!(json(&output)["runPlanJobIds"], serde_json::json!([job]), "flaky counts the inline copy's run");
    let said = stderr(&output);
    assert!(said.contains("has 1 ended run(s)") && said.contains("switchboard diff"), "{said}");
}

/// A judged yes/no check of the agent's lines.
async fn judged_check(client: &switchboard::api::Client, prompt: &str) -> MetricDefinition {
    client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Agent says thanks".into()),
            metric_type: Some(MetricType::Boolean),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: Some(prompt.into()),
            ..Default::default()
        })
        .await
        .unwrap()
}

fn plan(name: &str, check: Uuid, edge_cases: bool) -> RunPlanInput {
    let mut flow = serde_json::json!({"id": RESCHEDULE_FLOW, "happyPath": true});
    if edge_cases {
        flow["edgeCases"] = "ALL".into();
    }
    serde_json::from_value(serde_json::json!({
        "name": name,
        "direction": "INBOUND",
        "iterationCount": 3,
        "maxSimulationDurationSeconds": 300,
        "flows": [flow],
        "agentEndpoints": [{"id": BRIGHTSMILE_ENDPOINT}],
        "metrics": [{"id": check}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_judge_prompt_is_a_possible_judge_change_and_test_cases_come_and_go() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let client = &service.client;
    let thanks = judged_check(client, "The agent thanks the caller for calling.").await;
    let id = thanks.id.to_string();
    let happy = create_plan(client, &plan("Happy path only", thanks.id, false)).await;
    let wide = create_plan(client, &plan("Happy path and edge cases", thanks.id, true)).await;
    let before = run_to_end(&service, happy).await;
    let wide_run = run_to_end(&service, wide).await;

    // Edge cases only one run ran are NEW in it and GONE from it; the shared happy path is
    // judged the same by the same judge on the same calls.
    let (code, report) = diff(home.path(), &service, before, wide_run, &["--fail-on-regression"]).await;
    assert_eq!(code, 0, "{report:#}");
    let all = changes(&report);
    let new: Vec<_> = all.iter().filter(|c| c.2 == "NEW").collect();
    assert!(!new.is_empty(), "{all:#?}");
    let shared = presence(&report, "BOTH");
    assert_eq!(shared.len(), 1, "only the happy path ran in both: {all:#?}");
    assert_eq!(check(shared[0], &id)["change"], "UNCHANGED", "{all:#?}");
    let happy_path = shared[0]["name"].as_str().unwrap().to_owned();
    assert!(new.iter().all(|c| c.0 != happy_path), "{all:#?}");
    assert_eq!(presence(&report, "NEW").len(), new.len(), "one check a test case: {all:#?}");
    let (_, report) = diff(home.path(), &service, wide_run, before, &[]).await;
    let all = changes(&report);
    let gone: Vec<_> = all.iter().filter(|c| c.2 == "GONE").collect();
    assert_eq!(gone.len(), new.len(), "{all:#?}");
    assert_eq!(presence(&report, "GONE").len(), gone.len(), "{all:#?}");

    // A new prompt is a new definition version: what fell is labelled as the judge's change.
    let update = MetricDefinitionUpdate {
        llm_prompt: Some("The agent offers the caller a free helicopter ride.".into()),
        change_reason: Some("a stricter judge".into()),
        ..Default::default()
    };
    let bumped = client.update_metric_definition(&id, &update).await.unwrap();
    assert_ne!(bumped.version_id, thanks.version_id, "a new version");
    let after = run_to_end(&service, happy).await;
    let output = run(against(home.path(), &service).args([
        "diff",
        &before.to_string(),
        &after.to_string(),
        "--output",
        "table",
    ]))
    .await;
    assert_exit(&output, 0);
    let table = stdout(&output);
    assert!(table.contains("possible judge change"), "{table}");
    let (code, report) = diff(home.path(), &service, before, after, &["--fail-on-regression"]).await;
    assert_eq!(code, 1);
    let fell = check(case(&report, &happy_path), &id);
    assert_eq!(fell["change"], "REGRESSED", "{fell:#}");
    assert_eq!(fell["possibleJudgeChange"], true);
    assert_eq!(fell["baseVersionId"], serde_json::json!(thanks.version_id));
    assert_eq!(fell["headVersionId"], serde_json::json!(bumped.version_id));
    let differences = case(&report, &happy_path)["differences"].as_array().unwrap();
    assert!(differences.iter().any(|d| d["what"] == "METRIC_VERSION"), "{differences:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_has_not_ended_is_refused_never_compared() {
    // Calls at real speed: the run is still going for minutes, well past this test.
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        sim_speed: switchboard::service::SimSpeed::Factor(1.0),
        ..support::options(dir.path(), true)
    };
    let service = start_with(options, dir).await;
    let home = tempfile::tempdir().unwrap();
    let thanks = judged_check(&service.client, "The agent thanks the caller for calling.").await;
    let plan = create_plan(&service.client, &plan("Still going", thanks.id, false)).await;
    let started = service.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    let job = started.simulation_run_plan_job_id.to_string();
    let output = run(against(home.path(), &service).args(["diff", &job, &job, "--output", "table"])).await;
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("has not ended"), "{}", stderr(&output));
    assert_eq!(stdout(&output), "", "no comparison is printed");
    let still = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
    assert!(!still.has_ended(), "the run was still going when refused");
}

/// A boolean check the offline judge abstains on (no line can say whether an agent sounded
/// sincere): its slug.
async fn sincere_check(service: &Service) -> String {
    let sincere = MetricDefinitionInput {
        name: Some("Sounds sincere".into()),
        metric_type: Some(MetricType::Boolean),
        calculation_type: Some(CalculationType::LlmJudge),
        llm_prompt: Some("Did the agent sound sincere and warm throughout?".into()),
        ..Default::default()
    };
    service.client.create_metric_definition(&sincere).await.unwrap().slug.unwrap()
}

/// A check the offline judge cannot decide leaves every simulation NOT_EVALUATED: the verdict
/// (`gate`) then counts no simulation for any check, not even the duration check each one
/// has a value for, and `diff` counts the same way (the one rule both use).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_counts_a_not_evaluated_simulation_for_no_check_as_the_gate_does() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let sincere = sincere_check(&service).await;
    let mut input = plan_input("Half judged", Some((&always, 100.0)), 2);
    input.metrics.get_or_insert_default().push(MetricReference::by_slug(&sincere));
    create_plan(&service.client, &input).await;
    let mut gates = Vec::new();
    for _ in 0..2 {
        let output = run(against(home.path(), &service).args(["gate", "Half judged", "-o", "json"])).await;
        assert_exit(&output, 1);
        gates.push(json(&output));
    }
    let job = |g: &Value| g["runPlanJobId"].as_str().unwrap().parse::<Uuid>().unwrap();
    let (code, report) = diff(home.path(), &service, job(&gates[0]), job(&gates[1]), &[]).await;
    assert_eq!(code, 0, "{report:#}");
    for (side, gate) in [("base", &gates[0]), ("head", &gates[1])] {
        let sims = gate["simulations"].as_array().unwrap();
        let unscored = sims.iter().filter(|s| s["outcome"] == "NOT_EVALUATED").count();
        assert!(unscored > 0, "the judge abstained: {gate:#}");
        assert_eq!(report[side]["notScored"], unscored, "{side}: {:#}", report[side]);
        for check in gate["verdict"]["checks"].as_array().unwrap() {
            let pooled = report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["metricDefinitionId"] == check["metricDefinitionId"]);
            let (passed, evaluated) = pooled
                .map_or((0, 0), |c| (c[side]["passed"].as_u64().unwrap(), c[side]["evaluated"].as_u64().unwrap()));
            assert_eq!(
                (passed, evaluated),
                (check["passedSims"].as_u64().unwrap(), check["evaluatedSims"].as_u64().unwrap()),
                "{side} {}: diff {pooled:?} vs gate {check:#}",
                check["metricName"]
            );
        }
    }
    let output = run(against(home.path(), &service).args([
        "diff",
        &job(&gates[0]).to_string(),
        &job(&gates[1]).to_string(),
        "--output",
        "table",
    ]))
    .await;
    assert!(stdout(&output).contains("not scored: they count for no check"), "{}", stdout(&output));
}

/// Two runs of the same test case, each ended: the base judged on the duration check alone
/// (every simulation scored), the head's plan adding a check the offline judge abstains on,
/// so that each head simulation is NOT_EVALUATED and counts for no check. (base, head).
async fn scored_then_unscored(service: &Service, home: &std::path::Path) -> (Uuid, Uuid) {
    let always = duration_check(&service.client, true).await;
    let sincere = sincere_check(service).await;
    create_plan(&service.client, &plan_input("Scored", Some((&always, 100.0)), 2)).await;
    let mut head = plan_input("Unscored", Some((&always, 100.0)), 2);
    head.metrics.get_or_insert_default().push(MetricReference::by_slug(&sincere));
    create_plan(&service.client, &head).await;
    let mut jobs = Vec::new();
    for (plan, exit) in [("Scored", 0), ("Unscored", 1)] {
        let output = run(against(home, service).args(["gate", plan, "-o", "json"])).await;
        assert_exit(&output, exit);
        let report = json(&output);
        if plan == "Unscored" {
            let sims = report["simulations"].as_array().unwrap();
            assert!(sims.iter().all(|s| s["outcome"] == "NOT_EVALUATED"), "the judge abstained on each: {report:#}");
        }
        jobs.push(report["runPlanJobId"].as_str().unwrap().parse::<Uuid>().unwrap());
    }
    (jobs[0], jobs[1])
}

/// A check scored in the base run whose test case is NOT_EVALUATED in the head run (another
/// metric abstained) pairs, reads UNSCORED, and fails `--fail-on-regression`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_scored_in_the_base_and_not_in_the_head_fails_the_diff() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let (base, head) = scored_then_unscored(&service, home.path()).await;
    let output = run(against(home.path(), &service).args([
        "diff",
        &base.to_string(),
        &head.to_string(),
        "-o",
        "json",
        "--fail-on-regression",
    ]))
    .await;
    assert_exit(&output, 1);
    let report = json(&output);
    assert!(presence(&report, "GONE").is_empty() && presence(&report, "NEW").is_empty(), "pairs: {report:#}");
    let case = &report["cases"][0];
    let duration = case["checks"].as_array().unwrap().iter().find(|c| c["base"]["evaluated"] == 2).unwrap();
    assert_eq!(duration["change"], "UNSCORED", "{case:#}");
    assert_eq!(report["unscored"], true);
    assert!(stderr(&output).contains("no verdict in the head run (UNSCORED)"), "{}", stderr(&output));
}

/// Runs given newest first read backwards (a check that lost its verdict reads as NEW): the
/// CLI says so on stderr as the console does on screen, and only then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_diff_whose_base_ran_after_its_head_warns_that_it_reads_backwards() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let (earlier, later) = scored_then_unscored(&service, home.path()).await;
    let diff = async |base: Uuid, head: Uuid| {
        let output =
            run(against(home.path(), &service).args(["diff", &base.to_string(), &head.to_string(), "-o", "json"]))
                .await;
        assert_exit(&output, 0);
        stderr(&output)
    };
    let backwards = diff(later, earlier).await;
    assert!(backwards.contains("⚠ the base ran after the head: changes read backwards"), "{backwards}");
    let forwards = diff(earlier, later).await;
    assert!(!forwards.contains("backwards"), "{forwards}");
}

/// An argument that is not a run plan job id says what it wants, as `job get` does, never
/// where the UUID parser stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_explains_an_argument_that_is_not_a_run_id() {
    let home = tempfile::tempdir().unwrap();
    let job = "3fb5aeb0-0000-4000-8000-000000000000";
    for args in [["x", job], [job, "ceb24c6f"]] {
        let output = run(switchboard(home.path()).arg("diff").args(args)).await;
        assert_exit(&output, 2);
        let said = stderr(&output);
        assert!(said.contains("run plan job id") && said.contains("switchboard job list"), "{said}");
        assert!(!said.contains("invalid character") && !said.contains("found `"), "{said}");
    }
}
