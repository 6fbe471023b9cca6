//! `switchboard traffic` against the real service: the calls it posts are listed under their
//! agents, scored at ingest, the degraded agent's worse; SIGTERM ends it with a summary; bad
//! flags are refused all at once, each named.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, eventually, raw, seeded};

async fn call(service: &Service, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), bytes).await;
    (status, value)
}

/// An ACTIVE policy scoring every call's agent response latency.
async fn scoring_latency(service: &Service) {
    let metric = seeded("metric_definitions", |d| d["slug"] == "agent_response_latency").remove(0);
    let policy = json!({"name": "Latency", "modality": "call", "status": "ACTIVE", "metrics": [{"id": metric["id"]}]});
    let (status, body) = call(service, Method::POST, "/v1/metric/policies", Some(&policy)).await;
    assert_eq!(status, 201, "{body}");
}

/// The calls of the agent named `name`, newest first.
async fn calls_of(service: &Service, name: &str) -> Vec<Value> {
    let (_, agents) = call(service, Method::GET, "/v1/agent?limit=50", None).await;
    let agent =
        agents["data"].as_array().unwrap().iter().find(|a| a["name"] == name).unwrap_or_else(|| panic!("{agents}"));
    let path = format!("/v1/call?agentId={}&limit=50", agent["id"].as_str().unwrap());
    let (status, calls) = call(service, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{calls}");
    calls["data"].as_array().unwrap().clone()
}

/// The mean agent response latency scored on `calls`.
async fn mean_latency(service: &Service, calls: &[Value]) -> f64 {
    let mut values = Vec::new();
    for c in calls {
        let (_, groups) =
            call(service, Method::GET, &format!("/v1/call/{}/metrics", c["id"].as_str().unwrap()), None).await;
        let group = groups["data"].as_array().unwrap().iter().find(|g| g["slug"] == "agent_response_latency").cloned();
        let value =
            group.and_then(|g| g["values"][0]["value"].as_f64()).unwrap_or_else(|| panic!("not scored: {groups}"));
        values.push(value);
    }
    values.iter().sum::<f64>() / values.len() as f64
}

#[tokio::test]
async fn traffic_posts_calls_that_are_listed_and_the_degraded_agent_scores_worse() {
    let service = support::start(true).await;
    scoring_latency(&service).await;
    let home = tempfile::tempdir().unwrap();
    let args = [
        "traffic",
        "--calls-per-minute",
        "1200",
        "--count",
        "8",
        "--agent",
        "Calm Dental desk",
        "--agent",
        "Tired Dental desk",
        "--degrade",
        "Tired Dental desk",
        "-o",
        "json",
    ];
    let out = cli::run(cli::against(home.path(), &service).args(args)).await;
    cli::assert_exit(&out, 0);
    let summary = cli::json(&out)["data"].clone();
    assert_eq!((summary["posted"].as_u64(), summary["refused"].as_u64()), (Some(8), Some(0)), "{summary}");
    assert_eq!(summary["stoppedBy"], "count");
    let agents = summary["agents"].as_array().unwrap();
    let by = |name: &str| agents.iter().find(|a| a["agent"] == name).unwrap().clone();
    assert_eq!(
        (by("Calm Dental desk")["posted"].as_u64(), by("Calm Dental desk")["degraded"].as_u64()),
        (Some(4), Some(0))
    );
    assert_eq!(
        (by("Tired Dental desk")["posted"].as_u64(), by("Tired Dental desk")["degraded"].as_u64()),
        (Some(4), Some(4))
    );

    let (calm, tired) = (calls_of(&service, "Calm Dental desk").await, calls_of(&service, "Tired Dental desk").await);
    assert_eq!((calm.len(), tired.len()), (4, 4));
    let (calm, tired) = (mean_latency(&service, &calm).await, mean_latency(&service, &tired).await);
    assert!(tired > calm + 2.0, "the degraded agent answers slower: {tired} vs {calm}");
}

#[tokio::test]
async fn sigterm_stops_traffic_with_a_summary() {
    let service = support::start(false).await;
    let home = tempfile::tempdir().unwrap();
    let mut command = cli::against(home.path(), &service);
    command.args(["traffic", "--calls-per-minute", "600", "--agent", "Signal desk", "-o", "json"]);
    let child = command.stdout(std::process::Stdio::piped()).spawn().unwrap();
    // Once it has posted some, it is told to stop.
    eventually(Duration::from_secs(30), || async {
        let (_, calls) = call(&service, Method::GET, "/v1/call?limit=10", None).await;
        (calls["data"].as_array().map_or(0, Vec::len) >= 2).then_some(())
    })
    .await;
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
    cli::assert_exit(&out, 0);
    let summary = cli::json(&out)["data"].clone();
    assert_eq!(summary["stoppedBy"], "terminated (SIGTERM)", "{summary}");
    let (_, calls) = call(&service, Method::GET, "/v1/call?limit=50", None).await;
    let listed = calls["data"].as_array().unwrap().len() as u64;
    assert!(
        summary["posted"].as_u64().unwrap() >= 2 && summary["posted"].as_u64() == Some(listed),
        "{summary} {listed}"
    );
}

#[tokio::test]
async fn bad_flags_are_refused_at_once_each_named() {
    let home = tempfile::tempdir().unwrap();
    let args = ["traffic", "--calls-per-minute", "0", "--count", "0", "--agent", "A", "--degrade", "B", "-o", "json"];
    let out =
        cli::run(cli::switchboard(home.path()).args(args).env("SWITCHBOARD_BASE_URL", "http://127.0.0.1:9")).await;
    cli::assert_exit(&out, 2);
    let body: Value = serde_json::from_slice(&out.stderr).unwrap_or_else(|_| panic!("{}", cli::stderr(&out)));
    let params: Vec<&str> =
        body["details"]["violations"].as_array().unwrap().iter().map(|v| v["param"].as_str().unwrap()).collect();
    assert_eq!(params, ["--calls-per-minute", "--count", "--degrade"], "{body}");
}
