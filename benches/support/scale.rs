//! What the large-run benchmarks share: `switchboard serve --sim-speed max` as its own process,
//! a process's memory read from `/proc`, and the plan of a run of N simulations.
//!
//! Include it with `#[path = "support/scale.rs"] mod scale;`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use switchboard::api::Client;
use switchboard::api::model::*;

#[path = "../../tests/support/wide_plan.rs"]
mod wide_plan;

#[path = "cpu_cap.rs"]
pub mod cpu_cap;

/// A running `switchboard serve` with the demo world seeded, in a data dir of its own; killed
/// when dropped.
pub struct Serve {
    pub child: Child,
    pub url: String,
    _dir: tempfile::TempDir,
    /// The CPU cgroup it runs in, with `SCALE_REPLICA_CPU`.
    _cap: Option<cpu_cap::CpuCap>,
}

impl Serve {
    /// `serve` on SQLite, or on the PostgreSQL database at `database` (a replica of as many as
    /// share it). `SCALE_SERVE_BIN` names another build to run (an older one, to compare);
    /// `SCALE_REPLICA_CPU` caps each at that share of a core (`cpu_cap`).
    pub fn start_on(key: &str, database: Option<&str>) -> Serve {
        Serve::start_with(key, database, &["--sim-speed", "max"])
    }

    /// `serve` as `start_on` starts it, with `flags` of its own instead of `--sim-speed max`.
    pub fn start_with(key: &str, database: Option<&str>, flags: &[&str]) -> Serve {
        let dir = tempfile::tempdir().unwrap();
        let program = std::env::var_os("SCALE_SERVE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_switchboard").into());
        let mut command = Command::new(program);
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--rate-limit", "1000000"])
            .args(flags)
            .arg("--data-dir")
            .arg(dir.path());
        if let Some(url) = database {
            command.args(["--database", url]);
        }
        let mut child = command
            .env("SWITCHBOARD_API_KEY", key)
            .env("XDG_DATA_HOME", dir.path().join("xdg"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let cap = cpu_cap::share().map(|share| cpu_cap::CpuCap::apply(child.id(), share));
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = loop {
            let line = lines.next().expect("serve printed its address").unwrap();
            if let Some(url) = line.strip_prefix("listening on ") {
                break url.trim().to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Serve { child, url, _dir: dir, _cap: cap }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The CPU time a process has used (user and system), in seconds.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// A `/proc/<pid>/status` line in MB (`VmRSS:`, `VmHWM:`).
pub fn memory_mb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// About `simulations` simulations: one endpoint, every test case of the seeded flows but the
/// voicemail one (ten), `simulations / 10` iterations, four plan metrics plus the flows'
/// automatic ones, `maxConcurrentJobs` 16 (or `SCALE_CONCURRENCY`).
pub async fn plan(client: &Client, simulations: u64, name: &str) -> RunPlanInput {
    let metrics = ["call_duration", "agent_response_latency", "interruption_count", "task_completion"];
    wide_plan::wide_plan(client, name, simulations, concurrency(), &metrics).await
}

/// The plan's `maxConcurrentJobs`: 16, or `SCALE_CONCURRENCY`.
fn concurrency() -> i64 {
    std::env::var("SCALE_CONCURRENCY").ok().and_then(|v| v.parse().ok()).unwrap_or(16)
}

/// The `p`th percentile of `samples`, in milliseconds.
#[allow(dead_code, reason = "not every benchmark that includes this file reports latencies")]
pub fn percentile(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort_unstable();
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples.get(rank.saturating_sub(1)).copied().unwrap_or_default().as_secs_f64() * 1000.0
}

/// Waits until the seeded history's jobs have run, so what is measured has the engine alone.
#[allow(dead_code, reason = "not every benchmark that includes this file waits for the history")]
pub async fn settled(client: &Client) {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let jobs: Vec<RunPlanJob> =
            client.list_all("/v1/simulation/plan/jobs", Default::default()).try_collect().await.unwrap();
        if jobs.iter().all(|j| j.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal)) {
            return;
        }
        assert!(Instant::now() < deadline, "the seeded history did not finish");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
