//! What alerts do besides opening issues, against the real service: an alert's webhooks get
//! its issues' ISSUE_OPENED and ISSUE_RESOLVED, signed with the secret its apply showed once
//! (and never again: not in reads, exports or logs); an event trigger sends the events it
//! lists; a simulation trigger opens one issue per plan when a run ends in a listed outcome.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/receiver.rs"]
mod receiver;
mod support;

use std::path::Path;
use std::time::Duration;

use receiver::{Receiver, receiver, verify};
use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, eventually, raw, seeded, start};
use switchboard::api::model::{
    EventQuery, EventType, IssueInput, IssueStatus, IssueUpdate, RunPlanJobStatus, RunRequest, Severity,
};
use switchboard::api::{ApiKey, Client};

const DEADLINE: Duration = Duration::from_secs(60);
const MINUTE_MS: i64 = 60_000;

/// A service's address and key, embedded or in a process of its own.
struct Api {
    base: String,
    key: String,
}

impl Api {
    fn of(service: &Service) -> Api {
        Api { base: service.base_url(), key: service.running.api_key.expose().to_owned() }
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
        let (status, value, _) = raw(&self.base, method, path, Some(&format!("Bearer {}", self.key)), bytes).await;
        (status, value)
    }

    /// Applies `resources`; the change of each, in order.
    async fn apply(&self, resources: Value) -> Vec<Value> {
        let (status, body) = self.call(Method::POST, "/v1/config/apply", Some(&json!({"resources": resources}))).await;
        assert_eq!(status, 200, "{body}");
        body["data"]["changes"].as_array().unwrap().clone()
    }
}

/// The start of the minute `minutes_ago` minutes before this one (unix ms).
fn window(minutes_ago: i64) -> i64 {
    let now = jiff::Timestamp::now().as_millisecond();
    (now.div_euclid(MINUTE_MS) - minutes_ago) * MINUTE_MS
}

/// Posts a call of `agent` started 10 s into `window_ms`, lasting `seconds`; its agent's id.
async fn post_call(api: &Api, agent: &str, window_ms: i64, seconds: i64) -> String {
    let started = jiff::Timestamp::from_millisecond(window_ms + 10_000).unwrap().to_string();
    let body = json!({"startedAt": started, "callDirection": "INBOUND", "interfaceType": "PHONE",
                      "agent": {"name": agent},
                      "transcript": {"entries": [{"startOffsetMs": 0, "endOffsetMs": seconds * 1000,
                                                  "text": "hello", "role": "AGENT"}]}});
    let (status, created) = api.call(Method::POST, "/v1/call", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    created["data"]["agentId"].as_str().unwrap().to_owned()
}

/// The events the receiver got, each checked against `secret`: `(type, resource id, data)`.
fn signed_events(receiver: &Receiver, secret: &str) -> Vec<(String, String, Value)> {
    receiver
        .requests()
        .iter()
        .map(|(headers, body)| {
            assert!(verify(secret, headers, body), "signed with the alert's secret: {body}");
            let event: Value = serde_json::from_str(body).unwrap();
            (
                event["type"].as_str().unwrap().to_owned(),
                event["resourceId"].as_str().unwrap().to_owned(),
                event["data"].clone(),
            )
        })
        .collect()
}

/// Every file under `dir`, read as bytes (a database, a log, an export).
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, bytes));
        }
    }
    out
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_threshold_alerts_webhooks_get_its_issue_opened_then_resolved_signed_with_the_secret_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-alert-actions";
    let (receiver, url) = receiver(0).await;
    let flags = ["--alert-quiet-ms", "150", "--webhook-retry-ms", "200", "--log-level", "debug"];
    let (_serving, base) = support::serve::spawn_serve(dir.path(), key, &flags);
    let api = Api { base, key: key.to_owned() };
    let metric = seeded("metric_definitions", |d| d["slug"] == "call_duration").remove(0);
    let policy =
        json!({"name": "Durations", "modality": "call", "status": "ACTIVE", "metrics": [{"id": metric["id"]}]});
    assert_eq!(api.call(Method::POST, "/v1/metric/policies", Some(&policy)).await.0, 201);
    let alert = json!({"kind": "alert", "name": "hooked",
        "trigger": {"type": "threshold", "metric": "call_duration", "aggregation": "MEAN", "operator": "GT",
                    "thresholdValue": 50.0, "windowMinutes": 1, "grouping": "BY_AGENT"},
        "actions": {"webhooks": [url], "slack": [{"channelId": "C42", "channelName": "#on-call"}]}});

    // A diff shows no secret; the apply that creates the alert shows it, once.
    let (_, diff) = api.call(Method::POST, "/v1/config/diff", Some(&json!({"resources": [alert]}))).await;
    assert!(diff["data"]["changes"][0].get("signingSecret").is_none(), "{diff}");
    let created = api.apply(json!([alert])).await.remove(0);
    let secret = created["signingSecret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{created}");
    assert!(created["detail"].as_str().is_some_and(|d| d.contains("#on-call") && d.contains("not delivered")));
    let again = api.apply(json!([alert])).await.remove(0);
    assert_eq!((again["op"].as_str(), again.get("signingSecret")), (Some("noop"), None), "{again}");

    // A breaching window opens the agent's issue; a clean one resolves it.
    let desk = post_call(&api, "Hooked desk", window(30), 90).await;
    let ours = |kind: &'static str| {
        let (receiver, secret, desk) = (receiver.clone(), secret.clone(), desk.clone());
        async move {
            signed_events(&receiver, &secret).into_iter().find(|(t, _, data)| {
                t == kind && data["fingerprint"].as_str().is_some_and(|f| f.ends_with(&format!(":agent:{desk}")))
            })
        }
    };
    let (_, opened, issue) = eventually(DEADLINE, || ours("ISSUE_OPENED")).await;
    assert_eq!((issue["source"].as_str(), issue["status"].as_str()), (Some("TREND_ALERT"), Some("OPEN")));
    assert_eq!(issue["alertId"], created["id"], "the event carries the issue the alert opened");
    post_call(&api, "Hooked desk", window(29), 5).await;
    let (_, resolved, issue) = eventually(DEADLINE, || ours("ISSUE_RESOLVED")).await;
    assert_eq!((resolved, issue["status"].as_str()), (opened.clone(), Some("RESOLVED")));
    // Both are on the event stream too.
    let client = Client::new(&api.base, ApiKey::new(key), support::no_retries()).unwrap();
    let query = EventQuery { resource_id: Some(opened.clone()), after: Some(0), ..Default::default() };
    let mut stream = client.events(&query, None).await.unwrap();
    let mut streamed = Vec::new();
    while streamed.len() < 2 {
        let next = tokio::time::timeout(DEADLINE, stream.next()).await.expect("the events come");
        streamed.push(next.unwrap().expect("the stream stays open").event_type);
    }
    assert_eq!(streamed, [EventType::IssueOpened, EventType::IssueResolved]);

    // The reads show each action and whether it is delivered, and no secret.
    let (_, read) = api.call(Method::GET, "/v1/alert/hooked", None).await;
    let actions = &read["data"]["actionStatus"];
    assert_eq!((actions[0]["target"].as_str(), actions[0]["delivered"].as_bool()), (Some(url.as_str()), Some(true)));
    assert_eq!((actions[1]["target"].as_str(), actions[1]["delivered"].as_bool()), (Some("#on-call"), Some(false)));
    assert!(actions[1]["reason"].as_str().is_some_and(|r| r.contains("not delivered")), "{read}");
    let (_, listed) = api.call(Method::GET, "/v1/alert", None).await;
    for body in [&read, &listed] {
        assert!(!body.to_string().contains(&secret), "no read shows the secret");
    }

    // Nor an export, nor the service's log or store (sealed there).
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("exported");
    let export =
        cli::run(
            cli::switchboard(home.path())
                .env("SWITCHBOARD_BASE_URL", &api.base)
                .env("SWITCHBOARD_API_KEY", key)
                .args(["config", "export", "--out-dir", out.to_str().unwrap()]),
        )
        .await;
    cli::assert_exit(&export, 0);
    let exported = files_under(&out);
    assert!(exported.iter().any(|(_, bytes)| holds(bytes, &url)), "the export holds the alert");
    let logs = files_under(dir.path());
    assert!(logs.iter().any(|(path, _)| path.to_string_lossy().contains("logs")), "the service logs to its data dir");
    let key_part = secret.trim_start_matches("whsec_");
    for (path, bytes) in exported.iter().chain(&logs).chain(&files_under(home.path())) {
        assert!(!holds(bytes, key_part), "the secret is in {}", path.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_trigger_sends_the_events_it_lists_and_opens_nothing() {
    let service = start(false).await;
    let api = Api::of(&service);
    let (receiver, url) = receiver(0).await;
    let alert = json!({"kind": "alert", "name": "resolutions",
                       "trigger": {"type": "event", "events": ["ISSUE_RESOLVED"]}, "actions": {"webhooks": [url]}});
    let secret = api.apply(json!([alert])).await.remove(0)["signingSecret"].as_str().unwrap().to_owned();
    let resolve = IssueUpdate { status: Some(IssueStatus::Resolved), ..Default::default() };
    let mut resolved = Vec::new();
    for title in ["First to resolve", "Second to resolve"] {
        let input = IssueInput {
            title: Some(title.into()),
            summary: Some("raised by the alert actions test".into()),
            severity: Some(Severity::Low),
            ..Default::default()
        };
        let issue = service.client.create_issue(&input).await.unwrap();
        service.client.update_issue(issue.id, &resolve).await.unwrap();
        resolved.push(("ISSUE_RESOLVED".to_owned(), issue.id.to_string()));
        // Deliveries go in order: once this one came, an ISSUE_OPENED before it would have too.
        let want = resolved.len();
        eventually(DEADLINE, || async { (receiver.requests().len() >= want).then_some(()) }).await;
    }
    let told: Vec<(String, String)> =
        signed_events(&receiver, &secret).into_iter().map(|(kind, id, _)| (kind, id)).collect();
    assert_eq!(told, resolved, "the listed kind only, each once");
    let (_, issues) = api.call(Method::GET, "/v1/issue?source=TREND_ALERT", None).await;
    assert_eq!(issues["data"].as_array().map(Vec::len), Some(0), "an event trigger only notifies: {issues}");
}

/// Runs a plan to its end; the job's final status.
async fn run_to_end(service: &Service, plan: uuid::Uuid) -> RunPlanJobStatus {
    request_to_end(service, RunRequest { plan_id: Some(plan), ..Default::default() }).await
}

async fn request_to_end(service: &Service, request: RunRequest) -> RunPlanJobStatus {
    let job = service.client.run(&request).await.unwrap().simulation_run_plan_job_id;
    eventually(Duration::from_secs(180), || async {
        let status = service.client.get_run_plan_job(job).await.unwrap().status?;
        status.is_terminal().then_some(status)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulation_trigger_opens_one_issue_per_plan_after_a_failed_run_and_not_after_a_passing_one() {
    let service = start(true).await;
    let api = Api::of(&service);
    let (always, never) =
        (cli::duration_check(&service.client, true).await, cli::duration_check(&service.client, false).await);
    let passing = cli::create_plan(&service.client, &cli::plan_input("Passes", Some((&always, 100.0)), 1)).await;
    let failing = cli::create_plan(&service.client, &cli::plan_input("Misses", Some((&never, 100.0)), 1)).await;
    let watch = |name: &str, plan: &str| {
        json!({"kind": "alert", "name": name,
               "trigger": {"type": "simulation", "plan": plan, "conditions": ["FAILURE", "THRESHOLD_FAILED"]}})
    };
    api.apply(json!([watch("passes-failing", "Passes"), watch("misses-failing", "Misses")])).await;

    assert_eq!(run_to_end(&service, passing).await, RunPlanJobStatus::Completed);
    let (_, state) = api.call(Method::GET, "/v1/alert/passes-failing", None).await;
    let group = &state["data"]["groups"][0];
    assert_eq!(group["planId"].as_str(), Some(passing.to_string().as_str()), "the run was judged: {state}");
    assert_eq!((state["data"]["state"].as_str(), group["consecutiveWindows"].as_u64()), (Some("OK"), Some(1)));

    let misses = |api: &Api| {
        let api = Api { base: api.base.clone(), key: api.key.clone() };
        async move {
            let (_, alert) = api.call(Method::GET, "/v1/alert/misses-failing", None).await;
            let (_, issues) = api.call(Method::GET, "/v1/issue?source=TREND_ALERT&limit=50", None).await;
            let ours = issues["data"].as_array().unwrap().iter().filter(|i| i["alertId"] == alert["data"]["id"]);
            ours.cloned().collect::<Vec<Value>>()
        }
    };
    assert!(misses(&api).await.is_empty());
    run_to_end(&service, failing).await;
    let issues = misses(&api).await;
    assert_eq!(issues.len(), 1, "{issues:?}");
    let issue = &issues[0];
    assert_eq!((issue["status"].as_str(), issue["eventCount"].as_u64()), (Some("OPEN"), Some(1)));
    assert!(issue["fingerprint"].as_str().unwrap().ends_with(&format!(":plan:{failing}")), "{issue}");
    assert!(issue["title"].as_str().unwrap().contains("a run of Misses ended THRESHOLD_FAILED"), "{issue}");
    // The alert's group for the plan names the issue's fingerprint, and no agent.
    let (_, alert) = api.call(Method::GET, "/v1/alert/misses-failing", None).await;
    let group = &alert["data"]["groups"][0];
    assert_eq!(group["fingerprint"], issue["fingerprint"], "{alert}");
    assert!(group.get("agentId").is_none_or(Value::is_null), "{alert}");

    // Another failed run of the plan counts on the open issue: one open issue per fingerprint.
    run_to_end(&service, failing).await;
    let issues = misses(&api).await;
    assert_eq!((issues.len(), issues[0]["eventCount"].as_u64()), (1, Some(2)), "{issues:?}");
    // A run of an inline copy of the plan (as `--agent-url`, `--only` and `--rerun-failed` send
    // it: by the saved plan's name, not its id) is one of the plan's runs, judged by its alerts.
    let copy = service.client.get_run_plan(failing).await.unwrap().plan.as_input();
    request_to_end(&service, RunRequest { plan: Some(copy), ..Default::default() }).await;
    let issues = misses(&api).await;
    assert_eq!((issues.len(), issues[0]["eventCount"].as_u64()), (1, Some(3)), "{issues:?}");
    let (_, passes) = api.call(Method::GET, "/v1/alert/passes-failing", None).await;
    assert_eq!(passes["data"]["state"], "OK", "another plan's runs are not this alert's");
}

#[tokio::test]
async fn the_bundles_of_docs_alerts_md_apply_as_written() {
    let service = start(true).await;
    let api = Api::of(&service);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/alerts.md")).unwrap();
    let blocks: Vec<&str> = doc.split("```json").skip(1).filter_map(|rest| rest.split("```").next()).collect();
    assert!(blocks.len() >= 4, "the threshold, webhook, event and simulation examples");
    for block in blocks {
        let bundle: Value = serde_json::from_str(block).unwrap_or_else(|e| panic!("{e}: {block}"));
        let (status, body) = api
            .call(Method::POST, "/v1/config/apply", Some(&json!({"resources": bundle["resources"], "prune": false})))
            .await;
        assert_eq!(status, 200, "{block} → {body}");
        let changes = body["data"]["changes"].as_array().unwrap();
        assert!(changes.iter().all(|c| c["status"] == "applied" && c["signingSecret"].is_string()), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_taken_out_of_an_alert_gets_nothing_more_and_the_secret_stays() {
    let service = start(false).await;
    let api = Api::of(&service);
    let ((first, first_url), (second, second_url)) = (receiver(0).await, receiver(0).await);
    let alert = |url: &str| {
        json!({"kind": "alert", "name": "openings",
               "trigger": {"type": "event", "events": ["ISSUE_OPENED"]}, "actions": {"webhooks": [url]}})
    };
    let secret = api.apply(json!([alert(&first_url)])).await.remove(0)["signingSecret"].as_str().unwrap().to_owned();
    let moved = api.apply(json!([alert(&second_url)])).await.remove(0);
    assert_eq!((moved["op"].as_str(), moved.get("signingSecret")), (Some("update"), None), "{moved}");
    let mut opened = Vec::new();
    for title in ["After the move", "And once more"] {
        let input = IssueInput {
            title: Some(title.into()),
            summary: Some("raised by the alert actions test".into()),
            severity: Some(Severity::Low),
            ..Default::default()
        };
        opened.push(("ISSUE_OPENED".to_owned(), service.client.create_issue(&input).await.unwrap().id.to_string()));
        // In order: once the second came, a delivery of the first to the old URL would have too.
        let want = opened.len();
        eventually(DEADLINE, || async { (second.requests().len() >= want).then_some(()) }).await;
    }
    let told: Vec<(String, String)> = signed_events(&second, &secret).into_iter().map(|(k, id, _)| (k, id)).collect();
    assert_eq!(told, opened, "the new URL gets them, signed with the same secret");
    assert!(first.requests().is_empty(), "the URL taken out gets nothing");
}
