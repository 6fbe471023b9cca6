//! Where PostgreSQL's time goes during a benchmark's run, from `pg_stat_statements`: the
//! statements the service sent (each a round trip), per simulation, and the time the busiest
//! took. Only when the server preloads the extension:
//!
//!     SWITCHBOARD_TEST_PG_SETTINGS="shared_preload_libraries=pg_stat_statements" \
//!         SCALE_STORE=postgres cargo bench --bench run_at_scale

use postgres::{Client, NoTls};

/// The extension's counters on the database at `url`, if the server loaded it.
pub struct PgStats {
    client: Client,
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
        Some(PgStats { client })
    }

    /// Prints the statements sent since `start`, per simulation, and the busiest by time.
    pub fn report(mut self, simulations: u64) {
        let per = simulations.max(1) as f64;
        let sql = "SELECT calls, total_exec_time, query FROM pg_stat_statements \
                   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                   AND toplevel ORDER BY total_exec_time DESC";
        let rows = match self.client.query(sql, &[]) {
            Ok(rows) => rows,
            Err(e) => return println!("run_at_scale: pg_stat_statements: {e}"),
        };
        let calls: i64 = rows.iter().map(|r| r.get::<_, i64>(0)).sum();
        let time: f64 = rows.iter().map(|r| r.get::<_, f64>(1)).sum();
        println!(
            "run_at_scale: PostgreSQL: {calls} statements ({:.1} a simulation), {:.1} s of statement time ({:.2} ms a simulation)",
            calls as f64 / per,
            time / 1000.0,
            time / per
        );
        for row in rows.iter().take(15) {
            let (calls, total, query): (i64, f64, String) = (row.get(0), row.get(1), row.get(2));
            let query: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
            println!(
                "run_at_scale:   {calls:>8} calls ({:>5.2}/sim) {:>9.1} ms ({:>4.1} %)  {}",
                calls as f64 / per,
                total,
                total * 100.0 / time.max(f64::MIN_POSITIVE),
                query.chars().take(150).collect::<String>()
            );
        }
    }
}
