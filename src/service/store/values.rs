//! The metric values side table, read for what comparing runs and labelling values need: a
//! collection job's values by call (from columns written with each value, so a
//! 10,000-simulation run reads fast without a body parsed), and one value on a call by its place.

use std::collections::HashMap;

use super::db::{Arg, Conn, Dialect, Tx, marks};
use super::error::StoreResult;
use crate::api::model::{CaptureStatus, MetricContext, MetricValue};
use crate::args;

/// Where a value belongs: its collection job, its metric definition and its conversation.
pub struct ValueKey<'a> {
    pub job_id: &'a str,
    pub definition_id: &'a str,
    pub call_id: Option<&'a str>,
    pub chat_id: Option<&'a str>,
}

/// The members of a value that reads filter or summarise on, kept as columns beside its body.
#[derive(Default)]
pub struct ValueColumns<'a> {
    pub capture_status: &'a str,
    pub value: Option<f64>,
    pub context: Option<&'a str>,
    pub participant_role: Option<&'a str>,
    pub label: Option<&'a str>,
}

impl<'a> ValueColumns<'a> {
    pub fn of(value: &'a MetricValue) -> ValueColumns<'a> {
        ValueColumns {
            capture_status: value.capture_status.as_ref().unwrap_or(&CaptureStatus::Success).as_str(),
            value: value.value,
            context: value.context.as_ref().map(|c| c.as_str()),
            participant_role: value.participant_role.as_deref(),
            label: value.label.as_deref(),
        }
    }

    /// The same from a value as JSON (the seeded world's).
    pub fn of_json(value: &'a serde_json::Value) -> ValueColumns<'a> {
        let text = |member: &str| value.get(member).and_then(serde_json::Value::as_str);
        ValueColumns {
            capture_status: text("captureStatus").unwrap_or(CaptureStatus::Success.as_str()),
            value: value.get("value").and_then(serde_json::Value::as_f64),
            context: text("context"),
            participant_role: text("participantRole"),
            label: text("label"),
        }
    }
}

/// Keeps one metric value.
pub fn put(tx: &Tx, key: &ValueKey, value: &MetricValue) -> StoreResult<()> {
    put_raw(tx, key, &ValueColumns::of(value), &serde_json::to_string(value)?)
}

/// A metric value as the row it is kept in, owned: what a batch (`store::batch`) carries.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredValue {
    pub job_id: String,
    pub definition_id: String,
    pub call_id: Option<String>,
    pub chat_id: Option<String>,
    pub capture_status: String,
    pub body: String,
    pub value: Option<f64>,
    pub context: Option<String>,
    pub participant_role: Option<String>,
    pub label: Option<String>,
}

impl StoredValue {
    pub fn of(key: &ValueKey, value: &MetricValue) -> StoreResult<StoredValue> {
        let columns = ValueColumns::of(value);
        let owned = |text: Option<&str>| text.map(str::to_owned);
        Ok(StoredValue {
            job_id: key.job_id.to_owned(),
            definition_id: key.definition_id.to_owned(),
            call_id: owned(key.call_id),
            chat_id: owned(key.chat_id),
            capture_status: columns.capture_status.to_owned(),
            body: serde_json::to_string(value)?,
            value: columns.value,
            context: owned(columns.context),
            participant_role: owned(columns.participant_role),
            label: owned(columns.label),
        })
    }
}

/// Keeps a conversation's metric values in one statement (one round trip on PostgreSQL, where
/// a simulation's ten values were ten), in order.
pub fn put_many(tx: &Tx, values: &[(ValueKey, &MetricValue)]) -> StoreResult<()> {
    let rows = values.iter().map(|(key, value)| StoredValue::of(key, value)).collect::<StoreResult<Vec<_>>>()?;
    put_stored(tx, &rows)
}

/// Keeps values given as their rows, in order, a few hundred a statement.
pub fn put_stored(tx: &Tx, rows: &[StoredValue]) -> StoreResult<()> {
    // A statement takes at most 65,535 arguments.
    for chunk in rows.chunks(500) {
        let mut args: Vec<Arg> = Vec::with_capacity(chunk.len() * 10);
        for row in chunk {
            args.extend::<[Arg; 10]>([
                row.job_id.as_str().into(),
                row.definition_id.as_str().into(),
                row.call_id.as_deref().into(),
                row.chat_id.as_deref().into(),
                row.capture_status.as_str().into(),
                row.body.as_str().into(),
                row.value.into(),
                row.context.as_deref().into(),
                row.participant_role.as_deref().into(),
                row.label.as_deref().into(),
            ]);
        }
        let rows = vec![format!("({})", marks(10)); chunk.len()].join(", ");
        tx.execute(
            &format!(
                "INSERT INTO metric_values (job_id, definition_id, call_id, chat_id, capture_status, body, \
                 value, context, participant_role, label) VALUES {rows}"
            ),
            &args,
        )?;
    }
    Ok(())
}

/// Keeps one metric value given as its stored JSON, with its columns.
pub fn put_raw(tx: &Tx, key: &ValueKey, columns: &ValueColumns, body: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO metric_values (job_id, definition_id, call_id, chat_id, capture_status, body, \
         value, context, participant_role, label) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        args![
            key.job_id,
            key.definition_id,
            key.call_id,
            key.chat_id,
            columns.capture_status,
            body,
            columns.value,
            columns.context,
            columns.participant_role,
            columns.label
        ],
    )?;
    Ok(())
}

/// Forgets every value collection job `job_id` wrote (it starts over).
pub fn delete_of_job(tx: &Tx, job_id: &str) -> StoreResult<usize> {
    tx.execute("DELETE FROM metric_values WHERE job_id = ?1", args![job_id])
}

/// `(definition id, stored value)` of every value collection job `job_id` wrote, in order.
pub fn of_job(conn: &Conn, job_id: &str) -> StoreResult<Vec<(String, String)>> {
    conn.query("SELECT definition_id, body FROM metric_values WHERE job_id = ?1 ORDER BY seq", args![job_id], |r| {
        Ok((r.take(0)?, r.take(1)?))
    })
}

/// The same for a call (or a chat): per metric, every value of the newest job that scored it.
pub fn latest_of_conversation(conn: &Conn, chat: bool, id: &str) -> StoreResult<Vec<(String, String)>> {
    let column = if chat { "chat_id" } else { "call_id" };
    let sql = format!(
        "SELECT definition_id, body FROM metric_values AS mv WHERE {column} = ?1 AND job_id = (
             SELECT job_id FROM metric_values WHERE {column} = ?1 AND definition_id = mv.definition_id
             ORDER BY seq DESC LIMIT 1)
         ORDER BY seq"
    );
    conn.query(&sql, args![id], |r| Ok((r.take(0)?, r.take(1)?)))
}

/// One stored value, as much of it as a run's results need.
pub struct ValueRow {
    pub definition: String,
    pub status: Option<CaptureStatus>,
    pub value: Option<f64>,
    /// Scored on the whole call (not a turn or a segment).
    pub call_level: bool,
    pub role: Option<String>,
    pub label: Option<String>,
}

/// Every value of collection job `collection_id`, by call; a call's by definition, each
/// definition's in the order they were written. Read from the `metric_values_results` index
/// alone (its columns are these), so no value's body is read or parsed.
pub fn values_by_call(conn: &Conn, collection_id: &str) -> StoreResult<HashMap<String, Vec<ValueRow>>> {
    let indexed = match conn.dialect() {
        Dialect::Sqlite => "INDEXED BY metric_values_results",
        Dialect::Postgres => "",
    };
    let rows = conn.query(
        &format!(
            "SELECT call_id, definition_id, capture_status, value, context, participant_role, label \
             FROM metric_values {indexed} WHERE job_id = ?1 AND call_id IS NOT NULL ORDER BY call_id, definition_id, seq"
        ),
        args![collection_id],
        |r| {
            Ok((
                r.take::<String>(0)?,
                ValueRow {
                    definition: r.take(1)?,
                    status: r.take::<Option<String>>(2)?.map(|s| CaptureStatus::from(s.as_str())),
                    value: r.take_lenient::<Option<f64>>(3).flatten(),
                    call_level: r.take::<Option<String>>(4)?.is_none_or(|c| MetricContext::from(c.as_str()) == MetricContext::Call),
                    role: r.take_lenient::<Option<String>>(5).flatten(),
                    label: r.take_lenient::<Option<String>>(6).flatten(),
                },
            ))
        },
    )?;
    let mut by_call: HashMap<String, Vec<ValueRow>> = HashMap::new();
    for (call, row) in rows {
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
pub fn judged_value(conn: &Conn, call: &str, definition: &str, index: u64) -> StoreResult<Option<JudgedValue>> {
    conn.query_row(
        "SELECT job_id, capture_status, value, label FROM metric_values
         WHERE call_id = ?1 AND definition_id = ?2 AND job_id = (
             SELECT job_id FROM metric_values WHERE call_id = ?1 AND definition_id = ?2 ORDER BY seq DESC LIMIT 1)
         ORDER BY seq LIMIT 1 OFFSET ?3",
        args![call, definition, index],
        |r| {
            Ok(JudgedValue {
                collection_job: r.take(0)?,
                status: CaptureStatus::from(r.take::<String>(1)?.as_str()),
                value: r.take_lenient::<Option<f64>>(2).flatten(),
                label: r.take_lenient::<Option<String>>(3).flatten(),
            })
        },
    )
}
