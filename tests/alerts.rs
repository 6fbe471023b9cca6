//! Threshold alerts against the real service: backfilled calls (start times in the past, so
//! their windows have ended) scored at ingest by an ACTIVE policy, windows decided once the
//! quiet period has passed, issues opened after exactly `consecutiveOpen` breaching windows and
//! resolved after `consecutiveResolve` clean ones; `minSampleSize`, BY_AGENT and late calls.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, eventually, options, raw, seeded, start_with};

const DEADLINE: Duration = Duration::from_secs(30);
const MINUTE_MS: i64 = 60_000;

async fn call(service: &Service, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), bytes).await;
    (status, value)
}

const QUIET: Duration = Duration::from_millis(150);

/// A seeded service whose windows are decided 150 ms after their end and latest call, with a
/// policy scoring `call_duration` on every call and an alert applied. Its alert engine sees
/// time only as far as the test has released it, so a window waits for every call the test
/// posts to it however slow the machine, and is not decided before the test asks.
struct Watching {
    service: Service,
    released_ms: Arc<AtomicI64>,
}

impl std::ops::Deref for Watching {
    type Target = Service;
    fn deref(&self) -> &Service {
        &self.service
    }
}

impl Watching {
    /// Lets the engine see a quiet period past now: every call posted so far may decide its
    /// window, and none posted later.
    fn release(&self) {
        let until = jiff::Timestamp::now().as_millisecond() + QUIET.as_millis() as i64;
        self.released_ms.store(until, Ordering::SeqCst);
    }
}

async fn watching(alert: Value) -> Watching {
    let dir = tempfile::tempdir().unwrap();
    let released_ms = Arc::new(AtomicI64::new(jiff::Timestamp::now().as_millisecond()));
    let held = released_ms.clone();
    let clock = switchboard::service::alerts::Clock::new(move || {
        let released = jiff::Timestamp::from_millisecond(held.load(Ordering::SeqCst)).unwrap();
        jiff::Timestamp::now().min(released)
    });
    let options = switchboard::service::Options { alert_quiet: QUIET, alert_clock: clock, ..options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let metric = seeded("metric_definitions", |d| d["slug"] == "call_duration").remove(0);
    let policy =
        json!({"name": "Durations", "modality": "call", "status": "ACTIVE", "metrics": [{"id": metric["id"]}]});
    let (status, body) = call(&service, Method::POST, "/v1/metric/policies", Some(&policy)).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = call(&service, Method::POST, "/v1/config/apply", Some(&json!({"resources": [alert]}))).await;
    assert_eq!(status, 200, "{body}");
    Watching { service, released_ms }
}

/// A MEAN-of-call_duration (seconds) alert above 50, per agent (so the seeded calls' own agents
/// keep apart from the test's).
fn alert(name: &str, open: i64, resolve: i64, min_samples: i64) -> Value {
    json!({"kind": "alert", "name": name,
           "trigger": {"type": "threshold", "metric": "call_duration", "aggregation": "MEAN", "operator": "GT",
                       "thresholdValue": 50.0, "windowMinutes": 1, "consecutiveOpen": open,
                       "consecutiveResolve": resolve, "minSampleSize": min_samples, "grouping": "BY_AGENT"}})
}

/// The start of the minute `minutes_ago` minutes before the one this binary's first window
/// was asked in (unix ms): the same window however long a test takes, a minute's end between
/// a post and its read included.
fn window(minutes_ago: i64) -> i64 {
    static STARTED: std::sync::LazyLock<i64> =
        std::sync::LazyLock::new(|| jiff::Timestamp::now().as_millisecond().div_euclid(MINUTE_MS));
    (*STARTED - minutes_ago) * MINUTE_MS
}

/// Posts a call of `agent` started 10 s into `window_ms`, lasting `seconds`; its id and its agent's.
async fn post_call(service: &Service, agent: &str, window_ms: i64, seconds: i64) -> (String, String) {
    let started = jiff::Timestamp::from_millisecond(window_ms + 10_000).unwrap().to_string();
    let body = json!({"startedAt": started, "callDirection": "INBOUND", "interfaceType": "PHONE",
                      "agent": {"name": agent},
                      "transcript": {"entries": [{"startOffsetMs": 0, "endOffsetMs": seconds * 1000,
                                                  "text": "hello", "role": "AGENT"}]}});
    let (status, created) = call(service, Method::POST, "/v1/call", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let id = |member: &str| created["data"][member].as_str().unwrap().to_owned();
    (id("id"), id("agentId"))
}

/// Where the alert stands for `agent`, once the calls posted so far are released and that
/// group has decided the window at `window_ms` (the seeded calls' agents have groups of their
/// own).
async fn decided(service: &Watching, name: &str, agent: &str, window_ms: i64) -> Value {
    service.release();
    let want = jiff::Timestamp::from_millisecond(window_ms).unwrap();
    eventually(DEADLINE, || async {
        let (status, body) = call(service, Method::GET, &format!("/v1/alert/{name}"), None).await;
        assert_eq!(status, 200, "{body}");
        let group = body["data"]["groups"].as_array()?.iter().find(|g| g["agentId"] == agent)?.clone();
        let last = group["lastWindowStart"].as_str()?.parse::<jiff::Timestamp>().ok()?;
        (last >= want).then_some(group)
    })
    .await
}

/// The issues alert `name` opened for `agents` (the seed has TREND_ALERT issues of its own,
/// and the seeded calls' agents groups of their own).
async fn alert_issues(service: &Service, name: &str, agents: &[&String]) -> Vec<Value> {
    let (_, alert) = call(service, Method::GET, &format!("/v1/alert/{name}"), None).await;
    let (status, body) = call(service, Method::GET, "/v1/issue?source=TREND_ALERT&limit=50", None).await;
    assert_eq!(status, 200, "{body}");
    let issues = body["data"].as_array().unwrap().iter();
    let ours = |i: &&Value| {
        let fingerprint = i["fingerprint"].as_str().unwrap_or_default();
        agents.iter().any(|a| fingerprint.ends_with(&format!(":agent:{a}")))
    };
    issues
        .filter(|i| i["source"] == "TREND_ALERT" && i["alertId"] == alert["data"]["id"])
        .filter(ours)
        .cloned()
        .collect()
}

#[tokio::test]
async fn an_issue_opens_after_exactly_consecutive_open_windows_and_resolves_after_consecutive_resolve() {
    let service = watching(alert("slow", 2, 2, 1)).await;
    let slow = "Slow desk";
    let (_, agent) = post_call(&service, slow, window(30), 90).await;
    let state = decided(&service, "slow", &agent, window(30)).await;
    assert_eq!((state["state"].as_str(), state["consecutiveWindows"].as_i64()), (Some("BREACHING"), Some(1)));
    assert!(alert_issues(&service, "slow", &[&agent]).await.is_empty(), "one breaching window of two opens nothing");

    let (breaching, _) = post_call(&service, slow, window(29), 120).await;
    let state = decided(&service, "slow", &agent, window(29)).await;
    assert_eq!((state["state"].as_str(), state["lastValue"].as_f64()), (Some("OPEN"), Some(120.0)));
    let issues = alert_issues(&service, "slow", &[&agent]).await;
    assert_eq!(issues.len(), 1, "{issues:?}");
    let issue = &issues[0];
    assert_eq!((issue["status"].as_str(), issue["eventCount"].as_u64()), (Some("OPEN"), Some(2)));
    assert_eq!(issue["id"], state["issueId"]);
    assert!(issue["fingerprint"].as_str().unwrap().ends_with(&format!(":agent:{agent}")));
    assert!(issue["title"].as_str().unwrap().contains("MEAN of call_duration 120 > 50 for agent Slow desk"), "{issue}");
    assert_eq!(issue["evidence"][0]["callId"].as_str(), Some(breaching.as_str()));
    assert_eq!(issue["severity"], "MEDIUM", "an alert that names no severity opens MEDIUM issues");

    // A third breaching window extends the open issue rather than opening another.
    post_call(&service, slow, window(28), 70).await;
    decided(&service, "slow", &agent, window(28)).await;
    post_call(&service, slow, window(27), 5).await;
    let state = decided(&service, "slow", &agent, window(27)).await;
    assert_eq!(state["state"], "OPEN", "one clean window of two resolves nothing");
    let issues = alert_issues(&service, "slow", &[&agent]).await;
    assert_eq!((issues.len(), issues[0]["eventCount"].as_u64()), (1, Some(3)));
    assert_eq!(issues[0]["evidence"].as_array().unwrap().len(), 2);

    post_call(&service, slow, window(26), 5).await;
    let state = decided(&service, "slow", &agent, window(26)).await;
    assert_eq!(state["state"], "OK");
    let issues = alert_issues(&service, "slow", &[&agent]).await;
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0]["status"], "RESOLVED");
    assert!(issues[0]["resolvedAt"].is_string());
}

#[tokio::test]
async fn a_window_below_min_sample_size_neither_opens_nor_breaks_a_run() {
    let service = watching(alert("sampled", 2, 1, 2)).await;
    let desk = "Sampled desk";
    let (_, agent) = post_call(&service, desk, window(20), 90).await;
    post_call(&service, desk, window(20), 90).await;
    let state = decided(&service, "sampled", &agent, window(20)).await;
    assert_eq!(state["state"], "BREACHING");
    // One call: below the sample size, however slow; then a clean call alone, also below it.
    post_call(&service, desk, window(19), 500).await;
    post_call(&service, desk, window(18), 1).await;
    post_call(&service, desk, window(17), 90).await;
    post_call(&service, desk, window(17), 80).await;
    let state = decided(&service, "sampled", &agent, window(17)).await;
    assert_eq!((state["state"].as_str(), state["consecutiveWindows"].as_i64()), (Some("OPEN"), Some(2)));
    assert_eq!(state["lastValue"].as_f64(), Some(85.0));
    let issues = alert_issues(&service, "sampled", &[&agent]).await;
    assert_eq!((issues.len(), issues[0]["eventCount"].as_u64()), (1, Some(2)), "{issues:?}");
}

#[tokio::test]
async fn by_agent_opens_one_issue_per_agent_that_breaches() {
    let service = watching(alert("per-agent", 1, 1, 1)).await;
    let (_, fast) = post_call(&service, "Fast desk", window(15), 10).await;
    let (_, one) = post_call(&service, "Slow one", window(15), 100).await;
    let (_, two) = post_call(&service, "Slow two", window(15), 200).await;
    let mut states = Vec::new();
    for agent in [&fast, &one, &two] {
        states.push(decided(&service, "per-agent", agent, window(15)).await["state"].clone());
    }
    assert_eq!(states, ["OK", "OPEN", "OPEN"]);
    let issues = alert_issues(&service, "per-agent", &[&fast, &one, &two]).await;
    let mut titles: Vec<&str> = issues.iter().map(|i| i["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(titles.len(), 2);
    assert!(titles[0].ends_with("for agent Slow one") && titles[1].ends_with("for agent Slow two"), "{titles:?}");
    assert_ne!(issues[0]["fingerprint"], issues[1]["fingerprint"]);
}

#[tokio::test]
async fn a_call_for_a_decided_window_is_kept_and_changes_nothing() {
    let service = watching(alert("late", 1, 1, 1)).await;
    let desk = "Late desk";
    let (_, agent) = post_call(&service, desk, window(12), 10).await;
    post_call(&service, desk, window(11), 10).await;
    let state = decided(&service, "late", &agent, window(11)).await;
    assert_eq!(state["state"], "OK");
    // Late: its window (and the one after) was decided clean; it is kept, and opens nothing.
    let (late, _) = post_call(&service, desk, window(12), 900).await;
    post_call(&service, desk, window(10), 10).await;
    let state = decided(&service, "late", &agent, window(10)).await;
    assert_eq!((state["state"].as_str(), state["consecutiveWindows"].as_i64()), (Some("OK"), Some(3)));
    assert!(alert_issues(&service, "late", &[&agent]).await.is_empty());
    assert_eq!(call(&service, Method::GET, &format!("/v1/call/{late}"), None).await.0, 200);
}

#[tokio::test]
async fn the_documented_alert_applies_and_reads_back_by_name() {
    let text = std::fs::read_to_string(format!("{}/docs/alerts.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let block = text.split("```json\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    let bundle: Value = serde_json::from_str(block).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let service = start_with(options(dir.path(), true), dir).await;
    let (status, body) = call(&service, Method::POST, "/v1/config/apply", Some(&bundle)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(&service, Method::GET, "/v1/alert/long-calls", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["data"]["name"].as_str(), body["data"]["trigger"]["metric"].as_str()),
        (Some("Calls run long"), Some("call_duration"))
    );
    assert_eq!(body["data"]["severity"], "HIGH", "the documented alert's issues are HIGH");
    assert!(["OK", "BREACHING", "OPEN"].contains(&body["data"]["state"].as_str().unwrap()), "{body}");
    let (status, list) = call(&service, Method::GET, "/v1/alert", None).await;
    assert_eq!(status, 200);
    assert!(list["data"].as_array().unwrap().iter().any(|a| a["id"] == body["data"]["id"]));
    let (status, missing) = call(&service, Method::GET, "/v1/alert/no-such-alert", None).await;
    assert_eq!((status, missing["code"].as_str()), (404, Some("resource_not_found")), "{missing}");

    // The same through the headless commands.
    let home = tempfile::tempdir().unwrap();
    let sb = async |args: &[&str]| cli::run(cli::against(home.path(), &service).args(args)).await;
    let got = sb(&["alert", "get", "long-calls"]).await;
    cli::assert_exit(&got, 0);
    assert_eq!(cli::json(&got)["data"]["id"], body["data"]["id"]);
    let listed = cli::json(&sb(&["alert", "list"]).await);
    assert!(listed["data"].as_array().unwrap().iter().any(|a| a["name"] == "Calls run long"), "{listed}");
    let issues = cli::json(&sb(&["issue", "list", "--source", "TREND_ALERT", "--limit", "50"]).await);
    let issues = issues["data"].as_array().unwrap();
    assert!(!issues.is_empty() && issues.iter().all(|i| i["source"] == "TREND_ALERT"), "{issues:?}");
    cli::assert_exit(&sb(&["alert", "get", "no-such-alert"]).await, 4);
}

#[tokio::test]
async fn none_grouping_opens_one_issue_for_all_agents() {
    // Above 5,000 s: no seeded call comes near, so only the test's window breaches.
    let mut pooled = alert("pooled", 1, 1, 1);
    pooled["trigger"]["grouping"] = json!("NONE");
    pooled["trigger"]["thresholdValue"] = json!(5000.0);
    let service = watching(pooled).await;
    let (one, _) = post_call(&service, "Pooled one", window(8), 9000).await;
    let (two, _) = post_call(&service, "Pooled two", window(8), 9000).await;
    post_call(&service, "Pooled three", window(8), 600).await;
    service.release();
    let want = jiff::Timestamp::from_millisecond(window(8)).unwrap();
    let group = eventually(DEADLINE, || async {
        let (_, body) = call(&service, Method::GET, "/v1/alert/pooled", None).await;
        let groups = body["data"]["groups"].as_array()?.clone();
        assert!(
            groups.len() <= 1 && groups.iter().all(|g| g["agentId"].is_null()),
            "one group of all calls: {groups:?}"
        );
        let group = groups.first()?.clone();
        let last = group["lastWindowStart"].as_str()?.parse::<jiff::Timestamp>().ok()?;
        (last >= want).then_some(group)
    })
    .await;
    // The mean of all three agents' calls: (9000 + 9000 + 600) / 3.
    assert_eq!((group["state"].as_str(), group["lastValue"].as_f64()), (Some("OPEN"), Some(6200.0)));
    let (_, alert) = call(&service, Method::GET, "/v1/alert/pooled", None).await;
    let (_, body) = call(&service, Method::GET, "/v1/issue?source=TREND_ALERT&limit=50", None).await;
    let issues: Vec<&Value> =
        body["data"].as_array().unwrap().iter().filter(|i| i["alertId"] == alert["data"]["id"]).collect();
    assert_eq!(issues.len(), 1, "{issues:?}");
    let issue = issues[0];
    assert_eq!(
        issue["fingerprint"].as_str(),
        Some(format!("alert:{}", alert["data"]["id"].as_str().unwrap()).as_str())
    );
    assert!(!issue["title"].as_str().unwrap().contains("for agent"), "{issue}");
    let mut evidence: Vec<&str> =
        issue["evidence"].as_array().unwrap().iter().map(|e| e["callId"].as_str().unwrap()).collect();
    evidence.sort();
    let mut breached = vec![one.as_str(), two.as_str()];
    breached.sort();
    assert_eq!(evidence, breached, "the calls past the threshold, whichever agent");
}

/// An alert's `severity` is the severity of each issue it opens; one it does not know is
/// refused, naming the member.
#[tokio::test]
async fn an_issue_carries_the_severity_of_the_alert_that_opened_it() {
    let mut critical = alert("critical", 1, 1, 1);
    critical["severity"] = json!("CRITICAL");
    let service = watching(critical).await;
    let (_, agent) = post_call(&service, "Critical desk", window(30), 90).await;
    let state = decided(&service, "critical", &agent, window(30)).await;
    assert_eq!(state["state"], "OPEN");
    let issues = alert_issues(&service, "critical", &[&agent]).await;
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0]["severity"], "CRITICAL", "{}", issues[0]);
    let (_, read) = call(&service, Method::GET, "/v1/alert/critical", None).await;
    assert_eq!(read["data"]["severity"], "CRITICAL");

    let mut unknown = alert("unknown", 1, 1, 1);
    unknown["severity"] = json!("URGENT");
    let (status, body) = call(&service, Method::POST, "/v1/config/apply", Some(&json!({"resources": [unknown]}))).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("severity"), "{body}");
}
