//! What a run's creation sent PostgreSQL, from `pg_stat_statements` (only when the server
//! preloads it): the counters are reset just before the run is asked for and read as soon as
//! it is created, before `pg_stats` resets them again for the run itself. The other replicas'
//! and the engine's own rounds during those seconds are counted too: few, and named apart.
//!
//! Include it with `#[path = "support/pg_creation.rs"] mod pg_creation;` beside `pg_stats`.

use postgres::{Client, NoTls};

/// Counting one run's creation on the database at `url` (no connection is held meanwhile: a
/// synchronous client must not be dropped on the async threads, as a failed run would).
pub struct Creation {
    url: String,
}

impl Creation {
    /// Starts counting from nothing, if the server preloads the extension. Call it off the
    /// async threads (the synchronous client runs a runtime of its own), as `report`.
    pub fn start(url: &str) -> Option<Creation> {
        // Dropped here, on this thread: `report` connects again.
        drop(super::pg_stats::reset_counters(url)?);
        Some(Creation { url: url.to_owned() })
    }

    /// Prints the statements sent since `start`: how many, their round trips and time, per
    /// simulation of the `simulations` created, and the busiest (inside functions and
    /// triggers too, with `pg_stat_statements.track=all`).
    pub fn report(self, simulations: u64) {
        let mut client = match Client::connect(&self.url, NoTls) {
            Ok(client) => client,
            Err(e) => return println!("run_at_scale: creation: {e}"),
        };
        let per = simulations.max(1) as f64;
        let sql = "SELECT calls, total_exec_time, query, toplevel FROM pg_stat_statements \
                   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                   AND query NOT LIKE '%pg_stat_%' ORDER BY total_exec_time DESC";
        let rows: Vec<(i64, f64, String, bool)> = match client.query(sql, &[]) {
            Ok(rows) => rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect(),
            Err(e) => return println!("run_at_scale: creation: pg_stat_statements: {e}"),
        };
        let top: Vec<&(i64, f64, String, bool)> = rows.iter().filter(|r| r.3).collect();
        let calls: i64 = top.iter().map(|r| r.0).sum();
        let time: f64 = top.iter().map(|r| r.1).sum();
        // A `SET LOCAL` rides in the message of the `BEGIN` before it (as `pg_stats` counts).
        let riding: i64 = top.iter().filter(|r| r.2.starts_with("SET LOCAL")).map(|r| r.0).sum();
        println!(
            "run_at_scale: creation: PostgreSQL: {calls} statements ({:.2} a simulation) in {} round trips \
             ({:.2} a simulation), {:.2} s of statement time",
            calls as f64 / per,
            calls - riding,
            (calls - riding) as f64 / per,
            time / 1000.0
        );
        for (calls, total, query, toplevel) in rows.iter().take(12) {
            let query: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
            println!(
                "run_at_scale: creation:   {calls:>8} calls {total:>9.1} ms {}  {}",
                if *toplevel { "top   " } else { "nested" },
                query.chars().take(140).collect::<String>()
            );
        }
    }
}
