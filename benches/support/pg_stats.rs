//! Where PostgreSQL's time goes during a benchmark's run, from `pg_stat_statements`: the
//! statements the service sent, the round trips they took, per simulation, and the time the
//! busiest took; sampled from `pg_stat_activity` every 5 ms, what the service's connections
//! were doing (running a statement — on the CPU or waiting, and on what —, idle inside a
//! transaction, idle) and how many simulations were in flight; and the CPU the cluster's
//! processes used (from `/proc`, the postmaster's children, the ended ones included). Only
//! when the server preloads the extension:
//!
//!     SWITCHBOARD_TEST_PG_SETTINGS="shared_preload_libraries=pg_stat_statements" \
//!         SCALE_STORE=postgres cargo bench --bench run_at_scale

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::{Client, NoTls};

#[path = "pg_replicas.rs"]
mod pg_replicas;

/// The extension's counters on the database at `url`, if the server loaded it.
pub struct PgStats {
    client: Client,
    /// The cluster's postmaster, and the CPU seconds its processes had used at the start.
    cluster: Option<(u32, f64)>,
    sampler: Option<(Arc<AtomicBool>, JoinHandle<Waits>)>,
    /// The service's backends at the start, with the CPU each had used (`pg_replicas`).
    backends: pg_replicas::BackendCpu,
    /// The database's transactions (committed and rolled back) at the start.
    transactions: Option<i64>,
}

/// Samples of the service's connections (every 5 ms), summed over the samples.
#[derive(Debug, Default)]
struct Waits {
    /// How many samples were taken.
    samples: u64,
    /// Connection-samples running a statement.
    active: u64,
    /// Of those, waiting for a lock (a row's or a transaction's: `wait_event_type = 'Lock'`).
    on_locks: u64,
    /// Of the lock waits, on a row another transaction is writing (`transactionid`, `tuple`).
    on_rows: u64,
    /// Of the lock waits, on an advisory lock (the picks', the publisher's).
    on_advisory: u64,
    /// Of those, waiting on the disk or the WAL (`IO`) or on a server-internal lock (`LWLock`).
    on_io: u64,
    /// Of those, waiting for nothing: on the CPU (or ready for it).
    on_cpu: u64,
    /// Connection-samples inside a transaction, waiting for the service's next statement.
    idle_in_transaction: u64,
    /// Connection-samples idle (in the pool).
    idle: u64,
    /// Simulations QUEUED or PROCESSING, summed over the samples.
    in_flight: u64,
    /// Lock waits by what waited and on whom: the wait event, the relation (or lock type), the
    /// waiting statement and the blocker's (its current or last statement, from
    /// `pg_blocking_pids`), each clipped.
    blocked: HashMap<[String; 4], u64>,
    /// What each replica's connections were doing (`pg_replicas`).
    by_replica: pg_replicas::Activity,
    /// The sampler's own statements, each a transaction.
    own_statements: u64,
}

/// A connection to `url` with `pg_stat_statements`' counters reset, if the server preloads the
/// extension (`SWITCHBOARD_TEST_PG_SETTINGS`); `None` otherwise.
pub fn reset_counters(url: &str) -> Option<Client> {
    let loaded = std::env::var("SWITCHBOARD_TEST_PG_SETTINGS").is_ok_and(|s| s.contains("pg_stat_statements"));
    if !loaded {
        return None;
    }
    let mut client = Client::connect(url, NoTls).ok()?;
    client.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements").ok()?;
    client.batch_execute("SELECT pg_stat_statements_reset()").ok()?;
    Some(client)
}

impl PgStats {
    /// Starts counting from nothing, if the server preloads the extension.
    pub fn start(url: &str) -> Option<PgStats> {
        let mut client = reset_counters(url)?;
        let backend: i32 = client.query_one("SELECT pg_backend_pid()", &[]).ok()?.get(0);
        let cluster = stat_fields(backend as u32).and_then(|f| f.get(1)?.parse().ok()).map(|pm| (pm, cluster_cpu(pm)));
        let backends = pg_replicas::backends(&mut client, backend);
        let transactions = transactions(&mut client);
        let sampler = Client::connect(url, NoTls).ok().map(|client| {
            let stop = Arc::new(AtomicBool::new(false));
            let stopping = stop.clone();
            (stop, std::thread::spawn(move || sample(client, backend, &stopping)))
        });
        Some(PgStats { client, cluster, sampler, backends, transactions })
    }

    /// Prints the statements the service sent since `start` (not this counter's own), per
    /// simulation, the busiest by time and by count, and the share of lock waits.
    pub fn report(mut self, simulations: u64) {
        let waits = self.sampler.take().map(|(stop, sampler)| {
            stop.store(true, Ordering::Relaxed);
            sampler.join().unwrap_or_default()
        });
        let per = simulations.max(1) as f64;
        if let Some((postmaster, before)) = self.cluster {
            let used = cluster_cpu(postmaster) - before;
            println!(
                "run_at_scale: PostgreSQL's processes used {used:.1} s of CPU ({:.2} ms a simulation)",
                used * 1000.0 / per
            );
        }
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
            waits.report();
            let counter = self.client.query_one("SELECT pg_backend_pid()", &[]).map_or(0, |r| r.get(0));
            let after = pg_replicas::backends(&mut self.client, counter);
            pg_replicas::report(&self.backends, &after, &waits.by_replica, waits.samples, per);
            // Every statement outside a transaction block is a transaction, and so is the
            // pool's check of a connection at checkout (an empty query, which
            // `pg_stat_statements` does not see): the difference between two builds' counts.
            // A backend reports its counts up to a second after it goes idle.
            std::thread::sleep(Duration::from_millis(1500));
            if let (Some(before), Some(after)) = (self.transactions, transactions(&mut self.client)) {
                let service = after - before - waits.own_statements as i64;
                println!(
                    "run_at_scale: PostgreSQL: {service} transactions ({:.1} a simulation; the benchmark's own {} apart), \
                     the pool's checks at checkout among them",
                    service as f64 / per,
                    waits.own_statements
                );
            }
            let own = "SELECT CAST(coalesce(sum(calls), 0) AS BIGINT), coalesce(sum(total_exec_time), 0) \
                       FROM pg_stat_statements WHERE query LIKE '%FROM pg_stat_activity WHERE%'";
            match self.client.query_one(own, &[]) {
                Ok(row) => println!(
                    "run_at_scale: PostgreSQL: the sampler's own statement: {} calls, {:.1} s (in the CPU above)",
                    row.get::<_, i64>(0),
                    row.get::<_, f64>(1) / 1000.0
                ),
                Err(e) => println!("run_at_scale: PostgreSQL: the sampler's own statement: {e}"),
            }
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
        // With `pg_stat_statements.track=all`: the statements run inside functions (`sb_apply`,
        // the triggers), each timed apart from the statement that called it.
        let nested = "SELECT calls, total_exec_time, query FROM pg_stat_statements \
                      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                      AND NOT toplevel ORDER BY total_exec_time DESC LIMIT 40";
        if let Ok(rows) = self
            .client
            .query(nested, &[])
            .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect::<Vec<_>>())
            && !rows.is_empty()
        {
            println!(
                "run_at_scale: PostgreSQL: inside functions and triggers, the busiest by time (share of top-level time)"
            );
            rows.into_iter().for_each(line);
        }
        self.report_planning();
        let mut by_calls = all;
        by_calls.sort_by_key(|(calls, _, _)| std::cmp::Reverse(*calls));
        println!("run_at_scale: PostgreSQL: the most frequent (0.05 a simulation or more)");
        by_calls.into_iter().take_while(|(calls, _, _)| *calls as f64 / per >= 0.05).for_each(line);
    }

    /// With `pg_stat_statements.track_planning=on`: the statements planned most, by planning
    /// time (a function's statement planned at every call has no generic plan kept).
    fn report_planning(&mut self) {
        let sql = "SELECT plans, total_plan_time, calls, query FROM pg_stat_statements \
                   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                   AND plans > 0 AND query NOT LIKE '%pg_stat_%' ORDER BY total_plan_time DESC LIMIT 15";
        let Ok(rows) = self.client.query(sql, &[]) else { return };
        if rows.is_empty() {
            return;
        }
        println!("run_at_scale: PostgreSQL: planning, the longest by time");
        for row in rows {
            let query: String = row.get::<_, String>(3).split_whitespace().collect::<Vec<_>>().join(" ");
            println!(
                "run_at_scale:   {:>8} plans of {:>8} calls {:>9.1} ms  {}",
                row.get::<_, i64>(0),
                row.get::<_, i64>(2),
                row.get::<_, f64>(1),
                query.chars().take(120).collect::<String>()
            );
        }
    }
}

impl Waits {
    fn report(&self) {
        let busy = self.active.max(1) as f64;
        let each = self.samples.max(1) as f64;
        println!(
            "run_at_scale: PostgreSQL: waiting for a lock in {:.1} % of {} samples of the service's busy connections \
             ({:.1} % on a row another transaction writes, {:.1} % on an advisory lock)",
            self.on_locks as f64 * 100.0 / busy,
            self.active,
            self.on_rows as f64 * 100.0 / busy,
            self.on_advisory as f64 * 100.0 / busy
        );
        println!(
            "run_at_scale: PostgreSQL: the service's connections, on average over {} samples: {:.2} running a statement \
             ({:.2} on the CPU, {:.2} on IO/LWLock, {:.2} on a lock), {:.2} idle in a transaction, {:.2} idle; \
             {:.1} simulations in flight",
            self.samples,
            self.active as f64 / each,
            self.on_cpu as f64 / each,
            self.on_io as f64 / each,
            self.on_locks as f64 / each,
            self.idle_in_transaction as f64 / each,
            self.idle as f64 / each,
            self.in_flight as f64 / each,
        );
        if self.blocked.is_empty() {
            return;
        }
        println!("run_at_scale: PostgreSQL: the lock waits by what waited (share of busy samples)");
        let mut blocked: Vec<_> = self.blocked.iter().collect();
        blocked.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for ([event, on, waiter, blocker], n) in blocked.into_iter().take(12) {
            println!(
                "run_at_scale:   {n:>6} ({:>4.1} %) {event} on {on}: [{waiter}] behind [{blocker}]",
                *n as f64 * 100.0 / busy
            );
        }
    }
}

/// The transactions committed and rolled back in this database so far, as its backends have
/// reported them.
fn transactions(client: &mut Client) -> Option<i64> {
    let sql = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()";
    client.query_one(sql, &[]).ok().map(|r| r.get(0))
}

/// The fields of `/proc/<pid>/stat` after the command's closing parenthesis (the state first).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat.rsplit_once(')')?.1.split_whitespace().map(str::to_owned).collect())
}

/// CPU seconds used by the cluster under `postmaster`: its own with its ended children's
/// (utime, stime, cutime, cstime), and each live child's.
fn cluster_cpu(postmaster: u32) -> f64 {
    let ticks = |fields: &[String], range: std::ops::Range<usize>| -> f64 {
        range.filter_map(|i| fields.get(i)?.parse::<f64>().ok()).sum::<f64>() / 100.0
    };
    let own = stat_fields(postmaster).map_or(0.0, |f| ticks(&f, 11..15));
    let children: f64 = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(stat_fields)
        .filter(|f| f.get(1).is_some_and(|ppid| ppid == &postmaster.to_string()))
        .map(|f| ticks(&f, 11..13))
        .sum();
    own + children
}

/// Samples the service's connections to this database (not `counter`'s, nor its own) every
/// 5 ms until `stop`.
fn sample(mut client: Client, counter: i32, stop: &AtomicBool) -> Waits {
    let sql = "SELECT count(*) FILTER (WHERE state = 'active'), \
               count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock'), \
               count(*) FILTER (WHERE state = 'active' AND wait_event_type IN ('IO', 'LWLock')), \
               count(*) FILTER (WHERE state = 'active' AND wait_event IN ('transactionid', 'tuple')), \
               count(*) FILTER (WHERE state = 'active' AND wait_event = 'advisory'), \
               count(*) FILTER (WHERE state = 'active' AND wait_event_type IS NULL), \
               count(*) FILTER (WHERE state LIKE 'idle in transaction%'), \
               count(*) FILTER (WHERE state = 'idle'), \
               (SELECT count(*) FROM docs WHERE kind = 'simulation_job' AND status IN ('QUEUED', 'PROCESSING')) \
               FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() \
               AND pid <> $1 AND backend_type = 'client backend' AND query NOT LIKE '%pg_stat_%'";
    let mut waits = Waits::default();
    while !stop.load(Ordering::Relaxed) {
        if let Ok(row) = client.query_one(sql, &[&counter]) {
            let at = |i: usize| row.get::<_, i64>(i) as u64;
            waits.samples += 1;
            waits.active += at(0);
            waits.on_locks += at(1);
            waits.on_io += at(2);
            waits.on_rows += at(3);
            waits.on_advisory += at(4);
            waits.on_cpu += at(5);
            waits.idle_in_transaction += at(6);
            waits.idle += at(7);
            waits.in_flight += at(8);
            waits.own_statements += 2;
            if at(1) > 0 {
                blocked_by(&mut client, counter, &mut waits.blocked);
                waits.own_statements += 1;
            }
            pg_replicas::sample(&mut client, counter, &mut waits.by_replica);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    waits
}

/// Adds each connection waiting for a lock now to `blocked`: the lock it waits for (`pg_locks`,
/// not granted) and the statement of the first connection holding it up (`pg_blocking_pids`).
fn blocked_by(client: &mut Client, counter: i32, blocked: &mut HashMap<[String; 4], u64>) {
    let sql = "SELECT a.wait_event, coalesce(l.relation::regclass::text, l.locktype, '?'), \
               left(regexp_replace(a.query, '\\s+', ' ', 'g'), 60), \
               coalesce((SELECT left(regexp_replace(b.query, '\\s+', ' ', 'g'), 60) FROM pg_stat_activity b \
                         WHERE b.pid = (pg_blocking_pids(a.pid))[1]), '?') \
               FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted \
               WHERE a.datname = current_database() AND a.state = 'active' AND a.wait_event_type = 'Lock' \
               AND a.pid <> pg_backend_pid() AND a.pid <> $1";
    let Ok(rows) = client.query(sql, &[&counter]) else { return };
    for row in rows {
        let text = |i: usize| row.get::<_, Option<String>>(i).unwrap_or_default();
        *blocked.entry([text(0), text(1), text(2), text(3)]).or_default() += 1;
    }
}
