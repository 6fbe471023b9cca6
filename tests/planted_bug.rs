//! An agent with a planted bug fails for that reason, the fixed agent passes, and `diff` of the
//! two runs pairs every test case, shows the bug's check REGRESSED on the test case it hits,
//! and no other test case changes (issue 28).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use cli::*;
use serde_json::{Value, json};

/// The agent's build (with the bug or not) and what each call's caller said so far.
#[derive(Clone, Default)]
struct Desk {
    buggy: Arc<AtomicBool>,
    heard: Arc<Mutex<HashMap<String, Vec<String>>>>,
}

/// A front desk in its own words. The planted bug: it cannot find a booking under the name
/// "Sam Rivera", so that caller is never rebooked.
async fn front_desk(State(desk): State<Desk>, body: String) -> axum::Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap();
    let heard = body["message"].as_str().unwrap_or_default().to_lowercase();
    let call = body["session"].as_str().unwrap_or_default().to_owned();
    let earlier = {
        let mut calls = desk.heard.lock().unwrap();
        let lines = calls.entry(call).or_default();
        lines.push(heard.clone());
        lines.join(" ")
    };
    let lost = desk.buggy.load(Ordering::SeqCst) && earlier.contains("sam rivera");
    let text = if heard.is_empty() {
        "Hi, this is Alex at the front desk, how can I help you today?"
    } else if heard.contains("reschedule") || heard.contains("move") {
        "Sure thing. What's a detail I can pull up your file with, a birthday or a phone number?"
    } else if heard.contains("birth") || heard.contains("phone") {
        if lost {
            "Hmm, I can't find any booking under that name, so I can't change anything. Please call back during office hours."
        } else {
            "Got you. You're down for Monday at 9 AM. I can do Tuesday at 10 AM or Wednesday at 2 PM instead."
        }
    } else if heard.contains("first") && lost {
        "Sorry, there's still no booking under that name that I could move."
    } else if heard.contains("first") {
        "Done: you're now booked for Tuesday at 10 AM, and a text confirmation is on its way."
    } else {
        "You're welcome, have a great day, goodbye!"
    };
    axum::Json(json!({"text": text}))
}

const NEUTRAL_CALLER: &str = "78dc044a-3c54-51e0-9c7e-f7945dc73194";
const HURRIED_CALLER: &str = "2d993e02-f5d1-59a6-b156-b0b497be24b5";

/// Two test cases of one flow (two callers), three iterations each: enough for a fall from
/// 3/3 to 0/3 to be a regression.
fn plan() -> String {
    format!(
        "name: Front desk regression
direction: INBOUND
iterationCount: 3
maxSimulationDurationSeconds: 300
flows:
  - slug: appointment-reschedule-basic
    happyPath: true
    personaOverrideId: {NEUTRAL_CALLER}
    variables:
      customerName: Sam Rivera
      verificationDetail: my date of birth, May 2, 1990
  - slug: appointment-reschedule-basic
    happyPath: true
    personaOverrideId: {HURRIED_CALLER}
    variables:
      customerName: Jo Park
      verificationDetail: my phone number, 555 0100
metrics:
  - slug: task_completion
includeFlowMetrics: false
includeAutomaticMetrics: false
"
    )
}

/// The front desk agent served on a free port: its switch to the buggy build and its URL.
async fn serve_front_desk() -> (Desk, String) {
    let desk = Desk::default();
    let app = axum::Router::new().route("/turn", axum::routing::post(front_desk)).with_state(desk.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (desk, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_bug_regresses_only_the_test_case_it_hits() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let (desk, url) = serve_front_desk().await;
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan()).unwrap();
    let body = r#"{"message": "{{text}}", "session": "{{callId}}"}"#;
    let gate = || {
        let mut command = against(home.path(), &service);
        command.args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--agent-url", &url, "--agent-body", body]);
        command
    };

    let fixed = run(&mut gate()).await;
    assert_exit(&fixed, 0);
    desk.buggy.store(true, Ordering::SeqCst);
    let buggy = run(&mut gate()).await;
    assert_exit(&buggy, 1);
    let report = json(&buggy);
    for sim in report["simulations"].as_array().unwrap() {
        let sam = sim["name"].as_str().unwrap().contains("Neutral Caller");
        assert_eq!(sim["outcome"], if sam { "FAILED" } else { "PASSED" }, "{sim:#}");
        if sam {
            let why = sim["failedChecks"][0]["valueReasoning"].as_str().unwrap();
            assert!(why.contains("can't find any booking"), "it fails for the bug's reason: {why}");
        }
    }

    let (base, head) = (json(&fixed)["runPlanJobId"].clone(), json(&buggy)["runPlanJobId"].clone());
    let diff = run(against(home.path(), &service)
        .args(["diff", base.as_str().unwrap(), head.as_str().unwrap()])
        .args(["-o", "json"]))
    .await;
    let diff = json(&diff);
    let cases = diff["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "{diff:#}");
    for case in cases {
        assert_eq!(case["presence"], "BOTH", "every test case pairs: {case:#}");
        let sam = case["name"].as_str().unwrap().contains("Neutral Caller");
        assert_eq!(case["change"], if sam { "REGRESSED" } else { "UNCHANGED" }, "{case:#}");
        assert!(case["differences"].as_array().unwrap().is_empty(), "nothing the interface shows changed: {case:#}");
    }
}

/// The plan `docs/cli.md` gives for your own agent, as written: one iteration, too few for the
/// statistical test, yet a test case whose check went from passing to failing is REGRESSED,
/// never UNCHANGED, and fails `--fail-on-regression`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_plan_with_one_iteration_shows_the_planted_bug_regressed() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let (desk, url) = serve_front_desk().await;
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, yaml_block("cli.md", "name: My agent, nightly")).unwrap();
    let gate = || {
        let mut command = against(home.path(), &service);
        command.args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--agent-url", &url]);
        command
    };
    let fixed = run(&mut gate()).await;
    assert_exit(&fixed, 0);
    desk.buggy.store(true, Ordering::SeqCst);
    let buggy = run(&mut gate()).await;
    assert_exit(&buggy, 1);
    let (base, head) = (json(&fixed)["runPlanJobId"].clone(), json(&buggy)["runPlanJobId"].clone());
    let (base, head) = (base.as_str().unwrap(), head.as_str().unwrap());

    let output =
        run(against(home.path(), &service).args(["diff", base, head, "-o", "json", "--fail-on-regression"])).await;
    assert_exit(&output, 1);
    let diff = json(&output);
    let cases = diff["cases"].as_array().unwrap();
    assert!(!cases.is_empty() && cases.iter().all(|c| c["presence"] == "BOTH"), "every test case pairs: {diff:#}");
    let done = cases[0]["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Task completion").unwrap();
    assert_eq!(
        (done["base"]["evaluated"].as_u64(), done["head"]["evaluated"].as_u64()),
        (Some(1), Some(1)),
        "{done:#}"
    );
    assert_eq!(done["change"], "REGRESSED", "one iteration that flipped: {done:#}");
    assert_eq!(done["tooFewToTest"], true, "{done:#}");
    assert_eq!(cases[0]["change"], "REGRESSED", "{:#}", cases[0]);
    assert_eq!(diff["regressed"], true);

    let table = run(against(home.path(), &service).args(["diff", base, head, "-o", "table"])).await;
    let table = stdout(&table);
    assert!(table.contains("REGRESSED (every iteration flipped, too few to test)"), "{table}");
    let done: Vec<&str> = table.lines().filter(|l| l.contains("Task completion")).collect();
    assert!(!done.is_empty() && done.iter().all(|l| !l.contains("UNCHANGED")), "never unchanged: {table}");
}
