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
#[path = "support/scale.rs"]
mod scale;

use std::path::Path;
use std::time::{Duration, Instant};

use scale::{Serve, cpu_seconds, memory_mb};
use switchboard::api::model::RunRequest;
use switchboard::api::{ApiKey, Client, ClientConfig};

const KEY: &str = "sk-console-watch-bench";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let simulations = env_or("WATCH_SIMULATIONS", 100_000);
    let seconds = env_or("WATCH_SECONDS", 60);
    let dir = tempfile::tempdir().unwrap();
    let program = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    let serve = Serve::start_on(KEY, None);
    let url = serve.url.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let client = Client::new(&url, ApiKey::new(KEY), ClientConfig::default()).unwrap();
    let name = format!("Watched: {simulations} simulations");
    runtime.block_on(async {
        let plan = scale::plan(&client, simulations, &name).await;
        // Saved, so the jobs list names the run by its plan.
        client.run(&RunRequest { plan: Some(plan), save_as_plan: Some(true), ..Default::default() }).await.unwrap();
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
    console.wait_for("RUNNING_SIMULATIONS", Duration::from_secs(30)).unwrap();
    // The newest job is listed first: open it.
    console.key("Enter");
    console.wait_for("ended", Duration::from_secs(30)).unwrap();
    let pid = console.pid().expect("the console runs");
    // Let the view settle (its first reads), then measure.
    std::thread::sleep(Duration::from_secs(5));
    // The gauge's "2038/100000 ended".
    let progress = |screen: &str| -> String {
        let total = format!("/{simulations} ended");
        let Some(at) = screen.find(&total) else { return String::from("no gauge") };
        let ended: String = screen[..at].chars().rev().take_while(char::is_ascii_digit).collect();
        format!("{}{total}", ended.chars().rev().collect::<String>())
    };
    let first = progress(&console.screen_text());
    let (cpu_before, started) = (cpu_seconds(pid), Instant::now());
    let mut peak: f64 = 0.0;
    while started.elapsed() < Duration::from_secs(seconds) {
        peak = peak.max(memory_mb(pid, "VmRSS:"));
        std::thread::sleep(Duration::from_millis(500));
    }
    let cpu = cpu_seconds(pid) - cpu_before;
    let wall = started.elapsed().as_secs_f64();
    let last = progress(&console.screen_text());
    // A cheap watch that stopped following the run would be no watch at all.
    assert_ne!(first, last, "the view followed the run while it was measured");
    println!(
        "console_watch: {seconds} s watching a {simulations}-simulation run: CPU {:.2} % of a core, RSS peak {peak:.0} MB (VmHWM {:.0} MB)",
        cpu / wall * 100.0,
        memory_mb(pid, "VmHWM:")
    );
    println!("console_watch: the view's gauge went from {first} to {last}");
    console.key("q");
    drop(console);
    drop(serve);
}
