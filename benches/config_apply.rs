//! A 500-resource config bundle (100 flows, 100 personas, 200 metrics, 100 plans) against the
//! real local service on SQLite, started in-process: the first apply, a diff of the same
//! bundle, and a second apply (all noop).
//!
//!     cargo bench --bench config_apply
//!     CONFIG_STORE=postgres cargo bench --bench config_apply   # on a PostgreSQL of its own
//!
//! Bounded in count; it only talks to 127.0.0.1 and stops by itself.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use switchboard::service::{self, Options};

fn bundle() -> Value {
    let mut resources = vec![json!({"kind": "agent", "name": "bench-desk",
        "endpoints": [{"type": "PHONE", "value": "+15550109001", "direction": "INCOMING"}]})];
    for p in 0..100 {
        resources.push(json!({"kind": "persona", "name": format!("persona-{p}"), "accent": "US", "gender": "FEMALE",
            "language": "EN", "backstoryPrompt": format!("Caller number {p}, in a hurry.")}));
    }
    for m in 0..200 {
        resources.push(json!({"kind": "metric", "name": format!("metric_{m}"), "type": "BOOLEAN",
            "prompt": format!("Did the agent do thing {m}?")}));
    }
    for f in 0..100 {
        resources.push(
            json!({"kind": "flow", "type": "scripted", "name": format!("flow-{f}"), "agents": ["bench-desk"],
            "expectations": ["The agent confirms the booking."],
            "graph": [
                {"type": "AGENT_TURN", "ref": "greet", "content": "Agent greets the caller."},
                {"type": "CUSTOMER_TURN", "ref": "ask", "content": format!("I need help with case {f}."),
                 "steps": [
                    {"type": "CUSTOMER_TURN", "ref": "yes", "content": "Yes please."},
                    {"type": "CUSTOMER_DTMF", "ref": "press", "dtmfDigits": "1", "mergeInto": ["bye"]}
                 ]},
                {"type": "AGENT_TURN", "ref": "bye", "content": "Agent says goodbye."}
            ]}),
        );
    }
    for p in 0..100 {
        resources.push(json!({"kind": "simulationPlan", "name": format!("plan-{p}"), "direction": "INBOUND",
            "maxDurationSeconds": 300, "agentEndpoints": [{"agent": "bench-desk"}],
            "flows": [{"flow": format!("flow-{p}")}], "metrics": [format!("metric_{p}"), format!("metric_{}", p + 100)],
            "schedule": {"type": "daily", "time": "02:00"}}));
    }
    json!({"resources": resources})
}

async fn post(http: &reqwest::Client, base: &str, key: &str, path: &str, body: &Value) -> (Duration, Value) {
    let started = Instant::now();
    let response = http
        .request(Method::POST, format!("{base}{path}"))
        .header("authorization", format!("Bearer {key}"))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let value: Value = response.json().await.unwrap();
    let elapsed = started.elapsed();
    assert!(status.is_success(), "{path}: {status} {value}");
    (elapsed, value)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options { seed: true, rate_limit: 1_000_000, ..Options::local(dir.path().to_path_buf()) };
        if std::env::var("CONFIG_STORE").is_ok_and(|s| s == "postgres") {
            let server = service::store::test_server::TestServer::shared().unwrap();
            options.database = Some(server.fresh_database().unwrap());
        }
        let running = service::start(options).await.unwrap();
        let base = running.base_url();
        let key = running.api_key.expose().to_owned();
        let http = reqwest::Client::new();
        let bundle = bundle();
        let count = bundle["resources"].as_array().unwrap().len();
        let bytes = serde_json::to_vec(&bundle).unwrap().len();
        let (first, applied) = post(&http, &base, &key, "/v1/config/apply", &bundle).await;
        let (diffed, diff) = post(&http, &base, &key, "/v1/config/diff", &bundle).await;
        let (second, again) = post(&http, &base, &key, "/v1/config/apply", &bundle).await;
        println!("bundle: {count} resources, {bytes} bytes");
        println!("first apply:  {:>8.1} ms  summary {}", first.as_secs_f64() * 1e3, applied["data"]["summary"]);
        println!("diff:         {:>8.1} ms  summary {}", diffed.as_secs_f64() * 1e3, diff["data"]["summary"]);
        println!("second apply: {:>8.1} ms  summary {}", second.as_secs_f64() * 1e3, again["data"]["summary"]);
        let all_noop = again["data"]["summary"]["noop"].as_u64() == Some(count as u64)
            && again["data"]["summary"]["create"] == 0
            && again["data"]["summary"]["update"] == 0
            && again["data"]["summary"]["delete"] == 0;
        println!("re-apply all noop: {all_noop}");
    });
}
