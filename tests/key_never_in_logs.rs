//! The API key never reaches the logs, even at TRACE and through retries and echoed errors.
//! Alone in its binary: tracing caches callsite interest process-wide, so a scoped
//! subscriber is only reliable when no other test thread logs at the same time.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::sync::{Arc, Mutex};

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

#[tokio::test]
async fn the_key_never_appears_in_logs() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber =
        tracing_subscriber::fmt().with_max_level(tracing::Level::TRACE).with_writer(move || writer.clone()).finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

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
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying"), "the test must see the client's own logs: {logs}");
    assert!(logs.contains("[redacted]"), "the echoed error is logged, scrubbed: {logs}");
    assert!(!logs.contains(KEY), "{logs}");
    assert!(!format!("{err:?}").contains(KEY), "{err:?}");
}
