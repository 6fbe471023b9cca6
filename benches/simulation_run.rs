//! A large run at `--sim-speed max`: one endpoint, one flow with a happy path and three edge
//! cases, `iterationCount` N (10,000 simulations at N = 2,500), run to COMPLETED with its
//! metrics; then the time to read the run plan job, and peak resident memory.
//!
//!     cargo bench --bench simulation_run                 # N = 2500, then N = 1250 for linearity
//!     SIM_ITERATIONS=250 cargo bench --bench simulation_run
//!
//! Everything stays on 127.0.0.1; the run is bounded by its size and a 10-minute deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::time::{Duration, Instant};

use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig};
use switchboard::service::{self, Options, SimSpeed};

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

async fn run(iterations: i64) -> (usize, Duration, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let options =
        Options { rate_limit: 1_000_000, sim_speed: SimSpeed::Max, ..Options::local(dir.path().to_path_buf()) };
    let running = service::start(options).await.unwrap();
    let client =
        Client::new(&running.base_url(), ApiKey::new(running.api_key.expose()), ClientConfig::default()).unwrap();
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
    let plan = RunPlanInput {
        name: Some(format!("Load: {iterations} iterations")),
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
    };
    let started = Instant::now();
    let run = client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let deadline = started + Duration::from_secs(600);
    let id = run.simulation_run_plan_job_id;
    loop {
        let page: CursorPage<RunPlanJob> =
            client.list_page("/v1/simulation/plan/jobs", &Default::default()).await.unwrap();
        let job = page.data.iter().find(|j| j.simulation_run_plan_job_id == id).unwrap();
        if job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
            break;
        }
        assert!(Instant::now() < deadline, "not finished within 10 minutes");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let elapsed = started.elapsed();
    let read_started = Instant::now();
    let job = client.get_run_plan_job(id).await.unwrap();
    let read = read_started.elapsed();
    watcher_reads(&running.base_url(), running.api_key.expose(), id).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    let completed = job.simulation_jobs.iter().filter(|s| s.status == Some(SimulationJobStatus::Completed)).count();
    for other in job.simulation_jobs.iter().filter(|s| s.status != Some(SimulationJobStatus::Completed)) {
        println!("simulation_run: not completed: {:?} {:?}", other.status, other.error_message);
    }
    running.shutdown().await.unwrap();
    (completed, elapsed, read)
}

/// What one poll of the ended job costs a watcher, each way it can read it: median of 20.
async fn watcher_reads(base: &str, key: &str, id: uuid::Uuid) {
    let http = reqwest::Client::new();
    let job = format!("{base}/v1/simulation/plan/job/{id}");
    let etag = http.get(&job).bearer_auth(key).send().await.unwrap().headers()["etag"].to_str().unwrap().to_owned();
    let reads = [
        ("whole job", job.clone(), None),
        ("summary (?simulationJobs=none)", format!("{job}?simulationJobs=none"), None),
        ("whole job, unchanged (If-None-Match: 304)", job.clone(), Some(etag)),
        ("one page of 50 simulations", format!("{job}/simulation-jobs?limit=50"), None),
    ];
    for (what, url, etag) in reads {
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..20 {
            let mut request = http.get(&url).bearer_auth(key);
            if let Some(etag) = &etag {
                request = request.header("if-none-match", etag);
            }
            let started = Instant::now();
            let body = request.send().await.unwrap().bytes().await.unwrap();
            times.push(started.elapsed());
            bytes = body.len();
        }
        times.sort();
        println!(
            "simulation_run: watcher read, {what}: {bytes} bytes, median {:.1} ms",
            times[times.len() / 2].as_secs_f64() * 1000.0
        );
    }
}

fn main() {
    let iterations: i64 = std::env::var("SIM_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(2500);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        for n in [iterations, iterations / 2] {
            let (completed, elapsed, read) = run(n).await;
            println!(
                "simulation_run: {} simulations COMPLETED in {:.1} s ({:.0}/s), job read {:.0} ms, peak RSS so far {:.0} MB",
                completed,
                elapsed.as_secs_f64(),
                completed as f64 / elapsed.as_secs_f64(),
                read.as_secs_f64() * 1000.0,
                peak_rss_mb()
            );
        }
    });
}
