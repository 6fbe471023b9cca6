//! PostgreSQL's side of each replica: the service names its connections
//! `switchboard:<process id>` (`application_name`), so the CPU the database's backends used
//! and what they were doing can be told apart by the replica they serve. A second replica's
//! cost to the database — its own polling, its own reads of what the first has read — shows
//! here, where `pg_stat_statements` only sums over every connection.
//!
//! Included by `pg_stats.rs`.

use std::collections::{BTreeMap, HashMap};

use postgres::Client;

/// Each live service backend's CPU seconds so far, by its process id, with its name.
pub type BackendCpu = HashMap<i32, (String, f64)>;

/// Per replica (by `application_name`): connection-samples running a statement, and inside a
/// transaction waiting for the service.
#[derive(Debug, Default)]
pub struct Activity(BTreeMap<String, (u64, u64)>);

/// The service's backends on this database now (not `counter`'s, nor this connection's), with
/// the CPU each has used.
pub fn backends(client: &mut Client, counter: i32) -> BackendCpu {
    let sql = "SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() \
               AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND pid <> $1";
    let Ok(rows) = client.query(sql, &[&counter]) else { return BackendCpu::new() };
    rows.iter()
        .map(|r| {
            let (pid, name): (i32, String) = (r.get(0), r.get(1));
            (pid, (name, cpu_seconds(pid as u32)))
        })
        .collect()
}

/// Adds one sample of what each replica's connections are doing.
pub fn sample(client: &mut Client, counter: i32, activity: &mut Activity) {
    let sql = "SELECT application_name, count(*) FILTER (WHERE state = 'active'), \
               count(*) FILTER (WHERE state LIKE 'idle in transaction%') \
               FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() \
               AND pid <> $1 AND backend_type = 'client backend' AND query NOT LIKE '%pg_stat_%' GROUP BY 1";
    let Ok(rows) = client.query(sql, &[&counter]) else { return };
    for row in rows {
        let entry = activity.0.entry(row.get(0)).or_default();
        entry.0 += row.get::<_, i64>(1) as u64;
        entry.1 += row.get::<_, i64>(2) as u64;
    }
}

/// Prints the CPU the service's backends used between `before` and `after`, by replica (a
/// backend that ended meanwhile is not counted: the pools keep theirs for the run), and each
/// replica's average busy and idle-in-transaction connections over `samples`.
pub fn report(before: &BackendCpu, after: &BackendCpu, activity: &Activity, samples: u64, simulations: f64) {
    let mut cpu: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    // Unnamed: the benchmark's own connections.
    for (pid, (name, now)) in after.iter().filter(|(_, (name, _))| !name.is_empty()) {
        let start = before.get(pid).map_or(0.0, |(_, s)| *s);
        let entry = cpu.entry(name.as_str()).or_default();
        entry.0 += now - start;
        entry.1 += 1;
    }
    let each = samples.max(1) as f64;
    for (name, (seconds, backends)) in cpu {
        let (active, in_transaction) = activity.0.get(name).copied().unwrap_or_default();
        println!(
            "run_at_scale: PostgreSQL: backends of [{name}]: {backends} live, {seconds:.1} s of CPU ({:.2} ms a \
             simulation); {:.2} running a statement, {:.2} idle in a transaction on average",
            seconds * 1000.0 / simulations,
            active as f64 / each,
            in_transaction as f64 / each
        );
    }
}

/// A process's CPU seconds (user and system), from `/proc`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}
