//! The seeded world's alerts at work: three days of the front desk's production calls, posted
//! through the ingest path and scored by the seeded ACTIVE policy, decided window by window by
//! the alert engine, leave one alert-born issue open and one resolved, the same every time.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use reqwest::Method;
use serde_json::Value;
use support::{Service, raw, seed, start};

const SILENCES: &str = "front-desk-silences";

async fn get(service: &Service, path: &str) -> Value {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (status, value, _) = raw(&service.base_url(), Method::GET, path, Some(&key), None).await;
    assert_eq!(status, 200, "{path}: {value}");
    value["data"].clone()
}

/// The issues the engine opened (fingerprint `alert:…`), oldest first.
async fn alert_born(service: &Service) -> Vec<Value> {
    let issues = get(service, "/v1/issue?source=TREND_ALERT&limit=50").await;
    let mut born: Vec<Value> = issues
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["fingerprint"].as_str().is_some_and(|f| f.starts_with("alert:")))
        .cloned()
        .collect();
    born.sort_by_key(|i| i["openedAt"].as_str().unwrap_or_default().to_owned());
    born
}

fn seeded_alert_id(name: &str) -> String {
    let alerts = seed("alerts");
    let alert = alerts.as_array().unwrap().iter().find(|a| a["config"]["name"] == name).unwrap();
    alert["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_seeded_silence_alert_opened_and_resolved_one_issue_and_holds_one_open() {
    let service = start(true).await;
    let alert_id = seeded_alert_id(SILENCES);
    let born = alert_born(&service).await;
    assert_eq!(born.len(), 2, "{born:#?}");
    let (resolved, open) = (&born[0], &born[1]);
    for issue in &born {
        assert_eq!(issue["alertId"], alert_id.as_str());
        assert_eq!(issue["source"], "TREND_ALERT");
        assert!(
            issue["title"].as_str().unwrap().starts_with("Long silences at the front desk: MEAN of longest_silence")
        );
    }
    // 20:00 and 21:00 on the 29th breached: opened as the second was decided, resolved after
    // two clean windows (22:00, 23:00).
    assert_eq!(resolved["status"], "RESOLVED");
    assert_eq!(resolved["eventCount"], 2);
    assert!(resolved["openedAt"].as_str().unwrap().starts_with("2026-10-29T22:00:10"), "{resolved}");
    assert!(resolved["resolvedAt"].as_str().unwrap().starts_with("2026-10-30T00:00:10"), "{resolved}");
    // 21:00, 22:00 and 23:00 on the 30th breached: opened with the second, extended by the third.
    assert_eq!(open["status"], "OPEN");
    assert_eq!(open["eventCount"], 3);
    assert!(open["resolvedAt"].is_null());
    assert!(open["openedAt"].as_str().unwrap().starts_with("2026-10-30T23:00:10"), "{open}");
    assert!(open["evidence"].as_array().unwrap().len() >= 6, "{open}");

    let alert = get(&service, &format!("/v1/alert/{SILENCES}")).await;
    assert_eq!(alert["state"], "OPEN");
    assert_eq!(alert["consecutiveWindows"], 3);
    assert!(alert["lastValue"].as_f64().unwrap() > 9000.0);
    assert_eq!(alert["groups"][0]["issueId"], open["id"]);
    let calm = get(&service, "/v1/alert/front-desk-long-calls").await;
    assert_eq!(calm["state"], "OK", "{calm}");
}

/// Every seeded issue an alert opened, hand-filed or engine-born, names an alert the service
/// lists, and reading that alert by the issue's `alertId` finds it.
#[tokio::test]
async fn every_seeded_alert_born_issue_names_a_seeded_alert() {
    let service = start(true).await;
    let listed = get(&service, "/v1/alert").await;
    let alerts: Vec<&str> = listed.as_array().unwrap().iter().filter_map(|a| a["id"].as_str()).collect();
    let issues = get(&service, "/v1/issue?source=TREND_ALERT&limit=50").await;
    let issues = issues.as_array().unwrap();
    assert!(issues.len() >= 6, "the seed's four and the engine's two: {issues:#?}");
    for issue in issues {
        let alert = issue["alertId"].as_str().unwrap_or_else(|| panic!("no alertId: {issue}"));
        assert!(alerts.contains(&alert), "{} names alert {alert}, not among {alerts:?}", issue["title"]);
        assert_eq!(get(&service, &format!("/v1/alert/{alert}")).await["id"], alert);
    }
}

/// The issues the engine opened carry their alert's severity (the silence alert's MEDIUM), as
/// the seed's hand-filed alert-born issues carry theirs.
#[tokio::test]
async fn an_alert_born_issue_carries_its_alerts_severity() {
    let service = start(true).await;
    let alert = get(&service, &format!("/v1/alert/{SILENCES}")).await;
    assert_eq!(alert["severity"], "MEDIUM", "{alert}");
    let born = alert_born(&service).await;
    assert_eq!(born.len(), 2);
    for issue in born {
        assert_eq!(issue["severity"], alert["severity"], "{issue}");
    }
}

#[tokio::test]
async fn every_evidence_call_of_the_seeded_issues_breached_the_threshold() {
    let service = start(true).await;
    for issue in alert_born(&service).await {
        for entry in issue["evidence"].as_array().unwrap() {
            let call = entry["callId"].as_str().unwrap();
            let groups = get(&service, &format!("/v1/call/{call}/metrics")).await;
            let silence = groups
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["slug"] == "longest_silence")
                .unwrap_or_else(|| panic!("call {call} has no longest_silence: {groups:#}"));
            let value = silence["values"][0]["value"].as_f64().unwrap();
            assert!(value > 9000.0, "call {call} of {} had {value} ms", issue["id"]);
        }
    }
}

#[tokio::test]
async fn the_seeded_alert_issues_come_out_the_same_every_time() {
    let (first, second) = (start(true).await, start(true).await);
    let (a, b) = (alert_born(&first).await, alert_born(&second).await);
    assert_eq!(a.len(), 2);
    assert_eq!(a, b);
}

#[tokio::test]
async fn one_alert_read_carries_its_groups_latest_windows_and_the_list_does_not() {
    let service = start(true).await;
    let alert = get(&service, &format!("/v1/alert/{SILENCES}")).await;
    let group = &alert["groups"][0];
    assert!(group["fingerprint"].as_str().unwrap().starts_with("alert:"), "{group}");
    let windows = group["windows"].as_array().unwrap();
    let last = windows.last().unwrap();
    assert!(last["start"].as_str().unwrap().starts_with("2026-10-30T23:00:00"), "{last}");
    assert_eq!(last["breaching"], true);
    assert_eq!(last["value"], alert["lastValue"]);
    // The three days' 24 hours: 20:00 and 21:00 on the 29th, 21:00 to 23:00 on the 30th breach.
    let days: Vec<&Value> = windows.iter().filter(|w| w["start"].as_str().unwrap() >= "2026-10-28").collect();
    assert_eq!(days.len(), 24);
    let breaching: Vec<&str> =
        days.iter().filter(|w| w["breaching"] == true).map(|w| &w["start"].as_str().unwrap()[..13]).collect();
    assert_eq!(breaching, ["2026-10-29T20", "2026-10-29T21", "2026-10-30T21", "2026-10-30T22", "2026-10-30T23"]);
    // The first hour held two calls, under minSampleSize: no value, not breaching.
    assert!(days[0]["value"].is_null() && days[0]["samples"] == 2, "{}", days[0]);
    for w in windows {
        let breaches = w["value"].as_f64().is_some_and(|v| v > 9000.0);
        assert_eq!(w["breaching"], breaches, "{w}");
    }
    let listed = get(&service, "/v1/alert").await;
    assert!(
        listed.as_array().unwrap().iter().all(|a| a["groups"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["windows"].is_null()))
    );
}

/// The seeded-world examples of `docs/alerts.md`, run as written by a shell against the seeded
/// service: the issue list shows the alert-born issues OPEN and RESOLVED, the alert is OPEN.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_seeded_world_examples_run_as_written() {
    let service = start(true).await;
    let outputs = support::run_documented_examples(&service, "alerts.md", "## In the seeded world").await;
    assert_eq!(outputs.len(), 2, "the section runs two commands");
    // Piped, the commands print JSON.
    let listed: Value = serde_json::from_str(&outputs[0]).unwrap();
    let mut born: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["title"].as_str().is_some_and(|t| t.starts_with("Long silences at the front desk")))
        .filter_map(|i| i["status"].as_str())
        .collect();
    born.sort();
    assert_eq!(born, ["OPEN", "RESOLVED"], "{}", outputs[0]);
    let alert: Value = serde_json::from_str(&outputs[1]).unwrap();
    let alert = if alert["data"].is_object() { &alert["data"] } else { &alert };
    assert_eq!((alert["state"].as_str(), alert["trigger"]["metric"].as_str()), (Some("OPEN"), Some("longest_silence")));
}
