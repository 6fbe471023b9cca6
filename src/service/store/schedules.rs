//! The slots scheduled plans have run: one row per plan and slot, claimed in the transaction
//! that starts the slot's job, so a slot starts one job however many replicas see it due.

use super::db::{Conn, Tx};
use super::{Kind, StoreResult};
use crate::args;

/// Claims `slot_ms` of `plan_id` for `job_id`; false when it was claimed already.
pub fn claim(tx: &Tx, plan_id: &str, slot_ms: i64, job_id: Option<&str>, at: &str) -> StoreResult<bool> {
    let claimed = tx.execute(
        "INSERT INTO schedule_runs (plan_id, slot_ms, job_id, claimed_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (plan_id, slot_ms) DO NOTHING",
        args![plan_id, slot_ms, job_id, at],
    )?;
    Ok(claimed > 0)
}

/// Records the job a claimed slot started.
pub fn record_job(tx: &Tx, plan_id: &str, slot_ms: i64, job_id: &str) -> StoreResult<()> {
    tx.execute(
        "UPDATE schedule_runs SET job_id = ?3 WHERE plan_id = ?1 AND slot_ms = ?2",
        args![plan_id, slot_ms, job_id],
    )?;
    Ok(())
}

/// How many runs the plan's schedule has started, and the latest slot it claimed (unix ms).
pub fn runs(conn: &Conn, plan_id: &str) -> StoreResult<(u64, Option<i64>)> {
    let row = conn.query_row(
        "SELECT CAST(count(job_id) AS BIGINT), max(slot_ms) FROM schedule_runs WHERE plan_id = ?1",
        args![plan_id],
        |r| Ok((r.take::<i64>(0)?, r.take::<Option<i64>>(1)?)),
    )?;
    Ok(row.map_or((0, None), |(count, last)| (count.max(0) as u64, last)))
}

/// Forgets the plan's runs: its schedule changed, and the new one counts from nothing.
pub fn forget(tx: &Tx, plan_id: &str) -> StoreResult<()> {
    tx.execute("DELETE FROM schedule_runs WHERE plan_id = ?1", args![plan_id])?;
    Ok(())
}

/// Live plans with a next run, and when (`nextRunAt` as stored).
pub fn pending(conn: &Conn) -> StoreResult<Vec<(String, String)>> {
    let next = conn.dialect().member("body", "$.nextRunAt")?;
    conn.query(
        &format!("SELECT id, {next} FROM docs WHERE kind = ?1 AND deleted_at IS NULL AND {next} IS NOT NULL"),
        args![Kind::RunPlan.as_str()],
        |r| Ok((r.take(0)?, r.take(1)?)),
    )
}
