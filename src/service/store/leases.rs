//! Leases: an engine's claim on a document it is working on (a simulation, a collection job),
//! held by one replica and renewed while it works. A replica that stops renewing (it died, or
//! lost the database) loses its leases when they run out, and another one takes the work over.

use super::db::{Arg, Conn, Tx, marks};
use super::{Dialect, Kind, StoreError, StoreResult};
use crate::args;

/// Who holds a document, and until when (unix ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub owner: String,
    pub until_ms: i64,
}

/// Leases `owner` the document until `until_ms`.
pub fn take(tx: &Tx, kind: Kind, id: &str, owner: &str, until_ms: i64) -> StoreResult<()> {
    let changed = tx.execute(
        "UPDATE docs SET lease_owner = ?3, lease_until = ?4 WHERE kind = ?1 AND id = ?2",
        args![kind.as_str(), id, owner, until_ms],
    )?;
    match changed {
        0 => Err(StoreError::not_found(kind, id)),
        _ => Ok(()),
    }
}

/// Ends a document's lease (its work is done).
pub fn release(tx: &Tx, kind: Kind, id: &str) -> StoreResult<()> {
    tx.execute(
        "UPDATE docs SET lease_owner = NULL, lease_until = NULL WHERE kind = ?1 AND id = ?2 AND lease_owner IS NOT NULL",
        args![kind.as_str(), id],
    )?;
    Ok(())
}

/// Who holds the document now, if anyone (in a write, claiming it: its work is being written).
pub fn holder(conn: &Conn, kind: Kind, id: &str) -> StoreResult<Option<Holder>> {
    Ok(conn
        .query_row(
            &format!("SELECT lease_owner, lease_until FROM docs WHERE kind = ?1 AND id = ?2{}", conn.row_lock()),
            args![kind.as_str(), id],
            |r| Ok((r.take::<Option<String>>(0)?, r.take::<Option<i64>>(1)?)),
        )?
        .and_then(|(owner, until_ms)| Some(Holder { owner: owner?, until_ms: until_ms.unwrap_or(0) })))
}

/// Whether `owner` holds the document.
pub fn held_by(conn: &Conn, kind: Kind, id: &str, owner: &str) -> StoreResult<bool> {
    Ok(holder(conn, kind, id)?.is_some_and(|h| h.owner == owner))
}

/// Extends to `until_ms` every lease `owner` holds that runs out before `due_ms`; how many it
/// extended. A lease taken since is left as it is: rewriting it would take its row's lock from
/// the simulation writing its end, and leave another dead entry in `docs_leased`.
pub fn renew(tx: &Tx, owner: &str, due_ms: i64, until_ms: i64) -> StoreResult<usize> {
    if tx.dialect() == Dialect::Postgres {
        // Entry by entry: a bitmap scan visits the row of every entry and never marks one dead,
        // and every lease ended leaves its entry until the table is vacuumed (a renewal late in
        // a 10,000-simulation run walked 1,541 of them for six leases).
        tx.execute_batch("SET LOCAL enable_bitmapscan = off")?;
    }
    // Read, then written by row: a scan marks the dead entries it passes only if their page is
    // unchanged when it leaves it, and an update of the leases adds entries to the same pages.
    let due: Vec<Arg> =
        tx.query("SELECT seq FROM docs WHERE lease_owner = ?1 AND lease_until < ?2", args![owner, due_ms], |r| {
            Ok(Arg::from(r.take::<i64>(0)?))
        })?;
    let mut renewed = 0;
    // In parts, well under either engine's limit on a statement's arguments.
    for rows in due.chunks(RENEWED_A_STATEMENT) {
        // The conditions again: a lease ended, or ended and taken anew, since the read is left.
        let sql = format!(
            "UPDATE docs SET lease_until = ? WHERE lease_owner = ? AND lease_until < ? AND seq IN ({})",
            marks(rows.len())
        );
        let row_args: Vec<Arg> =
            [until_ms.into(), owner.into(), due_ms.into()].into_iter().chain(rows.iter().copied()).collect();
        renewed += tx.execute(&sql, &row_args)?;
    }
    Ok(renewed)
}

/// The most leases one statement of a renewal writes.
const RENEWED_A_STATEMENT: usize = 1_000;

/// A document whose lease ran out.
#[derive(Debug, Clone)]
pub struct Lapsed {
    pub kind: Kind,
    pub id: String,
    pub parent_id: Option<String>,
}

/// Documents of `kind` whose lease ran out before `now_ms`, or, with `not_owner`, that anyone
/// but `not_owner` holds (a store only one process uses: every other holder has stopped).
pub fn lapsed(conn: &Conn, kind: Kind, now_ms: i64, not_owner: Option<&str>, limit: usize) -> StoreResult<Vec<Lapsed>> {
    let (condition, args): (&str, Vec<Arg>) = match not_owner {
        None => ("lease_until < ?2", vec![kind.as_str().into(), now_ms.into(), limit.into()]),
        Some(owner) => ("lease_owner <> ?2", vec![kind.as_str().into(), owner.into(), limit.into()]),
    };
    conn.query(
        &format!(
            "SELECT id, parent_id FROM docs \
             WHERE lease_owner IS NOT NULL AND kind = ?1 AND {condition} ORDER BY seq LIMIT ?3"
        ),
        &args,
        |r| Ok(Lapsed { kind, id: r.take(0)?, parent_id: r.take(1)? }),
    )
}

/// Ends a lapsed lease and counts it against the document; how many of its leases have run
/// out, this one included.
pub fn expire(tx: &Tx, kind: Kind, id: &str) -> StoreResult<i64> {
    tx.execute(
        "UPDATE docs SET lease_owner = NULL, lease_until = NULL, lease_expiries = lease_expiries + 1 \
         WHERE kind = ?1 AND id = ?2",
        args![kind.as_str(), id],
    )?;
    let expiries = tx.value("SELECT lease_expiries FROM docs WHERE kind = ?1 AND id = ?2", args![kind.as_str(), id])?;
    Ok(expiries.unwrap_or(0))
}

/// How many documents of `kind` under `parent_id` `owner` holds.
pub fn held_under(conn: &Conn, kind: Kind, parent_id: &str, owner: &str) -> StoreResult<usize> {
    let held: i64 = conn
        .value(
            "SELECT count(*) FROM docs WHERE lease_owner = ?1 AND kind = ?2 AND parent_id = ?3",
            args![owner, kind.as_str(), parent_id],
        )?
        .unwrap_or(0);
    Ok(held.max(0) as usize)
}
