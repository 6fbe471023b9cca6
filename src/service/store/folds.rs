//! A fold of simulations' ends into their job decided in Rust and applied by PostgreSQL in one
//! statement (`sb_fold`, PostgreSQL migration 8), where a fold's transaction was a `BEGIN`,
//! the job's row locked, its open simulations counted, its ends taken, its tally and each
//! collection job's counts read and set, and a `COMMIT` (issue 33: every statement is a round
//! trip). One read takes what every waiting job's fold needs, in one snapshot; each fold is
//! then applied under a guard: the job's status and tally must be what was read, and every end
//! read still waiting, else nothing is written and the caller folds in a transaction as
//! before. A fold that settles its job is always such a transaction (`sim::jobs::fold_job`).

use serde_json::json;

use super::db::{Arg, Conn, marks};
use super::ends::End;
use super::{Kind, StoreError, StoreResult};

/// A job with ends waiting, as one statement read it: what its fold decides from.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    pub job_id: String,
    /// Its status column; `None` when the job is gone.
    pub status: Option<String>,
    /// Its tally's JSON text, as `store::member` reads it; `None` without one.
    pub tally: Option<String>,
    /// Its simulations in an open status (`open` as `waiting` was given).
    pub open: u64,
    /// Its ends, oldest first, each with its sequence number.
    pub ends: Vec<(i64, End)>,
}

/// Every job with ends waiting (PostgreSQL), in one statement, so one snapshot: an end read
/// here was committed with its simulation's last status, so a simulation counted open has not
/// ended in what was read.
pub fn waiting(conn: &Conn, open: &[&str]) -> StoreResult<Vec<Waiting>> {
    let sql = format!(
        "WITH w AS (SELECT job_id, CAST(json_agg(json_build_array(seq, part, collection_id, item_failed, item_at) \
             ORDER BY seq) AS TEXT) AS ends FROM job_ends GROUP BY job_id) \
         SELECT w.job_id, d.status, CAST(d.body #> '{{tally}}' AS TEXT), \
             (SELECT CAST(coalesce(sum(c.live), 0) AS BIGINT) FROM child_counts c \
              WHERE c.parent_id = w.job_id AND c.kind = ? AND c.status IN ({})), w.ends \
         FROM w LEFT JOIN docs d ON d.kind = ? AND d.id = w.job_id AND d.deleted_at IS NULL",
        marks(open.len())
    );
    let mut args: Vec<Arg> = vec![Kind::SimulationJob.as_str().into()];
    args.extend(open.iter().copied().map(Arg::from));
    args.push(Kind::RunPlanJob.as_str().into());
    conn.query(&sql, &args, |r| {
        let job_id = r.take(0)?;
        let status = r.take(1)?;
        let tally = r.take(2)?;
        let open = r.take::<i64>(3)?.max(0) as u64;
        let ends = ends_of(&r.take::<String>(4)?)?;
        Ok(Waiting { job_id, status, tally, open, ends })
    })
}

/// The ends `waiting` aggregated: `[seq, part, collection_id, item_failed, item_at]` each.
/// Not `ends::take`: this reads every waiting job's ends in one snapshot and leaves them for
/// the guarded statement to take (`sb_fold`), where `take` removes one job's in its fold's
/// transaction; the two share the row's reading (`End::of_columns`).
fn ends_of(json: &str) -> StoreResult<Vec<(i64, End)>> {
    type Row = (i64, String, Option<String>, Option<i64>, Option<String>);
    let rows: Vec<Row> = serde_json::from_str(json)?;
    Ok(rows
        .into_iter()
        .map(|(seq, part, collection_id, failed, at)| (seq, End::of_columns(part, collection_id, failed, at)))
        .collect())
}

/// A collection job's items counted by a fold: added to its counts, its `updatedAt` set.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub collection_id: String,
    pub done: u64,
    pub failed: u64,
    /// The last item's time, as JSON text.
    pub at: String,
}

/// A fold decided from a `Waiting`: the ends it takes and what it sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Fold {
    pub job_id: String,
    /// The job's status and tally text as read: the guard.
    pub status: String,
    pub tally: String,
    /// The ends taken, by sequence number.
    pub seqs: Vec<i64>,
    /// The job's top-level members set (`$.name`, JSON text), as `store::set_members` sets them.
    pub members: Vec<(&'static str, String)>,
    pub counted: Vec<Counted>,
    /// The open statuses, counted again once the ends are taken.
    pub open: Vec<String>,
}

/// What applying a fold found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldApplied {
    /// Written, with simulations still open.
    Written,
    /// Written, and no simulation is open any more: the job is to be folded again, in a
    /// transaction that settles it.
    WrittenNoneOpen,
    /// The job's status or tally moved, or another fold took an end: nothing was written.
    Moved,
}

impl Fold {
    /// The fold as `sb_fold`'s argument.
    pub(super) fn to_json(&self) -> StoreResult<String> {
        let members: Vec<[&str; 2]> = self
            .members
            .iter()
            .map(|(path, json)| path.strip_prefix("$.").map(|name| [name, json.as_str()]))
            .collect::<Option<_>>()
            .ok_or_else(|| StoreError::backend("store: a fold's member is not a top-level path"))?;
        let counted: Vec<serde_json::Value> = self
            .counted
            .iter()
            .map(|c| json!({ "id": c.collection_id, "done": c.done, "failed": c.failed, "at": c.at }))
            .collect();
        Ok(json!({
            "job_kind": Kind::RunPlanJob.as_str(),
            "collection_kind": Kind::CollectionJob.as_str(),
            "child_kind": Kind::SimulationJob.as_str(),
            "job_id": self.job_id,
            "status": self.status,
            "tally": self.tally,
            "seqs": self.seqs,
            "members": members,
            "counted": counted,
            "open": self.open,
        })
        .to_string())
    }
}

/// `sb_fold`'s answer as a `FoldApplied`.
pub(super) fn applied(answer: i64) -> StoreResult<FoldApplied> {
    match answer {
        0 => Ok(FoldApplied::Written),
        1 => Ok(FoldApplied::Moved),
        3 => Ok(FoldApplied::WrittenNoneOpen),
        other => Err(StoreError::backend(format!("store: sb_fold answered {other}"))),
    }
}

impl super::Store {
    /// Applies `fold` in one statement, its own transaction, as an engine's progress (its
    /// commit does not wait for the disk): PostgreSQL only, where `waiting` read it.
    pub async fn apply_fold(&self, fold: Fold) -> StoreResult<FoldApplied> {
        let json = fold.to_json()?;
        self.progress_blocking(move |store| match &*store.engine {
            super::Engine::Postgres(postgres) => applied(postgres.answer("SELECT sb_fold(?1)", &[Arg::from(&json)])?),
            super::Engine::Sqlite(_) => Err(StoreError::backend("store: a fold is one statement on PostgreSQL only")),
        })
        .await
        .map_err(StoreError::backend)?
    }
}
