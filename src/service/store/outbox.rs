//! The outbox: events appended in the transaction of the change they announce, so a crash
//! neither loses one nor invents one, and the webhook deliveries queued from them in that same
//! transaction, each attempt kept.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::{Kind, without_internal};
use crate::api::model::{DeliveryAttempt, DeliveryStatus, Event, EventType, Timestamp};
use crate::service::error::ServiceResult;

/// Appends the event `event_type` about a document whose stored body is `body`, and queues a
/// delivery to every webhook subscribed to it.
pub fn append(
    tx: &Transaction,
    event_type: &EventType,
    kind: Kind,
    id: &str,
    parent_id: Option<&str>,
    body: &str,
) -> ServiceResult<()> {
    let data = without_internal(kind, body.to_owned())?;
    let at = Timestamp::now();
    tx.prepare_cached(
        "INSERT INTO events (type, resource_kind, resource_id, parent_id, created_at, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![event_type.as_str(), kind.as_str(), id, parent_id, at.0, data])?;
    let seq = tx.last_insert_rowid();
    tx.prepare_cached(
        "INSERT INTO webhook_deliveries (id, webhook_id, event_seq, status, attempts, next_attempt_at, created_at) \
         SELECT 'msg_' || lower(hex(randomblob(12))), d.id, ?1, 'PENDING', 0, ?2, ?3 FROM docs d \
         WHERE d.kind = ?4 AND d.deleted_at IS NULL \
         AND EXISTS (SELECT 1 FROM json_each(d.body, '$.events') WHERE value = ?5)",
    )?
    .execute(params![seq, unix_ms_now(), at.0, Kind::Webhook.as_str(), event_type.as_str()])?;
    Ok(())
}

/// The newest event's id (0 before the first).
pub fn last_event(conn: &Connection) -> ServiceResult<i64> {
    Ok(conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = 'events'")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Which events a reader wants.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    /// Empty: every type.
    pub types: Vec<String>,
    /// Events about these resources (or, `with_children`, their children); empty: any.
    pub resource_ids: Vec<String>,
    pub with_children: bool,
    /// Leave each event's resource out (not even read from the store).
    pub without_data: bool,
}

/// Events after `after` up to `upto` (inclusive) that pass `filter`, oldest first, at most `limit`.
pub fn events_between(
    conn: &Connection,
    after: i64,
    upto: i64,
    filter: &EventFilter,
    limit: usize,
) -> ServiceResult<Vec<Event>> {
    let body = if filter.without_data { "NULL" } else { "body" };
    let mut sql = format!(
        "SELECT seq, type, resource_id, parent_id, created_at, {body} FROM events WHERE seq > ?1 AND seq <= ?2"
    );
    let mut args: Vec<rusqlite::types::Value> = vec![after.into(), upto.into()];
    if !filter.types.is_empty() {
        let marks = vec!["?"; filter.types.len()].join(", ");
        sql.push_str(&format!(" AND type IN ({marks})"));
        args.extend(filter.types.iter().map(|t| t.clone().into()));
    }
    if !filter.resource_ids.is_empty() {
        let marks = vec!["?"; filter.resource_ids.len()].join(", ");
        let ids = filter.resource_ids.iter().map(|id| rusqlite::types::Value::from(id.clone()));
        match filter.with_children {
            true => {
                sql.push_str(&format!(" AND (resource_id IN ({marks}) OR parent_id IN ({marks}))"));
                args.extend(ids.clone().chain(ids));
            }
            false => {
                sql.push_str(&format!(" AND resource_id IN ({marks})"));
                args.extend(ids);
            }
        }
    }
    sql.push_str(" ORDER BY seq LIMIT ?");
    args.push((limit as i64).into());
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(rusqlite::params_from_iter(&args), |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, Option<String>>(3)?,
            row.get::<_, String>(4)?,
            row.get::<_, Option<String>>(5)?,
        ))
    })?;
    let mut events = Vec::new();
    for row in rows {
        let (seq, event_type, resource_id, parent_id, created_at, body) = row?;
        events.push(Event {
            id: seq.to_string(),
            event_type: EventType::from(event_type.as_str()),
            created_at: Timestamp(created_at),
            resource_id,
            parent_id,
            data: body.map(|body| raw(5, body)).transpose()?,
        });
    }
    Ok(events)
}

/// Forgets events older than `before` (RFC 3339) that no delivery still waits on.
pub fn prune_events(tx: &Transaction, before: &str) -> ServiceResult<usize> {
    Ok(tx.execute(
        "DELETE FROM events WHERE created_at < ?1 AND seq < (SELECT coalesce(min(event_seq), 9223372036854775807) \
         FROM webhook_deliveries WHERE status = 'PENDING')",
        params![before],
    )?)
}

/// A delivery claimed for one attempt.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub webhook_id: String,
    /// The webhook's stored body (with its secret).
    pub webhook_body: String,
    pub event: Event,
    /// Attempts made before this one.
    pub attempts: u32,
}

/// Claims up to `limit` deliveries due at `now_ms`: each is pushed `lease_ms` into the future,
/// so a sender that dies mid-attempt leaves it to be tried again when the lease runs out.
pub fn claim_due(tx: &Transaction, now_ms: i64, lease_ms: i64, limit: usize) -> ServiceResult<Vec<Claimed>> {
    let mut statement = tx.prepare_cached(
        "SELECT w.id, w.webhook_id, d.body, w.attempts, e.seq, e.type, e.resource_id, e.parent_id, e.created_at, e.body \
         FROM webhook_deliveries w JOIN events e ON e.seq = w.event_seq \
         JOIN docs d ON d.kind = ?3 AND d.id = w.webhook_id \
         WHERE w.status = 'PENDING' AND w.next_attempt_at <= ?1 ORDER BY w.next_attempt_at, w.seq LIMIT ?2",
    )?;
    let rows = statement.query_map(params![now_ms, limit as i64, Kind::Webhook.as_str()], |row| {
        Ok(Claimed {
            delivery_id: row.get(0)?,
            webhook_id: row.get(1)?,
            webhook_body: row.get(2)?,
            attempts: row.get::<_, i64>(3)?.max(0) as u32,
            event: Event {
                id: row.get::<_, i64>(4)?.to_string(),
                event_type: EventType::from(row.get::<_, String>(5)?.as_str()),
                resource_id: row.get(6)?,
                parent_id: row.get(7)?,
                created_at: Timestamp(row.get(8)?),
                data: Some(raw(9, row.get(9)?)?),
            },
        })
    })?;
    let claimed = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    for delivery in &claimed {
        tx.prepare_cached("UPDATE webhook_deliveries SET next_attempt_at = ?2 WHERE id = ?1")?
            .execute(params![delivery.delivery_id, now_ms + lease_ms])?;
    }
    Ok(claimed)
}

/// What one attempt came to.
#[derive(Debug, Clone)]
pub struct AttemptOutcome {
    pub attempt: u32,
    pub attempted_at: Timestamp,
    pub response_status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
    /// Where the delivery goes next: delivered, failed for good, or pending until this time.
    pub status: DeliveryStatus,
    pub next_attempt_ms: Option<i64>,
}

/// Records an attempt and moves its delivery on.
pub fn record_attempt(tx: &Transaction, claimed: &Claimed, outcome: &AttemptOutcome) -> ServiceResult<()> {
    tx.prepare_cached(
        "INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, attempted_at, status_code, error, duration_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        claimed.delivery_id,
        claimed.webhook_id,
        outcome.attempt,
        outcome.attempted_at.0,
        outcome.response_status,
        outcome.error,
        outcome.duration_ms as i64,
    ])?;
    tx.prepare_cached(
        "UPDATE webhook_deliveries SET status = ?2, attempts = ?3, next_attempt_at = coalesce(?4, next_attempt_at) WHERE id = ?1",
    )?
    .execute(params![claimed.delivery_id, outcome.status.as_str(), outcome.attempt, outcome.next_attempt_ms])?;
    Ok(())
}

/// The next time a delivery is due (unix ms), if any is pending.
pub fn next_due(conn: &Connection) -> ServiceResult<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'PENDING'")?
        .query_row([], |r| r.get(0))?)
}

/// A webhook's delivery attempts, newest first: a page after `before` (an attempt's sequence).
pub fn attempts(
    conn: &Connection,
    webhook_id: &str,
    before: Option<i64>,
    limit: u64,
) -> ServiceResult<(Vec<(i64, DeliveryAttempt)>, u64)> {
    let total: i64 = conn
        .prepare_cached("SELECT count(*) FROM webhook_attempts WHERE webhook_id = ?1")?
        .query_row(params![webhook_id], |r| r.get(0))?;
    let mut statement = conn.prepare_cached(
        "SELECT a.seq, a.delivery_id, e.seq, e.type, a.attempt, a.attempted_at, a.status_code, a.error, a.duration_ms, \
         w.status, w.next_attempt_at \
         FROM webhook_attempts a JOIN webhook_deliveries w ON w.id = a.delivery_id \
         LEFT JOIN events e ON e.seq = w.event_seq \
         WHERE a.webhook_id = ?1 AND a.seq < ?2 ORDER BY a.seq DESC LIMIT ?3",
    )?;
    let rows = statement.query_map(params![webhook_id, before.unwrap_or(i64::MAX), limit as i64], |row| {
        let status = DeliveryStatus::from(row.get::<_, String>(9)?.as_str());
        let next: i64 = row.get(10)?;
        Ok((
            row.get::<_, i64>(0)?,
            DeliveryAttempt {
                delivery_id: row.get(1)?,
                event_id: row.get::<_, Option<i64>>(2)?.map(|s| s.to_string()).unwrap_or_default(),
                event_type: EventType::from(row.get::<_, Option<String>>(3)?.unwrap_or_default().as_str()),
                attempt: row.get::<_, i64>(4)?.max(0) as u32,
                attempted_at: Timestamp(row.get(5)?),
                response_status: row.get::<_, Option<i64>>(6)?.map(|s| s as u16),
                error: row.get(7)?,
                duration_ms: row.get::<_, i64>(8)?.max(0) as u64,
                next_attempt_at: (status == DeliveryStatus::Pending).then(|| timestamp_of_ms(next)),
                delivery_status: status,
            },
        ))
    })?;
    Ok((rows.collect::<rusqlite::Result<_>>()?, total.max(0) as u64))
}

/// Drops a deleted webhook's pending deliveries (its attempts stay readable).
pub fn cancel_deliveries(tx: &Transaction, webhook_id: &str) -> ServiceResult<()> {
    tx.execute(
        "UPDATE webhook_deliveries SET status = 'FAILED' WHERE webhook_id = ?1 AND status = 'PENDING'",
        params![webhook_id],
    )?;
    Ok(())
}

pub fn unix_ms_now() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

pub fn timestamp_of_ms(ms: i64) -> Timestamp {
    Timestamp::from(jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
}

/// A stored event body (read from result column `column`) as the event's `data`, checked to
/// be JSON.
fn raw(column: usize, body: String) -> rusqlite::Result<Box<serde_json::value::RawValue>> {
    serde_json::value::RawValue::from_string(body)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e)))
}
