//! The interface's cross-cutting rules on the real local service: auth, error bodies, limits.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use reqwest::Method;
use serde_json::json;
use support::{Service, raw, start, start_with};
use switchboard::api::ListQuery;
use switchboard::api::model::IssueInput;
use switchboard::api::{ApiKey, ErrorType};

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

fn assert_error(status: u16, body: &serde_json::Value, want_status: u16, kind: &str, code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["type"], kind, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

#[tokio::test]
async fn health_answers_on_both_paths_with_a_valid_key() {
    let service = start(false).await;
    let key = bearer(service.running.api_key.expose());
    for path in ["/health", "/v1/health"] {
        let (status, body, _) = raw(&service.base_url(), Method::GET, path, Some(&key), None).await;
        assert_eq!(status, 200);
        // The spec's members at the top; the hosted SDK's shape inside `data`.
        assert_eq!((&body["authenticated"], &body["account"]), (&json!(true), &json!("local")), "{body}");
        assert_eq!((&body["data"]["status"], &body["data"]["account"]), (&json!("healthy"), &json!("local")), "{body}");
    }
    assert!(service.client.health().await.unwrap().authenticated);
}

#[tokio::test]
async fn missing_malformed_and_unknown_keys_are_401() {
    let service = start(false).await;
    let base = service.base_url();
    for key in [None, Some("Basic abc"), Some("Bearer"), Some("Bearer sk-not-the-key")] {
        let (status, body, _) = raw(&base, Method::GET, "/v1/persona", key, None).await;
        assert_error(status, &body, 401, "authentication", "unauthorized");
    }
}

#[tokio::test]
async fn the_read_only_key_reads_but_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        read_only_api_key: Some(ApiKey::new("sk-read-only")),
        ..support::options(dir.path(), false)
    };
    let service: Service = start_with(options, dir).await;
    let reader = service.client_with("sk-read-only");
    assert!(reader.list_personas(&ListQuery::default()).await.is_ok());
    let err = reader.create_issue(&IssueInput { title: Some("x".into()), ..Default::default() }).await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!((api.status, &api.error_type, api.code.as_str()), (403, &ErrorType::Forbidden, "permission_denied"));
    let (status, body, _) = raw(
        &service.base_url(),
        Method::DELETE,
        "/v1/persona/00000000-0000-4000-8000-000000000000",
        Some("Bearer sk-read-only"),
        None,
    )
    .await;
    assert_error(status, &body, 403, "forbidden", "permission_denied");

    // Health says what each key may do, in the spec's members and in the hosted SDK's `data`.
    let health = reader.health().await.unwrap();
    assert_eq!(health.scope, Some(switchboard::api::model::KeyScope::Read));
    assert_eq!(service.client.health().await.unwrap().scope, Some(switchboard::api::model::KeyScope::Full));
    let (status, body, _) =
        raw(&service.base_url(), Method::GET, "/v1/health", Some("Bearer sk-read-only"), None).await;
    assert_eq!(status, 200);
    assert_eq!((&body["authenticated"], &body["scope"]), (&serde_json::json!(true), &serde_json::json!("read")));
    for member in ["status", "timestamp", "version"] {
        assert!(body["data"][member].is_string(), "{member}: {body}");
    }
}

#[tokio::test]
async fn unknown_routes_and_ids_are_404_error_bodies_and_a_path_id_that_is_no_uuid_is_400() {
    let service = start(false).await;
    let key = bearer(service.running.api_key.expose());
    let (status, body, _) = raw(&service.base_url(), Method::GET, "/v1/does-not-exist", Some(&key), None).await;
    assert_error(status, &body, 404, "not_found", "resource_not_found");
    for path in ["/v1/persona/4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "/v1/issue/4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"] {
        let (status, body, _) = raw(&service.base_url(), Method::GET, path, Some(&key), None).await;
        assert_error(status, &body, 404, "not_found", "resource_not_found");
    }
    let (status, body, _) = raw(&service.base_url(), Method::GET, "/v1/persona/not-a-uuid", Some(&key), None).await;
    assert_error(status, &body, 400, "validation", "invalid_parameter");
    assert_eq!(body["param"], "id");
}

#[tokio::test]
async fn bad_bodies_are_400s_that_name_the_field() {
    let service = start(false).await;
    let key = bearer(service.running.api_key.expose());
    let base = service.base_url();
    let post = |body: &str| raw(&base, Method::POST, "/v1/issue", Some(&key), Some(body.as_bytes().to_vec()));
    let (status, body, _) = post("{\"title\": ").await;
    assert_error(status, &body, 400, "validation", "invalid_parameter");
    let (status, body, _) = post("{}").await;
    assert_error(status, &body, 400, "validation", "missing_required_field");
    assert_eq!(body["param"], "title");
    let (status, body, _) = post(r#"{"title": 42}"#).await;
    assert_error(status, &body, 400, "validation", "invalid_parameter");
    assert_eq!(body["param"], "title");
    let (status, body, _) = post(&format!(r#"{{"title": "{}"}}"#, "t".repeat(281))).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("title")));
    let (status, body, _) = post(r#"{"title": "ok", "evidence": [{"callId": "nope"}]}"#).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("evidence[0].callId")), "{body}");
}

#[tokio::test]
async fn unknown_run_plan_members_are_rejected_by_path() {
    let service = start(false).await;
    let key = bearer(service.running.api_key.expose());
    let plan = json!({"name": "p", "direction": "INBOUND", "maxSimulationDurationSeconds": 60,
        "flows": [{"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true}],
        "agentEndpoints": [{"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"}],
        "metrics": [{"slug": "call_duration", "weight": 2}]});
    let body = serde_json::to_vec(&plan).unwrap();
    let (status, body, _) = raw(&service.base_url(), Method::POST, "/v1/simulation/plan", Some(&key), Some(body)).await;
    assert_error(status, &body, 400, "validation", "invalid_parameter");
    assert_eq!(body["param"], "metrics[0].weight");
}

#[tokio::test]
async fn bodies_over_one_mebibyte_are_refused_with_an_error_body() {
    let service = start(false).await;
    let key = bearer(service.running.api_key.expose());
    let huge = format!(r#"{{"title": "t", "summary": "{}"}}"#, "s".repeat(1024 * 1024 + 10));
    let (status, body, _) =
        raw(&service.base_url(), Method::POST, "/v1/issue", Some(&key), Some(huge.into_bytes())).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["type"], "validation");
    assert_eq!(body["code"], "request_too_large");
}

#[tokio::test]
async fn over_the_rate_limit_is_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { rate_limit: 3, ..support::options(dir.path(), false) };
    let service = start_with(options, dir).await;
    let key = bearer(service.running.api_key.expose());
    // Burst is twice the rate: of 30 requests sent at once, at most the burst and what refills
    // while they are answered get through, however slow the machine.
    let base = service.base_url();
    let answers =
        futures_util::future::join_all((0..30).map(|_| raw(&base, Method::GET, "/v1/persona", Some(&key), None))).await;
    let passed = answers.iter().filter(|(status, ..)| *status == 200).count();
    assert!(passed >= 6, "the burst of 6 fits: {passed} passed");
    let (_, body, headers) = answers.into_iter().find(|(status, ..)| *status == 429).expect("a request was limited");
    assert_error(429, &body, 429, "rate_limit", "too_many_requests");
    let retry_after: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after >= 1);
}

#[tokio::test]
async fn the_embedded_service_does_not_throttle_its_own_client() {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        seed: false,
        ..switchboard::service::Options::embedded(dir.path().to_path_buf())
    };
    assert_eq!(options.rate_limit, switchboard::service::EMBEDDED_RATE_LIMIT);
    let service = start_with(options, dir).await;
    let key = bearer(service.running.api_key.expose());
    // More than the default limit's burst (2 × 50) at once: none is refused.
    let base = service.base_url();
    let requests = (0..150).map(|_| raw(&base, Method::GET, "/v1/persona", Some(&key), None));
    let answers = futures_util::future::join_all(requests).await;
    assert!(answers.iter().all(|(status, ..)| *status == 200), "{:?}", answers.iter().map(|a| a.0).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_non_loopback_address_needs_public() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        switchboard::service::Options { addr: "0.0.0.0:0".parse().unwrap(), ..support::options(dir.path(), false) };
    let err = switchboard::service::start(options).await.err().expect("refused");
    assert!(err.to_string().contains("--public"));
}

#[tokio::test]
async fn a_key_per_person_each_limited_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let named = switchboard::service::http::named_keys::parse(
        "alice sk-alice-0123456789abcdef\nbob sk-bob-0123456789abcdefgh\nci sk-ci-0123456789abcdefghij read-only\n",
    )
    .unwrap();
    let options =
        switchboard::service::Options { named_keys: named, rate_limit: 3, ..support::options(dir.path(), false) };
    let service = start_with(options, dir).await;
    let base = service.base_url();
    let issue = br#"{"title":"raised by a named key"}"#.to_vec();
    for key in ["sk-alice-0123456789abcdef", "sk-bob-0123456789abcdefgh"] {
        let (status, body, _) = raw(&base, Method::POST, "/v1/issue", Some(&bearer(key)), Some(issue.clone())).await;
        assert_eq!(status, 201, "{body}");
    }
    let ci = bearer("sk-ci-0123456789abcdefghij");
    let (status, _, _) = raw(&base, Method::GET, "/v1/issue", Some(&ci), None).await;
    assert_eq!(status, 200, "a read-only named key reads");
    let (status, body, _) = raw(&base, Method::POST, "/v1/issue", Some(&ci), Some(issue.clone())).await;
    assert_error(status, &body, 403, "forbidden", "permission_denied");
    let (status, body, _) =
        raw(&base, Method::GET, "/v1/issue", Some(&bearer("sk-carol-0123456789abcdef")), None).await;
    assert_error(status, &body, 401, "authentication", "unauthorized");

    // Alice spends her burst; Bob's key is not limited by hers.
    let alice = bearer("sk-alice-0123456789abcdef");
    let answers =
        futures_util::future::join_all((0..30).map(|_| raw(&base, Method::GET, "/v1/persona", Some(&alice), None)))
            .await;
    assert!(answers.iter().any(|(status, ..)| *status == 429), "alice was limited");
    let (status, _, _) = raw(&base, Method::GET, "/v1/persona", Some(&bearer("sk-bob-0123456789abcdefgh")), None).await;
    assert_eq!(status, 200, "bob's key has its own limit");
}
