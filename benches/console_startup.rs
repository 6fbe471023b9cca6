//! Start-up to the first frame with a warm cache: the real binary in a pseudo-terminal, timed
//! from spawn until the cached run plans are on screen (marked stale, before the service
//! answers). Run with `cargo bench --bench console_startup`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

#[path = "../tests/support/pty.rs"]
mod pty;

use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 15;
const PLAN: &str = "Brightsmile reschedule regression";

fn console(home: &Path) -> pty::Pty {
    let home = home.to_str().unwrap();
    pty::Pty::spawn(Path::new(env!("CARGO_BIN_EXE_switchboard")), &[], &[("HOME", home)], 120, 40)
}

fn main() {
    let home = tempfile::tempdir().unwrap();
    // Warm up: the first run seeds the service and fills the cache.
    let mut first = console(home.path());
    first.wait_for(PLAN, Duration::from_secs(60)).unwrap();
    first.wait_for("account", Duration::from_secs(60)).unwrap();
    first.key("q");
    first.wait_exit(Duration::from_secs(30)).unwrap();

    let mut times = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut pty = console(home.path());
        pty.wait_for(PLAN, Duration::from_secs(30)).unwrap();
        times.push(started.elapsed());
        pty.wait_for("account", Duration::from_secs(30)).unwrap();
        pty.key("q");
        pty.wait_exit(Duration::from_secs(30)).unwrap();
    }
    // An idle console: CPU time used over 10 s with nothing happening (poll timer only;
    // the embedded service's background runners share the process).
    let mut idle = console(home.path());
    idle.wait_for("account", Duration::from_secs(30)).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let pid = idle.pid().unwrap();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(10));
    let used = cpu_ticks(pid) - before;
    idle.key("q");
    idle.wait_exit(Duration::from_secs(30)).unwrap();
    println!("idle console: {used} clock ticks of CPU in 10 s ({:.2}% of one core)", used as f64 / 10.0);

    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "start-up to first frame with cached run plans, {RUNS} runs: median {:.1} ms, min {:.1} ms, max {:.1} ms (target < 150 ms)",
        ms(times[RUNS / 2]),
        ms(times[0]),
        ms(times[RUNS - 1])
    );
}

/// utime + stime of `pid`, in clock ticks (1/100 s on Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // Fields 14 and 15 of stat; after the name, state is index 0, so they are 11 and 12.
    field(11) + field(12)
}
