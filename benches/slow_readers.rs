//! Slow readers (issue 27): clients that ask for the largest job and never read the answer.
//! `switchboard serve --sim-speed max` runs as its own process (so its memory is its own); a run
//! of N simulations is made and left to end; then C clients each send the whole job's read
//! (`GET /v1/simulation/plan/job/{id}`, hundreds of MB at 100,000 simulations) with a small
//! receive buffer and never read. Measured over the next S seconds: the service's peak resident
//! memory, `GET /v1/persona` latency (one request every 20 ms), what became of each client
//! (dropped by the service, answered 503, or still being answered), and a normal reader's whole
//! read of the same job during the storm and after it.
//!
//!     cargo bench --bench slow_readers                      # 100,000 simulations, 1,000 clients
//!     SLOW_SIMULATIONS=10000 SLOW_CLIENTS=300 SLOW_SECONDS=30 cargo bench --bench slow_readers
//!
//! `SCALE_SERVE_BIN` runs another build of `switchboard` as the service (an older one, for a
//! before and after); `SLOW_VERBOSE=1` prints each persona request over 10 ms and when it was
//! due. `SLOW_RECV_BUFFER` sets the clients' receive buffer (bytes, 65536 by default: the kernel
//! doubles it). Needs about C + 200 file descriptors in this process and in the service: a
//! lower soft limit is raised to what is needed (through `sh -c 'ulimit -n …'`, which re-runs
//! this benchmark) when the hard limit allows. Only 127.0.0.1; bounded in clients and time.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

#[path = "support/scale.rs"]
mod scale;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use scale::{Serve, cpu_seconds, memory_mb, percentile, settled};
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig, Conditional};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const KEY: &str = "sk-slow-readers-bench";

/// Set once the benchmark has re-run itself under a raised descriptor limit.
const RAISED: &str = "SLOW_READERS_LIMIT_RAISED";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The soft and hard limits on open files (`/proc/self/limits`; "unlimited" as `u64::MAX`).
fn descriptor_limits() -> (u64, u64) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap_or("");
    let number = |word: &str| if word == "unlimited" { u64::MAX } else { word.parse().unwrap_or(0) };
    let words: Vec<&str> = line.split_whitespace().collect();
    (words.get(3).map_or(0, |w| number(w)), words.get(4).map_or(0, |w| number(w)))
}

/// Makes room for `needed` descriptors: when the soft limit is lower, re-runs this benchmark
/// through `sh -c 'ulimit -n …'` (no libc call needed) and exits with its status.
fn ensure_descriptors(needed: u64) {
    let (soft, hard) = descriptor_limits();
    if soft >= needed {
        return;
    }
    assert!(hard >= needed, "{needed} open files are needed, the hard limit is {hard}; lower SLOW_CLIENTS");
    assert!(std::env::var_os(RAISED).is_none(), "ulimit -n {needed} did not take");
    println!("slow_readers: raising the open-file limit from {soft} to {needed}");
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {needed} && exec \"$0\" \"$@\""))
        .arg(std::env::current_exe().unwrap())
        .args(std::env::args_os().skip(1))
        .env(RAISED, "1")
        .status()
        .unwrap();
    std::process::exit(status.code().unwrap_or(1));
}

/// A run of about `simulations` simulations, to its end: the largest job there will be.
async fn largest_job(client: &Client, simulations: u64) -> uuid::Uuid {
    let plan = scale::plan(client, simulations, &format!("Slow readers: {simulations} simulations")).await;
    let started = Instant::now();
    let id =
        client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap().simulation_run_plan_job_id;
    loop {
        let job = match client.get_run_plan_job_if_changed(id, true, None).await.unwrap() {
            Conditional::Changed { value, .. } => value,
            Conditional::Unchanged => unreachable!("no tag was sent"),
        };
        if job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
            println!(
                "slow_readers: the {simulations}-simulation run ended in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            return id;
        }
        assert!(started.elapsed() < Duration::from_secs(1800), "the run did not end within 30 minutes");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A normal reader's whole read of `url`: its status, bytes and time.
async fn whole_read(url: &str) -> (u16, usize, Duration) {
    let started = Instant::now();
    let Ok(mut response) = reqwest::Client::new().get(url).bearer_auth(KEY).send().await else {
        return (0, 0, started.elapsed());
    };
    let status = response.status().as_u16();
    let mut bytes = 0;
    while let Ok(Some(chunk)) = response.chunk().await {
        bytes += chunk.len();
    }
    (status, bytes, started.elapsed())
}

/// `GET /v1/persona` every 20 ms until `stop`, each sent when due whether or not those before
/// it have been answered, and timed from when it was due: a stall counts for every request it
/// held up, not once. When each was due and its latency, and answers that were not 200.
async fn persona_probe(base: String, stop: Arc<AtomicBool>) -> (Vec<(Instant, Duration)>, usize) {
    let (http, url) = (reqwest::Client::new(), format!("{base}/v1/persona"));
    let mut ticks = tokio::time::interval(Duration::from_millis(20));
    let mut sent = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let due = ticks.tick().await.into_std();
        let (http, url) = (http.clone(), url.clone());
        sent.push(tokio::spawn(async move {
            let read = http.get(&url).bearer_auth(KEY).send().await.ok()?;
            (read.status() == 200 && read.bytes().await.is_ok()).then(|| (due, due.elapsed()))
        }));
    }
    let (mut samples, mut failures) = (Vec::new(), 0);
    for request in sent {
        match request.await.unwrap() {
            Some(latency) => samples.push(latency),
            None => failures += 1,
        }
    }
    (samples, failures)
}

/// The highest `VmRSS` of `pid`, sampled every 100 ms until `stop`.
async fn peak_rss(pid: u32, stop: Arc<AtomicBool>) -> f64 {
    let mut peak: f64 = 0.0;
    while !stop.load(Ordering::Relaxed) {
        peak = peak.max(memory_mb(pid, "VmRSS:"));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    peak
}

/// A client that sends the job's read and will not read the answer.
async fn silent_reader(addr: SocketAddr, path: &str, receive_buffer: u32) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.set_recv_buffer_size(receive_buffer)?;
    let mut stream = socket.connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {KEY}\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    Ok(stream)
}

/// What the service did with a silent client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Fate {
    /// The connection was reset (the service dropped it) before its answer was out.
    Dropped,
    /// The service ended the connection before its answer was out.
    Ended,
    /// Answered 503 (`service_busy`).
    Busy,
    /// Still being answered at the end.
    Open,
    /// Something else (a connection that failed, another status).
    Other,
}

/// Reads what a silent client was sent, once the measurement is over, to tell its fate. A
/// reset seen while it was silent counts as dropped whatever was left in its buffer.
async fn fate(mut stream: TcpStream, reset_seen: bool) -> Fate {
    let mut head = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut read = 0usize;
    loop {
        match tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buffer)).await {
            // Still sending after 1 MiB: the service is answering it.
            Ok(Ok(n)) if n > 0 && read + n < 1 << 20 => {
                if head.len() < 16 {
                    head.extend_from_slice(&buffer[..n.min(16)]);
                }
                read += n;
            }
            Ok(Ok(0)) if !reset_seen => {
                return if head.starts_with(b"HTTP/1.1 503") { Fate::Busy } else { Fate::Ended };
            }
            Ok(Err(_)) | Ok(Ok(0)) => {
                return if head.starts_with(b"HTTP/1.1 503") { Fate::Busy } else { Fate::Dropped };
            }
            _ if head.starts_with(b"HTTP/1.1 503") => return Fate::Busy,
            _ if reset_seen => return Fate::Dropped,
            _ if head.starts_with(b"HTTP/1.1 200") => return Fate::Open,
            _ => return Fate::Other,
        }
    }
}

/// Polls every client for a reset (without reading, which would let the service go on) until
/// `until`; returns when each was first seen reset, from `since`.
async fn watch_resets(clients: &[TcpStream], since: Instant, until: Instant) -> Vec<Option<Duration>> {
    let mut seen = vec![None; clients.len()];
    while Instant::now() < until {
        for (client, seen) in clients.iter().zip(seen.iter_mut()) {
            if seen.is_none() && matches!(client.take_error(), Ok(Some(_))) {
                *seen = Some(since.elapsed());
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen
}

fn main() {
    let simulations = env_or("SLOW_SIMULATIONS", 100_000);
    let clients = env_or("SLOW_CLIENTS", 1_000);
    let seconds = env_or("SLOW_SECONDS", 30);
    let receive_buffer = env_or("SLOW_RECV_BUFFER", 65_536) as u32;
    ensure_descriptors(clients + 200);
    let serve = Serve::start_on(KEY, None);
    let pid = serve.child.id();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = Client::new(&serve.url, ApiKey::new(KEY), ClientConfig::default()).unwrap();
        settled(&client).await;
        let id = largest_job(&client, simulations).await;
        let path = format!("/v1/simulation/plan/job/{id}");
        let url = format!("{}{path}", serve.url);
        let (status, size, took) = whole_read(&url).await;
        assert_eq!(status, 200, "the job's read");
        println!(
            "slow_readers: the job's read: {size} bytes in {:.0} ms; service RSS {:.0} MB, VmHWM {:.0} MB before the clients",
            took.as_secs_f64() * 1000.0,
            memory_mb(pid, "VmRSS:"),
            memory_mb(pid, "VmHWM:")
        );

        let stop = Arc::new(AtomicBool::new(false));
        // On a thread and runtime of its own, as another user of the service: opening a thousand
        // clients on this runtime would otherwise delay the probe's own requests.
        let probe = {
            let (base, stop) = (serve.url.clone(), stop.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                runtime.block_on(persona_probe(base, stop))
            })
        };
        let sampler = tokio::spawn(peak_rss(pid, stop.clone()));
        let addr: SocketAddr = serve.url.trim_start_matches("http://").parse().unwrap();
        let cpu_before = cpu_seconds(pid);
        let started = Instant::now();
        let opening: Vec<_> = (0..clients)
            .map(|_| {
                let path = path.clone();
                tokio::spawn(async move { silent_reader(addr, &path, receive_buffer).await })
            })
            .collect();
        let mut silent = Vec::new();
        let mut failed = 0;
        for opened in opening {
            match opened.await.unwrap() {
                Ok(stream) => silent.push(stream),
                Err(_) => failed += 1,
            }
        }
        let opened_in = started.elapsed();
        let until = started + Duration::from_secs(seconds);
        let during = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            whole_read(&url).await
        });
        let resets = watch_resets(&silent, started, until).await;
        let during = during.await.unwrap();
        stop.store(true, Ordering::Relaxed);
        let (persona, persona_failures) = probe.join().unwrap();
        let slow: Vec<f64> = persona
            .iter()
            .filter(|(_, latency)| *latency > Duration::from_millis(10))
            .map(|(due, _)| due.saturating_duration_since(started).as_secs_f64())
            .collect();
        if std::env::var_os("SLOW_VERBOSE").is_some() {
            for (due, latency) in persona.iter().filter(|(_, l)| *l > Duration::from_millis(10)) {
                eprintln!("slow: due {:.3} s latency {:.1} ms", due.saturating_duration_since(started).as_secs_f64(), latency.as_secs_f64() * 1e3);
            }
        }
        let mut persona: Vec<Duration> = persona.into_iter().map(|(_, latency)| latency).collect();
        let peak = sampler.await.unwrap();
        let cpu = cpu_seconds(pid) - cpu_before;

        let fates =
            futures_util::future::join_all(silent.into_iter().zip(&resets).map(|(s, r)| fate(s, r.is_some()))).await;
        let mut counts = std::collections::BTreeMap::new();
        for fate in &fates {
            *counts.entry(*fate).or_insert(0usize) += 1;
        }
        let mut dropped_after: Vec<Duration> = resets.iter().flatten().copied().collect();
        let after = whole_read(&format!("{}{path}", serve.url)).await;

        println!(
            "slow_readers: {clients} silent clients of the {simulations}-simulation job ({size} bytes each), receive buffer {receive_buffer} B, opened in {:.1} s ({failed} failed to open), watched {seconds} s",
            opened_in.as_secs_f64()
        );
        println!("slow_readers: their fates: {counts:?}");
        if !dropped_after.is_empty() {
            println!(
                "slow_readers: dropped after p50 {:.1} s, max {:.1} s",
                percentile(&mut dropped_after, 50.0) / 1000.0,
                percentile(&mut dropped_after, 100.0) / 1000.0
            );
        }
        println!(
            "slow_readers: service peak RSS sampled {peak:.0} MB, VmHWM {:.0} MB, VmRSS after {:.0} MB; {cpu:.1} s of CPU meanwhile",
            memory_mb(pid, "VmHWM:"),
            memory_mb(pid, "VmRSS:")
        );
        println!(
            "slow_readers: GET /v1/persona meanwhile: {} requests ({persona_failures} not 200), p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
            persona.len(),
            percentile(&mut persona, 50.0),
            percentile(&mut persona, 99.0),
            percentile(&mut persona, 100.0)
        );
        if let (Some(first), Some(last)) = (slow.first(), slow.last()) {
            println!(
                "slow_readers: {} of them over 10 ms, due between {first:.2} s and {last:.2} s after the clients began to open",
                slow.len()
            );
        }
        for (when, (status, bytes, took)) in [("5 s into the storm", during), ("after it", after)] {
            println!(
                "slow_readers: a normal reader's whole read {when}: {status}, {bytes} bytes in {:.0} ms",
                took.as_secs_f64() * 1000.0
            );
        }
    });
}
