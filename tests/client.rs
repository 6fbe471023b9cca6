//! The client against a small axum server on 127.0.0.1: error decoding, retries, timeouts,
//! paging streams, headers, and the key kept out of errors and logs.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use futures_util::{StreamExt, TryStreamExt};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig, Error, ErrorType, ListQuery, USER_AGENT};

const KEY: &str = "sk-test-0f9e8d7c6b5a";

#[derive(Clone, Default)]
struct Counters {
    hits: Arc<AtomicUsize>,
    pages: Arc<AtomicUsize>,
    seen_headers: Arc<Mutex<Option<HeaderMap>>>,
}

fn error_body(status: u16) -> Value {
    let (kind, code) = match status {
        400 => ("validation", "invalid_parameter"),
        401 => ("authentication", "unauthorized"),
        403 => ("forbidden", "permission_denied"),
        404 => ("not_found", "resource_not_found"),
        429 => ("rate_limit", "too_many_requests"),
        _ => ("internal", "internal_error"),
    };
    let mut body = json!({"type": kind, "code": code, "message": format!("status {status}")});
    if status == 400 {
        body["param"] = json!("metrics[0].slug");
        body["details"] = json!({"limit": 50});
    }
    body
}

async fn status(Path(code): Path<u16>, State(c): State<Counters>) -> Response {
    c.hits.fetch_add(1, Ordering::SeqCst);
    (StatusCode::from_u16(code).unwrap(), axum::Json(error_body(code))).into_response()
}

async fn flaky_429(State(c): State<Counters>) -> Response {
    if c.hits.fetch_add(1, Ordering::SeqCst) == 0 {
        let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(error_body(429))).into_response();
        response.headers_mut().insert("retry-after", "1".parse().unwrap());
        return response;
    }
    axum::Json(json!({"authenticated": true, "account": "acme"})).into_response()
}

async fn html_502(State(c): State<Counters>) -> Response {
    c.hits.fetch_add(1, Ordering::SeqCst);
    (StatusCode::BAD_GATEWAY, "<html><body><h1>502 Bad Gateway</h1></body></html>").into_response()
}

/// A service that echoes the Authorization header in every field of its error body: type,
/// code, message, param, and strings and member names nested in details.
async fn echo_key(headers: HeaderMap) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let body = json!({"type": format!("denied:{auth}"), "code": format!("unauthorized:{auth}"), "message": format!("rejected {auth}"),
        "param": format!("header[{auth}]"), "details": {"header": auth, auth.clone(): [{"seen": [auth.clone()]}]}});
    (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
}

/// The same in a body that is not the spec's shape, the key placed where the client's 200-byte
/// excerpt would cut it in half.
async fn echo_key_text(headers: HeaderMap) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let body = format!("{}{auth} trailing", "x".repeat(190));
    (StatusCode::BAD_REQUEST, body).into_response()
}

/// A success whose body does not decode, with the key where the decoder quotes it.
async fn echo_key_success(headers: HeaderMap) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    axum::Json(json!({"authenticated": auth, "account": auth})).into_response()
}

async fn slow(State(c): State<Counters>) -> Response {
    c.hits.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(3)).await;
    axum::Json(json!({})).into_response()
}

async fn health(headers: HeaderMap, State(c): State<Counters>) -> Response {
    *c.seen_headers.lock().unwrap() = Some(headers);
    axum::Json(json!({"authenticated": true, "account": "acme-dental", "extra": 1})).into_response()
}

/// 45 jobs, cursor-paged; the cursor is the next index.
async fn jobs(Query(q): Query<std::collections::HashMap<String, String>>, State(c): State<Counters>) -> Response {
    c.pages.fetch_add(1, Ordering::SeqCst);
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(20);
    let start: usize = q.get("cursor").and_then(|l| l.parse().ok()).unwrap_or(0);
    let end = (start + limit).min(45);
    let data: Vec<Value> = (start..end)
        .map(|i| json!({"id": uuid::Uuid::from_u128(i as u128 + 1), "status": if i % 2 == 0 { "COMPLETED" } else { "FUTURE" }}))
        .collect();
    let more = end < 45;
    axum::Json(json!({"data": data, "pagination": {"total": 45, "hasMore": more,
        "nextCursor": if more { json!(end.to_string()) } else { Value::Null }}}))
    .into_response()
}

/// 23 personas, cursor-paged the hosted way: only `after` moves on (a `cursor` is ignored).
async fn personas(Query(q): Query<std::collections::HashMap<String, String>>) -> Response {
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(20);
    let start: usize = q.get("after").and_then(|l| l.parse().ok()).unwrap_or(0);
    let end = (start + limit).min(23);
    let data: Vec<Value> =
        (start..end).map(|i| json!({"id": uuid::Uuid::from_u128(i as u128 + 1), "name": format!("p{i}")})).collect();
    let more = end < 23;
    axum::Json(json!({"data": data, "pagination": {"total": 23, "hasMore": more,
        "nextCursor": if more { json!(end.to_string()) } else { Value::Null }}}))
    .into_response()
}

/// 61 samples, offset-paged.
async fn samples(Query(q): Query<std::collections::HashMap<String, String>>, State(c): State<Counters>) -> Response {
    c.pages.fetch_add(1, Ordering::SeqCst);
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(20);
    let offset: usize = q.get("offset").and_then(|l| l.parse().ok()).unwrap_or(0);
    let end = (offset + limit).min(61);
    let data: Vec<Value> = (offset..end)
        .map(|i| json!({"conditionKey": "quiet", "metricKey": "m", "reasoning": format!("sample {i}")}))
        .collect();
    axum::Json(json!({"data": data, "target": {"targetKey": "acme"},
        "pagination": {"limit": limit, "offset": offset, "total": 61, "hasMore": end < 61}}))
    .into_response()
}

async fn serve(counters: Counters) -> String {
    let app = Router::new()
        .route("/status/{code}", any(status))
        .route("/flaky-429", get(flaky_429))
        .route("/html-502", any(html_502))
        .route("/echo-key", get(echo_key))
        .route("/echo-key-text", get(echo_key_text))
        .route("/echo-key-success", get(echo_key_success))
        .route("/slow", get(slow))
        .route("/v1/health", get(health))
        .route("/v1/metric/collection-jobs", get(jobs))
        .route("/v1/persona", get(personas))
        .route("/v1/benchmark/target/{key}/score-sample", get(samples))
        .with_state(counters);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn fast_config() -> ClientConfig {
    ClientConfig {
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
        max_retries: 3,
        request_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

async fn setup() -> (Client, Counters) {
    let counters = Counters::default();
    let base = serve(counters.clone()).await;
    (Client::new(&base, ApiKey::new(KEY), fast_config()).unwrap(), counters)
}

async fn get_raw(client: &Client, path: &str) -> Result<Value, Error> {
    client.send::<(), (), Value>(Method::GET, path, None, None).await
}

#[tokio::test]
async fn every_error_status_decodes_into_the_spec_body() {
    let (client, _) = setup().await;
    let cases = [
        (400, ErrorType::Validation, "invalid_parameter"),
        (401, ErrorType::Authentication, "unauthorized"),
        (403, ErrorType::Forbidden, "permission_denied"),
        (404, ErrorType::NotFound, "resource_not_found"),
        (429, ErrorType::RateLimit, "too_many_requests"),
        (500, ErrorType::Internal, "internal_error"),
    ];
    for (code, kind, expected) in cases {
        let err = client.send::<(), (), Value>(Method::POST, &format!("/status/{code}"), None, None).await.unwrap_err();
        let api = err.api().unwrap_or_else(|| panic!("{code}: {err}"));
        assert_eq!((api.status, &api.error_type, api.code.as_str()), (code, &kind, expected));
        assert_eq!(api.message, format!("status {code}"));
    }
    let err = get_raw(&client, "/status/400").await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.param.as_deref(), Some("metrics[0].slug"));
    assert_eq!(api.details, Some(json!({"limit": 50})));
    assert!(err.to_string().contains("metrics[0].slug"));
}

#[tokio::test]
async fn a_foreign_error_body_still_reads_well() {
    let (client, _) = setup().await;
    let err = client.send::<(), (), Value>(Method::POST, "/html-502", None, None).await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.status, 502);
    assert!(api.message.contains("502") && api.message.contains("<h1>502 Bad Gateway</h1>"), "{}", api.message);
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    // How long it waits is `retry_delay`'s, tested beside it; here: it does try again.
    let (client, counters) = setup().await;
    let value = get_raw(&client, "/flaky-429").await.unwrap();
    assert_eq!(value["account"], "acme");
    assert_eq!(counters.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn gateway_errors_are_retried_for_idempotent_methods_only() {
    for (method, expected) in
        [(Method::GET, 4), (Method::PUT, 4), (Method::DELETE, 4), (Method::POST, 1), (Method::PATCH, 1)]
    {
        for code in [502, 503, 504] {
            let (client, counters) = setup().await;
            let err = client.send::<(), (), Value>(method.clone(), &format!("/status/{code}"), None, None).await;
            assert_eq!(err.unwrap_err().status(), Some(code));
            assert_eq!(counters.hits.load(Ordering::SeqCst), expected, "{method} {code}");
        }
    }
}

#[tokio::test]
async fn a_post_is_never_retried_even_on_429() {
    let (client, counters) = setup().await;
    let err = client.send::<(), (), Value>(Method::POST, "/status/429", None, None).await.unwrap_err();
    assert_eq!(err.status(), Some(429));
    assert_eq!(counters.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn other_errors_are_not_retried() {
    let (client, counters) = setup().await;
    for code in [400, 401, 403, 404, 500] {
        let _ = get_raw(&client, &format!("/status/{code}")).await;
    }
    assert_eq!(counters.hits.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn connection_errors_are_retried_until_the_service_appears() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let config = ClientConfig {
        backoff_base: Duration::from_millis(200),
        backoff_max: Duration::from_millis(400),
        max_retries: 6,
        ..fast_config()
    };
    let client = Client::new(&format!("http://{addr}"), ApiKey::new(KEY), config).unwrap();
    let server = async move {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let app = Router::new().route("/v1/health", get(health)).with_state(Counters::default());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    };
    let (health, ()) = tokio::join!(client.health(), server);
    assert_eq!(health.unwrap().account, "acme-dental");
}

#[tokio::test]
async fn an_unreachable_service_is_a_connect_error_for_posts_at_once() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let client = Client::new(&format!("http://{addr}"), ApiKey::new(KEY), fast_config()).unwrap();
    let err = client.create_issue(&IssueInput { title: Some("t".into()), ..Default::default() }).await.unwrap_err();
    assert!(err.is_unreachable(), "{err:?}");
}

#[tokio::test]
async fn the_whole_request_times_out() {
    let counters = Counters::default();
    let base = serve(counters.clone()).await;
    let config = ClientConfig { request_timeout: Duration::from_millis(300), ..fast_config() };
    let client = Client::new(&base, ApiKey::new(KEY), config).unwrap();
    // The handler answers after 3 s: a timeout error means the client gave up before that.
    let err = get_raw(&client, "/slow").await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert_eq!(counters.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn requests_carry_the_user_agent_and_bearer_key() {
    let (client, counters) = setup().await;
    let health = client.health().await.unwrap();
    assert!(health.authenticated);
    let headers = counters.seen_headers.lock().unwrap().clone().unwrap();
    assert_eq!(headers["user-agent"], USER_AGENT);
    assert!(USER_AGENT.starts_with("switchboard/"));
    assert_eq!(headers["authorization"], format!("Bearer {KEY}"));
}

#[tokio::test]
async fn cursor_stream_fetches_pages_only_as_they_are_consumed() {
    let (client, counters) = setup().await;
    let mut stream = Box::pin(client.collection_jobs(None, Some(20)));
    for _ in 0..5 {
        stream.next().await.unwrap().unwrap();
    }
    assert_eq!(counters.pages.load(Ordering::SeqCst), 1);
    let rest: Vec<CollectionJob> = stream.try_collect().await.unwrap();
    assert_eq!(rest.len(), 40);
    assert_eq!(counters.pages.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn cursor_stream_walks_every_item_once_with_unknown_statuses_kept() {
    let (client, _) = setup().await;
    let all: Vec<CollectionJob> = client.collection_jobs(None, Some(7)).try_collect().await.unwrap();
    let ids: std::collections::HashSet<_> = all.iter().map(|j| j.id).collect();
    assert_eq!((all.len(), ids.len()), (45, 45));
    assert_eq!(all[1].status, Some(CollectionJobStatus::Unknown("FUTURE".into())));
}

#[tokio::test]
async fn a_cursor_list_pages_by_after_as_the_hosted_service_reads_it() {
    let (client, _) = setup().await;
    let all: Vec<Persona> = client.list_all("/v1/persona", ListQuery::default().limit(5)).try_collect().await.unwrap();
    let ids: std::collections::HashSet<_> = all.iter().map(|p| p.id).collect();
    assert_eq!((all.len(), ids.len()), (23, 23), "every persona once, page by page");
}

#[tokio::test]
async fn offset_stream_walks_every_sample() {
    let (client, counters) = setup().await;
    let query = ScoreSampleQuery { suite: Some("suite".into()), limit: Some(20), ..Default::default() };
    let mut stream = Box::pin(client.score_samples("acme voice", query));
    stream.next().await.unwrap().unwrap();
    assert_eq!(counters.pages.load(Ordering::SeqCst), 1);
    let rest: Vec<ScoreSample> = stream.try_collect().await.unwrap();
    assert_eq!(rest.len(), 60);
    assert_eq!(rest.last().unwrap().reasoning.as_deref(), Some("sample 60"));
    assert_eq!(counters.pages.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn the_key_never_appears_in_errors_or_debug_output() {
    let (client, _) = setup().await;
    let echoed = get_raw(&client, "/echo-key").await.unwrap_err();
    let text = get_raw(&client, "/echo-key-text").await.unwrap_err();
    let retried = get_raw(&client, "/status/503").await.unwrap_err();
    let decoded = client.send::<(), (), switchboard::api::model::Health>(Method::GET, "/echo-key-success", None, None);
    let decoded = decoded.await.unwrap_err();
    // The health check decodes its body by hand (it reads two shapes): the same rule holds.
    let health_app = Router::new().route("/v1/health", get(echo_key_success));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let health_base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, health_app).await.unwrap() });
    let health_client = Client::new(&health_base, ApiKey::new(KEY), fast_config()).unwrap();
    let health = health_client.health().await.unwrap_err();
    assert!(health.to_string().contains("[redacted]"), "the decoder quoted the echoed key: {health}");
    let prefix = &KEY[..12];
    for err in [&echoed, &text, &retried, &decoded, &health] {
        assert!(!err.to_string().contains(prefix), "{err}");
        assert!(!format!("{err:?}").contains(prefix), "{err:?}");
    }
    // Every field the service wrote is scrubbed, not only the message.
    let api = echoed.api().expect("the service's error");
    let fields = [
        api.error_type.to_string(),
        api.code.clone(),
        api.message.clone(),
        api.param.clone().unwrap(),
        api.details.clone().unwrap().to_string(),
    ];
    for field in fields {
        assert!(field.contains("[redacted]") && !field.contains(prefix), "{field}");
    }
    assert!(text.to_string().contains("Bearer [re"), "the excerpt is scrubbed before it is cut: {text}");
    assert!(!text.to_string().contains("sk-"), "not even the start of the key survives the cut: {text}");
    assert!(!format!("{client:?}").contains(KEY));
}
