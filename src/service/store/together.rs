//! Several documents in one read: on PostgreSQL each statement is a round trip, and a
//! simulation's start reads three documents that name each other.

use super::Kind;
use super::StoreResult;
use super::db::Conn;
use crate::args;

/// Three live documents in one statement: `first`, the one of kind `named.0` that `first`'s
/// member `named.1` (a path like `$.agentId`) names, and `other`. Each `None` when missing.
pub fn get_three_raw(
    conn: &Conn,
    first: (Kind, &str),
    named: (Kind, &str),
    other: Option<(Kind, &str)>,
) -> StoreResult<[Option<String>; 3]> {
    let member = conn.dialect().member("f.body", named.1)?;
    let sql = format!(
        "SELECT 0, body FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL \
         UNION ALL SELECT 1, d.body FROM docs f JOIN docs d ON d.kind = ?3 AND d.id = {member} \
             WHERE f.kind = ?1 AND f.id = ?2 AND f.deleted_at IS NULL AND d.deleted_at IS NULL \
         UNION ALL SELECT 2, body FROM docs WHERE kind = ?4 AND id = ?5 AND deleted_at IS NULL"
    );
    let (other_kind, other_id) = other.map_or((None, None), |(kind, id)| (Some(kind.as_str()), Some(id)));
    let rows = conn.query(&sql, args![first.0.as_str(), first.1, named.0.as_str(), other_kind, other_id], |r| {
        Ok((r.take::<i64>(0)?, r.take::<String>(1)?))
    })?;
    let mut found = [None, None, None];
    for (at, body) in rows {
        if let Some(slot) = usize::try_from(at).ok().and_then(|at| found.get_mut(at)) {
            *slot = Some(body);
        }
    }
    Ok(found)
}
