//! Load on loopback: requests per second and p99 latency of `GET /v1/persona` and
//! `POST /v1/issue` against the real local service, started in-process.
//!
//!     cargo bench --bench service_load            # 5 s per route, 32 connections
//!     LOAD_SECONDS=10 LOAD_CONNECTIONS=64 cargo bench --bench service_load
//!     LOAD_STORE=postgres cargo bench --bench service_load
//!
//! With `LOAD_STORE=postgres` the service keeps its data in PostgreSQL: a server of the
//! benchmark's own (`initdb` in a temporary directory, PostgreSQL's default settings).
//!
//! Bounded in time and count; it only talks to 127.0.0.1 and stops by itself.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::time::{Duration, Instant};

use reqwest::Method;
use switchboard::service::{self, Options};

const MAX_REQUESTS_PER_ROUTE: usize = 2_000_000;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

struct Report {
    requests: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Report {
    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted.get(rank.saturating_sub(1)).copied().unwrap_or_default()
    }
}

async fn drive(
    base: &str,
    key: &str,
    method: Method,
    path: &str,
    body: Option<String>,
    connections: u64,
    seconds: u64,
) -> Report {
    let http = reqwest::Client::builder().pool_max_idle_per_host(connections as usize).build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let per_task = MAX_REQUESTS_PER_ROUTE / connections as usize;
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let http = http.clone();
            let url = format!("{base}{path}");
            let (method, body, key) = (method.clone(), body.clone(), key.to_owned());
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(4096);
                let mut errors = 0;
                while Instant::now() < deadline && latencies.len() < per_task {
                    let mut request = http.request(method.clone(), &url).bearer_auth(&key);
                    if let Some(body) = &body {
                        request = request.header("content-type", "application/json").body(body.clone());
                    }
                    let sent = Instant::now();
                    match request.send().await {
                        Ok(response) if response.status().is_success() => {
                            let _ = response.bytes().await;
                            latencies.push(sent.elapsed());
                        }
                        _ => errors += 1,
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut report = Report { requests: 0, errors: 0, elapsed: Duration::ZERO, latencies: Vec::new() };
    for task in tasks {
        let (latencies, errors) = task.await.unwrap();
        report.requests += latencies.len();
        report.errors += errors;
        report.latencies.extend(latencies);
    }
    report.elapsed = started.elapsed();
    report
}

fn main() {
    let seconds = env_or("LOAD_SECONDS", 5);
    let connections = env_or("LOAD_CONNECTIONS", 32);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let postgres = std::env::var("LOAD_STORE").is_ok_and(|s| s == "postgres").then(|| {
        use switchboard::service::store::test_server::{Durability, TestServer};
        TestServer::start(Durability::Default).unwrap()
    });
    let database = postgres.as_ref().map(|server| server.fresh_database().unwrap());
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let options = Options { rate_limit: 10_000_000, database, ..Options::local(dir.path().to_path_buf()) };
        let running = service::start(options).await.unwrap();
        let base = running.base_url();
        let key = running.api_key.expose().to_owned();
        let store = if postgres.is_some() { "PostgreSQL" } else { "SQLite" };
        println!("service_load: {connections} connections, {seconds} s per route, on {base} ({store})");
        let routes = [
            ("GET /v1/persona", Method::GET, "/v1/persona", None),
            (
                "POST /v1/issue",
                Method::POST,
                "/v1/issue",
                Some(
                    r#"{"title":"Agent talks over the caller","summary":"Seen in load test","severity":"MEDIUM"}"#
                        .to_owned(),
                ),
            ),
        ];
        for (name, method, path, body) in routes {
            let report = drive(&base, &key, method, path, body, connections, seconds).await;
            let rps = report.requests as f64 / report.elapsed.as_secs_f64();
            println!(
                "{name:<16} {rps:>9.0} req/s   p50 {:>6.2} ms   p99 {:>6.2} ms   ({} ok, {} errors)",
                report.percentile(50.0).as_secs_f64() * 1e3,
                report.percentile(99.0).as_secs_f64() * 1e3,
                report.requests,
                report.errors
            );
        }
        running.shutdown().await.unwrap();
    });
}
