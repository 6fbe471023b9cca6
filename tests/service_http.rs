//! HTTP hygiene of the local service: slow clients are disconnected, every error is the
//! spec's JSON body (the framework's and hyper's own included), the Bearer scheme is read
//! in any case, and failed keys are limited per client address.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly on the first surprise")]

mod support;

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use support::{eventually, raw, start, start_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The read timeout the tests give the service, so that waiting for it is quick.
const READ_TIMEOUT: Duration = Duration::from_millis(500);

async fn quick_service() -> support::Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { read_timeout: READ_TIMEOUT, ..support::options(dir.path(), false) };
    start_with(options, dir).await
}

/// Sends raw bytes and reads until the service closes the connection (or `deadline`).
async fn exchange(addr: std::net::SocketAddr, bytes: &[u8], deadline: Duration) -> (Vec<u8>, bool) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let closed = tokio::time::timeout(deadline, async {
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .is_ok();
    (out, closed)
}

/// The status and JSON body of a raw HTTP/1.1 response.
fn parse(response: &[u8]) -> (u16, String, Value) {
    let text = String::from_utf8_lossy(response);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let content_type = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_owned))
        .unwrap_or_default();
    (status, content_type, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn assert_error_body(what: &str, status: u16, content_type: &str, body: &Value, expected: u16) {
    assert_eq!(status, expected, "{what}: {body}");
    assert_eq!(content_type, "application/json", "{what}");
    for member in ["type", "code", "message"] {
        assert!(body[member].is_string(), "{what}: no {member} in {body}");
    }
}

#[tokio::test]
async fn a_client_that_sends_half_its_headers_is_disconnected() {
    let service = quick_service().await;
    let (_, closed) =
        exchange(service.running.addr, b"GET /v1/health HTTP/1.1\r\nHost: x\r\nAuthor", READ_TIMEOUT * 20).await;
    assert!(closed, "the connection is still open");
}

#[tokio::test]
async fn a_client_that_sends_less_body_than_it_declared_gets_a_408_and_is_disconnected() {
    let service = quick_service().await;
    let key = service.running.api_key.expose().to_owned();
    let request = format!(
        "POST /v1/persona HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n{{\"name\": \"a"
    );
    let (response, closed) = exchange(service.running.addr, request.as_bytes(), READ_TIMEOUT * 20).await;
    assert!(closed, "the connection is still open");
    let (status, content_type, body) = parse(&response);
    assert_error_body("short body", status, &content_type, &body, 408);
}

#[tokio::test]
async fn many_stalled_clients_are_all_disconnected() {
    let service = quick_service().await;
    let mut streams = Vec::new();
    for _ in 0..100 {
        let mut stream = TcpStream::connect(service.running.addr).await.unwrap();
        stream.write_all(b"GET /v1/health HTTP/1.1\r\n").await.unwrap();
        streams.push(stream);
    }
    for stream in &mut streams {
        let mut buf = [0u8; 64];
        let ended = tokio::time::timeout(READ_TIMEOUT * 20, stream.read(&mut buf)).await;
        assert!(matches!(ended, Ok(Ok(0)) | Ok(Err(_))), "a stalled connection stayed open");
    }
    // The service still answers.
    let (status, _, _) = raw(&service.base_url(), Method::GET, "/openapi.json", None, None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn errors_the_framework_and_hyper_write_are_the_spec_error_body() {
    let service = start(false).await;
    let addr = service.running.addr;
    let key = service.running.api_key.expose().to_owned();
    // `Connection: close` so that each exchange ends with its answer.
    let auth = format!("Authorization: Bearer {key}\r\nConnection: close\r\n");
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("invalid UTF-8 in a path", format!("GET /v1/persona/%FF%FE HTTP/1.1\r\nHost: x\r\n{auth}\r\n").into_bytes(), 400),
        ("405", format!("DELETE /v1/health HTTP/1.1\r\nHost: x\r\n{auth}\r\n").into_bytes(), 405),
        (
            "413",
            format!(
                "POST /v1/persona HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                2 * 1024 * 1024
            )
            .into_bytes(),
            413,
        ),
        ("414", format!("GET /v1/persona?x={} HTTP/1.1\r\nHost: x\r\n{auth}\r\n", "a".repeat(70_000)).into_bytes(), 414),
        ("431", format!("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n{auth}\r\n", "a".repeat(500_000)).into_bytes(), 431),
        ("too many headers", format!("GET /v1/health HTTP/1.1\r\n{}\r\n", "X-H: a\r\n".repeat(200)).into_bytes(), 431),
        ("not HTTP", b"HELLO THERE\r\n\r\n".to_vec(), 400),
        (
            "415 on /demo/agent",
            b"POST /demo/agent HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi".to_vec(),
            415,
        ),
        (
            "422 on /demo/agent",
            b"POST /demo/agent HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"text\": 42}"
                .to_vec(),
            400,
        ),
    ];
    for (what, request, expected) in cases {
        let (response, _) = exchange(addr, &request, Duration::from_secs(10)).await;
        let (status, content_type, body) = parse(&response);
        assert_error_body(what, status, &content_type, &body, expected);
    }
}

#[tokio::test]
async fn the_bearer_scheme_is_matched_in_any_case() {
    let service = start(false).await;
    let key = service.running.api_key.expose().to_owned();
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let header = format!("{scheme} {key}");
        let (status, body, _) = raw(&service.base_url(), Method::GET, "/v1/health", Some(&header), None).await;
        assert_eq!(status, 200, "{scheme}: {body}");
    }
    let (status, _, _) = raw(&service.base_url(), Method::GET, "/v1/health", Some(&format!("Basic {key}")), None).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn failed_keys_are_limited_per_client_address() {
    let service = start(false).await;
    let base = service.base_url();
    // Guessing: after a burst of wrong keys every attempt from this address is a 429 …
    let mut guesses = 0;
    let (retry_after, _) = eventually(Duration::from_secs(10), || {
        guesses += 1;
        let key = format!("Bearer sk-local-guess-{guesses}");
        let base = base.clone();
        async move {
            let (status, body, headers) = raw(&base, Method::GET, "/v1/health", Some(&key), None).await;
            (status == 429).then(|| (headers["retry-after"].to_str().unwrap().to_owned(), body))
        }
    })
    .await;
    assert!(guesses <= 100, "{guesses} guesses went through before the limit");
    assert!(retry_after.parse::<u64>().unwrap() >= 1);
    // … the right key included, so a lucky guess cannot be told apart. A slow machine may let a
    // token refill between a refused guess and the right key (five a second): then guess again.
    let right = format!("Bearer {}", service.running.api_key.expose());
    let mut answers = Vec::new();
    for _ in 0..20 {
        guesses += 1;
        let guess = format!("Bearer sk-local-guess-{guesses}");
        let (refused, ..) = raw(&base, Method::GET, "/v1/health", Some(&guess), None).await;
        if refused != 429 {
            continue;
        }
        let (status, body, _) = raw(&base, Method::GET, "/v1/health", Some(&right), None).await;
        answers.push(status);
        if status == 429 {
            assert_eq!(body["type"], "rate_limit");
            break;
        }
    }
    assert_eq!(answers.last(), Some(&429), "the right key got through every time: {answers:?}");
    // A missing header is not a guess and does not count.
    let (status, _, _) = raw(&base, Method::GET, "/v1/health", None, None).await;
    assert_eq!(status, 401);
}

/// `/ready` is for load balancers: no key, the store asked, nothing about the service told.
#[tokio::test]
async fn readiness_is_answered_without_a_key() {
    let service = start(false).await;
    let (status, body, _) = raw(&service.base_url(), Method::GET, "/ready", None, None).await;
    assert_eq!((status, body), (200, serde_json::json!({ "status": "ready" })));
    let (status, _, _) = raw(&service.base_url(), Method::GET, "/v1/ready", None, None).await;
    assert_eq!(status, 401, "only the unversioned path is public");
}

/// Conditional GETs: an unchanged resource is answered 304 with no body, a changed one 200
/// with a new tag; the client's watcher read says `Unchanged` without decoding anything.
#[tokio::test]
async fn an_unchanged_resource_is_answered_not_modified() {
    use switchboard::api::Conditional;
    let service = start(true).await;
    let http = reqwest::Client::new();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let get = |etag: Option<String>| {
        let mut request = http.get(format!("{}/v1/persona", service.base_url())).header("authorization", &key);
        if let Some(etag) = etag {
            request = request.header("if-none-match", etag);
        }
        request.send()
    };
    let first = get(None).await.unwrap();
    assert_eq!(first.status(), 200);
    let etag = first.headers().get("etag").expect("a GET carries an ETag").to_str().unwrap().to_owned();
    let again = get(Some(etag.clone())).await.unwrap();
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.unwrap().is_empty(), "a 304 has no body");
    assert_eq!(get(Some(format!("\"other\", W/{etag}"))).await.unwrap().status(), 304, "weak match, in a list");
    assert_eq!(get(Some("\"other\"".into())).await.unwrap().status(), 200);

    // A change gives the list a new tag, and the old one no longer matches.
    let fields = switchboard::api::model::PersonaFields { name: Some("Etag Tester".into()), ..Default::default() };
    service.client.create_persona(&fields).await.unwrap();
    let changed = get(Some(etag.clone())).await.unwrap();
    assert_eq!(changed.status(), 200);
    assert_ne!(changed.headers().get("etag").unwrap().to_str().unwrap(), etag);

    // Errors carry no tag, and a tag never gets past the key check.
    let missing = http
        .get(format!("{}/v1/persona/00000000-0000-0000-0000-000000000000", service.base_url()))
        .header("authorization", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert!(missing.headers().get("etag").is_none());
    let anonymous =
        http.get(format!("{}/v1/persona", service.base_url())).header("if-none-match", "*").send().await.unwrap();
    assert_eq!(anonymous.status(), 401);

    // The client: a job read with its own tag is Unchanged once it has ended.
    let plan = Some("def19c4f-3b29-5880-ab66-2113c56938c5".parse().unwrap());
    let run = switchboard::api::model::RunRequest { plan_id: plan, ..Default::default() };
    let id = service.client.run(&run).await.unwrap().simulation_run_plan_job_id;
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(|s| s.is_terminal()).then_some(())
    })
    .await;
    let Conditional::Changed { etag, .. } = service.client.get_run_plan_job_if_changed(id, true, None).await.unwrap()
    else {
        panic!("the first read has nothing to compare with")
    };
    let read = service.client.get_run_plan_job_if_changed(id, true, etag.as_deref()).await.unwrap();
    assert!(matches!(read, Conditional::Unchanged), "{read:?}");
}
