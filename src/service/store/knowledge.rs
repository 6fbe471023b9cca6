//! Knowledge bases' content, kept apart from their documents (it is the bulk of them).

use std::collections::HashMap;

use rusqlite::{Connection, Transaction, params};

use crate::service::error::ServiceResult;

pub fn put(tx: &Transaction, knowledge_base_id: &str, content: &str) -> ServiceResult<()> {
    tx.prepare_cached("INSERT INTO knowledge_content (knowledge_base_id, content) VALUES (?1, ?2)")?
        .execute(params![knowledge_base_id, content])?;
    Ok(())
}

/// Every knowledge base's content, by id.
pub fn all(conn: &Connection) -> ServiceResult<HashMap<String, String>> {
    let mut statement = conn.prepare_cached("SELECT knowledge_base_id, content FROM knowledge_content")?;
    let rows = statement.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
