//! `switchboard diff` of two 10,000-simulation runs: two runs of one plan (one endpoint, the
//! seeded improv flow's happy path and three edge cases, `iterationCount` N = 2,500, four plan
//! metrics plus the flow's automatic ones) at `--sim-speed max`, then the real binary diffing
//! them against the in-process local service, as a separate process so that its time and
//! peak memory are the command's own: first with the results read (`GET …/check-results`, the local
//! service extension), then `--call-by-call` (what a service without it gets: the job read and
//! each call's metrics). Each is run `DIFF_REPEATS` times (default 3). Before them, a
//! breakdown of where a diff's time goes: each read as the service builds and sends it, its
//! decoding, the comparison and the report (and the service's own timing of its results read).
//!
//!     cargo bench --bench compare_runs
//!     SIM_ITERATIONS=250 cargo bench --bench compare_runs     # 1,000 simulations a run
//!
//! Everything stays on 127.0.0.1; each run is bounded by a 10-minute deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::process::Stdio;
use std::time::{Duration, Instant};

use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig};
use switchboard::service::{self, Options, Running, SimSpeed};

fn peak_rss_mb(pid: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse::<f64>().ok()?;
    Some(kb / 1024.0)
}

async fn plan(client: &Client, iterations: i64) -> RunPlanInput {
    let flows: Vec<CustomerFlow> =
        futures_util::TryStreamExt::try_collect(client.list_all("/v1/customer-flow", Default::default()))
            .await
            .unwrap();
    let flow = flows
        .iter()
        .find(|f| f.flow_type == Some(FlowType::Improv) && f.edge_cases.len() == 3)
        .expect("the seeded improv flow");
    let endpoints: Vec<AgentEndpoint> =
        futures_util::TryStreamExt::try_collect(client.list_all("/v1/agent/endpoint", Default::default()))
            .await
            .unwrap();
    let endpoint = endpoints
        .iter()
        .find(|e| {
            flow.agents.iter().any(|a| Some(a.id) == e.agent_id)
                && e.outbound_dial_type != Some(OutboundDialType::HttpRequest)
        })
        .unwrap();
    RunPlanInput {
        name: Some(format!("Compare: {iterations} iterations")),
        direction: Some(Direction::Inbound),
        iteration_count: Some(iterations),
        max_concurrent_jobs: Some(16),
        max_simulation_duration_seconds: Some(600),
        flows: Some(vec![FlowSelection {
            id: Some(flow.id),
            happy_path: Some(true),
            edge_cases: Some(EdgeCases::All),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
        metrics: Some(vec![
            MetricReference::by_slug("call_duration"),
            MetricReference::by_slug("agent_response_latency"),
            MetricReference::by_slug("interruption_count"),
            MetricReference::by_slug("task_completion"),
        ]),
        ..Default::default()
    }
}

/// Runs `plan` to its end; the job's id and how many simulations it had.
async fn run_to_end(client: &Client, plan: &RunPlanInput) -> (uuid::Uuid, usize) {
    let started = Instant::now();
    let run = client.run(&RunRequest { plan: Some(plan.clone()), ..Default::default() }).await.unwrap();
    let id = run.simulation_run_plan_job_id;
    loop {
        let job = client.get_run_plan_job(id).await.unwrap();
        if job.has_ended() {
            assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.error_message);
            println!(
                "compare_runs: run {id}: {} simulations in {:.1} s",
                job.simulation_jobs.len(),
                started.elapsed().as_secs_f64()
            );
            return (id, job.simulation_jobs.len());
        }
        assert!(started.elapsed() < Duration::from_secs(600), "not finished within 10 minutes");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// One `switchboard diff` against `running`: its wall time, peak RSS and report size.
async fn diff(running: &Running, base: uuid::Uuid, head: uuid::Uuid, extra: &[&str]) -> (Duration, f64, usize) {
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("SWITCHBOARD_BASE_URL", running.base_url())
        .env("SWITCHBOARD_API_KEY", running.api_key.expose())
        .args(["diff", &base.to_string(), &head.to_string(), "--output", "json"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap().to_string();
    let stdout = child.stdout.take().unwrap();
    let reader = tokio::spawn(async move {
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::BufReader::new(stdout), &mut out).await.unwrap();
        out
    });
    // The high-water mark only grows: the last reading before the process ends is its peak.
    let mut peak = 0.0f64;
    let status = loop {
        if let Some(mb) = peak_rss_mb(&pid) {
            peak = peak.max(mb);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let elapsed = started.elapsed();
    let out = reader.await.unwrap();
    assert!(status.code() == Some(0) || status.code() == Some(1), "diff failed: {status:?}");
    let report: serde_json::Value = serde_json::from_slice(&out).expect("a JSON report");
    assert!(report["cases"].as_array().is_some_and(|c| !c.is_empty()));
    (elapsed, peak, out.len())
}

/// Where the time of a diff over the results read goes, step by step in this process: each
/// read as the service builds and sends it (and its size), decoding it, building the runs,
/// comparing them and writing the JSON report. Printed before the end-to-end figures.
async fn breakdown(client: &Client, base: uuid::Uuid, head: uuid::Uuid) {
    let ms = |since: Instant| since.elapsed().as_secs_f64() * 1000.0;
    let reads = [
        ("job, whole", format!("/v1/simulation/plan/job/{base}")),
        ("job, ?simulationJobs=none", format!("/v1/simulation/plan/job/{base}?simulationJobs=none")),
        ("check-results", format!("/v1/simulation/plan/job/{base}/check-results")),
    ];
    for (name, path) in reads {
        let started = Instant::now();
        let (_, bytes) = client.send_raw::<(), ()>(reqwest::Method::GET, &path, None, None).await.unwrap();
        let read = ms(started);
        let started = Instant::now();
        if name.starts_with("job") {
            serde_json::from_slice::<Data<RunPlanJob>>(&bytes).unwrap();
        } else {
            serde_json::from_slice::<Data<RunResults>>(&bytes).unwrap();
        }
        println!(
            "compare_runs: breakdown: {name}: {:.1} MB, service and transfer {read:.0} ms, decode {:.0} ms",
            bytes.len() as f64 / 1e6,
            ms(started)
        );
    }
    let started = Instant::now();
    let (b, h) = switchboard::compare::fetch::read_pair(client, base, head, None).await;
    let (b, h) = (b.unwrap(), h.unwrap());
    println!("compare_runs: breakdown: both runs read (as the diff reads them): {:.0} ms", ms(started));
    let started = Instant::now();
    let edits = switchboard::compare::fetch::edits(client, &[&b, &h]).await;
    println!("compare_runs: breakdown: edits (endpoints, flows): {:.0} ms", ms(started));
    let started = Instant::now();
    let diff = switchboard::compare::Diff::of(&b, &h, &edits);
    println!("compare_runs: breakdown: compare: {:.0} ms", ms(started));
    let started = Instant::now();
    let report = serde_json::to_string_pretty(&diff).unwrap();
    println!("compare_runs: breakdown: JSON report ({:.1} MB): {:.0} ms", report.len() as f64 / 1e6, ms(started));
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let iterations: i64 = std::env::var("SIM_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(2500);
    let repeats: usize = std::env::var("DIFF_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    // The service's own account of each results read it builds (how long reading the
    // simulations, reading the values and building the calls took), printed beside ours.
    tracing_subscriber::fmt()
        .with_env_filter("switchboard::service::sim::run_report=debug")
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let options =
            Options { rate_limit: 1_000_000, sim_speed: SimSpeed::Max, ..Options::local(dir.path().to_path_buf()) };
        let running = service::start(options).await.unwrap();
        let client =
            Client::new(&running.base_url(), ApiKey::new(running.api_key.expose()), ClientConfig::default()).unwrap();
        let plan = plan(&client, iterations).await;
        let (base, n) = run_to_end(&client, &plan).await;
        let (head, _) = run_to_end(&client, &plan).await;
        breakdown(&client, base, head).await;
        for (name, extra) in [("results read", &[][..]), ("call by call", &["--call-by-call"][..])] {
            let mut times = Vec::new();
            let mut peaks = Vec::new();
            let mut bytes = 0;
            for _ in 0..repeats {
                let (elapsed, peak, size) = diff(&running, base, head, extra).await;
                times.push(elapsed.as_secs_f64());
                peaks.push(peak);
                bytes = size;
            }
            println!(
                "compare_runs: diff of two {n}-simulation runs, {name}: median {:.2} s (min {:.2}, max {:.2}), \
                 peak RSS median {:.0} MB (max {:.0}), report {} KB",
                median(times.clone()),
                times.iter().copied().fold(f64::INFINITY, f64::min),
                times.iter().copied().fold(0.0, f64::max),
                median(peaks.clone()),
                peaks.iter().copied().fold(0.0, f64::max),
                bytes / 1024
            );
        }
        running.shutdown().await.unwrap();
    });
}
