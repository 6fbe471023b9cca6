//! Knowledge bases' content, kept apart from their documents (it is the bulk of them).

use std::collections::HashMap;

use super::db::{Conn, Tx};
use super::error::StoreResult;
use crate::args;

pub fn put(tx: &Tx, knowledge_base_id: &str, content: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO knowledge_content (knowledge_base_id, content) VALUES (?1, ?2)",
        args![knowledge_base_id, content],
    )?;
    Ok(())
}

/// Every knowledge base's content, by its id.
pub fn all(conn: &Conn) -> StoreResult<HashMap<String, String>> {
    Ok(conn
        .query("SELECT knowledge_base_id, content FROM knowledge_content", &[], |r| Ok((r.take(0)?, r.take(1)?)))?
        .into_iter()
        .collect())
}
