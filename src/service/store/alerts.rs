//! What the alert engine keeps: the scored calls a window holds, one claim row per alert and
//! decided window (taken in the transaction that acts on it, so a window is decided once
//! however many replicas see it ready), each group's value per window, and each group's run.

use super::db::{Conn, Dialect, Tx};
use super::{Kind, StoreResult};
use crate::args;

/// One scored call as a window reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub call_id: String,
    pub agent_id: Option<String>,
    /// The call's start (RFC 3339 as stored).
    pub started_at: String,
    /// When the call arrived (RFC 3339 as stored).
    pub arrived_at: Option<String>,
    pub value: f64,
}

/// The SUCCESS values of metric `definition_id` on live calls started from `from` up to `to`
/// (RFC 3339, compared as text: the caller widens the range and filters on parsed times), in the
/// order they were written (a call scored twice appears twice; the later value counts). The
/// window's calls are found by their start (`docs_calls_started`, spelled out so that every
/// plan can use it), not among every call the store keeps.
pub fn scored(conn: &Conn, definition_id: &str, from: &str, to: &str) -> StoreResult<Vec<Scored>> {
    conn.query(&scored_sql(conn)?, args![definition_id, from, to], |r| {
        Ok(Scored {
            call_id: r.take(0)?,
            agent_id: r.take(1)?,
            started_at: r.take(2)?,
            arrived_at: r.take(3)?,
            value: r.take(4)?,
        })
    })
}

/// `scored`'s statement in the connection's dialect. SQLite is told the index: without
/// statistics it prefers the kinds' index, whose equalities look narrower than a range.
pub(super) fn scored_sql(conn: &Conn) -> StoreResult<String> {
    let dialect = conn.dialect();
    let agent = dialect.member("c.body", "$.agentId")?;
    let arrived = dialect.member("c.body", "$.createdAt")?;
    let by_start = match dialect {
        Dialect::Sqlite => " INDEXED BY docs_calls_started",
        Dialect::Postgres => "",
    };
    Ok(format!(
        "SELECT c.id, {agent}, c.created_at, {arrived}, mv.value FROM docs AS c{by_start} \
         JOIN metric_values AS mv ON mv.call_id = c.id AND mv.definition_id = ?1 \
         WHERE c.kind = '{call}' AND c.deleted_at IS NULL AND c.created_at >= ?2 AND c.created_at < ?3 \
         AND mv.capture_status = 'SUCCESS' AND mv.value IS NOT NULL ORDER BY mv.seq",
        call = Kind::Call.as_str()
    ))
}

/// Claims `window_ms` of `alert_id`; false when it was decided already.
pub fn claim(tx: &Tx, alert_id: &str, window_ms: i64, at: &str) -> StoreResult<bool> {
    let claimed = tx.execute(
        "INSERT INTO alert_windows (alert_id, window_ms, decided_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (alert_id, window_ms) DO NOTHING",
        args![alert_id, window_ms, at],
    )?;
    Ok(claimed > 0)
}

/// The alert's latest decided window (unix ms).
pub fn last_decided(conn: &Conn, alert_id: &str) -> StoreResult<Option<i64>> {
    let row = conn.query_row("SELECT max(window_ms) FROM alert_windows WHERE alert_id = ?1", args![alert_id], |r| {
        r.take::<Option<i64>>(0)
    })?;
    Ok(row.flatten())
}

/// Keeps a group's value in a decided window (`None`: too few samples to count).
pub fn put_value(
    tx: &Tx,
    alert_id: &str,
    group: &str,
    window_ms: i64,
    value: Option<f64>,
    samples: usize,
) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO alert_values (alert_id, group_key, window_ms, value, samples) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (alert_id, group_key, window_ms) DO NOTHING",
        args![alert_id, group, window_ms, value, samples],
    )?;
    Ok(())
}

/// A group's latest `limit` window values, oldest first: `(window ms, value, samples)`.
pub fn values(conn: &Conn, alert_id: &str, group: &str, limit: usize) -> StoreResult<Vec<(i64, Option<f64>, i64)>> {
    let mut rows = conn.query(
        "SELECT window_ms, value, samples FROM alert_values WHERE alert_id = ?1 AND group_key = ?2 \
         ORDER BY window_ms DESC LIMIT ?3",
        args![alert_id, group, limit],
        |r| Ok((r.take(0)?, r.take(1)?, r.take(2)?)),
    )?;
    rows.reverse();
    Ok(rows)
}

/// A group's run as stored (JSON), if it has one.
pub fn run(conn: &Conn, alert_id: &str, group: &str) -> StoreResult<Option<String>> {
    conn.value("SELECT body FROM alert_runs WHERE alert_id = ?1 AND group_key = ?2", args![alert_id, group])
}

/// Every group's run of an alert: `(group, body)`.
pub fn runs(conn: &Conn, alert_id: &str) -> StoreResult<Vec<(String, String)>> {
    conn.query("SELECT group_key, body FROM alert_runs WHERE alert_id = ?1 ORDER BY group_key", args![alert_id], |r| {
        Ok((r.take(0)?, r.take(1)?))
    })
}

/// Keeps a group's run.
pub fn put_run(tx: &Tx, alert_id: &str, group: &str, body: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO alert_runs (alert_id, group_key, body) VALUES (?1, ?2, ?3) \
         ON CONFLICT (alert_id, group_key) DO UPDATE SET body = excluded.body",
        args![alert_id, group, body],
    )?;
    Ok(())
}

/// A group's run claimed for this transaction (an empty one made when it has none), so that
/// writes deciding on one group take turns on PostgreSQL; the run as stored.
pub fn claim_run(tx: &Tx, alert_id: &str, group: &str) -> StoreResult<String> {
    tx.execute(
        "INSERT INTO alert_runs (alert_id, group_key, body) VALUES (?1, ?2, '{}') \
         ON CONFLICT (alert_id, group_key) DO UPDATE SET body = alert_runs.body",
        args![alert_id, group],
    )?;
    Ok(run(tx, alert_id, group)?.unwrap_or_else(|| "{}".to_owned()))
}
