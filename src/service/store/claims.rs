//! A pick's claim: the oldest children of a parent in one status, moved to the next and leased
//! to the replica that picked them, in one statement on PostgreSQL (issue 33: a claim and one
//! rewrite a row were 1 + n round trips). Only the status changes in a claimed body, set in
//! place (`members::set`, `sb_set_members` in SQL), so both engines write the same bytes.

use super::db::{Dialect, Tx};
use super::{Kind, StoreError, StoreResult, members};
use crate::api::model::SimulationJobStatus;
use crate::args;
use crate::service::webhooks::status_events;

/// The live children of `parent_id` to move, oldest first, and where to: `from` to `to`,
/// leased to `owner` until `until_ms`.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    pub kind: Kind,
    pub parent_id: &'a str,
    pub from: &'a str,
    pub to: &'a str,
    pub owner: &'a str,
    pub until_ms: i64,
}

/// Claims up to `limit` children as `claim` says (rows another transaction holds are passed
/// over, not waited for) and answers their bodies as written, oldest first. A move that
/// announces an event (`status_events`) is refused: a claim writes none.
pub fn move_leased(tx: &Tx, claim: &Claim, limit: usize) -> StoreResult<Vec<String>> {
    refuse_events(claim)?;
    let status = serde_json::to_string(claim.to)?;
    match tx.dialect() {
        Dialect::Postgres => in_one(tx, claim, limit, &status),
        Dialect::Sqlite => row_by_row(tx, claim, limit, &status),
    }
}

/// Refuses a claim whose move announces an event (`status_events`): a claim writes none.
pub(super) fn refuse_events(claim: &Claim) -> StoreResult<()> {
    match status_events::event_for(claim.kind, Some(Some(claim.from)), Some(claim.to)) {
        Some(_) => Err(StoreError::backend(format!(
            "store: a claim from {} to {} would announce an event; it is written by `held::update`",
            claim.from, claim.to
        ))),
        None => Ok(()),
    }
}

/// A child claimed here holds no place among its parent's (`sb_pick`'s, PostgreSQL migration
/// 13): one it held on an earlier try is taken away, so that picks count it as placeless.
fn in_one(tx: &Tx, claim: &Claim, limit: usize, status: &str) -> StoreResult<Vec<String>> {
    let members = serde_json::to_string(&[["status", status]])?;
    let (walk, from_used) = walk_of(claim.from);
    let sql = format!(
        "WITH picked AS (SELECT seq FROM docs \
             WHERE kind = ?1 AND parent_id = ?2 AND {walk} AND deleted_at IS NULL \
             ORDER BY seq LIMIT ?3 FOR UPDATE SKIP LOCKED), \
         moved AS (UPDATE docs d SET status = ?4, body = CAST(sb_set_members(d.body, CAST(?5 AS JSONB)) AS JSON), \
             lease_owner = ?6, lease_until = ?7, place = NULL \
             FROM picked WHERE d.seq = picked.seq RETURNING d.seq, CAST(d.body AS TEXT) AS body) \
         SELECT body FROM moved ORDER BY seq"
    );
    let args =
        args![claim.kind.as_str(), claim.parent_id, limit, claim.to, &members, claim.owner, claim.until_ms, claim.from];
    tx.query(&sql, if from_used { args } else { &args[..7] }, |r| r.take(0))
}

/// The claim's condition on the status, and whether it takes `from` as `?8`. PENDING is
/// spelled out, so that every plan of the statement, the generic one a prepared statement
/// comes to included, walks `docs_waiting` (PostgreSQL migration 16), not every child of the
/// parent in order.
fn walk_of(from: &str) -> (String, bool) {
    let pending = SimulationJobStatus::Pending.as_str();
    if from == pending { (format!("status = '{pending}'"), false) } else { ("status = ?8".to_owned(), true) }
}

/// In process a statement is no round trip: the claim, then each row written.
fn row_by_row(tx: &Tx, claim: &Claim, limit: usize, status: &str) -> StoreResult<Vec<String>> {
    let claimed: Vec<(String, String)> = tx.query(
        "SELECT id, body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 AND deleted_at IS NULL \
         ORDER BY seq LIMIT ?4",
        args![claim.kind.as_str(), claim.parent_id, claim.from, limit],
        |r| Ok((r.take(0)?, r.take(1)?)),
    )?;
    let mut written = Vec::with_capacity(claimed.len());
    for (id, body) in claimed {
        let body = members::set(&body, &[("$.status", status.to_owned())])?;
        tx.execute(
            "UPDATE docs SET body = ?3, status = ?4, lease_owner = ?5, lease_until = ?6 WHERE kind = ?1 AND id = ?2",
            args![claim.kind.as_str(), &id, &body, claim.to, claim.owner, claim.until_ms],
        )?;
        written.push(body);
    }
    Ok(written)
}
