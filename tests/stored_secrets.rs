//! Stored secrets are write-only (issue 27): the secret header values of webhooks and HTTP
//! request definitions read back masked to every key, a mask put back keeps the secret, the
//! database holds none of them (nor a webhook's signing secret) in clear, the data dir is its
//! owner's alone, definitions' headers are checked as webhooks' are, and a rotated key keeps
//! every secret usable. On both stores (`SWITCHBOARD_TEST_STORE=postgres`).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::HeaderMap;
use base64::Engine;
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::Sha256;
use support::{eventually, raw};
use switchboard::api::ApiKey;
use switchboard::api::model::*;
use switchboard::service::http::named_keys::NamedKey;

const TOKEN: &str = "Bearer tok_abcdefghijklmnop";
const API_KEY: &str = "key_0123456789abcdef";
const TENANT: &str = "tenant-7f3a9c2e5b";
/// A plain header's value: kept and shown as it is.
const PLAIN: &str = "plain-visible-3141";
const READ_ONLY_KEY: &str = "sk-test-read-only-0001";
const NAMED_KEY: &str = "sk-test-named-pat-0001";

/// The headers the tests store: three secrets (one only because `secretHeaders` names it) and
/// a plain one.
fn headers() -> BTreeMap<String, String> {
    [("Authorization", TOKEN), ("X-Api-Key", API_KEY), ("X-Tenant", TENANT), ("X-Trace-Plan", PLAIN)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The same as every read shows them.
fn masked() -> Value {
    json!({"Authorization": "••••mnop", "X-Api-Key": "••••cdef", "X-Tenant": "••••2e5b", "X-Trace-Plan": PLAIN})
}

/// A service on `root`'s `data` folder (one the service makes itself: a temporary dir is
/// 0700 already), with a read-only key and a named key. Started again on the same root, it
/// finds its store and key files.
async fn start_in(root: tempfile::TempDir) -> support::Service {
    let mut options = support::options(&root.path().join("data"), true);
    options.read_only_api_key = Some(ApiKey::new(READ_ONLY_KEY));
    options.named_keys = vec![NamedKey { name: "pat".into(), key: ApiKey::new(NAMED_KEY), read_only: false }];
    options.webhook_retry.first = Duration::from_millis(50);
    support::start_with(options, root).await
}

fn data_dir(service: &support::Service) -> std::path::PathBuf {
    service.dir.path().join("data")
}

/// What the receiver heard: each request's path and headers (and body, for signatures).
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<(String, HeaderMap, String)>>>);

impl Heard {
    fn on(&self, path: &str) -> Vec<(HeaderMap, String)> {
        self.0.lock().unwrap().iter().filter(|(p, _, _)| p == path).map(|(_, h, b)| (h.clone(), b.clone())).collect()
    }
}

/// A webhook receiver (`/hook`) and an agent under test (`/agent`) in one; its base URL.
async fn receiver() -> (String, Heard) {
    let heard = Heard::default();
    let hook = |axum::extract::State(heard): axum::extract::State<Heard>, headers: HeaderMap, body: String| async move {
        heard.0.lock().unwrap().push(("/hook".into(), headers, body));
        axum::http::StatusCode::NO_CONTENT
    };
    let agent = |axum::extract::State(heard): axum::extract::State<Heard>, headers: HeaderMap, body: String| async move {
        heard.0.lock().unwrap().push(("/agent".into(), headers, body));
        axum::Json(json!({"text": "Thanks for calling. You're booked for Tuesday at 9 AM and confirmed."}))
    };
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .route("/agent", axum::routing::post(agent))
        .with_state(heard.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, heard)
}

/// The Standard Webhooks check, written apart from the service's code.
fn verify(secret: &str, headers: &HeaderMap, body: &str) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let key = base64::engine::general_purpose::STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{}", header("webhook-id"), header("webhook-timestamp"), body).as_bytes());
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    header("webhook-signature") == format!("v1,{expected}")
}

/// The headers a request carried, as the tests stored them.
fn assert_real_headers(headers: &HeaderMap) {
    assert_eq!(headers["authorization"], TOKEN);
    assert_eq!(headers["x-api-key"], API_KEY);
    assert_eq!(headers["x-tenant"], TENANT);
    assert_eq!(headers["x-trace-plan"], PLAIN);
}

/// What the tests make: a webhook and a definition with the secrets, and an endpoint that
/// dials through the definition.
struct Made {
    webhook: WebhookCreated,
    definition: Value,
    endpoint: uuid::Uuid,
}

async fn make(service: &support::Service, base: &str) -> Made {
    let client = &service.client;
    let webhook = client
        .create_webhook(&WebhookInput {
            events: Some(vec![EventType::IssueOpened]),
            url: Some(format!("{base}/hook")),
            headers: Some(headers()),
            secret_headers: Some(vec!["x-tenant".into()]),
            ..Default::default()
        })
        .await
        .unwrap();
    let body = json!({
        "scope": "AGENT_OUTBOUND_DIAL",
        "url": format!("{base}/agent"),
        "headers": headers(),
        "secretHeaders": ["X-Tenant"],
    });
    let (status, created, _) = post(service, "/v1/http-request-definition", &body).await;
    assert_eq!(status, 201, "{created}");
    let definition = created["data"].clone();
    let agent = client.create_agent(&AgentInput { name: Some("Secret desk".into()), ..Default::default() }).await;
    let endpoint = client
        .create_agent_endpoint(&AgentEndpointInput {
            agent_id: Some(agent.unwrap().id),
            direction: Some(EndpointDirection::IncomingAndOutgoing),
            value: Some("+15550100".into()),
            outbound_dial_type: Some(OutboundDialType::HttpRequest),
            outbound_dial_http_request_definition_id: Some(definition["id"].as_str().unwrap().parse().unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    Made { webhook, definition, endpoint: endpoint.id }
}

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

async fn post(service: &support::Service, path: &str, body: &Value) -> (u16, Value, reqwest::header::HeaderMap) {
    let key = bearer(service.running.api_key.expose());
    raw(&service.base_url(), Method::POST, path, Some(&key), Some(body.to_string().into_bytes())).await
}

async fn put(service: &support::Service, path: &str, body: &Value) -> (u16, Value) {
    let key = bearer(service.running.api_key.expose());
    let (status, answer, _) =
        raw(&service.base_url(), Method::PUT, path, Some(&key), Some(body.to_string().into_bytes())).await;
    (status, answer)
}

async fn get(service: &support::Service, key: &str, path: &str) -> Value {
    let (status, body, _) = raw(&service.base_url(), Method::GET, path, Some(&bearer(key)), None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// Runs the reschedule flow once against `endpoint` and waits for the agent to be dialled.
async fn dial(service: &support::Service, endpoint: uuid::Uuid, heard: &Heard) -> HeaderMap {
    let before = heard.on("/agent").len();
    let plan: RunPlanInput = serde_json::from_value(json!({
        "name": "secret headers",
        "direction": "INBOUND",
        "iterationCount": 1,
        "maxSimulationDurationSeconds": 120,
        "flows": [{"id": cli::RESCHEDULE_FLOW, "happyPath": true}],
        "agentEndpoints": [{"id": endpoint}],
        "metrics": [{"slug": "call_duration"}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap();
    service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let calls = eventually(Duration::from_secs(60), || async {
        let calls = heard.on("/agent");
        (calls.len() > before).then_some(calls)
    })
    .await;
    calls[before].0.clone()
}

/// Opens an issue and waits for its delivery to the webhook.
async fn deliver(service: &support::Service, heard: &Heard) -> (HeaderMap, String) {
    let before = heard.on("/hook").len();
    let issue = IssueInput {
        title: Some("Delivered with secrets".into()),
        summary: Some("raised by the stored secrets test".into()),
        severity: Some(Severity::Low),
        ..Default::default()
    };
    service.client.create_issue(&issue).await.unwrap();
    let delivered = eventually(Duration::from_secs(30), || async {
        let delivered = heard.on("/hook");
        (delivered.len() > before).then_some(delivered)
    })
    .await;
    delivered[before].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_headers_read_back_masked_to_every_key_and_a_mask_put_back_keeps_the_secret() {
    let service = start_in(tempfile::tempdir().unwrap()).await;
    let (base, heard) = receiver().await;
    let made = make(&service, &base).await;

    // The creation answers already show masks (and, this once, the signing secret).
    assert_eq!(serde_json::to_value(&made.webhook.webhook.headers).unwrap(), masked());
    assert!(made.webhook.signing_secret.starts_with("whsec_"));
    assert_eq!(made.definition["headers"], masked(), "{}", made.definition);
    assert_eq!(made.definition["secretHeaders"], json!(["X-Tenant"]));

    // Every key reads masks: the full key, the read-only key, a named key; one and lists.
    let (webhook, definition) = (made.webhook.webhook.id, made.definition["id"].as_str().unwrap().to_owned());
    for key in [service.running.api_key.expose(), READ_ONLY_KEY, NAMED_KEY] {
        let one = get(&service, key, &format!("/v1/webhook/{webhook}")).await;
        assert_eq!(one["data"]["headers"], masked(), "{key}: {one}");
        assert_eq!(one["data"]["secretHeaders"], json!(["x-tenant"]));
        let listed = get(&service, key, "/v1/webhook").await;
        assert_eq!(listed["data"][0]["headers"], masked(), "{key}: {listed}");
        let one = get(&service, key, &format!("/v1/http-request-definition/{definition}")).await;
        assert_eq!(one["data"]["headers"], masked(), "{key}: {one}");
        let listed = get(&service, key, "/v1/http-request-definition").await;
        let listed = listed["data"].as_array().unwrap().iter().find(|d| d["id"] == definition.as_str()).cloned();
        assert_eq!(listed.unwrap()["headers"], masked(), "{key}");
        for text in [one.to_string(), listed_text(&service, key).await] {
            for secret in [TOKEN, API_KEY, TENANT, made.webhook.signing_secret.as_str()] {
                assert!(!text.contains(secret), "{key} read {secret}");
            }
        }
    }

    // Read, edited and put back: the masks keep the secrets; the edit is kept.
    let read =
        get(&service, service.running.api_key.expose(), &format!("/v1/http-request-definition/{definition}")).await;
    let path = format!("/v1/http-request-definition/{definition}");
    let edit = json!({"description": "edited", "headers": read["data"]["headers"]});
    let (status, updated) = put(&service, &path, &edit).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (updated["data"]["headers"].clone(), updated["data"]["description"].clone()),
        (masked(), json!("edited"))
    );

    // A mask that is not the kept value's, or where nothing is kept, is refused.
    let mut wrong = masked();
    wrong["Authorization"] = json!("••••zzzz");
    let (status, answer) = put(&service, &path, &json!({"headers": wrong})).await;
    assert_eq!((status, answer["param"].as_str()), (400, Some("headers.Authorization")), "{answer}");
    let mut nothing_kept = masked();
    nothing_kept["X-Trace-Plan"] = json!("••••");
    let (status, answer) = put(&service, &path, &json!({"headers": nothing_kept})).await;
    assert_eq!((status, answer["param"].as_str()), (400, Some("headers.X-Trace-Plan")), "{answer}");

    // The agent and the webhook receiver get the real values.
    assert_real_headers(&dial(&service, made.endpoint, &heard).await);
    let (headers, body) = deliver(&service, &heard).await;
    assert_real_headers(&headers);
    assert!(verify(&made.webhook.signing_secret, &headers, &body), "signed with the secret shown at creation");
}

/// The console's `e` on a definition applies its YAML, masks and all, through config apply: the
/// definition made another way is changed in place (named by its id), each mask keeps the value
/// it stands for, a mask of nothing kept is refused naming the header, and a diff of a changed
/// secret shows masks, never the old or the new value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_definition_applied_with_its_masks_keeps_its_secrets_in_place() {
    let service = start_in(tempfile::tempdir().unwrap()).await;
    let (base, heard) = receiver().await;
    let made = make(&service, &base).await;
    let id = made.definition["id"].as_str().unwrap().to_owned();
    let resource = |headers: Value| {
        json!({"resources": [{"kind": "httpRequestDefinition", "name": id, "url": format!("{base}/agent"),
            "method": "POST", "description": "edited in the console", "headers": headers}], "prune": false})
    };

    let (status, applied, _) = post(&service, "/v1/config/apply", &resource(masked())).await;
    assert_eq!(status, 200, "{applied}");
    let change = &applied["data"]["changes"][0];
    assert_eq!((change["op"].as_str(), change["id"].as_str()), (Some("update"), Some(id.as_str())), "{applied}");
    let read = get(&service, service.running.api_key.expose(), &format!("/v1/http-request-definition/{id}")).await;
    assert_eq!(
        (read["data"]["description"].as_str(), &read["data"]["headers"]),
        (Some("edited in the console"), &masked())
    );
    assert_real_headers(&dial(&service, made.endpoint, &heard).await);

    let mut changed = masked();
    changed["Authorization"] = json!("Bearer tok_a-new-token-value");
    let (status, diff, _) = post(&service, "/v1/config/diff", &resource(changed)).await;
    assert_eq!(status, 200, "{diff}");
    let detail = diff["data"]["changes"][0]["detail"].as_str().unwrap_or_default().to_owned();
    assert!(detail.contains("headers.Authorization: \"••••mnop\" → \"••••alue\""), "{detail}");
    for secret in [TOKEN, "Bearer tok_a-new-token-value", API_KEY, TENANT] {
        assert!(!diff.to_string().contains(secret), "the diff shows {secret}: {diff}");
    }

    let mut nothing_kept = masked();
    nothing_kept["X-Trace-Plan"] = json!("••••");
    let (status, refused, _) = post(&service, "/v1/config/apply", &resource(nothing_kept)).await;
    assert_eq!(status, 400, "{refused}");
    let violations = refused["details"]["violations"].to_string();
    assert!(violations.contains("headers.X-Trace-Plan"), "{refused}");
}

/// A list's text, for a read-only key as for any other.
async fn listed_text(service: &support::Service, key: &str) -> String {
    let webhooks = get(service, key, "/v1/webhook").await;
    let definitions = get(service, key, "/v1/http-request-definition").await;
    format!("{webhooks}{definitions}")
}

/// Every byte the store keeps: the SQLite file and its journals, or every PostgreSQL table's
/// rows as text.
fn store_text(dir: &Path) -> String {
    match support::database_for(dir) {
        None => {
            let mut bytes = Vec::new();
            for file in ["switchboard.db", "switchboard.db-wal", "switchboard.db-shm"] {
                bytes.extend(std::fs::read(dir.join(file)).unwrap_or_default());
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Some(url) => std::thread::spawn(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let tables: Vec<String> = client
                .query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'", &[])
                .unwrap()
                .iter()
                .map(|row| row.get(0))
                .collect();
            let mut text = String::new();
            for table in tables {
                for row in client.query(&format!("SELECT t::text FROM \"{table}\" t"), &[]).unwrap() {
                    text.push_str(row.get::<_, &str>(0));
                    text.push('\n');
                }
            }
            text
        })
        .join()
        .unwrap(),
    }
}

/// The values of one column of the store's rows (`sql` selects one text column).
fn column(dir: &Path, sql: &str) -> Vec<String> {
    match support::database_for(dir) {
        None => {
            let db = rusqlite::Connection::open(dir.join("switchboard.db")).unwrap();
            let mut statement = db.prepare(sql).unwrap();
            statement.query_map([], |row| row.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
        }
        Some(url) => {
            let sql = sql.to_owned();
            std::thread::spawn(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                client.query(sql.as_str(), &[]).unwrap().iter().map(|row| row.get::<_, String>(0)).collect()
            })
            .join()
            .unwrap()
        }
    }
}

fn assert_no_secret_in_clear(dir: &Path, signing_secrets: &[&str]) {
    let text = store_text(dir);
    assert!(text.contains(PLAIN), "the scan reads what the store keeps");
    for secret in [TOKEN, "tok_abcdefghijklmnop", API_KEY, TENANT].iter().chain(signing_secrets) {
        assert!(!text.contains(secret), "{secret} is kept in clear");
    }
    for secret in signing_secrets {
        assert!(!text.contains(secret.trim_start_matches("whsec_")), "a signing secret's key is kept in clear");
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_is_kept_in_clear_and_the_data_dir_is_its_owners_alone() {
    let service = start_in(tempfile::tempdir().unwrap()).await;
    let (base, heard) = receiver().await;
    let made = make(&service, &base).await;
    // A delivery and a dial: what the engines open is not written back in clear.
    deliver(&service, &heard).await;
    dial(&service, made.endpoint, &heard).await;
    let dir = data_dir(&service);
    assert_no_secret_in_clear(&dir, &[made.webhook.signing_secret.as_str()]);

    #[cfg(unix)]
    {
        assert_eq!(mode(&dir), 0o700, "the data dir");
        for file in ["api_key", "secrets.key"] {
            assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
        }
        if !support::on_postgres() {
            for file in ["switchboard.db", "switchboard.db-wal", "switchboard.db-shm"] {
                assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
            }
        }
    }
}

#[tokio::test]
async fn definition_headers_are_checked_as_webhook_headers_are_and_nothing_is_stored() {
    let service = support::start(true).await;
    let many: BTreeMap<String, String> = (0..10_000).map(|n| (format!("X-Header-{n}"), "v".to_owned())).collect();
    let one_too_many: BTreeMap<String, String> =
        (0..=header_limits::HEADERS_MAX).map(|n| (format!("X-Header-{n}"), "v".to_owned())).collect();
    let cases = [
        (json!(many), "headers"),
        (json!(one_too_many), "headers"),
        (json!({"X-Injected": "v\r\nInjected: 1"}), "headers.X-Injected"),
        (json!({"X Spaced": "v"}), "headers.X Spaced"),
        (json!({"X-Long": "v".repeat(header_limits::HEADER_VALUE_MAX + 1)}), "headers.X-Long"),
        (json!({"Host": "example.com"}), "headers.Host"),
        (json!({"Authorization": "••••mnop"}), "headers.Authorization"),
    ];
    let definitions = |service: &support::Service| {
        let (base, key) = (service.base_url(), bearer(service.running.api_key.expose()));
        async move { raw(&base, Method::GET, "/v1/http-request-definition", Some(&key), None).await.1 }
    };
    let before = definitions(&service).await;
    for (headers, param) in &cases {
        let body = json!({"scope": "AGENT_OUTBOUND_DIAL", "url": "http://127.0.0.1:9/agent", "headers": headers});
        let (status, answer, _) = post(&service, "/v1/http-request-definition", &body).await;
        assert_eq!((status, answer["param"].as_str()), (400, Some(*param)), "{answer}");
        // The same on a webhook, which always refused them.
        let webhook = json!({"events": ["ISSUE_OPENED"], "url": "http://127.0.0.1:9/hook", "headers": headers});
        let (status, answer, _) = post(&service, "/v1/webhook", &webhook).await;
        assert_eq!((status, answer["param"].as_str()), (400, Some(*param)), "webhook: {answer}");
    }
    let body = json!({"scope": "AGENT_OUTBOUND_DIAL", "url": "http://127.0.0.1:9/agent", "secretHeaders": ["no good"]});
    let (status, answer, _) = post(&service, "/v1/http-request-definition", &body).await;
    assert_eq!((status, answer["param"].as_str()), (400, Some("secretHeaders[0]")), "{answer}");
    assert_eq!(definitions(&service).await, before, "nothing stored");

    // An update is checked the same way, and leaves the definition as it was.
    let seeded = before["data"][0]["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/http-request-definition/{seeded}");
    for (headers, param) in cases.iter().filter(|(_, p)| *p != "headers.Authorization") {
        let (status, answer) = put(&service, &path, &json!({"headers": headers})).await;
        assert_eq!((status, answer["param"].as_str()), (400, Some(*param)), "{answer}");
    }
    assert_eq!(definitions(&service).await, before, "nothing changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_keeps_deliveries_signed_and_agent_calls_authorised() {
    let service = start_in(tempfile::tempdir().unwrap()).await;
    let (base, heard) = receiver().await;
    let made = make(&service, &base).await;
    let dir = data_dir(&service);
    let key_ids = |dir: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join("secrets.key")).unwrap();
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| l.split(' ').next().unwrap().into())
            .collect()
    };
    let old = key_ids(&dir);
    assert_eq!(old.len(), 1);

    // Rotated under the running service.
    let home = tempfile::tempdir().unwrap();
    let mut rotate = cli::switchboard(home.path());
    rotate.args(["secrets", "rotate-key", "--data-dir"]).arg(&dir);
    if let Some(url) = support::database_for(&dir) {
        rotate.args(["--database", &url]);
    }
    let output = cli::run(&mut rotate).await;
    cli::assert_exit(&output, 0);
    let new = key_ids(&dir);
    assert_eq!(new.len(), 1, "the old key is dropped: {new:?}");
    assert_ne!(new, old);
    assert!(cli::stdout(&output).contains(&new[0]), "{}", cli::stdout(&output));
    let sealed_with = column(&dir, "SELECT DISTINCT key_id FROM secrets");
    assert_eq!(sealed_with, new, "every secret is sealed with the new key");
    #[cfg(unix)]
    assert_eq!(mode(&dir.join("secrets.key")), 0o600);

    // The running service reads the new key when it meets it.
    let (headers, body) = deliver(&service, &heard).await;
    assert_real_headers(&headers);
    assert!(verify(&made.webhook.signing_secret, &headers, &body));
    assert_real_headers(&dial(&service, made.endpoint, &heard).await);
    assert_no_secret_in_clear(&dir, &[made.webhook.signing_secret.as_str()]);

    // And a restart starts from it.
    let support::Service { running, dir: root, .. } = service;
    running.shutdown().await.unwrap();
    let again = start_in(root).await;
    let (headers, body) = deliver(&again, &heard).await;
    assert!(verify(&made.webhook.signing_secret, &headers, &body));
    assert_real_headers(&headers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_an_older_build_kept_in_clear_are_sealed_at_start() {
    let service = start_in(tempfile::tempdir().unwrap()).await;
    let (base, heard) = receiver().await;
    let dir = data_dir(&service);
    let support::Service { running, dir: root, .. } = service;
    running.shutdown().await.unwrap();

    // Documents as the build before wrote them: the signing secret and every header in clear.
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let (webhook, definition) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    let now = Timestamp::now().0;
    let webhook_body = json!({
        "id": webhook, "url": format!("{base}/hook"), "events": ["ISSUE_OPENED"], "description": null,
        "headers": headers(), "createdAt": now, "updatedAt": now, "signingSecret": secret,
    });
    let definition_body = json!({
        "id": definition, "scope": "AGENT_OUTBOUND_DIAL", "url": format!("{base}/agent"), "method": "POST",
        "description": null, "body": null, "parsedBody": null, "headers": headers(), "isConfigManaged": false,
        "createdAt": now, "updatedAt": now,
    });
    for (kind, id, body) in
        [("webhook", webhook, webhook_body), ("http_request_definition", definition, definition_body)]
    {
        let body = body.to_string().replace('\'', "''");
        let insert =
            format!("INSERT INTO docs (kind, id, body, created_at) VALUES ('{kind}', '{id}', '{body}', '{now}')");
        assert_eq!(support::tamper(&dir, &insert, &insert), 1);
    }

    let service = start_in(root).await;
    // X-Tenant is not secret by name, and the old build had no secretHeaders: it stays as it was.
    let mut shown = masked();
    shown["X-Tenant"] = json!(TENANT);
    let key = service.running.api_key.expose();
    assert_eq!(get(&service, key, &format!("/v1/webhook/{webhook}")).await["data"]["headers"], shown);
    let read = get(&service, key, &format!("/v1/http-request-definition/{definition}")).await;
    assert_eq!(read["data"]["headers"], shown);
    let bodies =
        column(&dir, "SELECT CAST(body AS TEXT) FROM docs WHERE kind IN ('webhook', 'http_request_definition')");
    assert!(bodies.iter().all(|b| !b.contains(TOKEN) && !b.contains(API_KEY) && !b.contains(secret)), "{bodies:?}");
    let text = store_text(&dir);
    for secret in [TOKEN, API_KEY, secret] {
        assert!(!text.contains(secret), "{secret} is left in the store's files");
    }

    // The secrets still work: the delivery is signed with the old secret, with the real headers.
    let (headers, body) = deliver(&service, &heard).await;
    assert!(verify(secret, &headers, &body));
    assert_eq!((headers["authorization"].to_str().unwrap(), headers["x-api-key"].to_str().unwrap()), (TOKEN, API_KEY));
}

/// A rotation pointed at a data dir with no store refuses (exit 2) and leaves the key file as
/// it was: the keys a real store's secrets need are never dropped for a wrong one.
#[tokio::test]
async fn a_rotation_without_its_store_refuses_and_keeps_every_key() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("not-the-data-dir");
    std::fs::create_dir_all(&empty).unwrap();
    let key_file = home.path().join("secrets.key");
    std::fs::write(&key_file, "unchanged").unwrap();
    let mut rotate = cli::switchboard(home.path());
    rotate.args(["secrets", "rotate-key", "--data-dir"]).arg(&empty).arg("--secrets-key-file").arg(&key_file);
    let output = cli::run(&mut rotate).await;
    cli::assert_exit(&output, 2);
    assert!(cli::stderr(&output).contains("there is no store"), "{}", cli::stderr(&output));
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), "unchanged");
    assert!(!empty.join("switchboard.db").exists(), "no store was made");
}
