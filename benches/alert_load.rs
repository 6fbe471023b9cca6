//! Alerts under production load (issue 31): `switchboard serve` as its own process, two ACTIVE
//! policies scoring every call, 50 threshold alerts on one-minute windows, and `switchboard
//! traffic`'s generator posting 1,000 calls a minute. Measured: `POST /v1/call` p99 (≤ 50 ms),
//! each alert's decision after its window's grace ends (≤ 5 s), the service's RSS (≤ 300 MB).
//!
//!     cargo bench --bench alert_load                    # 3 minutes of traffic
//!     ALERT_MINUTES=2 cargo bench --bench alert_load    # a quick check (one window judged)
//!
//! A window's grace ends a quiet period (`--alert-quiet-ms`, 10 s here as by default) after the
//! later of its end and its latest call's arrival (calls are posted as they end, so a window's
//! last calls arrive up to a call's length after it). Its decision is when `GET /v1/alert`
//! first shows it (polled every 100 ms, so up to 100 ms late). Only 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

#[allow(dead_code, reason = "this benchmark uses the serve process and memory figures only")]
#[path = "support/scale.rs"]
mod scale;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use scale::Serve;
use serde_json::{Value, json};
use switchboard::api::{ApiKey, Client, ClientConfig};
use switchboard::cli::traffic::pace::{self, Plan};

const KEY: &str = "sk-alert-load-bench";
const QUIET_MS: i64 = 10_000;
const ALERTS: usize = 50;
const MINUTE_MS: i64 = 60_000;
/// The metrics the two policies score, and a threshold each that some windows cross.
const METRICS: &[(&str, &str, f64)] = &[
    ("call_duration", "GT", 30.0),
    ("agent_response_latency", "GT", 1.0),
    ("longest_silence", "GT", 3.0),
    ("words_per_minute", "LT", 100.0),
    ("interruption_count", "GT", 0.5),
];

async fn send(http: &reqwest::Client, base: &str, path: &str, body: &Value) -> Value {
    let response = http.post(format!("{base}{path}")).bearer_auth(KEY).json(body).send().await.unwrap();
    let status = response.status();
    let value: Value = response.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{path}: {status} {value}");
    value
}

/// Two ACTIVE policies over the metrics, and 50 one-minute threshold alerts on them (every
/// other one per agent).
async fn set_up(base: &str) {
    let http = reqwest::Client::new();
    // The seeded definitions, as the seed file has them.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/seed/metric_definitions.json");
    let definitions: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let id = |slug: &str| {
        let found = definitions.iter().find(|d| d["slug"] == slug);
        found.unwrap_or_else(|| panic!("no metric {slug}"))["id"].clone()
    };
    for (n, half) in [&METRICS[..2], &METRICS[2..]].iter().enumerate() {
        let metrics: Vec<Value> = half.iter().map(|(slug, _, _)| json!({"id": id(slug)})).collect();
        let policy =
            json!({"name": format!("Load policy {n}"), "modality": "call", "status": "ACTIVE", "metrics": metrics});
        send(&http, base, "/v1/metric/policies", &policy).await;
    }
    let alerts: Vec<Value> = (0..ALERTS)
        .map(|n| {
            let (metric, operator, threshold) = METRICS[n % METRICS.len()];
            let grouping = if n % 2 == 0 { "BY_AGENT" } else { "NONE" };
            json!({"kind": "alert", "name": format!("load-{n}"),
                   "trigger": {"type": "threshold", "metric": metric, "aggregation": "MEAN", "operator": operator,
                               "thresholdValue": threshold, "windowMinutes": 1, "consecutiveOpen": 1 + n % 3,
                               "consecutiveResolve": 2, "grouping": grouping}})
        })
        .collect();
    send(&http, base, "/v1/config/apply", &json!({"resources": alerts})).await;
}

async fn get(http: &reqwest::Client, base: &str, path: &str) -> (u16, Value) {
    let response = http.get(format!("{base}{path}")).bearer_auth(KEY).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

/// When each (alert, window) was first seen decided (unix ms): a window is decided by the time
/// an alert's latest decided window reaches it.
type Seen = Arc<Mutex<BTreeMap<(String, i64), i64>>>;

/// Polls `GET /v1/alert` every 100 ms until `stop`, noting the windows of `windows` each alert
/// has decided.
async fn watch(base: String, windows: Vec<i64>, seen: Seen, stop: tokio::sync::watch::Receiver<bool>) {
    let http = reqwest::Client::new();
    while !*stop.borrow() {
        let (_, alerts) = get(&http, &base, "/v1/alert").await;
        let now = jiff::Timestamp::now().as_millisecond();
        for alert in alerts["data"].as_array().into_iter().flatten() {
            let name = alert["name"].as_str().unwrap_or_default().to_owned();
            let latest = alert["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|g| g["lastWindowStart"].as_str()?.parse::<jiff::Timestamp>().ok())
                .map(|t| t.as_millisecond())
                .max();
            let mut seen = seen.lock().unwrap();
            for w in windows.iter().filter(|w| latest.is_some_and(|l| **w <= l)) {
                seen.entry((name.clone(), *w)).or_insert(now);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted.get(((sorted.len().saturating_sub(1)) as f64 * q).ceil() as usize).copied().unwrap_or(f64::NAN)
}

#[tokio::main]
async fn main() {
    let minutes = std::env::var("ALERT_MINUTES").ok().and_then(|v| v.parse().ok()).unwrap_or(3u64);
    let quiet = QUIET_MS.to_string();
    let serve = Serve::start_with(KEY, None, &["--alert-quiet-ms", &quiet]);
    let memory_mb = |field: &str| scale::memory_mb(serve.child.id(), field);
    set_up(&serve.url).await;
    let client = Client::new(&serve.url, ApiKey::new(KEY), ClientConfig::default()).unwrap();
    let rss_before = memory_mb("VmRSS:");

    // The windows wholly inside the traffic are the ones judged.
    let start = jiff::Timestamp::now().as_millisecond();
    let first = (start / MINUTE_MS + 1) * MINUTE_MS;
    let end = start + minutes as i64 * MINUTE_MS;
    let windows: Vec<i64> = (0..).map(|n| first + n * MINUTE_MS).take_while(|w| w + MINUTE_MS <= end).collect();
    let seen = Seen::default();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let watcher = tokio::spawn(watch(serve.url.clone(), windows.clone(), seen.clone(), stopped));

    let plan = Plan {
        agents: vec!["Load Dental desk".into(), "Load Air desk".into()],
        calls_per_minute: 1_000.0,
        count: None,
        duration: Some(Duration::from_secs(minutes * 60)),
        degrade: Some("Load Air desk".into()),
        degrade_after: Duration::from_secs(minutes * 30),
        degrade_for: None,
    };
    let tally = pace::run(&client, &plan, std::future::pending()).await;
    let rss_after_traffic = memory_mb("VmRSS:");

    // The last judged window's grace ends a call's length and the quiet period after it.
    let longest = tally.arrivals.iter().map(|(s, a)| a - s).max().unwrap_or(0);
    let wait = windows.last().map_or(0, |w| w + MINUTE_MS + longest + QUIET_MS + 15_000);
    while jiff::Timestamp::now().as_millisecond() < wait {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop.send(true).unwrap();
    watcher.await.unwrap();

    // Each window's grace end: a quiet period after its end and its latest arrival.
    let mut grace: BTreeMap<i64, i64> = windows.iter().map(|w| (*w, w + MINUTE_MS)).collect();
    for (started, arrived) in &tally.arrivals {
        if let Some(at) = grace.get_mut(&(started.div_euclid(MINUTE_MS) * MINUTE_MS)) {
            *at = (*at).max(*arrived);
        }
    }
    let seen = seen.lock().unwrap().clone();
    let mut decisions = Vec::new();
    let mut missing = 0;
    for n in 0..ALERTS {
        for w in &windows {
            match seen.get(&(format!("load-{n}"), *w)) {
                Some(at) => decisions.push((at - (grace[w] + QUIET_MS)) as f64 / 1000.0),
                None => missing += 1,
            }
        }
    }
    decisions.sort_by(f64::total_cmp);
    let ms = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    println!("alert_load: {minutes} min at 1,000 calls/min, 2 policies, {ALERTS} alerts, quiet {QUIET_MS} ms");
    println!("  calls posted {}  refused {}  in {:.1} s", tally.posted(), tally.refused(), tally.elapsed.as_secs_f64());
    println!(
        "  POST /v1/call  p50 {:.1} ms  p99 {:.1} ms  (target p99 ≤ 50 ms)",
        ms(tally.latency(0.5)),
        ms(tally.latency(0.99))
    );
    println!(
        "  decision after grace  p50 {:.2} s  p99 {:.2} s  max {:.2} s  over {} alert-windows, {missing} not decided (target ≤ 5 s)",
        quantile(&decisions, 0.5),
        quantile(&decisions, 0.99),
        decisions.last().copied().unwrap_or(f64::NAN),
        decisions.len()
    );
    println!(
        "  service RSS  before {rss_before:.1} MB  after traffic {rss_after_traffic:.1} MB  peak (VmHWM) {:.1} MB  (target ≤ 300 MB)",
        memory_mb("VmHWM:")
    );
    if let Some(refusal) = &tally.first_refusal {
        println!("  first refusal: {refusal}");
    }
}
