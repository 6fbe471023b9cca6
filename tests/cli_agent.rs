//! Testing your own agent: `gate -f plan.yaml --agent-url …` dials a small HTTP agent started
//! here, through an HTTP request definition made on the fly, for every turn of the simulated
//! caller; on a service with a check the gate then judges the run as usual, and `--embedded`
//! does the same with no service at all.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::HeaderMap;
use cli::*;
use serde_json::{Value, json};
use switchboard::api::model::ValueStatusFilter;

#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<(HeaderMap, Value)>>>);

/// The agent under test: answers every turn, and keeps what it was sent.
async fn turn(State(heard): State<Heard>, headers: HeaderMap, body: String) -> axum::Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    heard.0.lock().unwrap().push((headers, body));
    axum::Json(json!({"text": "Thanks for calling. You're booked for Tuesday at 9 AM and confirmed. Anything else?"}))
}

async fn agent() -> (String, Heard) {
    let heard = Heard::default();
    let app = axum::Router::new().route("/turn", axum::routing::post(turn).put(turn)).with_state(heard.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, heard)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gate_dials_the_users_agent_and_judges_the_run() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let (url, heard) = agent().await;
    // No agentEndpoints: --agent-url supplies the endpoint.
    let plan = format!(
        "name: My agent\ndirection: INBOUND\niterationCount: 2\nmaxSimulationDurationSeconds: 120\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: {always}\n    minPassRate: 100\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let output = run(against(home.path(), &service)
        .args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--agent-url", &url])
        .args(["--agent-header", "X-Agent-Key: k-123", "--agent-name", "Front desk bot"]))
    .await;
    assert_exit(&output, 0);
    let report = json(&output);
    assert_eq!(report["result"], "PASSED");
    assert_eq!(report["planName"], "My agent");
    for sim in report["simulations"].as_array().unwrap() {
        assert_eq!(sim["status"], "COMPLETED", "{sim}");
    }

    let heard = heard.0.lock().unwrap().clone();
    assert!(heard.len() >= 2, "the agent answered every simulation: {} requests", heard.len());
    let (headers, greeting) = &heard[0];
    assert_eq!(headers["x-agent-key"], "k-123");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(
        (greeting["text"].as_str(), greeting["turn"].as_u64()),
        (Some(""), Some(0)),
        "turn 0 asks for the greeting: {greeting}"
    );
    assert!(greeting["callId"].as_str().is_some_and(|c| !c.is_empty()), "{greeting}");
    assert_eq!(greeting["agent"], "Front desk bot");
    // Simulations run side by side, so turns of different calls interleave: each call keeps
    // one call id across its turns.
    let greetings: Vec<&Value> = heard.iter().map(|(_, b)| b).filter(|b| b["turn"] == 0).collect();
    assert_eq!(greetings.len(), 2, "one greeting per simulation");
    for greeting in greetings {
        let same_call = heard.iter().map(|(_, b)| b).find(|b| b["turn"] == 1 && b["callId"] == greeting["callId"]);
        let caller = same_call.unwrap_or_else(|| panic!("a second turn of call {}", greeting["callId"]));
        assert!(caller["text"].as_str().is_some_and(|t| !t.is_empty()), "what the caller said: {caller}");
    }

    // What the agent said is on the call.
    let call: uuid::Uuid = report["simulations"][0]["callId"].as_str().unwrap().parse().unwrap();
    let transcript = service.client.call_transcript(call).await.unwrap();
    assert!(transcript.entries.iter().any(|e| e.text.contains("You're booked for Tuesday")), "{transcript:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_gate_tests_an_agent_offline_with_the_request_shape_from_the_file() {
    let home = tempfile::tempdir().unwrap();
    let (url, heard) = agent().await;
    let plan = format!(
        r#"name: Offline
direction: INBOUND
maxSimulationDurationSeconds: 120
flows:
  - id: {RESCHEDULE_FLOW}
    happyPath: true
metrics:
  - slug: task_completion
    minPassRate: 0
includeFlowMetrics: false
includeAutomaticMetrics: false
agent:
  url: {url}
  method: PUT
  headers:
    X-From-File: "yes"
  body: '{{"message": "{{{{text}}}}", "session": "{{{{callId}}}}", "turn": {{{{turn}}}}}}'
"#
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let junit = home.path().join("junit.xml");
    let output = run(switchboard(home.path()).args([
        "gate",
        "-o",
        "json",
        "--embedded",
        "-f",
        file.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]))
    .await;
    // The verdict is the judge's; what is certain is that the run was judged, not broken.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
    let report = json(&output);
    assert!(report["result"] == "PASSED" || report["result"] == "FAILED", "{report}");
    assert_eq!(report["status"], "COMPLETED");
    assert_eq!(report["simulations"][0]["status"], "COMPLETED", "{report}");
    assert!(report["verdict"].is_object(), "task_completion is a check: {report}");
    assert!(junit.exists());

    let heard = heard.0.lock().unwrap().clone();
    let (headers, body) = heard.iter().find(|(_, b)| b["turn"] == 1).expect("the agent was dialled for a second turn");
    assert_eq!(headers["x-from-file"], "yes");
    assert!(body["message"].as_str().is_some_and(|t| !t.is_empty()), "the file's body template: {body}");
    assert!(body["session"].is_string(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_agent_is_an_error_per_simulation_and_the_gate_exits_5_naming_its_url() {
    let home = tempfile::tempdir().unwrap();
    let plan = format!(
        "name: Nobody home\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: task_completion\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let output = run(switchboard(home.path()).args([
        "gate",
        "-o",
        "json",
        "--embedded",
        "-f",
        file.to_str().unwrap(),
        "--agent-url",
        "http://127.0.0.1:9/turn",
        "--json",
        home.path().join("reports/gate.json").to_str().unwrap(),
    ]))
    .await;
    assert_exit(&output, 5);
    assert!(
        stderr(&output).contains("the agent at http://127.0.0.1:9/turn could not be reached"),
        "{}",
        stderr(&output)
    );
    let report = json(&output);
    assert_eq!(report["result"], "FAILED");
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.path().join("reports/gate.json")).unwrap()).unwrap();
    assert_eq!(written["result"], "FAILED", "the reports are written all the same");
    let sim = &report["simulations"][0];
    assert_eq!(sim["outcome"], "ERROR", "{sim}");
    assert!(sim["errorMessage"].as_str().unwrap_or("").contains("unreachable"), "{sim}");
}

/// Two `--agent-url` runs of one agent register it once, so `diff` pairs every test case; a
/// changed request updates the one definition instead of making another agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_of_one_agent_url_reuse_its_agent_and_diff_pairs_them() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let (url, heard) = agent().await;
    let plan = format!(
        "name: Kept\ndirection: INBOUND\nmaxSimulationDurationSeconds: 120\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\n    edgeCases: ALL\nmetrics:\n  - slug: {always}\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let gate = |extra: &'static [&'static str]| {
        let mut command = against(home.path(), &service);
        command.args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--agent-url", &url]).args(extra);
        command
    };
    let first = run(&mut gate(&[])).await;
    assert_exit(&first, 0);
    let second = run(&mut gate(&["--agent-header", "X-Build: 2"])).await;
    assert_exit(&second, 0);
    assert!(stderr(&second).contains("its request changed (headers); updated"), "{}", stderr(&second));
    assert!(heard.0.lock().unwrap().iter().any(|(h, _)| h.get("x-build").is_some_and(|v| v == "2")));

    let agents = json(&run(against(home.path(), &service).args(["api", "GET", "/v1/agent?limit=50"])).await);
    let name = format!("Agent at {}", url.trim_start_matches("http://"));
    let named: Vec<_> = agents["data"].as_array().unwrap().iter().filter(|a| a["name"] == name.as_str()).collect();
    assert_eq!(named.len(), 1, "one agent for the URL: {agents:#}");

    let (a, b) = (json(&first)["runPlanJobId"].clone(), json(&second)["runPlanJobId"].clone());
    let diff =
        run(against(home.path(), &service).args(["diff", a.as_str().unwrap(), b.as_str().unwrap(), "-o", "json"]))
            .await;
    assert_exit(&diff, 0);
    let text = stdout(&diff);
    assert!(!text.contains("\"GONE\"") && !text.contains("\"NEW\""), "every test case pairs: {text}");
    // The changed request shape is what differed, on every test case.
    let report: Value = serde_json::from_str(&text).unwrap();
    for case in report["cases"].as_array().unwrap() {
        let kinds: Vec<&Value> = case["differences"].as_array().unwrap().iter().map(|d| &d["what"]).collect();
        assert!(kinds.contains(&&json!("HTTP_REQUEST_DEFINITION")), "{case:#}");
    }
    let words =
        run(against(home.path(), &service).args(["diff", a.as_str().unwrap(), b.as_str().unwrap(), "-o", "table"]))
            .await;
    assert!(stdout(&words).contains("endpoint's HTTP request definition"), "{}", stdout(&words));
}

/// `plan create -f` takes the same `agent:` block as `gate -f`: the saved plan dials that agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_create_takes_the_agent_block_gate_takes() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let (url, heard) = agent().await;
    let plan = format!(
        "name: Saved for my agent\ndirection: INBOUND\nmaxSimulationDurationSeconds: 120\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: {always}\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\nagent:\n  url: {url}\n  headers:\n    X-Agent-Key: k-saved\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let created = run(against(home.path(), &service).args(["plan", "create", "-f", file.to_str().unwrap()])).await;
    assert_exit(&created, 0);
    let output = run(against(home.path(), &service).args(["gate", "-o", "json", "Saved for my agent"])).await;
    assert_exit(&output, 0);
    let heard = heard.0.lock().unwrap();
    assert!(!heard.is_empty(), "the saved plan dialled the agent");
    assert!(heard.iter().all(|(h, _)| h.get("x-agent-key").is_some_and(|v| v == "k-saved")));
}

/// A report path that cannot be written is found before the run starts: exit 2, nothing run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_path_that_cannot_be_written_is_refused_before_the_run() {
    let home = tempfile::tempdir().unwrap();
    let blocked = home.path().join("a-file");
    std::fs::write(&blocked, "not a directory").unwrap();
    let plan = format!(
        "name: Never run\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: task_completion\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    let junit = blocked.join("junit.xml");
    let output = run(switchboard(home.path()).args([
        "gate",
        "-o",
        "json",
        "--embedded",
        "-f",
        file.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]))
    .await;
    assert_exit(&output, 2);
    assert!(!stderr(&output).contains("started run plan job"), "nothing ran: {}", stderr(&output));
    assert!(stderr(&output).contains("a-file"), "{}", stderr(&output));
}

#[tokio::test]
async fn the_routes_agent_url_creates_through_refuse_what_could_not_be_dialled() {
    use switchboard::api::model::{
        AgentEndpointInput, EndpointDirection, HttpRequestDefinition, HttpRequestDefinitionInput, OutboundDialType,
    };
    let service = support::start(true).await;
    let client = &service.client;
    let no_agent = AgentEndpointInput {
        agent_id: Some(uuid::Uuid::new_v4()),
        direction: Some(EndpointDirection::Incoming),
        value: Some("+15550100000".into()),
        ..Default::default()
    };
    assert_eq!(client.create_agent_endpoint(&no_agent).await.unwrap_err().param(), Some("agentId"));
    let no_definition = AgentEndpointInput { outbound_dial_type: Some(OutboundDialType::HttpRequest), ..no_agent };
    assert_eq!(
        client.create_agent_endpoint(&no_definition).await.unwrap_err().param(),
        Some("outboundDialHttpRequestDefinitionId")
    );
    let not_http: HttpRequestDefinitionInput =
        serde_json::from_value(json!({"scope": "AGENT_OUTBOUND_DIAL", "url": "ftp://agent"})).unwrap();
    assert_eq!(client.create_http_request_definition(&not_http).await.unwrap_err().param(), Some("url"));
    let object_body: HttpRequestDefinitionInput = serde_json::from_value(
        json!({"scope": "AGENT_OUTBOUND_DIAL", "url": "http://127.0.0.1:9/turn", "body": {"text": "{{text}}"}}),
    )
    .unwrap();
    let created = client.create_http_request_definition(&object_body).await.unwrap();
    assert_eq!(created.body.as_deref(), Some(r#"{"text":"{{text}}"}"#), "an object body is kept as its text");
    assert!(
        created.signing_secret.as_deref().is_some_and(|s| s.starts_with("whsec_")),
        "the secret is shown on create"
    );
    let read = client.get_http_request_definition(created.id).await.unwrap();
    assert_eq!(read.signing_secret, None, "the secret is shown once, on create");
    assert_eq!(read, HttpRequestDefinition { signing_secret: None, ..created });
}

/// `gate -o json` of the plan file `plan`, written in `home`, against the agent at `url`.
async fn gate_plan(home: &std::path::Path, service: &support::Service, plan: &str, url: &str) -> std::process::Output {
    let file = home.join("plan.yaml");
    std::fs::write(&file, plan).unwrap();
    run(against(home, service).args(["gate", "-o", "json", "-f", file.to_str().unwrap(), "--agent-url", url])).await
}

/// An agent that answers every turn with nothing: it never speaks.
async fn silent_agent() -> String {
    async fn silent() -> axum::Json<Value> {
        axum::Json(json!({"text": ""}))
    }
    let app = axum::Router::new().route("/turn", axum::routing::post(silent).put(silent));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulation_the_agent_never_spoke_on_is_retried_up_to_max_no_response_retries() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let url = silent_agent().await;
    let plan = format!(
        "name: Silent agent\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nmaxNoResponseRetries: 2\nnoResponseRetryBackoffSeconds: 30\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: {always}\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n"
    );
    let output = gate_plan(home.path(), &service, &plan, &url).await;
    assert_exit(&output, 1);
    let report = json(&output);
    let job_id: uuid::Uuid = report["runPlanJobId"].as_str().unwrap().parse().unwrap();

    let job = service.client.get_run_plan_job(job_id).await.unwrap();
    // One test case, three attempts: the first and its two retries, each retrying the one before.
    let mut attempts = job.simulation_jobs.clone();
    attempts.sort_by_key(|s| s.attempt_number);
    let numbers: Vec<_> = attempts.iter().map(|s| s.attempt_number).collect();
    assert_eq!(numbers, [Some(1), Some(2), Some(3)], "{attempts:#?}");
    assert_eq!(attempts[0].retry_of_simulation_job_id, None);
    for pair in attempts.windows(2) {
        assert_eq!(pair[1].retry_of_simulation_job_id, Some(pair[0].simulation_job_id));
        assert!(pair[1].scheduled_at.is_some(), "a retry says when it dials");
    }
    let summary = job.attempt_summary.as_ref().expect("attemptSummary");
    assert_eq!(
        (summary.test_case_count, summary.attempt_count, summary.retry_count, summary.silent_attempt_count),
        (1, 3, 2, 3),
        "{summary:?}"
    );
    assert_eq!(summary.still_silent_test_case_count, 1);
    assert!(job.pending_retries.as_ref().is_some_and(Vec::is_empty), "no retry left waiting");
    let failures = &job.verdict.as_ref().expect("a verdict").failures;
    assert!(
        failures.iter().any(|f| matches!(f, switchboard::api::model::VerdictFailure::AgentNeverSpoke { .. })),
        "{failures:?}"
    );
}

/// An agent that takes `TAKES` to answer each turn, as a slow model behind it would.
const TAKES: std::time::Duration = std::time::Duration::from_millis(700);

async fn slow_turn() -> axum::Json<Value> {
    tokio::time::sleep(TAKES).await;
    axum::Json(json!({"text": "Sure, one moment. All done, you're booked for Tuesday at 9 AM."}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_real_response_time_is_its_latency_on_the_calls_clock() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let app = axum::Router::new().route("/turn", axum::routing::post(slow_turn));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let plan = format!(
        "name: Slow agent\ndirection: INBOUND\nmaxSimulationDurationSeconds: 300\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: agent_response_latency\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n"
    );
    let output = gate_plan(home.path(), &service, &plan, &url).await;
    let report = json(&output);
    let transcript = report["simulations"][0]["transcript"].as_array().unwrap();
    let mut answered = 0;
    for pair in transcript.windows(2) {
        if pair[0]["role"] == "CUSTOMER" && pair[1]["role"] == "AGENT" {
            let waited = pair[1]["startOffsetMs"].as_i64().unwrap() - pair[0]["endOffsetMs"].as_i64().unwrap();
            assert!(waited >= TAKES.as_millis() as i64, "the agent took {TAKES:?} but answered after {waited} ms");
            answered += 1;
        }
    }
    assert!(answered >= 2, "{transcript:#?}");

    // The latency metric measures that same time.
    let job: uuid::Uuid = report["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(job).await.unwrap();
    let call = job.simulation_jobs[0].call_id.unwrap();
    let groups = service.client.call_metrics(call, ValueStatusFilter::Success).await.unwrap();
    let latency = groups.iter().find(|g| g.slug.as_deref() == Some("agent_response_latency")).expect("latency");
    assert!(!latency.values.is_empty(), "{latency:?}");
    for value in &latency.values {
        assert!(value.value.unwrap() >= TAKES.as_millis() as f64, "{value:?}");
    }
}
