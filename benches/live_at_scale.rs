//! Live at scale (issue 14): what watching costs, measured on the real local service.
//!
//!     cargo bench --bench live_at_scale
//!     LIVE_ISSUES=200000 LIVE_WATCH_SECONDS=10 cargo bench --bench live_at_scale
//!     LIVE_STORE=postgres cargo bench --bench live_at_scale
//!
//! With `LIVE_STORE=postgres` each part's service keeps its data in a database of its own on a
//! PostgreSQL server of the benchmark's own (`initdb` in a temporary directory, default settings).
//!
//! 1. An event reaches an SSE client after its change commits: issues are created one at a
//!    time and each `ISSUE_OPENED` is awaited on `GET /v1/events`.
//! 2. What a console-style watcher reads per second while about one simulation a second ends
//!    in a 10,000-simulation run, once its view is open (the first page of rows read): the
//!    events of the job and of the rows read (`children=none`, each with its row), and the
//!    summary read conditionally once a second: the console's live view.
//! 3. `GET /v1/issue?limit=50` with `LIVE_ISSUES` issues (default 1,000,000) in the store.
//!
//! Bounded in time; it only talks to 127.0.0.1 and stops by itself.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig, Conditional, ListQuery};
use switchboard::service::store::{self, Doc, Kind, Store};
use switchboard::service::{self, Options, SimSpeed};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort_unstable();
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples.get(rank.saturating_sub(1)).copied().unwrap_or_default().as_secs_f64() * 1000.0
}

/// With `LIVE_STORE=postgres`, a new database on the benchmark's PostgreSQL server.
fn database() -> Option<String> {
    use switchboard::service::store::test_server::{Durability, TestServer};
    static SERVER: std::sync::OnceLock<Option<TestServer>> = std::sync::OnceLock::new();
    let server = SERVER.get_or_init(|| {
        std::env::var("LIVE_STORE")
            .is_ok_and(|s| s == "postgres")
            .then(|| TestServer::start(Durability::Default).unwrap())
    });
    server.as_ref().map(|server| server.fresh_database().unwrap())
}

fn client_of(running: &service::Running) -> Client {
    Client::new(&running.base_url(), ApiKey::new(running.api_key.expose()), ClientConfig::default()).unwrap()
}

fn issue(n: u64) -> IssueInput {
    IssueInput {
        title: Some(format!("Latency probe {n}")),
        summary: Some("created by the live_at_scale benchmark".into()),
        severity: Some(Severity::Low),
        ..Default::default()
    }
}

async fn event_latency() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        rate_limit: 1_000_000,
        seed: false,
        database: database(),
        ..Options::local(dir.path().to_path_buf())
    };
    let running = service::start(options).await.unwrap();
    let client = client_of(&running);
    let query = EventQuery { kind: Some("ISSUE_OPENED".into()), ..Default::default() };
    let mut stream = client.events(&query, None).await.unwrap();
    let mut latencies = Vec::new();
    for n in 0..300 {
        let sent = Instant::now();
        let created = client.create_issue(&issue(n)).await.unwrap();
        loop {
            let event = stream.next().await.unwrap().expect("the stream stays open");
            if event.resource_id == created.id.to_string() {
                latencies.push(sent.elapsed());
                break;
            }
        }
    }
    println!(
        "live_at_scale: event latency (POST sent → its event read on the stream), {} events: p50 {:.2} ms, p99 {:.2} ms",
        latencies.len(),
        percentile(&mut latencies, 50.0),
        percentile(&mut latencies, 99.0)
    );
    running.shutdown().await.unwrap();
}

/// A 10,000-simulation run of the seeded improv flow, one simulation at a time at a pace
/// where each takes about a second.
async fn watcher_bytes(seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        rate_limit: 1_000_000,
        sim_speed: SimSpeed::Factor(40.0),
        database: database(),
        ..Options::local(dir.path().to_path_buf())
    };
    let running = service::start(options).await.unwrap();
    let client = client_of(&running);
    let flows: Vec<CustomerFlow> =
        client.list_all("/v1/customer-flow", Default::default()).try_collect().await.unwrap();
    let flow = flows.iter().find(|f| f.flow_type == Some(FlowType::Improv) && f.edge_cases.len() == 3).unwrap();
    let endpoints: Vec<AgentEndpoint> =
        client.list_all("/v1/agent/endpoint", Default::default()).try_collect().await.unwrap();
    let endpoint = endpoints
        .iter()
        .find(|e| {
            flow.agents.iter().any(|a| Some(a.id) == e.agent_id)
                && e.outbound_dial_type != Some(OutboundDialType::HttpRequest)
        })
        .unwrap();
    let plan = RunPlanInput {
        name: Some("Watched: 10,000 simulations".into()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(2500),
        max_concurrent_jobs: Some(1),
        max_simulation_duration_seconds: Some(600),
        flows: Some(vec![FlowSelection {
            id: Some(flow.id),
            happy_path: Some(true),
            edge_cases: Some(EdgeCases::All),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
        metrics: Some(vec![MetricReference::by_slug("call_duration")]),
        ..Default::default()
    };
    let id =
        client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap().simulation_run_plan_job_id;
    // The view opens: the first page of rows, then the events of the job and of those rows.
    let window = ListQuery::default().limit(49).filter("sort", "createdAt");
    let rows = client.list_job_simulations(id, &window).await.unwrap().data;
    let named = std::iter::once(id).chain(rows.iter().map(|s| s.simulation_job_id));
    let query = EventQuery {
        resource_id: Some(named.map(|n| n.to_string()).collect::<Vec<_>>().join(",")),
        children: Some("none".into()),
        ..Default::default()
    };
    let mut stream = client.events(&query, None).await.unwrap();
    let (mut etag, mut bytes, mut ended, mut reads, mut total) = (None::<String>, 0usize, 0usize, 0usize, 0u64);
    let mut ended_before = None;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut next_tick = started + Duration::from_secs(1);
    let read_summary = |etag: Option<String>| {
        let client = client.clone();
        async move { client.get_run_plan_job_if_changed(id, true, etag.as_deref()).await.unwrap() }
    };
    while Instant::now() < deadline {
        // Events until the next tick, then the summary (a 304 when unchanged), as the console.
        let mut batch = Vec::new();
        while let Ok(event) =
            tokio::time::timeout(next_tick.saturating_duration_since(Instant::now()), stream.next()).await
        {
            batch.push(event.unwrap().unwrap());
        }
        next_tick += Duration::from_secs(1);
        for event in &batch {
            // The bytes of the event as it travels: its SSE lines around its JSON.
            bytes +=
                serde_json::to_string(event).unwrap().len() + event.id.len() + event.event_type.as_str().len() + 20;
        }
        reads += 1;
        match read_summary(etag.clone()).await {
            Conditional::Changed { value, etag: tag } => {
                bytes += serde_json::to_string(&Data { data: value.clone() }).unwrap().len();
                let counts = value.counts.unwrap_or_default();
                total = counts.total;
                let now_ended = ["COMPLETED", "FAILED", "CANCELLED"].iter().filter_map(|s| counts.by_status.get(*s));
                let now_ended = now_ended.sum::<u64>() as usize;
                ended = now_ended - *ended_before.get_or_insert(now_ended);
                etag = tag;
            }
            Conditional::Unchanged => {}
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "live_at_scale: watching a {total}-simulation run for {elapsed:.0} s: {ended} simulations ended ({:.2}/s), \
         {reads} summary reads, {bytes} bytes read: {:.0} bytes/s, {:.0} bytes per ended simulation",
        ended as f64 / elapsed,
        bytes as f64 / elapsed,
        bytes as f64 / ended.max(1) as f64
    );
    client.cancel_run_plan_job(id).await.unwrap();
    running.shutdown().await.unwrap();
}

/// `n` issues written straight into a store, 100,000 a transaction (`store::fill`: a `COPY` on
/// PostgreSQL).
fn fill_issues(location: &store::Location, n: u64) {
    let store = Store::open(location).unwrap();
    let batch = 100_000;
    let mut written = 0;
    while written < n {
        let upto = (written + batch).min(n);
        let docs: Vec<Doc> = (written..upto)
            .map(|k| {
                let id = uuid::Uuid::from_u128(k as u128 + 1);
                let status = if k % 3 == 0 { "RESOLVED" } else { "OPEN" };
                let body = serde_json::json!({
                    "id": id, "title": format!("Issue {k}"), "summary": "filled by the benchmark",
                    "severity": "LOW", "status": status, "source": "API",
                    "createdAt": "2026-11-01T00:00:00Z", "updatedAt": "2026-11-01T00:00:00Z",
                    "evidence": [],
                });
                Doc::new(Kind::Issue, id, &body, "2026-11-01T00:00:00Z").unwrap().status(Some(status))
            })
            .collect();
        store.write_blocking(|tx| store::fill::fill(tx, &docs)).unwrap();
        written = upto;
    }
}

async fn issue_pages(n: u64, seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let filled = Instant::now();
    let database = database();
    let location = match &database {
        Some(url) => store::Location::Postgres(url.clone()),
        None => store::Location::Sqlite(dir.path().join("switchboard.db")),
    };
    tokio::task::spawn_blocking(move || fill_issues(&location, n)).await.unwrap();
    println!("live_at_scale: {n} issues written in {:.1} s", filled.elapsed().as_secs_f64());
    let options = Options {
        rate_limit: 1_000_000,
        seed: false,
        database: database.clone(),
        ..Options::local(dir.path().to_path_buf())
    };
    let running = service::start(options).await.unwrap();
    let http = reqwest::Client::new();
    for path in ["/v1/issue?limit=50", "/v1/issue?limit=50&status=OPEN"] {
        let url = format!("{}{path}", running.base_url());
        let mut latencies = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let mut cursor: Option<String> = None;
        while Instant::now() < deadline {
            // Walk pages as a client would: the first, then on by cursor, back to the first.
            let paged = match &cursor {
                Some(c) => format!("{url}&cursor={c}"),
                None => url.clone(),
            };
            let sent = Instant::now();
            let body: serde_json::Value =
                http.get(&paged).bearer_auth(running.api_key.expose()).send().await.unwrap().json().await.unwrap();
            latencies.push(sent.elapsed());
            assert_eq!(body["data"].as_array().map(Vec::len), Some(50));
            assert!(body["pagination"]["total"].as_u64().unwrap() >= n / 2, "{}", body["pagination"]);
            cursor = if latencies.len() % 20 == 0 {
                None
            } else {
                body["pagination"]["nextCursor"].as_str().map(str::to_owned)
            };
        }
        println!(
            "live_at_scale: GET {path} with {n} issues, one client, {} requests: p50 {:.2} ms, p99 {:.2} ms",
            latencies.len(),
            percentile(&mut latencies, 50.0),
            percentile(&mut latencies, 99.0)
        );
    }
    running.shutdown().await.unwrap();
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        event_latency().await;
        watcher_bytes(env_or("LIVE_WATCH_SECONDS", 30)).await;
        issue_pages(env_or("LIVE_ISSUES", 1_000_000), 5).await;
    });
}
