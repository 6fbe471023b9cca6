//! A large run through the interface (issue 14): `switchboard serve --sim-speed max` as its own
//! process, a run of N simulations started over HTTP and watched by its summary, to COMPLETED
//! with its metrics. Measured: the run's time (polled once a second, and to the millisecond
//! by the job's own `createdAt` → `endedAt`), the service's peak resident memory (its own
//! `VmHWM`), `GET /v1/persona` latency while the run goes on (one request every 50 ms), and
//! the whole-job read (streamed) and its 304 once the run has ended.
//!
//!     cargo bench --bench run_at_scale                       # 10,000, then 100,000
//!     SCALE_SIMULATIONS=10000 cargo bench --bench run_at_scale
//!     SCALE_CONCURRENCY=64 SCALE_SIMULATIONS=10000 cargo bench --bench run_at_scale
//!     SCALE_STORE=postgres SCALE_REPLICAS=2 SCALE_SIMULATIONS=10000 cargo bench --bench run_at_scale
//!     SWITCHBOARD_TEST_PG_SETTINGS="shared_preload_libraries=pg_stat_statements" SCALE_STORE=postgres …
//!         (and the statements a simulation sends, from `pg_stat_statements`)
//!     SCALE_STORE=postgres SCALE_REPLICAS=2 SCALE_REPLICA_CPU=0.2 SCALE_SIMULATIONS=3000 …
//!         (each replica capped at a fifth of a core in a CPU cgroup of its own, PostgreSQL
//!         not: the database with cores of its own, simulated on a small machine)
//!     SCALE_SIDE_BY_SIDE=6 SCALE_SIMULATIONS=10000 cargo bench --bench run_at_scale
//!         (six rounds of SQLite, one replica and two, in every order; the ratios within
//!         each round, their spread and middle: `support/side_by_side.rs`. `SCALE_STORE` does
//!         not apply; 10,000 simulations unless `SCALE_SIMULATIONS` says)
//!
//! With `SCALE_STORE=postgres` the service keeps its data in PostgreSQL (a server of the
//! benchmark's own, `initdb` in a temporary directory, PostgreSQL's default settings), and
//! `SCALE_REPLICAS` replicas of it share that database; the run is started on the first, and
//! each replica's part is told by the CPU time it used. Replicas that share this machine each
//! take their part of its cores, `serve --threads` cores / replicas (at least one), as
//! `docs/deployment.md` has a deployment run them; `SCALE_REPLICA_THREADS=N` gives each N
//! instead (`0`: none given, one a core each; so too for a `SCALE_SERVE_BIN` built before
//! `--threads`, which refuses the flag).
//!
//! The plan: one endpoint, every test case of the seeded flows but the voicemail one (ten),
//! N / 10 iterations each, four plan metrics plus the flows' automatic ones,
//! `maxConcurrentJobs` 16 (`SCALE_CONCURRENCY`). Only 127.0.0.1; each run is bounded by a
//! 30-minute deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

#[path = "support/pg_creation.rs"]
mod pg_creation;
#[path = "support/pg_stats.rs"]
mod pg_stats;
#[path = "support/scale.rs"]
mod scale;
#[path = "support/side_by_side.rs"]
mod side_by_side;

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use scale::{Serve, memory_mb, percentile, settled};
use side_by_side::Store;
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ClientConfig, Conditional};

const KEY: &str = "sk-run-at-scale-bench";

/// The PostgreSQL server the runs share (each its own database), when any run needs one.
struct Setup {
    postgres: Option<switchboard::service::store::test_server::TestServer>,
}

impl Setup {
    fn with_postgres(postgres: bool) -> Setup {
        let server = postgres.then(|| {
            switchboard::service::store::test_server::TestServer::start(
                switchboard::service::store::test_server::Durability::Default,
            )
            .unwrap()
        });
        Setup { postgres: server }
    }

    /// The replicas of `store` (one on SQLite), on a database of their own, and its URL.
    fn start(&self, store: Store) -> (Vec<Serve>, Option<String>) {
        let (database, replicas) = match store {
            Store::Sqlite => (None, 1),
            Store::Postgres { replicas } => {
                let server = self.postgres.as_ref().expect("a PostgreSQL server for a PostgreSQL run");
                (Some(server.fresh_database().unwrap()), replicas)
            }
        };
        let threads = replica_threads(replicas).map(|n| n.to_string());
        let start = |_| match &threads {
            Some(n) => Serve::start_with(KEY, database.as_deref(), &["--sim-speed", "max", "--threads", n]),
            None => Serve::start_on(KEY, database.as_deref()),
        };
        ((0..replicas).map(start).collect(), database)
    }

    /// Stops `replicas` and drops their database, if they had one: a series of runs keeps one
    /// run's data at a time.
    fn finish(&self, replicas: Vec<Serve>, database: Option<String>) {
        drop(replicas);
        if let (Some(server), Some(url)) = (&self.postgres, database) {
            server.drop_database(&url).unwrap_or_else(|e| panic!("dropping the run's database: {e}"));
        }
    }
}

/// The store of `SCALE_STORE` and `SCALE_REPLICAS`.
fn store_from_env() -> Store {
    if std::env::var("SCALE_STORE").is_ok_and(|s| s == "postgres") {
        Store::Postgres { replicas: replicas_from_env().unwrap_or(1).max(1) }
    } else {
        Store::Sqlite
    }
}

/// The threads each of `replicas` runs on (`serve --threads`): their part of this machine's
/// cores when there are several, or `SCALE_REPLICA_THREADS`; `None`, tokio's default.
fn replica_threads(replicas: usize) -> Option<usize> {
    let given = std::env::var("SCALE_REPLICA_THREADS").ok().map(|v| match v.parse::<usize>() {
        Ok(n) => n,
        Err(_) => panic!("SCALE_REPLICA_THREADS is a number of threads (0: tokio's default); not {v:?}"),
    });
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    match given {
        Some(0) => None,
        Some(n) => Some(n),
        None if replicas > 1 => Some((cores / replicas).max(1)),
        None => None,
    }
}

fn replicas_from_env() -> Option<usize> {
    std::env::var("SCALE_REPLICAS").ok().and_then(|v| v.parse().ok())
}

/// `SCALE_SIDE_BY_SIDE`: how many rounds, when set.
fn side_by_side_rounds() -> Option<usize> {
    let rounds = std::env::var("SCALE_SIDE_BY_SIDE").ok()?;
    match rounds.parse() {
        Ok(rounds) if rounds > 0 => Some(rounds),
        _ => panic!("SCALE_SIDE_BY_SIDE is a number of rounds, one or more (six balance the order); not {rounds:?}"),
    }
}

/// The job's span on the service's clock, from its creation to its end: to the millisecond,
/// where the poll for its end reads it once a second.
fn own_span(job: &RunPlanJob) -> Option<f64> {
    let created = job.created_at.as_ref()?.parse()?;
    let ended = job.ended_at.as_ref()?.parse()?;
    Some(ended.duration_since(created).as_secs_f64())
}

/// One run of `simulations` on `store`, reported; its time on the job's own clock, when the job
/// gave both ends of it.
async fn run(setup: &Setup, store: Store, simulations: u64) -> Option<f64> {
    let (replicas, database) = setup.start(store);
    let database_url = database.clone();
    let serve = &replicas[0];
    let pid = serve.child.id();
    let client = Client::new(&serve.url, ApiKey::new(KEY), ClientConfig::default()).unwrap();
    settled(&client).await;
    let before = memory_mb(pid, "VmRSS:");
    let plan = scale::plan(&client, simulations, &format!("Scale: {simulations} simulations")).await;

    // Persona reads while the run goes on, as another user of the service would make them.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let probe = {
        let (http, url) = (reqwest::Client::new(), format!("{}/v1/persona", serve.url));
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let started = Instant::now();
                let read = http.get(&url).bearer_auth(KEY).send().await.unwrap();
                assert_eq!(read.status(), 200);
                read.bytes().await.unwrap();
                samples.push(started.elapsed());
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            samples
        })
    };

    // The service's CPU from the run's start to its end: the seeding and the history apart.
    let cpu_before: Vec<f64> = replicas.iter().map(|r| scale::cpu_seconds(r.child.id())).collect();
    // The synchronous client runs a runtime of its own: on a thread of its own.
    let creation =
        database.clone().and_then(|url| std::thread::spawn(move || pg_creation::Creation::start(&url)).join().unwrap());
    let started = Instant::now();
    let run = client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let created = started.elapsed();
    if let Some(creation) = creation {
        let count = run.simulation_job_count;
        std::thread::spawn(move || creation.report(count)).join().unwrap();
    }
    // Counted from here: the run's creation apart.
    let stats = database.and_then(|url| std::thread::spawn(move || pg_stats::PgStats::start(&url)).join().unwrap());
    let id = run.simulation_run_plan_job_id;
    let deadline = started + Duration::from_secs(1800);
    let mut peak_rss: f64 = 0.0;
    let job = loop {
        peak_rss = peak_rss.max(memory_mb(pid, "VmRSS:"));
        let job = match client.get_run_plan_job_if_changed(id, true, None).await.unwrap() {
            Conditional::Changed { value, .. } => value,
            Conditional::Unchanged => unreachable!("no tag was sent"),
        };
        if job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
            break job;
        }
        assert!(Instant::now() < deadline, "not finished within 30 minutes");
        tokio::time::sleep(Duration::from_millis(1000)).await;
    };
    let elapsed = started.elapsed();
    let cpu_run: Vec<f64> =
        replicas.iter().zip(&cpu_before).map(|(r, before)| scale::cpu_seconds(r.child.id()) - before).collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut persona = probe.await.expect("the persona probe");
    let counts = job.counts.clone().unwrap_or_default();
    let completed = counts.by_status.get("COMPLETED").copied().unwrap_or(0);
    if let Some(stats) = stats {
        let total = counts.total;
        std::thread::spawn(move || stats.report(total)).join().unwrap();
    }

    // The whole job, streamed, then again with its tag.
    let http = reqwest::Client::new();
    let url = format!("{}/v1/simulation/plan/job/{id}", serve.url);
    let read_started = Instant::now();
    let response = http.get(&url).bearer_auth(KEY).send().await.unwrap();
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let mut bytes = 0usize;
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.try_next().await.unwrap() {
        bytes += chunk.len();
    }
    let whole = read_started.elapsed();
    let tagged_started = Instant::now();
    let tagged = http.get(&url).bearer_auth(KEY).header("if-none-match", &etag).send().await.unwrap();
    let unchanged = (tagged.status().as_u16(), tagged_started.elapsed());

    let capped =
        scale::cpu_cap::share().map(|share| format!(", each replica capped at {share} of a core")).unwrap_or_default();
    let threads = replica_threads(replicas.len()).map(|n| format!(", each on {n} thread(s)")).unwrap_or_default();
    println!("run_at_scale: on {store}{threads}{capped}");
    for (n, replica) in replicas.iter().enumerate() {
        let pid = replica.child.id();
        println!(
            "run_at_scale: replica {}: {:.1} s of CPU ({:.1} s during the run, {:.2} ms a simulation), VmHWM {:.0} MB",
            n + 1,
            scale::cpu_seconds(pid),
            cpu_run[n],
            cpu_run[n] * 1000.0 / counts.total.max(1) as f64,
            memory_mb(pid, "VmHWM:")
        );
    }
    println!(
        "run_at_scale: {completed} of {} simulations COMPLETED in {:.1} s ({:.0}/s; the run's creation {:.2} s){}",
        counts.total,
        elapsed.as_secs_f64(),
        completed as f64 / elapsed.as_secs_f64(),
        created.as_secs_f64(),
        own_span(&job).map(|s| format!("; by the job's own createdAt → endedAt {s:.2} s")).unwrap_or_default()
    );
    println!(
        "run_at_scale: service RSS {before:.0} MB before the run, peak sampled {peak_rss:.0} MB, VmHWM {:.0} MB (seeding included)",
        memory_mb(pid, "VmHWM:")
    );
    println!(
        "run_at_scale: GET /v1/persona during the run: {} requests, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        persona.len(),
        percentile(&mut persona, 50.0),
        percentile(&mut persona, 99.0),
        percentile(&mut persona, 100.0)
    );
    println!(
        "run_at_scale: whole job read {bytes} bytes in {:.0} ms; with its ETag: {} in {:.1} ms; VmHWM after {:.0} MB",
        whole.as_secs_f64() * 1000.0,
        unchanged.0,
        unchanged.1.as_secs_f64() * 1000.0,
        memory_mb(pid, "VmHWM:")
    );
    setup.finish(replicas, database_url);
    own_span(&job)
}

/// `rounds` rounds of SQLite, one replica and more side by side (`side_by_side`). Only
/// `SCALE_SIMULATIONS` (10,000 unset) and `SCALE_REPLICAS` (two or more; 2 unset) apply.
async fn run_side_by_side(rounds: usize, simulations: u64) {
    let replicas = replicas_from_env().unwrap_or(2);
    assert!(replicas >= 2, "SCALE_REPLICAS with SCALE_SIDE_BY_SIDE is the replicas set beside one: two or more");
    let setup = Setup::with_postgres(true);
    let mut measured = Vec::new();
    for round in 0..rounds {
        let mut times = side_by_side::Round::default();
        for role in side_by_side::order(round) {
            let seconds = run(&setup, role.store(replicas), simulations).await;
            times.set(role, seconds.expect("the job's own createdAt and endedAt: the poll's time is coarser"));
        }
        println!(
            "run_at_scale: side by side, round {}: SQLite {:.2} s, 1 replica {:.2} s, {replicas} replicas {:.2} s",
            round + 1,
            times.sqlite,
            times.one,
            times.more
        );
        measured.push(times);
    }
    println!("run_at_scale: side by side, {simulations} simulations: {}", side_by_side::summary(&measured, replicas));
}

fn main() {
    let sizes: Vec<u64> = match std::env::var("SCALE_SIMULATIONS").ok().and_then(|v| v.parse().ok()) {
        Some(n) => vec![n],
        None => vec![10_000, 100_000],
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    if let Some(rounds) = side_by_side_rounds() {
        // One size: `SCALE_SIMULATIONS`, or the first of the default ones (10,000).
        return runtime.block_on(run_side_by_side(rounds, sizes[0]));
    }
    let store = store_from_env();
    let setup = Setup::with_postgres(store != Store::Sqlite);
    runtime.block_on(async {
        for n in sizes {
            run(&setup, store, n).await;
        }
    });
}
