//! Transcripts, kept beside their call or chat (they are the bulk of a conversation).

use super::db::{Conn, Tx};
use super::error::StoreResult;
use crate::args;

/// Keeps a conversation's transcript (stored JSON).
pub fn put(tx: &Tx, conversation_id: &str, body: &str) -> StoreResult<()> {
    tx.execute("INSERT INTO transcripts (call_id, body) VALUES (?1, ?2)", args![conversation_id, body])?;
    Ok(())
}

/// A conversation's transcript as stored, if it has one.
pub fn get_raw(conn: &Conn, conversation_id: &str) -> StoreResult<Option<String>> {
    conn.value("SELECT body FROM transcripts WHERE call_id = ?1", args![conversation_id])
}

/// The same, decoded; an empty transcript when there is none.
pub fn get<T: serde::de::DeserializeOwned + Default>(conn: &Conn, conversation_id: &str) -> StoreResult<T> {
    Ok(get_raw(conn, conversation_id)?.map(|t| serde_json::from_str(&t)).transpose()?.unwrap_or_default())
}
