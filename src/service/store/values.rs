//! The metric values side table, read for what comparing runs and labelling values need: a
//! collection job's values by call (read with SQLite's JSON functions rather than decoded, so
//! a 10,000-simulation run reads fast), and one value on a call by its place.

use std::collections::HashMap;

use rusqlite::{Connection, Transaction, params};

use crate::api::model::CaptureStatus;
use crate::service::error::ServiceResult;

/// Where a value belongs: its collection job, its metric definition and its conversation.
pub struct ValueKey<'a> {
    pub job_id: &'a str,
    pub definition_id: &'a str,
    pub call_id: Option<&'a str>,
    pub chat_id: Option<&'a str>,
}

/// Keeps one metric value (stored JSON) with the columns reads filter on.
pub fn put(tx: &Transaction, key: &ValueKey, capture_status: &str, body: &str) -> ServiceResult<()> {
    tx.prepare_cached(
        "INSERT INTO metric_values (job_id, definition_id, call_id, chat_id, capture_status, body) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![key.job_id, key.definition_id, key.call_id, key.chat_id, capture_status, body])?;
    Ok(())
}

/// `(definition id, stored value)` of every value collection job `job_id` wrote, in order.
pub fn of_job(conn: &Connection, job_id: &str) -> ServiceResult<Vec<(String, String)>> {
    let mut statement =
        conn.prepare_cached("SELECT definition_id, body FROM metric_values WHERE job_id = ?1 ORDER BY seq")?;
    let rows = statement.query_map(params![job_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The same for a call (or a chat): per metric, every value of the newest job that scored it.
pub fn latest_of_conversation(conn: &Connection, chat: bool, id: &str) -> ServiceResult<Vec<(String, String)>> {
    let column = if chat { "chat_id" } else { "call_id" };
    let sql = format!(
        "SELECT definition_id, body FROM metric_values AS mv WHERE {column} = ?1 AND job_id = (
             SELECT job_id FROM metric_values WHERE {column} = ?1 AND definition_id = mv.definition_id
             ORDER BY seq DESC LIMIT 1)
         ORDER BY seq"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One stored value, as much of it as a run's results need.
pub struct ValueRow {
    pub definition: String,
    pub status: Option<CaptureStatus>,
    pub value: Option<f64>,
    pub call_level: bool,
    pub role: Option<String>,
    pub label: Option<String>,
}

/// Every value of collection job `collection_id`, by call; a call's by definition, each
/// definition's in the order they were written. Read from the `metric_values_results` index
/// alone (its expressions are these), so no value's body is read or parsed.
pub fn values_by_call(conn: &Connection, collection_id: &str) -> ServiceResult<HashMap<String, Vec<ValueRow>>> {
    let mut statement = conn.prepare_cached(
        "SELECT call_id, definition_id, capture_status, json_extract(body, '$.value'), json_extract(body, '$.context'),
                json_extract(body, '$.participantRole'), json_extract(body, '$.label')
         FROM metric_values INDEXED BY metric_values_results
         WHERE job_id = ?1 AND call_id IS NOT NULL ORDER BY call_id, definition_id, seq",
    )?;
    let mut by_call: HashMap<String, Vec<ValueRow>> = HashMap::new();
    let rows = statement.query_map(params![collection_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            ValueRow {
                definition: r.get(1)?,
                status: r.get::<_, Option<String>>(2)?.map(|s| CaptureStatus::from(s.as_str())),
                value: r.get(3).ok().flatten(),
                call_level: r.get::<_, Option<String>>(4)?.is_none_or(|c| c == "CALL"),
                role: r.get(5).ok().flatten(),
                label: r.get(6).ok().flatten(),
            },
        ))
    })?;
    for row in rows {
        let (call, row) = row?;
        by_call.entry(call).or_default().push(row);
    }
    Ok(by_call)
}

/// A value a judge gave on a call, as a label on it keeps it.
pub struct JudgedValue {
    pub collection_job: String,
    pub status: CaptureStatus,
    pub value: Option<f64>,
    pub label: Option<String>,
}

/// The `index`th value of metric `definition` on `call`, from the newest job that scored it
/// there (the values `GET /v1/call/{id}/metrics?status=all` lists).
pub fn judged_value(conn: &Connection, call: &str, definition: &str, index: u64) -> ServiceResult<Option<JudgedValue>> {
    let mut statement = conn.prepare_cached(
        "SELECT job_id, capture_status, json_extract(body, '$.value'), json_extract(body, '$.label') FROM metric_values
         WHERE call_id = ?1 AND definition_id = ?2 AND job_id = (
             SELECT job_id FROM metric_values WHERE call_id = ?1 AND definition_id = ?2 ORDER BY seq DESC LIMIT 1)
         ORDER BY seq LIMIT 1 OFFSET ?3",
    )?;
    let mut rows = statement.query(params![call, definition, index as i64])?;
    let Some(row) = rows.next()? else { return Ok(None) };
    let status: String = row.get(1)?;
    Ok(Some(JudgedValue {
        collection_job: row.get(0)?,
        status: CaptureStatus::from(status.as_str()),
        value: row.get(2).ok().flatten(),
        label: row.get(3).ok().flatten(),
    }))
}
