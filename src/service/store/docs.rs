//! Resources as JSON documents in one table, with indexed columns for what lists filter and
//! sort on (kind, status, parent), and the counts and revisions the engine keeps of them.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::db::{Arg, Conn, Dialect, Tx, marks};
use super::error::{StoreError, StoreResult};
use super::{Kind, Stored, members, outbox};
use crate::args;

/// A document to write, with the columns lists use.
#[derive(Debug, Clone)]
pub struct Doc {
    pub kind: Kind,
    pub id: String,
    pub body: String,
    pub status: Option<String>,
    pub parent_id: Option<String>,
    pub created_at: String,
}

impl Doc {
    /// The document that keeps `model`: its kind, id, time, parent and status as the model
    /// says (`Stored`); made now when the model does not say when.
    pub fn of<T: Stored>(model: &T) -> StoreResult<Doc> {
        Ok(Doc {
            kind: T::KIND,
            id: model.id(),
            body: serde_json::to_string(model)?,
            status: model.status_column().map(str::to_owned),
            parent_id: model.parent_id(),
            created_at: model.created_at().unwrap_or_else(|| crate::api::model::Timestamp::now().0),
        })
    }

    /// A document assembled by hand: for values that are not a model (seed JSON, a config
    /// record) and for tests.
    pub fn new<T: Serialize>(
        kind: Kind,
        id: impl ToString,
        value: &T,
        created_at: impl Into<String>,
    ) -> StoreResult<Doc> {
        Ok(Doc {
            kind,
            id: id.to_string(),
            body: serde_json::to_string(value)?,
            status: None,
            parent_id: None,
            created_at: created_at.into(),
        })
    }

    pub fn status(mut self, status: Option<&str>) -> Self {
        self.status = status.map(str::to_owned);
        self
    }

    pub fn parent(mut self, parent_id: Option<&str>) -> Self {
        self.parent_id = parent_id.map(str::to_owned);
        self
    }
}

/// One page of raw JSON documents, newest first.
pub struct Page {
    pub bodies: Vec<String>,
    pub total: u64,
    pub next_cursor: Option<String>,
    /// The page size asked for.
    pub limit: u64,
}

/// Which documents a list returns.
#[derive(Default)]
pub struct Filter<'a> {
    pub status: Option<&'a str>,
    pub parent_id: Option<&'a str>,
    /// Extra conditions: the member at a path (`$.slug`) equals a value.
    pub fields: Vec<(&'a str, String)>,
    /// A time window on a timestamp member: `(path, from inclusive, to exclusive)`.
    pub window: Option<(&'a str, Option<String>, Option<String>)>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
}

/// Reads one live document (in a write, claiming it: see `Conn::row_lock`).
pub fn get_raw(conn: &Conn, kind: Kind, id: &str) -> StoreResult<Option<String>> {
    conn.value(
        &format!("SELECT body FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL{}", conn.row_lock()),
        args![kind.as_str(), id],
    )
}

/// The stored bodies of a parent's children of `kind`, in the order they were made.
pub fn children_raw(conn: &Conn, kind: Kind, parent_id: &str) -> StoreResult<Vec<String>> {
    conn.query(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND deleted_at IS NULL ORDER BY seq",
        args![kind.as_str(), parent_id],
        |r| r.take(0),
    )
}

/// A run plan job's simulations counted by status (from the counts triggers keep, not the
/// documents) and by outcome: `by_outcome` when the job's tally kept it, else counted from the
/// documents.
pub fn simulation_counts(
    conn: &Conn,
    job_id: &str,
    by_outcome: Option<std::collections::BTreeMap<String, u64>>,
) -> StoreResult<crate::api::model::SimulationCounts> {
    let kind = Kind::SimulationJob.as_str();
    let mut counts = crate::api::model::SimulationCounts::default();
    let rows = conn.query(
        "SELECT status, CAST(sum(live) AS BIGINT) FROM child_counts WHERE parent_id = ?1 AND kind = ?2 \
         GROUP BY status HAVING sum(live) > 0",
        args![job_id, kind],
        |r| Ok((r.take::<String>(0)?, r.take::<i64>(1)?)),
    )?;
    for (status, n) in rows {
        counts.total += n.max(0) as u64;
        *counts.by_status.entry(status).or_default() += n.max(0) as u64;
    }
    counts.by_outcome = match by_outcome {
        Some(by_outcome) => by_outcome,
        None => {
            let outcome = conn.dialect().member("body", "$.outcome")?;
            conn.query(
                &format!(
                    "SELECT {outcome}, count(*) FROM docs WHERE kind = ?1 AND parent_id = ?2 AND {outcome} IS NOT NULL \
                     GROUP BY {outcome}"
                ),
                args![kind, job_id],
                |r| Ok((r.take::<String>(0)?, r.take::<i64>(1)?.max(0) as u64)),
            )?
            .into_iter()
            .collect()
        }
    };
    Ok(counts)
}

/// How many live documents of `kind` under `parent_id` are in one of `statuses` (any status
/// when `statuses` is empty), from the counts triggers keep: no child is read.
pub fn count_children(conn: &Conn, kind: Kind, parent_id: &str, statuses: &[&str]) -> StoreResult<u64> {
    let mut sql = String::from(
        "SELECT CAST(coalesce(sum(live), 0) AS BIGINT) FROM child_counts WHERE parent_id = ? AND kind = ?",
    );
    if !statuses.is_empty() {
        sql.push_str(&format!(" AND status IN ({})", marks(statuses.len())));
    }
    let args: Vec<Arg> =
        [parent_id, kind.as_str()].into_iter().chain(statuses.iter().copied()).map(Arg::from).collect();
    let count: i64 = conn.value(&sql, &args)?.unwrap_or(0);
    Ok(count.max(0) as u64)
}

/// A number that grows with every committed write to any child of `parent_id` (counted by
/// triggers, in shards on PostgreSQL), so a read made of a parent and its children can be
/// tagged without reading the children.
pub fn child_revision(conn: &Conn, parent_id: &str) -> StoreResult<i64> {
    Ok(conn
        .value::<Option<i64>>(
            "SELECT CAST(sum(revision) AS BIGINT) FROM child_revisions WHERE parent_id = ?1",
            args![parent_id],
        )?
        .flatten()
        .unwrap_or(0))
}

/// Up to `limit` live children of `kind` under `parent_id` after sequence `after`, in the
/// order they were made: `(seq, body)`. Walking these pages reads a parent with any number of
/// children in bounded memory.
pub fn children_after_raw(
    conn: &Conn,
    kind: Kind,
    parent_id: &str,
    after: i64,
    limit: usize,
) -> StoreResult<Vec<(i64, String)>> {
    conn.query(
        "SELECT seq, body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND deleted_at IS NULL AND seq > ?3 \
         ORDER BY seq LIMIT ?4",
        args![kind.as_str(), parent_id, after, limit],
        |r| Ok((r.take(0)?, r.take(1)?)),
    )
}

/// The documents of `kind` in one of `statuses`, oldest first: `(id, parent_id, body)`.
pub fn in_status(conn: &Conn, kind: Kind, statuses: &[&str]) -> StoreResult<Vec<(String, Option<String>, String)>> {
    let sql = format!(
        "SELECT id, parent_id, body FROM docs WHERE kind = ? AND status IN ({}) AND deleted_at IS NULL ORDER BY seq",
        marks(statuses.len())
    );
    let args: Vec<Arg> = std::iter::once(kind.as_str()).chain(statuses.iter().copied()).map(Arg::from).collect();
    conn.query(&sql, &args, |r| Ok((r.take(0)?, r.take(1)?, r.take(2)?)))
}

/// The ids and parents of the documents of `kind` in one of `statuses`, oldest first.
pub fn ids_in_status(conn: &Conn, kind: Kind, statuses: &[&str]) -> StoreResult<Vec<(String, Option<String>)>> {
    let sql = format!(
        "SELECT id, parent_id FROM docs WHERE kind = ? AND status IN ({}) AND deleted_at IS NULL ORDER BY seq",
        marks(statuses.len())
    );
    let args: Vec<Arg> = std::iter::once(kind.as_str()).chain(statuses.iter().copied()).map(Arg::from).collect();
    conn.query(&sql, &args, |r| Ok((r.take(0)?, r.take(1)?)))
}

/// The first `limit` documents of `kind` under `parent_id` in `status`, oldest first.
pub fn children_in_status_raw(
    conn: &Conn,
    kind: Kind,
    parent_id: &str,
    status: &str,
    limit: usize,
) -> StoreResult<Vec<String>> {
    conn.query(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 AND deleted_at IS NULL \
         ORDER BY seq LIMIT ?4",
        args![kind.as_str(), parent_id, status, limit],
        |r| r.take(0),
    )
}

/// The newest live document of `kind` whose member at any of `paths` equals `value` (a call
/// by either of its numbers, say).
pub fn newest_by_any(conn: &Conn, kind: Kind, paths: &[&str], value: &str) -> StoreResult<Option<String>> {
    let dialect = conn.dialect();
    let matches = paths
        .iter()
        .map(|path| Ok(format!("{} = ?", dialect.member("body", path)?)))
        .collect::<StoreResult<Vec<_>>>()?
        .join(" OR ");
    let sql = format!(
        "SELECT body FROM docs WHERE kind = ? AND deleted_at IS NULL AND ({matches}) ORDER BY seq DESC LIMIT 1"
    );
    let args: Vec<Arg> = std::iter::once(kind.as_str()).chain(paths.iter().map(|_| value)).map(Arg::from).collect();
    conn.value(&sql, &args)
}

/// Reads and decodes one live document.
pub fn get<T: DeserializeOwned>(conn: &Conn, kind: Kind, id: &str) -> StoreResult<Option<T>> {
    match get_raw(conn, kind, id)? {
        Some(body) => Ok(Some(serde_json::from_str(&body)?)),
        None => Ok(None),
    }
}

/// Reads one live document or answers 404.
pub fn require<T: DeserializeOwned>(conn: &Conn, kind: Kind, id: &str) -> StoreResult<T> {
    get(conn, kind, id)?.ok_or_else(|| StoreError::not_found(kind, id))
}

/// Every live document of `kind` under `parent_id`, in the order they were written.
pub fn children<T: DeserializeOwned>(conn: &Conn, kind: Kind, parent_id: &str) -> StoreResult<Vec<T>> {
    children_raw(conn, kind, parent_id)?.iter().map(|body| Ok(serde_json::from_str(body)?)).collect()
}

/// Finds a live document by a member's value (a slug, say).
pub fn find_by<T: DeserializeOwned>(conn: &Conn, kind: Kind, path: &str, value: &str) -> StoreResult<Option<T>> {
    let member = conn.dialect().member("body", path)?;
    let body: Option<String> = conn.value(
        &format!("SELECT body FROM docs WHERE kind = ?1 AND deleted_at IS NULL AND {member} = ?2 ORDER BY seq LIMIT 1"),
        args![kind.as_str(), value],
    )?;
    body.map(|b| serde_json::from_str(&b).map_err(StoreError::from)).transpose()
}

/// The ids of the first `limit` live documents of `kind` whose text member at `path` is `value`
/// (a member missing or null reads as empty text), oldest first: no body is read out.
pub fn ids_where(conn: &Conn, kind: Kind, path: &str, value: &str, limit: usize) -> StoreResult<Vec<String>> {
    let member = conn.dialect().member("body", path)?;
    conn.query(
        &format!(
            "SELECT id FROM docs WHERE kind = ?1 AND deleted_at IS NULL AND coalesce({member}, '') = ?2 \
             ORDER BY seq LIMIT ?3"
        ),
        args![kind.as_str(), value, limit],
        |r| r.take(0),
    )
}

/// Every live document of a kind, oldest first.
pub fn all<T: DeserializeOwned>(conn: &Conn, kind: Kind) -> StoreResult<Vec<T>> {
    let bodies: Vec<String> = conn.query(
        "SELECT body FROM docs WHERE kind = ?1 AND deleted_at IS NULL ORDER BY seq",
        args![kind.as_str()],
        |r| r.take(0),
    )?;
    bodies.iter().map(|body| Ok(serde_json::from_str(body)?)).collect()
}

/// The documents of a kind under one parent with one status, oldest first.
pub fn children_with_status<T: DeserializeOwned>(
    conn: &Conn,
    kind: Kind,
    parent_id: &str,
    status: &str,
) -> StoreResult<Vec<T>> {
    let bodies: Vec<String> = conn.query(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 AND deleted_at IS NULL ORDER BY seq",
        args![kind.as_str(), parent_id, status],
        |r| r.take(0),
    )?;
    bodies.iter().map(|body| Ok(serde_json::from_str(body)?)).collect()
}

/// One page of live documents, newest first (or oldest first), after `cursor` (an opaque
/// sequence number).
pub fn list(conn: &Conn, kind: Kind, filter: &Filter, cursor: Option<&str>, limit: u64) -> StoreResult<Page> {
    let dialect = conn.dialect();
    let start = if filter.oldest_first { 0 } else { i64::MAX };
    let before: i64 = match cursor {
        None | Some("") => start,
        Some(text) => {
            // Issued cursors are `c<seq>` with a sequence number this store has handed out.
            let issued: i64 = conn.value::<Option<i64>>("SELECT max(seq) FROM docs", &[])?.flatten().unwrap_or(0);
            text.strip_prefix("c")
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<i64>().ok())
                .filter(|n| (1..=issued).contains(n))
                .ok_or(StoreError::BadCursor)?
        }
    };
    let mut clause = String::from("kind = ? AND deleted_at IS NULL");
    let mut args: Vec<Arg> = vec![kind.as_str().into()];
    if let Some(status) = filter.status {
        clause.push_str(" AND status = ?");
        args.push(status.into());
    }
    if let Some(parent) = filter.parent_id {
        clause.push_str(" AND parent_id = ?");
        args.push(parent.into());
    }
    for (path, value) in &filter.fields {
        clause.push_str(&format!(" AND {} = ?", dialect.member("body", path)?));
        args.push(value.into());
    }
    if let Some((path, from, to)) = &filter.window {
        let at = instant_of(dialect, &dialect.member("body", path)?);
        for (bound, op) in [(from, ">="), (to, "<")] {
            if let Some(bound) = bound {
                clause.push_str(&format!(" AND {at} {op} {}", instant_of_argument(dialect)));
                args.push(bound.into());
            }
        }
    }
    let total: i64 = match (filter.parent_id, filter.fields.is_empty() && filter.window.is_none()) {
        // Counted as documents are written (triggers keep `doc_counts` and `child_counts`): no
        // scan per page.
        (None, true) => conn.value(
            "SELECT CAST(coalesce(sum(live), 0) AS BIGINT) FROM doc_counts \
             WHERE kind = ?1 AND (CAST(?2 AS TEXT) IS NULL OR status = ?2)",
            args![kind.as_str(), filter.status],
        )?,
        (Some(parent), true) => conn.value(
            "SELECT CAST(coalesce(sum(live), 0) AS BIGINT) FROM child_counts \
             WHERE parent_id = ?1 AND kind = ?2 AND (CAST(?3 AS TEXT) IS NULL OR status = ?3)",
            args![parent, kind.as_str(), filter.status],
        )?,
        _ => conn.value(&format!("SELECT COUNT(*) FROM docs WHERE {clause}"), &args)?,
    }
    .unwrap_or(0);
    let mut page_args = args.clone();
    page_args.push(before.into());
    page_args.push((limit as i64 + 1).into());
    let sql = format!(
        "SELECT seq, body FROM docs WHERE {clause} AND seq {} ? ORDER BY seq {} LIMIT ?",
        if filter.oldest_first { ">" } else { "<" },
        if filter.oldest_first { "ASC" } else { "DESC" }
    );
    let mut rows: Vec<(i64, String)> = conn.query(&sql, &page_args, |r| Ok((r.take(0)?, r.take(1)?)))?;
    let has_more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = if has_more { rows.last().map(|(seq, _)| format!("c{seq}")) } else { None };
    let bodies = rows.into_iter().map(|(_, body)| without_internal(kind, body)).collect::<StoreResult<_>>()?;
    Ok(Page { bodies, total: total as u64, next_cursor, limit })
}

/// An RFC 3339 member as a comparable instant. RFC 3339 allows a lower-case `t`/`z` and a leap
/// second, which SQLite's date functions do not read: it is upper-cased and second 60 read as
/// 59. PostgreSQL reads them; `sb_instant` (a migration's) makes a malformed one NULL.
fn instant_of(dialect: Dialect, member: &str) -> String {
    match dialect {
        Dialect::Sqlite => {
            let at = format!("upper({member})");
            format!(
                "julianday(CASE WHEN substr({at}, 18, 2) = '60' THEN substr({at}, 1, 17) || '59' || substr({at}, 20) ELSE {at} END)"
            )
        }
        Dialect::Postgres => format!("sb_instant({member})"),
    }
}

/// A bound argument as an instant, to compare with `instant_of`.
fn instant_of_argument(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "julianday(?)",
        Dialect::Postgres => "sb_instant(?)",
    }
}

/// A stored body as callers see it: the engines' own members removed.
pub fn without_internal(kind: Kind, body: String) -> StoreResult<String> {
    if kind.internal_members().is_empty() {
        return Ok(body);
    }
    let mut value: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&body)?;
    for member in kind.internal_members() {
        value.remove(*member);
    }
    Ok(serde_json::to_string(&value)?)
}

/// Inserts a new document, with the event its status announces.
pub fn insert(tx: &Tx, doc: &Doc) -> StoreResult<()> {
    insert_row(tx, doc)?;
    announce(tx, doc, None)
}

/// `insert`'s row, without the event.
pub(super) fn insert_row(tx: &Tx, doc: &Doc) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![doc.kind.as_str(), &doc.id, &doc.body, doc.status.as_deref(), doc.parent_id.as_deref(), &doc.created_at],
    )?;
    Ok(())
}

/// Replaces a document's body and columns, keeping its place in lists, with the event a
/// change of status announces.
pub fn update(tx: &Tx, doc: &Doc) -> StoreResult<()> {
    if tx.dialect() == Dialect::Postgres {
        return update_in_one(tx, doc);
    }
    let before = rewrite(tx, doc)?;
    announce(tx, doc, Some(before.as_deref()))
}

/// `update`'s row on SQLite, without the event: the status it had.
pub(super) fn rewrite(tx: &Tx, doc: &Doc) -> StoreResult<Option<String>> {
    let before = tx.query_row(
        "SELECT status, parent_id FROM docs WHERE kind = ?1 AND id = ?2",
        args![doc.kind.as_str(), &doc.id],
        |r| Ok((r.take::<Option<String>>(0)?, r.take::<Option<String>>(1)?)),
    )?;
    let Some((before, parent)) = before else { return Err(StoreError::not_found(doc.kind, &doc.id)) };
    if before == doc.status && parent == doc.parent_id {
        // Most rewrites (a simulation's progress, a job's tally) keep the columns: setting only
        // the body leaves the status and parent indexes and their counts untouched.
        tx.execute(
            "UPDATE docs SET body = ?3 WHERE kind = ?1 AND id = ?2",
            args![doc.kind.as_str(), &doc.id, &doc.body],
        )?;
    } else {
        tx.execute(
            "UPDATE docs SET body = ?3, status = ?4, parent_id = ?5 WHERE kind = ?1 AND id = ?2",
            args![doc.kind.as_str(), &doc.id, &doc.body, doc.status.as_deref(), doc.parent_id.as_deref()],
        )?;
    }
    Ok(before)
}

/// `update` in one round trip on PostgreSQL: the row is claimed and its columns read as it is
/// written (its triggers move the counts only when a column changes).
fn update_in_one(tx: &Tx, doc: &Doc) -> StoreResult<()> {
    let before = tx.query_row(
        "UPDATE docs d SET body = ?3, status = ?4, parent_id = ?5 \
         FROM (SELECT status, parent_id FROM docs WHERE kind = ?1 AND id = ?2 FOR UPDATE) old \
         WHERE d.kind = ?1 AND d.id = ?2 RETURNING old.status",
        args![doc.kind.as_str(), &doc.id, &doc.body, doc.status.as_deref(), doc.parent_id.as_deref()],
        |r| r.take::<Option<String>>(0),
    )?;
    let Some(before) = before else { return Err(StoreError::not_found(doc.kind, &doc.id)) };
    announce(tx, doc, Some(before.as_deref()))
}

/// Sets top-level members of a document's body to JSON texts, the rest of the body kept as
/// it is, in its order (SQLite's `json_set` in place; on PostgreSQL the body is read, spliced
/// and written back), for a few members of a large document rewritten often (a job's tally at
/// every simulation's end). Never a member a column mirrors (the status, the parent): those
/// change through `update`, which keeps the columns and announces the event.
pub fn set_members(tx: &Tx, kind: Kind, id: &str, members: &[(&str, String)]) -> StoreResult<()> {
    debug_assert!(members.iter().all(|(path, _)| *path != "$.status"), "a status changes through `update`");
    let changed = match tx.dialect() {
        Dialect::Sqlite => {
            let sets: Vec<String> =
                (0..members.len()).map(|i| format!("?{}, json(?{})", 3 + 2 * i, 4 + 2 * i)).collect();
            let sql = format!("UPDATE docs SET body = json_set(body, {}) WHERE kind = ?1 AND id = ?2", sets.join(", "));
            let mut values: Vec<Arg> = vec![kind.as_str().into(), id.into()];
            for (path, json) in members {
                values.push((*path).into());
                values.push(json.into());
            }
            tx.execute(&sql, &values)?
        }
        Dialect::Postgres => {
            let body: Option<String> =
                tx.value("SELECT body FROM docs WHERE kind = ?1 AND id = ?2 FOR UPDATE", args![kind.as_str(), id])?;
            match body {
                None => 0,
                Some(body) => {
                    let spliced = members::set(&body, members)?;
                    tx.execute(
                        "UPDATE docs SET body = ?3 WHERE kind = ?1 AND id = ?2",
                        args![kind.as_str(), id, &spliced],
                    )?
                }
            }
        }
    };
    if changed == 0 {
        return Err(StoreError::not_found(kind, id));
    }
    Ok(())
}

/// One member of a live document's body as JSON text; `None` without the document or the
/// member. In a write, the document is claimed (see `Conn::row_lock`): the member is about to
/// be set.
pub fn member(conn: &Conn, kind: Kind, id: &str, path: &str) -> StoreResult<Option<String>> {
    read_member(conn, kind, id, path, conn.row_lock())
}

/// The same without claiming the document, for a member that never changes (a job's plan).
pub fn peek_member(conn: &Conn, kind: Kind, id: &str, path: &str) -> StoreResult<Option<String>> {
    read_member(conn, kind, id, path, "")
}

fn read_member(conn: &Conn, kind: Kind, id: &str, path: &str, lock: &str) -> StoreResult<Option<String>> {
    let sql = match conn.dialect() {
        Dialect::Sqlite => {
            format!("SELECT body -> ?3 FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL{lock}")
        }
        Dialect::Postgres => format!(
            "SELECT (body #> string_to_array(substr(?3, 3), '.'))::text FROM docs \
             WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL{lock}"
        ),
    };
    Ok(conn.value::<Option<String>>(&sql, args![kind.as_str(), id, path])?.flatten())
}

/// Appends to the outbox the event a document's change of status announces, if any.
pub(super) fn announce(tx: &Tx, doc: &Doc, before: Option<Option<&str>>) -> StoreResult<()> {
    use crate::service::webhooks::status_events;
    match status_events::event_for(doc.kind, before, doc.status.as_deref()) {
        Some(event) => outbox::append(tx, &event, doc, status_events::alert_of(doc.kind, &doc.body).as_deref()),
        None => Ok(()),
    }
}

/// Hides a document from every read, keeping the record.
pub fn soft_delete(tx: &Tx, kind: Kind, id: &str, at: &str) -> StoreResult<bool> {
    let changed = tx.execute(
        "UPDATE docs SET deleted_at = ?3 WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL",
        args![kind.as_str(), id, at],
    )?;
    Ok(changed > 0)
}

/// A document's status column (in a write, claiming the document: see `Conn::row_lock`; a job
/// whose status is read to decide what to write is one no other write may change meanwhile).
pub fn status(conn: &Conn, kind: Kind, id: &str) -> StoreResult<Option<String>> {
    Ok(conn
        .value::<Option<String>>(
            &format!("SELECT status FROM docs WHERE kind = ?1 AND id = ?2{}", conn.row_lock()),
            args![kind.as_str(), id],
        )?
        .flatten())
}

/// The same without claiming the document: for a status read to check, not to decide a change
/// of the document itself (whether a simulation's job is still open as the simulation starts).
pub fn peek_status(conn: &Conn, kind: Kind, id: &str) -> StoreResult<Option<String>> {
    Ok(conn
        .value::<Option<String>>("SELECT status FROM docs WHERE kind = ?1 AND id = ?2", args![kind.as_str(), id])?
        .flatten())
}

/// Whether a live document exists.
pub fn exists(conn: &Conn, kind: Kind, id: &str) -> StoreResult<bool> {
    conn.exists("SELECT 1 FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL", args![kind.as_str(), id])
}

pub fn meta(conn: &Conn, key: &str) -> StoreResult<Option<String>> {
    conn.value("SELECT value FROM meta WHERE key = ?1", args![key])
}

pub fn set_meta(tx: &Tx, key: &str, value: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        args![key, value],
    )?;
    Ok(())
}
