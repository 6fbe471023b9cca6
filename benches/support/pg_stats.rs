//! Where PostgreSQL's time goes during a benchmark's run, from `pg_stat_statements`: the
//! statements the service sent, the round trips they took, per simulation, and the time the
//! busiest took; and, sampled from `pg_stat_activity` every 5 ms, the share of the service's
//! busy connections that were waiting for a lock. All three are counts, not times, so they do
//! not depend on how loaded the machine is. Only when the server preloads the extension:
//!
//!     SWITCHBOARD_TEST_PG_SETTINGS="shared_preload_libraries=pg_stat_statements" \
//!         SCALE_STORE=postgres cargo bench --bench run_at_scale

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::{Client, NoTls};

/// The extension's counters on the database at `url`, if the server loaded it.
pub struct PgStats {
    client: Client,
    sampler: Option<(Arc<AtomicBool>, JoinHandle<Waits>)>,
}

/// Samples of the service's connections while they ran a statement.
#[derive(Debug, Default)]
struct Waits {
    /// Connection-samples running a statement.
    active: u64,
    /// Of those, waiting for a lock (a row's or a transaction's: `wait_event_type = 'Lock'`).
    on_locks: u64,
}

impl PgStats {
    /// Starts counting from nothing, if the server preloads the extension.
    pub fn start(url: &str) -> Option<PgStats> {
        let loaded = std::env::var("SWITCHBOARD_TEST_PG_SETTINGS").is_ok_and(|s| s.contains("pg_stat_statements"));
        if !loaded {
            return None;
        }
        let mut client = Client::connect(url, NoTls).ok()?;
        client.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements").ok()?;
        client.batch_execute("SELECT pg_stat_statements_reset()").ok()?;
        let sampler = Client::connect(url, NoTls).ok().map(|client| {
            let stop = Arc::new(AtomicBool::new(false));
            let stopping = stop.clone();
            (stop, std::thread::spawn(move || sample(client, &stopping)))
        });
        Some(PgStats { client, sampler })
    }

    /// Prints the statements the service sent since `start` (not this counter's own), per
    /// simulation, the busiest by time and by count, and the share of lock waits.
    pub fn report(mut self, simulations: u64) {
        let waits = self.sampler.take().map(|(stop, sampler)| {
            stop.store(true, Ordering::Relaxed);
            sampler.join().unwrap_or_default()
        });
        let per = simulations.max(1) as f64;
        let sql = "SELECT calls, total_exec_time, query FROM pg_stat_statements \
                   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                   AND toplevel AND query NOT LIKE '%pg_stat_%' ORDER BY total_exec_time DESC";
        let rows = match self.client.query(sql, &[]) {
            Ok(rows) => rows,
            Err(e) => return println!("run_at_scale: pg_stat_statements: {e}"),
        };
        let calls: i64 = rows.iter().map(|r| r.get::<_, i64>(0)).sum();
        let time: f64 = rows.iter().map(|r| r.get::<_, f64>(1)).sum();
        // A `SET LOCAL` goes in one message with the `BEGIN` before it: one round trip, two
        // statements. Every other statement is a message and its answer of its own.
        let riding: i64 =
            rows.iter().filter(|r| r.get::<_, String>(2).starts_with("SET LOCAL")).map(|r| r.get::<_, i64>(0)).sum();
        println!(
            "run_at_scale: PostgreSQL: {calls} statements ({:.1} a simulation) in {} round trips ({:.1} a simulation), \
             {:.1} s of statement time ({:.2} ms a simulation)",
            calls as f64 / per,
            calls - riding,
            (calls - riding) as f64 / per,
            time / 1000.0,
            time / per
        );
        if let Some(waits) = waits {
            println!(
                "run_at_scale: PostgreSQL: waiting for a lock in {:.1} % of {} samples of the service's busy connections",
                waits.on_locks as f64 * 100.0 / waits.active.max(1) as f64,
                waits.active
            );
        }
        let line = |(calls, total, query): (i64, f64, String)| {
            let query: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
            println!(
                "run_at_scale:   {calls:>8} calls ({:>5.2}/sim) {:>9.1} ms ({:>4.1} %)  {}",
                calls as f64 / per,
                total,
                total * 100.0 / time.max(f64::MIN_POSITIVE),
                query.chars().take(150).collect::<String>()
            );
        };
        let all: Vec<(i64, f64, String)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
        println!("run_at_scale: PostgreSQL: the busiest statements by time");
        all.iter().take(15).cloned().for_each(line);
        let mut by_calls = all;
        by_calls.sort_by_key(|(calls, _, _)| std::cmp::Reverse(*calls));
        println!("run_at_scale: PostgreSQL: the most frequent (0.05 a simulation or more)");
        by_calls.into_iter().take_while(|(calls, _, _)| *calls as f64 / per >= 0.05).for_each(line);
    }
}

/// Samples the other connections to this database every 5 ms until `stop`.
fn sample(mut client: Client, stop: &AtomicBool) -> Waits {
    let sql = "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity \
               WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' \
               AND query NOT LIKE '%pg_stat_%'";
    let mut waits = Waits::default();
    while !stop.load(Ordering::Relaxed) {
        if let Ok(row) = client.query_one(sql, &[]) {
            waits.active += row.get::<_, i64>(0) as u64;
            waits.on_locks += row.get::<_, i64>(1) as u64;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    waits
}
