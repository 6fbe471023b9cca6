//! Every version of each metric definition, as it was written.

use rusqlite::{Connection, Transaction, params};

use crate::service::error::ServiceResult;

/// Records a definition's version (replacing what that version number held).
pub fn put(tx: &Transaction, definition_id: &str, version: i64, body: &str) -> ServiceResult<()> {
    tx.prepare_cached("INSERT OR REPLACE INTO definition_versions (definition_id, version, body) VALUES (?1, ?2, ?3)")?
        .execute(params![definition_id, version, body])?;
    Ok(())
}

/// A definition's versions as stored, newest first.
pub fn all_raw(conn: &Connection, definition_id: &str) -> ServiceResult<Vec<String>> {
    let mut statement =
        conn.prepare_cached("SELECT body FROM definition_versions WHERE definition_id = ?1 ORDER BY version DESC")?;
    let bodies = statement.query_map(params![definition_id], |r| r.get(0))?;
    Ok(bodies.collect::<rusqlite::Result<_>>()?)
}
