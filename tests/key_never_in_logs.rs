//! The API key never reaches the logs, even at TRACE and through retries and echoed errors; nor
//! does the caller model's key when its endpoint echoes it. In a binary of their own, sharing one
//! process-wide subscriber: tracing caches callsite interest process-wide, so a scoped subscriber
//! is only reliable when no other test thread logs at the same time.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use reqwest::Method;
use serde_json::{Value, json};
use switchboard::api::{ApiKey, Client, ClientConfig};

const KEY: &str = "sk-log-test-5e4d3c2b1a";

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

async fn echo_key(headers: HeaderMap) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let body = json!({"type": format!("upstream:{auth}"), "code": format!("internal_error:{auth}"), "message": format!("upstream saw {auth}"),
        "param": auth, "details": {"violations": [{"param": auth, "message": auth}], auth.clone(): true}});
    (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response()
}

/// Everything logged in this process, at TRACE, since the first test asked.
fn captured() -> &'static Captured {
    static CAPTURED: OnceLock<Captured> = OnceLock::new();
    CAPTURED.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        captured
    })
}

fn logs() -> String {
    String::from_utf8_lossy(&captured().0.lock().unwrap()).into_owned()
}

#[tokio::test]
async fn the_key_never_appears_in_logs() {
    captured();

    let app = Router::new().route("/echo", get(echo_key));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let config = ClientConfig {
        backoff_base: std::time::Duration::from_millis(5),
        backoff_max: std::time::Duration::from_millis(10),
        ..Default::default()
    };
    let client = Client::new(&base, ApiKey::new(KEY), config).unwrap();
    let err = client.send::<(), (), Value>(Method::GET, "/echo", None, None).await.unwrap_err();
    assert!(!err.to_string().contains(KEY));
    let logs = logs();
    assert!(logs.contains("retrying"), "the test must see the client's own logs: {logs}");
    assert!(logs.contains("[redacted]"), "the echoed error is logged, scrubbed: {logs}");
    assert!(!logs.contains(KEY), "{logs}");
    assert!(!format!("{err:?}").contains(KEY), "{err:?}");
}

const CALLER_KEY: &str = "sk-caller-log-test-9f8e7d";

/// A caller model whose endpoint refuses the key and echoes it: the simulation fails saying so,
/// and neither its error nor the service's logs hold the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caller_models_key_never_appears_in_logs_or_errors() {
    use support::chat_model::{Answer, ChatModel};
    use switchboard::api::model::*;
    captured();
    let echo = json!({"error": {"message": format!("invalid key: Bearer {CALLER_KEY}")}}).to_string();
    let model = ChatModel::start(move |_| Answer::Raw(401, echo.clone())).await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_CALLER_LOG_KEY", CALLER_KEY) };
    let dir = tempfile::tempdir().unwrap();
    let caller = switchboard::service::sim::conversation::CallerConfig {
        base_url: model.base_url.clone(),
        model: "caller-test".into(),
        api_key_env: Some("SWITCHBOARD_TEST_CALLER_LOG_KEY".into()),
        timeout_seconds: None,
        max_tokens: None,
    };
    let options = switchboard::service::Options { caller: Some(caller), ..support::options(dir.path(), true) };
    let service = support::start_with(options, dir).await;
    let plan = support::seed("run_plans")[0]["id"].as_str().unwrap().parse().unwrap();
    let started = service.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    let job = support::eventually(Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let seen = model.seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the caller model was asked");
    assert_eq!(seen[0].0["authorization"], format!("Bearer {CALLER_KEY}").as_str());
    for simulation in &job.simulation_jobs {
        let message = simulation.error_message.as_deref().unwrap_or_default();
        assert!(message.contains("caller model answered 401") && message.contains("<redacted>"), "{message}");
        assert!(!message.contains(CALLER_KEY), "{message}");
    }
    let logs = logs();
    assert!(logs.contains("the caller model failed"), "the failure is logged: {logs}");
    assert!(!logs.contains(CALLER_KEY), "{logs}");
}
