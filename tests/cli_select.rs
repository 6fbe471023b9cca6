//! Choosing test cases like `pytest -k`: `--only PATTERN` (a case-insensitive substring of the
//! flow, variant or persona name; several select their union) and `--rerun-failed JOB` (the
//! test cases that did not pass in that run), on `gate` against a real local service.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use cli::*;
use support::{Service, start};

/// The reschedule flow's three test cases (its happy path and both edge cases), judged on `check`.
async fn three_cases(service: &Service, name: &str, check: &str) {
    let mut input = plan_input(name, Some((check, 100.0)), 1);
    input.flows = Some(vec![
        serde_json::from_value(serde_json::json!({"id": RESCHEDULE_FLOW, "happyPath": true, "edgeCases": "ALL"}))
            .unwrap(),
    ]);
    create_plan(&service.client, &input).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_runs_the_test_cases_whose_names_hold_a_pattern() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    three_cases(&service, "Three cases", &always).await;

    let output =
        run(against(home.path(), &service).args(["gate", "-o", "json", "Three cases", "--only", "PRESSES 2"])).await;
    assert_exit(&output, 0);
    let report = json(&output);
    assert_eq!(report["simulations"].as_array().unwrap().len(), 1, "{report}");
    let job: uuid::Uuid = report["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(job).await.unwrap();
    let ran = job.simulation_jobs[0].customer_flow.as_ref().unwrap().variant_title.clone().unwrap();
    assert!(ran.contains("presses 2"), "{ran}");

    // Several patterns select their union.
    let output = run(against(home.path(), &service).args([
        "gate",
        "-o",
        "json",
        "Three cases",
        "--only",
        "presses 2",
        "--only",
        "tuesday",
    ]))
    .await;
    assert_exit(&output, 0);
    assert_eq!(json(&output)["simulations"].as_array().unwrap().len(), 2);

    // A pattern that chooses nothing is refused before anything runs, listing what there is.
    let output =
        run(against(home.path(), &service).args(["gate", "-o", "json", "Three cases", "--only", "no such case"])).await;
    assert_exit(&output, 2);
    let said = stderr(&output);
    assert!(said.contains("--only") && said.contains("Caller presses 2 to choose another time"), "{said}");
    assert!(!said.contains("started run plan job"), "nothing ran: {said}");
    // Each as flow · variant · the persona's display name, never its file name.
    assert!(
        said.contains(
            "Reschedule a cleaning with identity check · Patient moves a cleaning to a Tuesday morning · Dana Whitfield"
        ),
        "{said}"
    );
    assert!(!said.contains("dana-whitfield"), "{said}");
    // A persona is chosen by its display name too.
    let md = home.path().join("one.md");
    let output = run(against(home.path(), &service)
        .args(["gate", "-o", "json", "Three cases", "--only", "harold jennings"])
        .args(["--markdown", md.to_str().unwrap()]))
    .await;
    assert_exit(&output, 0);
    assert_eq!(json(&output)["simulations"].as_array().unwrap().len(), 1);
    // One simulation is said in the singular, in the report and on stderr.
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains(" · 1 simulation · "), "{md}");
    assert!(stderr(&output).contains("(1 simulation)"), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rerun_failed_runs_only_what_did_not_pass_in_that_run() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let never = duration_check(&service.client, false).await;
    three_cases(&service, "Failing cases", &never).await;
    // One test case fails on its own first.
    let first =
        run(against(home.path(), &service).args(["gate", "-o", "json", "Failing cases", "--only", "unsure"])).await;
    assert_exit(&first, 1);
    let first_job = json(&first)["runPlanJobId"].as_str().unwrap().to_owned();

    // Rerunning the plan's failures of that run runs that one test case, not the plan's three.
    let rerun =
        run(against(home.path(), &service).args(["gate", "-o", "json", "Failing cases", "--rerun-failed", &first_job]))
            .await;
    assert_exit(&rerun, 1);
    let job: uuid::Uuid = json(&rerun)["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(job).await.unwrap();
    assert_eq!(job.simulation_jobs.len(), 1);
    let ran = job.simulation_jobs[0].customer_flow.as_ref().unwrap().variant_title.clone().unwrap();
    assert!(ran.contains("unsure"), "{ran}");

    // Without a plan, a run of a saved plan reruns from that plan.
    let whole = run(against(home.path(), &service).args(["gate", "-o", "json", "Failing cases"])).await;
    assert_exit(&whole, 1);
    let whole_job = json(&whole)["runPlanJobId"].as_str().unwrap().to_owned();
    let rerun = run(against(home.path(), &service).args(["gate", "-o", "json", "--rerun-failed", &whole_job])).await;
    assert_exit(&rerun, 1);
    assert_eq!(json(&rerun)["simulations"].as_array().unwrap().len(), 3, "every case failed, every case reruns");
}

/// A rerun with nothing to run is refused (exit 2) naming the plan (name and id) and the run:
/// the run had no failures, or its failures are of another plan's test cases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_rerun_names_the_plan_and_the_run() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let (always, never) = (duration_check(&service.client, true).await, duration_check(&service.client, false).await);
    let happy = create_plan(&service.client, &plan_input("Happy only", Some((&always, 100.0)), 1)).await;
    let mut edges = plan_input("Edges only", Some((&never, 100.0)), 1);
    edges.flows = Some(vec![
        serde_json::from_value(serde_json::json!({"id": RESCHEDULE_FLOW, "happyPath": false, "edgeCases": "ALL"}))
            .unwrap(),
    ]);
    let edges = create_plan(&service.client, &edges).await;
    let job_of = async |plan: &str, code: i32| {
        let output = run(against(home.path(), &service).args(["gate", "-o", "json", plan])).await;
        assert_exit(&output, code);
        json(&output)["runPlanJobId"].as_str().unwrap().to_owned()
    };
    let (passed, failed) = (job_of("Happy only", 0).await, job_of("Edges only", 1).await);

    let refused = async |job: &str| {
        let output =
            run(against(home.path(), &service).args(["gate", "-o", "json", "Happy only", "--rerun-failed", job])).await;
        assert_exit(&output, 2);
        let said: serde_json::Value = serde_json::from_str(&stderr(&output)).unwrap();
        let said = said["message"].as_str().unwrap().to_owned();
        assert!(said.contains(&format!("plan \"Happy only\" (id {happy})")) && said.contains(job), "{said}");
        assert!(!said.contains("started run plan job"), "nothing ran: {said}");
        said
    };
    let said = refused(&passed).await;
    assert!(said.contains(&format!("run {passed} has no test case that did not pass")), "{said}");
    let said = refused(&failed).await;
    assert!(said.contains(&format!("run {failed} ran plan \"Edges only\" (id {edges})")), "{said}");
}

/// `--embedded --keep DIR` keeps the embedded service's data: later runs add to it, and
/// `--data-dir DIR` reads it (a job list, a diff of two kept runs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_embedded_runs_can_be_read_and_compared_later() {
    let home = tempfile::tempdir().unwrap();
    let kept = home.path().join("kept");
    let kept = kept.to_str().unwrap();
    let plan = "Brightsmile reschedule regression";
    let mut jobs = Vec::new();
    for _ in 0..2 {
        let output =
            run(switchboard(home.path()).args(["gate", "-o", "json", plan, "--embedded", "--keep", kept])).await;
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
        jobs.push(json(&output)["runPlanJobId"].as_str().unwrap().to_owned());
    }
    let listed = run(switchboard(home.path()).args(["job", "list", "--data-dir", kept, "-o", "json"])).await;
    assert_exit(&listed, 0);
    let ids: Vec<String> = json(&listed)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["simulationRunPlanJobId"].as_str().unwrap().to_owned())
        .collect();
    assert!(jobs.iter().all(|j| ids.contains(j)), "both kept runs listed: {ids:?}");
    let diff = run(switchboard(home.path()).args(["diff", &jobs[0], &jobs[1], "--data-dir", kept, "-o", "json"])).await;
    assert!(matches!(diff.status.code(), Some(0 | 1)), "{}", stderr(&diff));
    assert!(stdout(&diff).contains("\"UNCHANGED\"") || stdout(&diff).contains("\"FLAKY\""), "{}", stdout(&diff));
}

/// The `--only` example of `docs/cli.md`, as written, on the seeded plan (`--embedded` and `-o
/// json` added, to read its report).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_only_example_runs_the_two_cases_it_names() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let line = doc.lines().find(|l| l.contains("--only \"presses 2\"")).expect("the example is in docs/cli.md");
    let args: Vec<String> =
        line.trim()
            .trim_start_matches("switchboard ")
            .split('"')
            .enumerate()
            .flat_map(|(i, part)| {
                if i % 2 == 1 { vec![part.to_owned()] } else { part.split_whitespace().map(str::to_owned).collect() }
            })
            .collect();
    let home = tempfile::tempdir().unwrap();
    let output = run(switchboard(home.path()).args(&args).args(["--embedded", "-o", "json"])).await;
    assert!(matches!(output.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&output));
    let report = json(&output);
    let iterations = 3; // the seeded plan's
    assert_eq!(report["simulations"].as_array().unwrap().len(), 2 * iterations, "{report}");
}

/// A rerun of a run made with `--agent-url` (an inline copy of the saved plan) reruns what that
/// run ran: the copy's agent endpoint, not the saved plan's, and still as the plan's run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rerun_failed_of_an_inline_copy_dials_that_runs_agent() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let never = duration_check(&service.client, false).await;
    three_cases(&service, "Copied cases", &never).await;
    let url = format!("{}/demo/agent", service.base_url());
    let first = run(against(home.path(), &service).args([
        "gate",
        "-o",
        "json",
        "Copied cases",
        "--only",
        "unsure",
        "--agent-url",
        &url,
    ]))
    .await;
    assert_exit(&first, 1);
    let first: uuid::Uuid = json(&first)["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let first = service.client.get_run_plan_job(first).await.unwrap();
    let dialled = first.simulation_jobs[0].agent_endpoint.as_ref().unwrap().id;

    let rerun = run(against(home.path(), &service)
        .args(["gate", "-o", "json", "--rerun-failed"])
        .arg(first.simulation_run_plan_job_id.to_string()))
    .await;
    assert_exit(&rerun, 1);
    let job: uuid::Uuid = json(&rerun)["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(job).await.unwrap();
    assert_eq!(job.simulation_jobs.len(), 1, "the one failed test case of that run");
    let again = job.simulation_jobs[0].agent_endpoint.as_ref().unwrap().id;
    assert_eq!(again, dialled, "the copy's agent is dialled again, not the saved plan's endpoint");
    assert_eq!(job.simulation_run_plan_id, first.simulation_run_plan_id, "still one of the plan's runs");
}
