//! The console watching a large run (issue 14): `switchboard serve --sim-speed max` as its own
//! process runs a run of N simulations (default 100,000); the real console, in a pty of
//! 160×48, opens the run's live view; for `WATCH_SECONDS` (default 60) its CPU time (from
//! `/proc/<pid>/stat`) and resident memory are read.
//!
//!     cargo bench --bench console_watch
//!     WATCH_SIMULATIONS=10000 WATCH_SECONDS=30 cargo bench --bench console_watch
//!
//! Only 127.0.0.1; the service is killed at the end, the run with it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

#[path = "../tests/support/pty.rs"]
mod pty;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig};

const KEY: &str = "sk-console-watch-bench";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// User plus system CPU seconds of a process so far.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // The kernel counts in clock ticks: 100 a second on Linux.
    ticks / 100.0
}

fn memory_mb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let simulations = env_or("WATCH_SIMULATIONS", 100_000);
    let seconds = env_or("WATCH_SECONDS", 60);
    let dir = tempfile::tempdir().unwrap();
    let program = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    let mut serve = Command::new(program)
        .args(["serve", "--addr", "127.0.0.1:0", "--sim-speed", "max", "--rate-limit", "1000000"])
        .arg("--data-dir")
        .arg(dir.path().join("service"))
        .env("SWITCHBOARD_API_KEY", KEY)
        .env("XDG_DATA_HOME", dir.path().join("xdg"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(serve.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.trim().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let client = Client::new(&url, ApiKey::new(KEY), ClientConfig::default()).unwrap();
    let name = format!("Watched: {simulations} simulations");
    runtime.block_on(async {
        let flows: Vec<CustomerFlow> =
            client.list_all("/v1/customer-flow", Default::default()).try_collect().await.unwrap();
        let flows: Vec<&CustomerFlow> =
            flows.iter().filter(|f| f.flow_type != Some(FlowType::Voicemail) && f.happy_path.is_some()).collect();
        let test_cases: u64 = flows.iter().map(|f| 1 + f.edge_cases.len() as u64).sum();
        let endpoints: Vec<AgentEndpoint> =
            client.list_all("/v1/agent/endpoint", Default::default()).try_collect().await.unwrap();
        let endpoint = endpoints.iter().find(|e| e.outbound_dial_type != Some(OutboundDialType::HttpRequest)).unwrap();
        let plan = RunPlanInput {
            name: Some(name.clone()),
            direction: Some(Direction::Inbound),
            iteration_count: Some((simulations / test_cases) as i64),
            max_concurrent_jobs: Some(16),
            flows: Some(
                flows
                    .iter()
                    .map(|f| FlowSelection {
                        id: Some(f.id),
                        happy_path: Some(true),
                        edge_cases: Some(EdgeCases::All),
                        ..Default::default()
                    })
                    .collect(),
            ),
            agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
            metrics: Some(vec![MetricReference::by_slug("call_duration")]),
            ..Default::default()
        };
        client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    });

    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("XDG_CONFIG_HOME", home.to_str().unwrap()),
        ("XDG_CACHE_HOME", home.to_str().unwrap()),
        ("XDG_DATA_HOME", home.to_str().unwrap()),
        ("SWITCHBOARD_API_KEY", KEY),
        ("SWITCHBOARD_BASE_URL", url.as_str()),
    ];
    let mut console = pty::Pty::spawn(program, &[], &env, 160, 48);
    console.wait_for("jobs", Duration::from_secs(30)).unwrap();
    console.key("2");
    console.wait_for(&name, Duration::from_secs(30)).unwrap();
    // The newest job is listed first: open it.
    console.key("enter");
    console.wait_for("ended", Duration::from_secs(30)).unwrap();
    let pid = console.pid().expect("the console runs");
    // Let the view settle (its first reads), then measure.
    std::thread::sleep(Duration::from_secs(5));
    let (cpu_before, started) = (cpu_seconds(pid), Instant::now());
    let mut peak: f64 = 0.0;
    while started.elapsed() < Duration::from_secs(seconds) {
        peak = peak.max(memory_mb(pid, "VmRSS:"));
        std::thread::sleep(Duration::from_millis(500));
    }
    let cpu = cpu_seconds(pid) - cpu_before;
    let wall = started.elapsed().as_secs_f64();
    let screen = console.screen_text();
    let gauge = screen.lines().find(|l| l.contains("ended")).unwrap_or_default().trim().to_owned();
    println!(
        "console_watch: {seconds} s watching a {simulations}-simulation run: CPU {:.2} % of a core, RSS peak {peak:.0} MB (VmHWM {:.0} MB)",
        cpu / wall * 100.0,
        memory_mb(pid, "VmHWM:")
    );
    println!("console_watch: at the end the view showed: {gauge}");
    console.key("q");
    drop(console);
    let _ = serve.kill();
    let _ = serve.wait();
}
