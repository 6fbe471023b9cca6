//! The example plans of `docs/cli.md` and `docs/ci.md` run exactly as written and pass: against
//! an agent written here that never repeats a step's words (the offline caller speaks its lines
//! whatever the agent's wording, the flow's variables reach what the caller says, and the
//! offline judge reads the agent's own words), and, for the reference agent's example, against
//! the built-in reference agent.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use cli::*;
use serde_json::{Value, json};

/// The example plan of docs/cli.md that tests your own agent.
fn documented_plan() -> String {
    yaml_block("cli.md", "name: My agent, nightly")
}

/// Each call's turn so far, and what the caller said in it.
#[derive(Clone, Default)]
struct Calls(Arc<Mutex<HashMap<String, Vec<String>>>>);

/// A front desk in its own words: a greeting that shares no word with "Agent greets the caller",
/// then it follows what it hears.
async fn front_desk(State(calls): State<Calls>, body: String) -> axum::Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap();
    let heard = body["message"].as_str().unwrap_or_default().to_lowercase();
    let call = body["session"].as_str().unwrap_or_default().to_owned();
    calls.0.lock().unwrap().entry(call).or_default().push(heard.clone());
    let text = if heard.is_empty() {
        "Hi, this is Sam at the front desk, how can I help you today?"
    } else if heard.contains("reschedule") || heard.contains("move") {
        "Sure thing. What's a detail I can pull up your file with, a birthday or a phone number?"
    } else if heard.contains("birth") || heard.contains("phone") || heard.contains("it's") {
        "Got you. You're down for Monday at 9. I can do Tuesday at 10 or Wednesday at 2 instead."
    } else if heard.contains("first") || heard.contains("works") {
        "Done: you're now on Tuesday at 10, and a text confirmation is on its way."
    } else {
        "You're welcome, have a great day, goodbye!"
    };
    axum::Json(json!({"text": text}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_plan_runs_as_written_against_an_agent_in_its_own_words() {
    let calls = Calls::default();
    let app = axum::Router::new().route("/turn", axum::routing::post(front_desk)).with_state(calls.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, documented_plan()).unwrap();
    // The file as written; only its agent's address is this test's (flags win over `agent:`).
    let output = run(switchboard(home.path()).args([
        "gate",
        "-o",
        "json",
        "-f",
        file.to_str().unwrap(),
        "--embedded",
        "--agent-url",
        &url,
    ]))
    .await;
    let report = json(&output);
    let heard = calls.0.lock().unwrap().clone();
    assert!(!heard.is_empty(), "the agent was dialled");
    for (call, lines) in &heard {
        assert!(lines.iter().any(|l| l.contains("sam rivera")), "the caller's name was filled in {call}: {lines:#?}");
        assert!(lines.iter().all(|l| !l.contains("{{")), "no placeholder left in {call}: {lines:#?}");
        assert!(lines.iter().any(|l| l.contains("first option")), "the caller went through its script: {lines:#?}");
    }
    for sim in report["simulations"].as_array().unwrap() {
        assert_eq!(sim["status"], "COMPLETED", "{sim}");
    }
    // The offline judge reads this agent's own wording: the plan passes.
    assert_exit(&output, 0);
    assert_eq!(report["result"], "PASSED", "{report:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_agent_example_passes_as_written() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("reference.yaml");
    std::fs::write(&file, yaml_block("cli.md", "the reference agent answers it")).unwrap();
    let output =
        run(switchboard(home.path()).args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--embedded"])).await;
    assert_exit(&output, 0);
    let report = json(&output);
    assert_eq!(report["result"], "PASSED", "{report:#}");
    for sim in report["simulations"].as_array().unwrap() {
        assert_eq!(sim["outcome"], "PASSED", "{sim:#}");
    }
}

/// Each simulation's test case, outcome and conversation, in a stable order.
fn outcomes(report: &Value) -> Vec<(String, String, Vec<String>)> {
    let mut out: Vec<(String, String, Vec<String>)> = report["simulations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let said = s["transcript"].as_array().into_iter().flatten().map(|t| t["text"].to_string()).collect();
            (s["name"].to_string(), s["outcome"].to_string(), said)
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_plans_that_dial_the_reference_agent_over_http_give_the_same_verdict_every_run() {
    let plans = yaml_blocks("cli.md", "/demo/agent");
    assert!(!plans.is_empty(), "docs/cli.md has an agent: plan that dials the reference agent");
    for plan in plans {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("reference-http.yaml");
        std::fs::write(&file, &plan).unwrap();
        let mut runs = Vec::new();
        for _ in 0..2 {
            // As written: the file's own agent: block, over HTTP, on an embedded service.
            let output =
                run(switchboard(home.path()).args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--embedded"]))
                    .await;
            assert_exit(&output, 0);
            let report = json(&output);
            assert_eq!(report["result"], "PASSED", "as docs/cli.md says: {report:#}");
            runs.push(outcomes(&report));
        }
        assert!(!runs[0].is_empty(), "simulations ran");
        assert_eq!(runs[0], runs[1], "two runs of {plan} give the same outcomes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ci_plan_passes_as_written_against_an_agent_in_its_own_words() {
    let app = axum::Router::new().route("/turn", axum::routing::post(front_desk)).with_state(Calls::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, yaml_block("ci.md", "name: Front desk, every pull request")).unwrap();
    let body = r#"{"message": "{{text}}", "session": "{{callId}}"}"#;
    let output = run(switchboard(home.path())
        .args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--embedded"])
        .args(["--agent-url", &url, "--agent-body", body]))
    .await;
    assert_exit(&output, 0);
    assert_eq!(json(&output)["result"], "PASSED");
}
