//! The outbox: events appended in the transaction of the change they announce, so a crash
//! neither loses one nor invents one, and the webhook deliveries queued from them in that same
//! transaction, each attempt kept.

use super::db::{Arg, Conn, Dialect, Tx, marks};
use super::error::{StoreError, StoreResult};
use super::{Doc, Kind, without_internal};
use crate::api::model::{DeliveryAttempt, DeliveryStatus, Event, EventType, Timestamp};
use crate::args;

/// An event to append, as its row: what a batch (`store::batch`) carries to apply later.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    pub event_type: String,
    pub kind: Kind,
    pub resource_id: String,
    pub parent_id: Option<String>,
    pub at: String,
    /// The document as readers see it (its internal members left out).
    pub data: String,
    /// The alert whose webhooks hear it too (an issue it opened).
    pub alert_id: Option<String>,
}

impl Appended {
    /// The event `event_type` about `doc` now.
    pub fn of(event_type: &EventType, doc: &Doc, alert_id: Option<&str>) -> StoreResult<Appended> {
        Ok(Appended {
            event_type: event_type.as_str().to_owned(),
            kind: doc.kind,
            resource_id: doc.id.clone(),
            parent_id: doc.parent_id.clone(),
            at: Timestamp::now().0,
            data: without_internal(doc.kind, doc.body.clone())?,
            alert_id: alert_id.map(str::to_owned),
        })
    }

    /// The event a document's change of status (from `before`, `None` when new) announces, if any.
    pub fn announcing(doc: &Doc, before: Option<Option<&str>>) -> StoreResult<Option<Appended>> {
        use crate::service::webhooks::status_events;
        match status_events::event_for(doc.kind, before, doc.status.as_deref()) {
            Some(event) => {
                Ok(Some(Appended::of(&event, doc, status_events::alert_of(doc.kind, &doc.body).as_deref())?))
            }
            None => Ok(None),
        }
    }
}

/// Appends the event `event_type` about a document whose stored body is `body`, and queues a
/// delivery to every webhook subscribed to it: the webhooks made through `/v1/webhook` and the
/// alerts' webhooks (`Kind::AlertWebhook`) that list its type, and those of `alert_id`, the
/// alert the document belongs to (an issue it opened).
pub fn append(tx: &Tx, event_type: &EventType, doc: &Doc, alert_id: Option<&str>) -> StoreResult<()> {
    append_row(tx, &Appended::of(event_type, doc, alert_id)?)
}

/// Appends `event` and queues its deliveries (see `append`).
pub(super) fn append_row(tx: &Tx, event: &Appended) -> StoreResult<()> {
    let row = args![
        event.event_type.as_str(),
        event.kind.as_str(),
        &event.resource_id,
        event.parent_id.as_deref(),
        &event.at,
        &event.data
    ];
    let (webhook, alert_webhook, alert_id) =
        (Kind::Webhook.as_str(), Kind::AlertWebhook.as_str(), event.alert_id.as_deref());
    match tx.dialect() {
        Dialect::Sqlite => {
            let seq: i64 = tx
                .value(
                    "INSERT INTO events (type, resource_kind, resource_id, parent_id, created_at, body) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING seq",
                    row,
                )?
                .ok_or_else(|| StoreError::backend("store: an event was not inserted"))?;
            tx.execute(
                "INSERT INTO webhook_deliveries (id, webhook_id, event_seq, status, attempts, next_attempt_at, created_at) \
                 SELECT 'msg_' || lower(hex(randomblob(12))), d.id, ?1, 'PENDING', 0, ?2, ?3 FROM docs d \
                 WHERE d.kind IN (?4, ?6) AND d.deleted_at IS NULL \
                 AND (EXISTS (SELECT 1 FROM json_each(d.body, '$.events') WHERE value = ?5) \
                      OR (d.kind = ?6 AND d.parent_id = ?7))",
                args![seq, unix_ms_now(), &event.at, webhook, event.event_type.as_str(), alert_webhook, alert_id],
            )?;
        }
        // The event and its deliveries in one statement: one round trip, not two.
        Dialect::Postgres => {
            let mut all = row.to_vec();
            all.extend::<[Arg; 4]>([unix_ms_now().into(), webhook.into(), alert_webhook.into(), alert_id.into()]);
            tx.execute(&postgres_append(None), &all)?;
        }
    }
    // The publisher numbers it once this transaction commits (PostgreSQL; see `publisher`).
    tx.note_events();
    Ok(())
}

/// On PostgreSQL, a write to a document and the event it announces in one statement (one
/// round trip): `write` is a data-modifying statement over arguments `?11` on, returning a row
/// when it wrote; the event is appended only then. Whether it wrote.
pub(super) fn append_with(
    tx: &Tx,
    write: &str,
    write_args: &[Arg],
    event_type: &EventType,
    doc: &Doc,
    alert_id: Option<&str>,
) -> StoreResult<bool> {
    let data = without_internal(doc.kind, doc.body.clone())?;
    let at = Timestamp::now();
    let (webhook, alert_webhook) = (Kind::Webhook.as_str(), Kind::AlertWebhook.as_str());
    let mut all: Vec<Arg> =
        args![event_type.as_str(), doc.kind.as_str(), &doc.id, doc.parent_id.as_deref(), &at.0, &data].to_vec();
    all.extend::<[Arg; 4]>([unix_ms_now().into(), webhook.into(), alert_webhook.into(), alert_id.into()]);
    all.extend_from_slice(write_args);
    let wrote: i64 = tx.value(&postgres_append(Some(write)), &all)?.unwrap_or(0);
    if wrote > 0 {
        tx.note_events();
    }
    Ok(wrote > 0)
}

/// The PostgreSQL statement appending an event (`?1`–`?6`) and queueing its deliveries
/// (`?7`–`?10`); after `write` (a CTE `w`), only if it wrote, answering how many rows it wrote.
fn postgres_append(write: Option<&str>) -> String {
    let (first, source, end) = match write {
        None => (String::new(), "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", ""),
        Some(write) => {
            (format!("w AS ({write}), "), "SELECT ?1, ?2, ?3, ?4, ?5, ?6 FROM w", ") SELECT count(*) FROM w")
        }
    };
    let deliveries = "INSERT INTO webhook_deliveries (id, webhook_id, event_seq, status, attempts, next_attempt_at, created_at) \
         SELECT 'msg_' || substr(md5(random()::text || clock_timestamp()::text), 1, 24), d.id, e.seq, \
             'PENDING', 0, ?7, ?5 FROM e, docs d \
         WHERE d.kind IN (?8, ?9) AND d.deleted_at IS NULL \
         AND (EXISTS (SELECT 1 FROM json_array_elements_text(d.body -> 'events') AS ev (value) WHERE ev.value = ?1) \
              OR (d.kind = ?9 AND d.parent_id = ?10))";
    let deliveries = if write.is_some() { format!("q AS ({deliveries}") } else { deliveries.to_owned() };
    format!(
        "WITH {first}e AS (INSERT INTO events (type, resource_kind, resource_id, parent_id, created_at, body) \
             {source} RETURNING seq){sep}{deliveries}{end}",
        sep = if write.is_some() { ", " } else { " " }
    )
}

/// The newest event's id (0 before the first): on SQLite its sequence number; on PostgreSQL
/// the last id given when events are published.
pub fn last_event(conn: &Conn) -> StoreResult<i64> {
    match conn.dialect() {
        Dialect::Sqlite => Ok(conn.value("SELECT seq FROM sqlite_sequence WHERE name = 'events'", &[])?.unwrap_or(0)),
        Dialect::Postgres => Ok(conn
            .value::<String>("SELECT value FROM meta WHERE key = 'events.published'", &[])?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)),
    }
}

/// The column that orders events as readers see them: the id they are known by (on SQLite
/// their sequence number, which its index serves).
fn id_column(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "seq",
        Dialect::Postgres => "id",
    }
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
    conn: &Conn,
    after: i64,
    upto: i64,
    filter: &EventFilter,
    limit: usize,
) -> StoreResult<Vec<Event>> {
    let body = if filter.without_data { "NULL" } else { "body" };
    let id = id_column(conn.dialect());
    let mut sql = format!(
        "SELECT {id}, type, resource_id, parent_id, created_at, {body} FROM events WHERE {id} > ? AND {id} <= ?"
    );
    let mut args: Vec<Arg> = vec![after.into(), upto.into()];
    if !filter.types.is_empty() {
        sql.push_str(&format!(" AND type IN ({})", marks(filter.types.len())));
        args.extend(filter.types.iter().map(Arg::from));
    }
    if !filter.resource_ids.is_empty() {
        let marks = marks(filter.resource_ids.len());
        let ids = filter.resource_ids.iter().map(Arg::from);
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
    sql.push_str(&format!(" ORDER BY {id} LIMIT ?"));
    args.push(limit.into());
    conn.query(&sql, &args, |row| {
        Ok(Event {
            id: row.take::<i64>(0)?.to_string(),
            event_type: EventType::from(row.take::<String>(1)?.as_str()),
            resource_id: row.take(2)?,
            parent_id: row.take(3)?,
            created_at: Timestamp(row.take(4)?),
            data: row.take::<Option<String>>(5)?.map(raw).transpose()?,
        })
    })
}

/// Forgets events older than `before` (RFC 3339) that no delivery still waits on.
pub fn prune_events(tx: &Tx, before: &str) -> StoreResult<usize> {
    tx.execute(
        "DELETE FROM events WHERE created_at < ?1 AND seq < (SELECT coalesce(min(event_seq), 9223372036854775807) \
         FROM webhook_deliveries WHERE status = 'PENDING')",
        args![before],
    )
}

/// A delivery claimed for one attempt.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub webhook_id: String,
    /// The webhook's stored body (its secrets masked: `secrets::webhook_to_send` opens them).
    pub webhook_body: String,
    pub event: Event,
    /// Attempts made before this one.
    pub attempts: u32,
    /// The alert whose secret signs it, for an alert's webhook (`Kind::AlertWebhook`).
    pub alert_id: Option<String>,
}

/// Claims up to `limit` deliveries due at `now_ms`: each is pushed `lease_ms` into the future,
/// so a sender that dies mid-attempt leaves it to be tried again when the lease runs out.
pub fn claim_due(tx: &Tx, now_ms: i64, lease_ms: i64, limit: usize) -> StoreResult<Vec<Claimed>> {
    let dialect = tx.dialect();
    let id = id_column(dialect);
    // Replicas claim apart: a delivery another one is claiming is passed over, not waited for.
    let (published, skip_locked) = match dialect {
        Dialect::Sqlite => ("", ""),
        Dialect::Postgres => (" AND e.id IS NOT NULL", " FOR UPDATE OF w SKIP LOCKED"),
    };
    let claimed = tx.query(
        &format!(
            "SELECT w.id, w.webhook_id, d.body, w.attempts, e.{id}, e.type, e.resource_id, e.parent_id, e.created_at, e.body, \
             CASE WHEN d.kind = ?4 THEN d.parent_id END \
             FROM webhook_deliveries w JOIN events e ON e.seq = w.event_seq{published} \
             JOIN docs d ON d.kind IN (?3, ?4) AND d.id = w.webhook_id \
             WHERE w.status = 'PENDING' AND w.next_attempt_at <= ?1 ORDER BY w.next_attempt_at, w.seq LIMIT ?2{skip_locked}"
        ),
        args![now_ms, limit, Kind::Webhook.as_str(), Kind::AlertWebhook.as_str()],
        |row| {
            Ok(Claimed {
                delivery_id: row.take(0)?,
                webhook_id: row.take(1)?,
                webhook_body: row.take(2)?,
                attempts: row.take::<i64>(3)?.max(0) as u32,
                event: Event {
                    id: row.take::<i64>(4)?.to_string(),
                    event_type: EventType::from(row.take::<String>(5)?.as_str()),
                    resource_id: row.take(6)?,
                    parent_id: row.take(7)?,
                    created_at: Timestamp(row.take(8)?),
                    data: Some(raw(row.take(9)?)?),
                },
                alert_id: row.take(10)?,
            })
        },
    )?;
    for delivery in &claimed {
        tx.execute(
            "UPDATE webhook_deliveries SET next_attempt_at = ?2 WHERE id = ?1",
            args![&delivery.delivery_id, now_ms + lease_ms],
        )?;
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
pub fn record_attempt(tx: &Tx, claimed: &Claimed, outcome: &AttemptOutcome) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, attempted_at, status_code, error, duration_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        args![
            &claimed.delivery_id,
            &claimed.webhook_id,
            outcome.attempt,
            &outcome.attempted_at.0,
            outcome.response_status.map(i64::from),
            outcome.error.as_deref(),
            outcome.duration_ms,
        ],
    )?;
    tx.execute(
        "UPDATE webhook_deliveries SET status = ?2, attempts = ?3, next_attempt_at = coalesce(?4, next_attempt_at) WHERE id = ?1",
        args![&claimed.delivery_id, outcome.status.as_str(), outcome.attempt, outcome.next_attempt_ms],
    )?;
    Ok(())
}

/// The next time a delivery is due (unix ms), if any is pending.
pub fn next_due(conn: &Conn) -> StoreResult<Option<i64>> {
    Ok(conn
        .value::<Option<i64>>("SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'PENDING'", &[])?
        .flatten())
}

/// A webhook's delivery attempts, newest first: a page after `before` (an attempt's sequence).
pub fn attempts(
    conn: &Conn,
    webhook_id: &str,
    before: Option<i64>,
    limit: u64,
) -> StoreResult<(Vec<(i64, DeliveryAttempt)>, u64)> {
    let total: i64 =
        conn.value("SELECT count(*) FROM webhook_attempts WHERE webhook_id = ?1", args![webhook_id])?.unwrap_or(0);
    let id = id_column(conn.dialect());
    let page = conn.query(
        &format!(
            "SELECT a.seq, a.delivery_id, e.{id}, e.type, a.attempt, a.attempted_at, a.status_code, a.error, a.duration_ms, \
             w.status, w.next_attempt_at \
             FROM webhook_attempts a JOIN webhook_deliveries w ON w.id = a.delivery_id \
             LEFT JOIN events e ON e.seq = w.event_seq \
             WHERE a.webhook_id = ?1 AND a.seq < ?2 ORDER BY a.seq DESC LIMIT ?3"
        ),
        args![webhook_id, before.unwrap_or(i64::MAX), limit],
        |row| {
            let seq: i64 = row.take(0)?;
            let delivery_id = row.take(1)?;
            let event_id = row.take::<Option<i64>>(2)?.map(|s| s.to_string()).unwrap_or_default();
            let event_type = EventType::from(row.take::<Option<String>>(3)?.unwrap_or_default().as_str());
            let attempt = row.take::<i64>(4)?.max(0) as u32;
            let attempted_at = Timestamp(row.take(5)?);
            let response_status = row.take::<Option<i64>>(6)?.map(|s| s as u16);
            let error = row.take(7)?;
            let duration_ms = row.take::<i64>(8)?.max(0) as u64;
            let status = DeliveryStatus::from(row.take::<String>(9)?.as_str());
            let next: i64 = row.take(10)?;
            Ok((
                seq,
                DeliveryAttempt {
                    delivery_id,
                    event_id,
                    event_type,
                    attempt,
                    attempted_at,
                    response_status,
                    error,
                    duration_ms,
                    next_attempt_at: (status == DeliveryStatus::Pending).then(|| timestamp_of_ms(next)),
                    delivery_status: status,
                },
            ))
        },
    )?;
    Ok((page, total.max(0) as u64))
}

/// Drops a deleted webhook's pending deliveries (its attempts stay readable).
pub fn cancel_deliveries(tx: &Tx, webhook_id: &str) -> StoreResult<()> {
    tx.execute(
        "UPDATE webhook_deliveries SET status = 'FAILED' WHERE webhook_id = ?1 AND status = 'PENDING'",
        args![webhook_id],
    )?;
    Ok(())
}

pub fn unix_ms_now() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

pub fn timestamp_of_ms(ms: i64) -> Timestamp {
    Timestamp::from(jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
}

/// A stored event body as the event's `data`, checked to be JSON.
fn raw(body: String) -> StoreResult<Box<serde_json::value::RawValue>> {
    serde_json::value::RawValue::from_string(body)
        .map_err(|e| StoreError::backend(format!("store: an event's body is not JSON: {e}")))
}
