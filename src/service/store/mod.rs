//! The local service's store: SQLite (bundled) in WAL mode. Resources are JSON documents in
//! one table, with indexed columns for what lists filter and sort on.

mod checkpoint;
mod group_commit;
pub mod knowledge;
mod migrations;
pub mod outbox;
pub mod scores;
pub mod transcripts;
pub mod values;
pub mod versions;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use migrations::SCHEMA_VERSION;

use super::error::{ServiceError, ServiceResult};

/// The kinds of document kept in `docs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Agent,
    AgentEndpoint,
    HttpRequestDefinition,
    Persona,
    CustomerFlow,
    MetricDefinition,
    MetricPolicy,
    CollectionJob,
    Call,
    Chat,
    Issue,
    KnowledgeBase,
    RunPlan,
    RunPlanJob,
    SimulationJob,
    BenchmarkSuite,
    BenchmarkTarget,
    Annotation,
    Webhook,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Agent => "agent",
            Kind::AgentEndpoint => "agent_endpoint",
            Kind::HttpRequestDefinition => "http_request_definition",
            Kind::Persona => "persona",
            Kind::CustomerFlow => "customer_flow",
            Kind::MetricDefinition => "metric_definition",
            Kind::MetricPolicy => "metric_policy",
            Kind::CollectionJob => "collection_job",
            Kind::Call => "call",
            Kind::Chat => "chat",
            Kind::Issue => "issue",
            Kind::KnowledgeBase => "knowledge_base",
            Kind::RunPlan => "run_plan",
            Kind::RunPlanJob => "run_plan_job",
            Kind::SimulationJob => "simulation_job",
            Kind::BenchmarkSuite => "benchmark_suite",
            Kind::BenchmarkTarget => "benchmark_target",
            Kind::Annotation => "metric_value_annotation",
            Kind::Webhook => "webhook",
        }
    }

    /// Members kept in the stored document for the engines, never sent to callers.
    pub fn internal_members(self) -> &'static [&'static str] {
        match self {
            Kind::RunPlanJob => &["plan", "variables", "tally", "replay"],
            Kind::CollectionJob => &["request"],
            Kind::Webhook => &["signingSecret"],
            _ => &[],
        }
    }

    /// How the resource is named in messages ("no persona …").
    pub fn label(self) -> &'static str {
        match self {
            Kind::Agent => "agent",
            Kind::AgentEndpoint => "agent endpoint",
            Kind::HttpRequestDefinition => "HTTP request definition",
            Kind::Persona => "persona",
            Kind::CustomerFlow => "customer flow",
            Kind::MetricDefinition => "metric definition",
            Kind::MetricPolicy => "metric policy",
            Kind::CollectionJob => "metric collection job",
            Kind::Call => "call",
            Kind::Chat => "chat",
            Kind::Issue => "issue",
            Kind::KnowledgeBase => "knowledge base",
            Kind::RunPlan => "run plan",
            Kind::RunPlanJob => "run plan job",
            Kind::SimulationJob => "simulation job",
            Kind::BenchmarkSuite => "benchmark suite",
            Kind::BenchmarkTarget => "benchmark target",
            Kind::Annotation => "metric value annotation",
            Kind::Webhook => "webhook",
        }
    }
}

/// A document to write, with the columns lists use.
pub struct Doc {
    pub kind: Kind,
    pub id: String,
    pub body: String,
    pub status: Option<String>,
    pub parent_id: Option<String>,
    pub created_at: String,
}

impl Doc {
    pub fn new<T: Serialize>(
        kind: Kind,
        id: impl ToString,
        value: &T,
        created_at: impl Into<String>,
    ) -> ServiceResult<Doc> {
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
    /// Extra `json_extract(body, path) = value` conditions.
    pub fields: Vec<(&'a str, String)>,
    /// A time window on a timestamp member: `(path, from inclusive, to exclusive)`.
    pub window: Option<(&'a str, Option<String>, Option<String>)>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
}

/// The store: one writer connection, a few readers (WAL lets them read while it writes).
#[derive(Clone)]
pub struct Store {
    /// Handed over fairly (`parking_lot`): a caller's synced write waiting for it goes next,
    /// rather than behind the progress writer taking it again batch after batch.
    writer: Arc<parking_lot::Mutex<Writer>>,
    readers: Arc<Vec<Mutex<Connection>>>,
    /// Keeps the checkpoint thread going; it stops when the last clone of the store is dropped.
    _checkpointer: Arc<checkpoint::Running>,
    /// Engine progress waiting to be committed with the next batch.
    progress: Arc<group_commit::Queue>,
    /// Keeps the thread that commits the progress going, while any clone of the store lives.
    _progress_writer: Arc<group_commit::Running>,
    /// The newest committed event's id, for streams and senders to wait on.
    events: Arc<tokio::sync::watch::Sender<i64>>,
}

const READERS: usize = 4;

impl Store {
    pub fn open(path: &Path) -> rusqlite::Result<Store> {
        let mut writer = Connection::open(path)?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        writer.pragma_update(None, "synchronous", "FULL")?;
        writer.pragma_update(None, "foreign_keys", "ON")?;
        // A write's undo pages (statement journals, savepoints) stay in memory, not a temp file.
        writer.pragma_update(None, "temp_store", "MEMORY")?;
        // A thread of its own checkpoints (`checkpoint`); the writer only if that one falls
        // 40 MB of log behind.
        writer.pragma_update(None, "wal_autocheckpoint", checkpoint::WRITER_FALLBACK_PAGES)?;
        // A log that grew while readers held it back is cut back to this after a checkpoint.
        writer.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
        writer.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations::migrate(&mut writer)?;
        let readers = (0..READERS)
            .map(|_| {
                let conn = Connection::open(path)?;
                conn.busy_timeout(std::time::Duration::from_secs(5))?;
                Ok(Mutex::new(conn))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let last = outbox::last_event(&writer).map_err(|e| rusqlite::Error::InvalidParameterName(e.body.message))?;
        let events = Arc::new(tokio::sync::watch::channel(last).0);
        let writer = Arc::new(parking_lot::Mutex::new(Writer { conn: writer, durability: Durability::Synced }));
        let checkpointer = Arc::new(checkpoint::spawn(path)?);
        let progress = Arc::<group_commit::Queue>::default();
        let progress_writer = {
            let (writer, events) = (writer.clone(), events.clone());
            group_commit::spawn(progress.clone(), move |queue| commit_progress(&writer, queue, &events))
                .map_err(|e| rusqlite::Error::InvalidParameterName(format!("progress writer thread: {e}")))?
        };
        Ok(Store {
            writer,
            readers: Arc::new(readers),
            progress,
            _progress_writer: Arc::new(progress_writer),
            events,
            _checkpointer: checkpointer,
        })
    }

    /// The newest committed event's id, changing as events commit.
    pub fn events(&self) -> tokio::sync::watch::Receiver<i64> {
        self.events.subscribe()
    }

    /// Runs `f` on a reader connection, off the async threads.
    pub async fn read<R, F>(&self, f: F) -> ServiceResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&Connection) -> ServiceResult<R> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let guard = store
                .readers
                .iter()
                .find_map(|reader| reader.try_lock().ok())
                .unwrap_or_else(|| store.readers[0].lock().unwrap_or_else(|e| e.into_inner()));
            f(&guard)
        })
        .await
        .map_err(ServiceError::internal)?
    }

    /// Runs `f` in one write transaction: it all commits, or none of it does, and it is on disk
    /// before this returns.
    pub async fn write<R, F>(&self, f: F) -> ServiceResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&Transaction) -> ServiceResult<R> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_blocking(f)).await.map_err(ServiceError::internal)?
    }

    /// The same for an engine's progress, which its recovery redoes after a crash: committed
    /// (safe from the process dying) without waiting for the disk, which the next synced write
    /// or checkpoint flushes. A power cut may lose the last moments of progress, never a
    /// caller's write, and never half of a transaction. Progress queued while the writer is
    /// busy commits in one batch (`group_commit`); this returns once its batch has committed.
    pub async fn write_progress<R, F>(&self, f: F) -> ServiceResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&Transaction) -> ServiceResult<R> + Send + 'static,
    {
        // The answer is this write's own, whichever batch carried it.
        self.progress.push(f).await.unwrap_or_else(|_| Err(group_commit::not_committed()))
    }

    /// A synced write, for callers already off the async threads (seeding, engines).
    pub fn write_blocking<R>(&self, f: impl FnOnce(&Transaction) -> ServiceResult<R>) -> ServiceResult<R> {
        let mut writer = self.writer.lock();
        writer.durable(Durability::Synced)?;
        // IMMEDIATE: the write lock is taken at the start, never upgraded from a read.
        let tx = writer.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let result = f(&tx)?;
        tx.commit()?;
        announce_events(&self.events, &writer.conn);
        Ok(result)
    }
}

/// Leads a batch of progress (on the progress writer's thread): commits whatever is queued,
/// then hands the writer to a synced write waiting for it, if any.
fn commit_progress(
    writer: &parking_lot::Mutex<Writer>,
    queue: &group_commit::Queue,
    events: &tokio::sync::watch::Sender<i64>,
) {
    let mut writer = writer.lock();
    let batch = queue.take();
    if batch.is_empty() {
        return; // defensive: the one leader takes only after a write has queued
    }
    match writer.durable(Durability::Progress) {
        // On failure the batch is dropped and its callers hear that it was not committed.
        Err(e) => tracing::error!("store: setting progress durability: {e}"),
        Ok(()) => {
            group_commit::commit(&mut writer.conn, batch);
            announce_events(events, &writer.conn);
        }
    }
    parking_lot::MutexGuard::unlock_fair(writer);
}

/// Wakes the event streams and the webhook sender when a write appended events.
fn announce_events(events: &tokio::sync::watch::Sender<i64>, conn: &Connection) {
    if let Ok(last) = outbox::last_event(conn) {
        events.send_if_modified(|seen| std::mem::replace(seen, last) != last);
    }
}

/// Whether a write waits for the disk before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    Synced,
    Progress,
}

/// The one connection that writes, and the sync mode it is in.
struct Writer {
    conn: Connection,
    durability: Durability,
}

impl Writer {
    /// Puts the connection in `durability`'s sync mode. WAL mode: FULL syncs the log at each
    /// commit, NORMAL only at checkpoints.
    fn durable(&mut self, durability: Durability) -> rusqlite::Result<()> {
        if self.durability != durability {
            let mode = if durability == Durability::Synced { "FULL" } else { "NORMAL" };
            self.conn.pragma_update(None, "synchronous", mode)?;
            self.durability = durability;
        }
        Ok(())
    }
}

/// Reads one live document.
pub fn get_raw(conn: &Connection, kind: Kind, id: &str) -> ServiceResult<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT body FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL",
            params![kind.as_str(), id],
            |row| row.get(0),
        )
        .optional()?)
}

/// The stored bodies of a parent's children of `kind`, in the order they were made.
pub fn children_raw(conn: &Connection, kind: Kind, parent_id: &str) -> ServiceResult<Vec<String>> {
    let mut statement = conn.prepare_cached(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND deleted_at IS NULL ORDER BY seq",
    )?;
    let bodies = statement.query_map(params![kind.as_str(), parent_id], |r| r.get(0))?;
    Ok(bodies.collect::<rusqlite::Result<_>>()?)
}

/// A run plan job's simulations counted by status (from the counts triggers keep, not the
/// documents) and by outcome: `by_outcome` when the job's tally kept it, else counted from the
/// documents.
pub fn simulation_counts(
    conn: &Connection,
    job_id: &str,
    by_outcome: Option<std::collections::BTreeMap<String, u64>>,
) -> ServiceResult<crate::api::model::SimulationCounts> {
    let kind = Kind::SimulationJob.as_str();
    let mut counts = crate::api::model::SimulationCounts::default();
    let mut statement =
        conn.prepare_cached("SELECT status, live FROM child_counts WHERE parent_id = ?1 AND kind = ?2 AND live > 0")?;
    let rows = statement.query_map(params![job_id, kind], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    for row in rows {
        let (status, n) = row?;
        counts.total += n.max(0) as u64;
        *counts.by_status.entry(status).or_default() += n.max(0) as u64;
    }
    counts.by_outcome = match by_outcome {
        Some(by_outcome) => by_outcome,
        None => {
            let mut statement = conn.prepare_cached(
                "SELECT json_extract(body, '$.outcome'), count(*) FROM docs \
                 WHERE kind = ?1 AND parent_id = ?2 AND json_extract(body, '$.outcome') IS NOT NULL GROUP BY 1",
            )?;
            let rows =
                statement.query_map(params![kind, job_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
            rows.map(|row| row.map(|(outcome, n)| (outcome, n.max(0) as u64))).collect::<rusqlite::Result<_>>()?
        }
    };
    Ok(counts)
}

/// `?, ?, …` for `n` values of an `IN` list.
fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

/// How many live documents of `kind` under `parent_id` are in one of `statuses` (any status
/// when `statuses` is empty), from the counts triggers keep: no child is read.
pub fn count_children(conn: &Connection, kind: Kind, parent_id: &str, statuses: &[&str]) -> ServiceResult<u64> {
    let mut sql = String::from("SELECT coalesce(sum(live), 0) FROM child_counts WHERE parent_id = ? AND kind = ?");
    if !statuses.is_empty() {
        sql.push_str(&format!(" AND status IN ({})", marks(statuses.len())));
    }
    let args = [parent_id, kind.as_str()].into_iter().chain(statuses.iter().copied());
    let count: i64 = conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(args), |r| r.get(0))?;
    Ok(count.max(0) as u64)
}

/// A number that moves whenever any child of `parent_id` is written (kept by triggers), so a
/// read made of a parent and its children can be tagged without reading the children.
pub fn child_revision(conn: &Connection, parent_id: &str) -> ServiceResult<i64> {
    Ok(conn
        .prepare_cached("SELECT revision FROM child_revisions WHERE parent_id = ?1")?
        .query_row(params![parent_id], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Up to `limit` live children of `kind` under `parent_id` after sequence `after`, in the
/// order they were made: `(seq, body)`. Walking these pages reads a parent with any number of
/// children in bounded memory.
pub fn children_after_raw(
    conn: &Connection,
    kind: Kind,
    parent_id: &str,
    after: i64,
    limit: usize,
) -> ServiceResult<Vec<(i64, String)>> {
    let mut statement = conn.prepare_cached(
        "SELECT seq, body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND deleted_at IS NULL AND seq > ?3 \
         ORDER BY seq LIMIT ?4",
    )?;
    let rows =
        statement.query_map(params![kind.as_str(), parent_id, after, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The documents of `kind` in one of `statuses`, oldest first: `(id, parent_id, body)`.
pub fn in_status(
    conn: &Connection,
    kind: Kind,
    statuses: &[&str],
) -> ServiceResult<Vec<(String, Option<String>, String)>> {
    let sql = format!(
        "SELECT id, parent_id, body FROM docs WHERE kind = ? AND status IN ({}) AND deleted_at IS NULL ORDER BY seq",
        marks(statuses.len())
    );
    let args = std::iter::once(kind.as_str()).chain(statuses.iter().copied());
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(rusqlite::params_from_iter(args), |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The first `limit` documents of `kind` under `parent_id` in `status`, oldest first.
pub fn children_in_status_raw(
    conn: &Connection,
    kind: Kind,
    parent_id: &str,
    status: &str,
    limit: usize,
) -> ServiceResult<Vec<String>> {
    let mut statement = conn.prepare_cached(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 AND deleted_at IS NULL ORDER BY seq LIMIT ?4",
    )?;
    let rows = statement.query_map(params![kind.as_str(), parent_id, status, limit as i64], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The newest live document of `kind` whose member at any of `paths` equals `value` (a call
/// by either of its numbers, say).
pub fn newest_by_any(conn: &Connection, kind: Kind, paths: &[&str], value: &str) -> ServiceResult<Option<String>> {
    let matches = paths.iter().map(|_| "json_extract(body, ?) = ?").collect::<Vec<_>>().join(" OR ");
    let sql = format!(
        "SELECT body FROM docs WHERE kind = ? AND deleted_at IS NULL AND ({matches}) ORDER BY seq DESC LIMIT 1"
    );
    let args = std::iter::once(kind.as_str()).chain(paths.iter().flat_map(|p| [*p, value]));
    Ok(conn.prepare_cached(&sql)?.query_row(rusqlite::params_from_iter(args), |r| r.get(0)).optional()?)
}

/// Reads and decodes one live document.
pub fn get<T: DeserializeOwned>(conn: &Connection, kind: Kind, id: &str) -> ServiceResult<Option<T>> {
    match get_raw(conn, kind, id)? {
        Some(body) => Ok(Some(serde_json::from_str(&body)?)),
        None => Ok(None),
    }
}

/// Reads one live document or answers 404.
pub fn require<T: DeserializeOwned>(conn: &Connection, kind: Kind, id: &str) -> ServiceResult<T> {
    get(conn, kind, id)?.ok_or_else(|| ServiceError::not_found(kind.label(), id))
}

/// Every live document of `kind` under `parent_id`, in the order they were written.
pub fn children<T: DeserializeOwned>(conn: &Connection, kind: Kind, parent_id: &str) -> ServiceResult<Vec<T>> {
    children_raw(conn, kind, parent_id)?.iter().map(|body| Ok(serde_json::from_str(body)?)).collect()
}

/// Finds a live document by a member's value (a slug, say).
pub fn find_by<T: DeserializeOwned>(
    conn: &Connection,
    kind: Kind,
    path: &str,
    value: &str,
) -> ServiceResult<Option<T>> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body FROM docs WHERE kind = ?1 AND deleted_at IS NULL AND json_extract(body, ?2) = ?3 ORDER BY seq LIMIT 1",
            params![kind.as_str(), path, value],
            |row| row.get(0),
        )
        .optional()?;
    body.map(|b| serde_json::from_str(&b).map_err(ServiceError::from)).transpose()
}

/// Every live document of a kind, oldest first.
pub fn all<T: DeserializeOwned>(conn: &Connection, kind: Kind) -> ServiceResult<Vec<T>> {
    let mut statement =
        conn.prepare_cached("SELECT body FROM docs WHERE kind = ?1 AND deleted_at IS NULL ORDER BY seq")?;
    let rows = statement.query_map(params![kind.as_str()], |row| row.get::<_, String>(0))?;
    rows.map(|body| Ok(serde_json::from_str(&body?)?)).collect()
}

/// The documents of a kind under one parent with one status, oldest first.
pub fn children_with_status<T: DeserializeOwned>(
    conn: &Connection,
    kind: Kind,
    parent_id: &str,
    status: &str,
) -> ServiceResult<Vec<T>> {
    let mut statement = conn.prepare_cached(
        "SELECT body FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 AND deleted_at IS NULL ORDER BY seq",
    )?;
    let rows = statement.query_map(params![kind.as_str(), parent_id, status], |row| row.get::<_, String>(0))?;
    rows.map(|body| Ok(serde_json::from_str(&body?)?)).collect()
}

/// One page of live documents, newest first (or oldest first), after `cursor` (an opaque
/// sequence number).
pub fn list(conn: &Connection, kind: Kind, filter: &Filter, cursor: Option<&str>, limit: u64) -> ServiceResult<Page> {
    let start = if filter.oldest_first { 0 } else { i64::MAX };
    let before: i64 = match cursor {
        None | Some("") => start,
        Some(text) => {
            // Issued cursors are `c<seq>` with a sequence number this store has handed out.
            let issued: i64 =
                conn.query_row("SELECT seq FROM sqlite_sequence WHERE name = 'docs'", [], |r| r.get(0)).unwrap_or(0);
            text.strip_prefix("c")
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<i64>().ok())
                .filter(|n| (1..=issued).contains(n))
                .ok_or_else(|| ServiceError::invalid("cursor", "cursor is not one this service issued"))?
        }
    };
    let mut clause = String::from("kind = ? AND deleted_at IS NULL");
    let mut args: Vec<rusqlite::types::Value> = vec![kind.as_str().to_owned().into()];
    if let Some(status) = filter.status {
        clause.push_str(" AND status = ?");
        args.push(status.to_owned().into());
    }
    if let Some(parent) = filter.parent_id {
        clause.push_str(" AND parent_id = ?");
        args.push(parent.to_owned().into());
    }
    for (path, value) in &filter.fields {
        clause.push_str(" AND json_extract(body, ?) = ?");
        args.push((*path).to_owned().into());
        args.push(value.clone().into());
    }
    if let Some((path, from, to)) = &filter.window {
        for (bound, op) in [(from, ">="), (to, "<")] {
            if let Some(bound) = bound {
                // RFC 3339 allows a lower-case `t`/`z` and a leap second, which SQLite's
                // date functions do not read: upper-case it and read second 60 as 59.
                let at = "upper(json_extract(body, ?))";
                let instant = format!(
                    "julianday(CASE WHEN substr({at}, 18, 2) = '60' THEN substr({at}, 1, 17) || '59' || substr({at}, 20) ELSE {at} END)"
                );
                clause.push_str(&format!(" AND {instant} {op} julianday(?)"));
                for _ in 0..3 {
                    args.push((*path).to_owned().into());
                }
                args.push((*path).to_owned().into());
                args.push(bound.clone().into());
            }
        }
    }
    let total: i64 = match (filter.parent_id, filter.fields.is_empty() && filter.window.is_none()) {
        // Counted as documents are written (triggers keep `doc_counts` and `child_counts`): no
        // scan per page.
        (None, true) => conn
            .prepare_cached(
                "SELECT coalesce(sum(live), 0) FROM doc_counts WHERE kind = ?1 AND (?2 IS NULL OR status = ?2)",
            )?
            .query_row(params![kind.as_str(), filter.status], |r| r.get(0))?,
        (Some(parent), true) => conn
            .prepare_cached(
                "SELECT coalesce(sum(live), 0) FROM child_counts \
                 WHERE parent_id = ?1 AND kind = ?2 AND (?3 IS NULL OR status = ?3)",
            )?
            .query_row(params![parent, kind.as_str(), filter.status], |r| r.get(0))?,
        _ => conn.query_row(
            &format!("SELECT COUNT(*) FROM docs WHERE {clause}"),
            rusqlite::params_from_iter(&args),
            |r| r.get(0),
        )?,
    };
    let mut page_args = args.clone();
    page_args.push(before.into());
    page_args.push((limit as i64 + 1).into());
    let mut statement = conn.prepare_cached(&format!(
        "SELECT seq, body FROM docs WHERE {clause} AND seq {} ? ORDER BY seq {} LIMIT ?",
        if filter.oldest_first { ">" } else { "<" },
        if filter.oldest_first { "ASC" } else { "DESC" }
    ))?;
    let mut rows: Vec<(i64, String)> = statement
        .query_map(rusqlite::params_from_iter(&page_args), |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let has_more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = if has_more { rows.last().map(|(seq, _)| format!("c{seq}")) } else { None };
    let bodies = rows.into_iter().map(|(_, body)| without_internal(kind, body)).collect::<ServiceResult<_>>()?;
    Ok(Page { bodies, total: total as u64, next_cursor, limit })
}

/// A stored body as callers see it: the engines' own members removed.
pub fn without_internal(kind: Kind, body: String) -> ServiceResult<String> {
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
pub fn insert(tx: &Transaction, doc: &Doc) -> ServiceResult<()> {
    tx.prepare_cached(
        "INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![doc.kind.as_str(), doc.id, doc.body, doc.status, doc.parent_id, doc.created_at])?;
    announce(tx, doc, None)
}

/// Replaces a document's body and columns, keeping its place in lists, with the event a
/// change of status announces.
pub fn update(tx: &Transaction, doc: &Doc) -> ServiceResult<()> {
    let before: Option<(Option<String>, Option<String>)> = tx
        .prepare_cached("SELECT status, parent_id FROM docs WHERE kind = ?1 AND id = ?2")?
        .query_row(params![doc.kind.as_str(), doc.id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((before, parent)) = before else { return Err(ServiceError::not_found(doc.kind.label(), &doc.id)) };
    if before == doc.status && parent == doc.parent_id {
        // Most rewrites (a simulation's progress, a job's tally) keep the columns: setting only
        // the body leaves the status and parent indexes and their counts untouched.
        tx.prepare_cached("UPDATE docs SET body = ?3 WHERE kind = ?1 AND id = ?2")?.execute(params![
            doc.kind.as_str(),
            doc.id,
            doc.body
        ])?;
    } else {
        tx.prepare_cached("UPDATE docs SET body = ?3, status = ?4, parent_id = ?5 WHERE kind = ?1 AND id = ?2")?
            .execute(params![doc.kind.as_str(), doc.id, doc.body, doc.status, doc.parent_id])?;
    }
    announce(tx, doc, Some(before.as_deref()))
}

/// Sets members of a document's body to JSON texts in SQL (`json_set`: the rest of the body
/// kept as it is, in its order), for a few members of a large document rewritten often (a
/// job's tally at every simulation's end). Never a member a column mirrors (the status, the
/// parent): those change through `update`, which keeps the columns and announces the event.
pub fn set_members(tx: &Transaction, kind: Kind, id: &str, members: &[(&str, String)]) -> ServiceResult<()> {
    debug_assert!(members.iter().all(|(path, _)| *path != "$.status"), "a status changes through `update`");
    let sets: Vec<String> = (0..members.len()).map(|i| format!("?{}, json(?{})", 3 + 2 * i, 4 + 2 * i)).collect();
    let sql = format!("UPDATE docs SET body = json_set(body, {}) WHERE kind = ?1 AND id = ?2", sets.join(", "));
    let kind_name = kind.as_str();
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![&kind_name, &id];
    for (path, json) in members {
        values.push(path);
        values.push(json);
    }
    if tx.prepare_cached(&sql)?.execute(values.as_slice())? == 0 {
        return Err(ServiceError::not_found(kind.label(), id));
    }
    Ok(())
}

/// One member of a live document's body as JSON text; `None` without the document or the member.
pub fn member(conn: &Connection, kind: Kind, id: &str, path: &str) -> ServiceResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT body -> ?3 FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL")?
        .query_row(params![kind.as_str(), id, path], |row| row.get(0))
        .optional()?
        .flatten())
}

/// Appends to the outbox the event a document's change of status announces, if any.
fn announce(tx: &Transaction, doc: &Doc, before: Option<Option<&str>>) -> ServiceResult<()> {
    match crate::service::events::event_for(doc.kind, before, doc.status.as_deref()) {
        Some(event) => outbox::append(tx, &event, doc.kind, &doc.id, doc.parent_id.as_deref(), &doc.body),
        None => Ok(()),
    }
}

/// Hides a document from every read, keeping the record.
pub fn soft_delete(tx: &Transaction, kind: Kind, id: &str, at: &str) -> ServiceResult<bool> {
    let changed = tx.execute(
        "UPDATE docs SET deleted_at = ?3 WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL",
        params![kind.as_str(), id, at],
    )?;
    Ok(changed > 0)
}

/// A document's status column.
pub fn status(conn: &Connection, kind: Kind, id: &str) -> ServiceResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT status FROM docs WHERE kind = ?1 AND id = ?2")?
        .query_row(params![kind.as_str(), id], |row| row.get(0))
        .optional()?
        .flatten())
}

/// Whether a live document exists.
pub fn exists(conn: &Connection, kind: Kind, id: &str) -> ServiceResult<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL")?
        .exists(params![kind.as_str(), id])?)
}

pub fn meta(conn: &Connection, key: &str) -> ServiceResult<Option<String>> {
    Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| r.get(0)).optional()?)
}

pub fn set_meta(tx: &Transaction, key: &str, value: &str) -> ServiceResult<()> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
        params![key, value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
