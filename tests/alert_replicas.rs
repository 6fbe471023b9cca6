//! Two `switchboard serve` replicas on one PostgreSQL database decide the same alerts' windows:
//! one is SIGKILLed while they are deciding. Every window of every alert is still decided, once;
//! each alert opened one issue for its fingerprint, and that issue counts every breaching window
//! once (`eventCount`, evidence). Runs on the test PostgreSQL server whichever store the rest of
//! the suite uses, as tests/replicas.rs does.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use support::serve::{Serving, count, query, spawn_serve};
use switchboard::service::store::test_server::TestServer;

const KEY: &str = "sk-alert-replicas";
const ALERTS: usize = 30;
const WINDOWS: i64 = 40;
const MINUTE_MS: i64 = 60_000;

async fn call(base: &str, method: Method, path: &str, body: Option<&Value>) -> Value {
    let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
    let (status, value, _) = support::raw(base, method, path, Some(&format!("Bearer {KEY}")), bytes).await;
    assert!((200..300).contains(&status), "{path}: {status} {value}");
    value
}

/// Whether the `j`th window of the test breaches (every fifth is clean; three clean in a row
/// would resolve, so none resolves).
fn breaches(j: i64) -> bool {
    j % 5 != 4
}

/// Alerts (MEAN call_duration above 50 s per agent, opening after 1 to 3 windows), a policy
/// scoring call_duration, and one call a window for `WINDOWS` past minutes: the agent's id and
/// the windows (unix ms).
async fn set_up(base: &str) -> (String, Vec<i64>) {
    let metric = support::seeded("metric_definitions", |d| d["slug"] == "call_duration").remove(0);
    let policy =
        json!({"name": "Durations", "modality": "call", "status": "ACTIVE", "metrics": [{"id": metric["id"]}]});
    call(base, Method::POST, "/v1/metric/policies", Some(&policy)).await;
    let alerts: Vec<Value> = (0..ALERTS)
        .map(|n| {
            json!({"kind": "alert", "name": format!("kill-{n}"),
                   "trigger": {"type": "threshold", "metric": "call_duration", "aggregation": "MEAN", "operator": "GT",
                               "thresholdValue": 50.0, "windowMinutes": 1, "consecutiveOpen": 1 + n % 3,
                               "consecutiveResolve": 3, "grouping": "BY_AGENT"}})
        })
        .collect();
    call(base, Method::POST, "/v1/config/apply", Some(&json!({"resources": alerts}))).await;
    let first = (jiff::Timestamp::now().as_millisecond() / MINUTE_MS - 100) * MINUTE_MS;
    let windows: Vec<i64> = (0..WINDOWS).map(|j| first + j * MINUTE_MS).collect();
    let mut agent = String::new();
    for (j, window) in windows.iter().enumerate() {
        let seconds = if breaches(j as i64) { 90 } else { 10 };
        let started = jiff::Timestamp::from_millisecond(window + 5_000).unwrap().to_string();
        let body = json!({"startedAt": started, "callDirection": "INBOUND", "interfaceType": "PHONE",
                          "agent": {"name": "Replica kill desk"},
                          "transcript": [{"startOffsetMs": 0, "endOffsetMs": seconds * 1000, "text": "hello", "role": "AGENT"}]});
        agent = call(base, Method::POST, "/v1/call", Some(&body)).await["data"]["agentId"].as_str().unwrap().to_owned();
    }
    (agent, windows)
}

/// The test's alerts' ids.
fn alert_ids(url: &str) -> Vec<String> {
    query(url, "SELECT id FROM docs WHERE kind = 'alert' AND body ->> 'name' LIKE 'kill-%'")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// How many of the agent's (alert, window) values have been decided.
fn decided(url: &str, agent: &str) -> i64 {
    count(url, &format!("SELECT count(*) FROM alert_values WHERE group_key = '{agent}'"))
}

#[test]
fn a_replica_killed_while_deciding_loses_no_window_and_opens_nothing_twice() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dirs = [(); 3].map(|()| tempfile::tempdir().unwrap());
    let keys = support::serve::SharedSecretsKey::fresh();
    let replica = |dir: &tempfile::TempDir, quiet: &str| -> (Serving, String) {
        let args = ["--database", &url, "--alert-quiet-ms", quiet, "--secrets-key-file", keys.path()];
        spawn_serve(dir.path(), KEY, &args)
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();

    // Set up on a replica that decides nothing for an hour, then gone: every window is ready
    // at once for the two that follow.
    let (mut setup, base) = replica(&dirs[0], "3600000");
    let (agent, windows) = runtime.block_on(set_up(&base));
    setup.kill().unwrap();
    setup.wait().unwrap();
    let ids = alert_ids(&url);
    assert_eq!(ids.len(), ALERTS);
    assert_eq!(decided(&url, &agent), 0, "nothing decided before the replicas start");

    let (mut a, _) = replica(&dirs[1], "100");
    let (mut b, _) = replica(&dirs[2], "100");
    let total = ALERTS as i64 * WINDOWS;
    // B dies while they are deciding: a tenth of the windows decided, most not.
    let deadline = Instant::now() + Duration::from_secs(120);
    let at_death = loop {
        let now = decided(&url, &agent);
        // Past a tenth, the holder of the duties (A or B) has been deciding a while; if it is B,
        // A takes the ticks over once B's lock is freed.
        if now >= total / 10 {
            b.kill().unwrap();
            b.wait().unwrap();
            break decided(&url, &agent);
        }
        assert!(Instant::now() < deadline, "no window was decided");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(at_death < total, "B was killed only after every window was decided ({at_death})");
    eprintln!("B killed with {at_death} of {total} windows decided");

    // The survivor decides the rest.
    let deadline = Instant::now() + Duration::from_secs(180);
    while decided(&url, &agent) < total {
        assert!(Instant::now() < deadline, "{} of {total} windows decided", decided(&url, &agent));
        std::thread::sleep(Duration::from_millis(50));
    }

    // Each (alert, window) decided once: one claim and one value each, none missing.
    let list = ids.iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(",");
    let claims = query(&url, &format!("SELECT alert_id, window_ms FROM alert_windows WHERE alert_id IN ({list})"));
    let mut per_alert: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for row in claims {
        per_alert.entry(row.get(0)).or_default().push(row.get(1));
    }
    for id in &ids {
        let claimed = per_alert.get(id).cloned().unwrap_or_default();
        assert!(windows.iter().all(|w| claimed.contains(w)), "alert {id} lost a window: {claimed:?}");
        let mut unique = claimed.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), claimed.len(), "alert {id} decided a window twice");
    }
    assert_eq!(
        count(&url, &format!("SELECT count(*) FROM alert_values WHERE group_key = '{agent}' AND alert_id IN ({list})")),
        total
    );

    // One issue per fingerprint, counting every breaching window once.
    let breaching = (0..WINDOWS).filter(|j| breaches(*j)).count() as i64;
    let issues = query(
        &url,
        &format!(
            "SELECT i.body ->> 'fingerprint', i.body ->> 'status', CAST(i.body ->> 'eventCount' AS BIGINT), \
             json_array_length(i.body -> 'evidence'), CAST(a.body #>> '{{trigger,consecutiveOpen}}' AS BIGINT) \
             FROM docs i JOIN docs a ON a.kind = 'alert' AND a.id = i.body ->> 'alertId' \
             WHERE i.kind = 'issue' AND a.id IN ({list}) AND i.body ->> 'fingerprint' LIKE '%:agent:{agent}'"
        ),
    );
    let mut fingerprints: Vec<String> = issues.iter().map(|r| r.get(0)).collect();
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!((issues.len(), fingerprints.len()), (ALERTS, ALERTS), "one issue per alert's fingerprint");
    for row in &issues {
        let (status, events, evidence, open_after): (String, i64, i32, i64) =
            (row.get(1), row.get(2), row.get(3), row.get(4));
        // Evidence starts with the opening window's calls: the run's earlier windows add none.
        let kept = breaching - (open_after - 1);
        assert_eq!(
            (status.as_str(), events, i64::from(evidence)),
            ("OPEN", breaching, kept),
            "{:?}",
            row.get::<_, String>(0)
        );
    }
    a.kill().unwrap();
    a.wait().unwrap();
}
