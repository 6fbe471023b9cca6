//! Every version of each metric definition, as it was written.

use super::db::{Conn, Tx};
use super::error::StoreResult;
use crate::args;

/// Records a definition's version (replacing what that version number held).
pub fn put(tx: &Tx, definition_id: &str, version: i64, body: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO definition_versions (definition_id, version, body) VALUES (?1, ?2, ?3) \
         ON CONFLICT (definition_id, version) DO UPDATE SET body = excluded.body",
        args![definition_id, version, body],
    )?;
    Ok(())
}

/// A definition's versions as stored, newest first.
pub fn all_raw(conn: &Conn, definition_id: &str) -> StoreResult<Vec<String>> {
    conn.query(
        "SELECT body FROM definition_versions WHERE definition_id = ?1 ORDER BY version DESC",
        args![definition_id],
        |r| r.take(0),
    )
}
