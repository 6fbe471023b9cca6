//! Transcripts, kept beside their call or chat (they are the bulk of a conversation).

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::service::error::ServiceResult;

/// Keeps a conversation's transcript (stored JSON).
pub fn put(tx: &Transaction, conversation_id: &str, body: &str) -> ServiceResult<()> {
    tx.prepare_cached("INSERT INTO transcripts (call_id, body) VALUES (?1, ?2)")?
        .execute(params![conversation_id, body])?;
    Ok(())
}

/// A conversation's transcript as stored, if it has one.
pub fn get_raw(conn: &Connection, conversation_id: &str) -> ServiceResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT body FROM transcripts WHERE call_id = ?1")?
        .query_row(params![conversation_id], |r| r.get(0))
        .optional()?)
}

/// The same, decoded; an empty transcript when there is none.
pub fn get<T: serde::de::DeserializeOwned + Default>(conn: &Connection, conversation_id: &str) -> ServiceResult<T> {
    Ok(get_raw(conn, conversation_id)?.map(|t| serde_json::from_str(&t)).transpose()?.unwrap_or_default())
}
