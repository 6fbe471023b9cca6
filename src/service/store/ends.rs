//! Simulations' ends waiting to be folded into their run plan job. An end appends a row of its
//! own (its share of the job's tally, and the item it counts in the job's collection job)
//! instead of rewriting the job's row, so ends of one run never wait on each other for that
//! row's lock; a fold a few milliseconds later takes every end appended meanwhile and applies
//! them in one transaction (`sim::jobs::settle_job`).

use super::db::{Conn, Tx};
use super::error::StoreResult;
use crate::args;

/// An ended simulation's part in its job, as the fold applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct End {
    /// Its share of the job's tally (a `verdict::TallyPart`, as JSON).
    pub part: String,
    /// The item it counts in the job's collection job, if it collected metrics.
    pub item: Option<Item>,
}

/// One item of a collection job: done or failed, and when.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub collection_id: String,
    pub failed: bool,
    /// The collection job's `updatedAt` as JSON text.
    pub at: String,
}

impl End {
    /// An end from its row's columns (`part, collection_id, item_failed, item_at`), as both of
    /// its readers get them: `take` (rows removed in a fold's transaction) and
    /// `folds::waiting` (every waiting job's rows aggregated as JSON in one read, taking none).
    pub(super) fn of_columns(
        part: String,
        collection_id: Option<String>,
        failed: Option<i64>,
        at: Option<String>,
    ) -> End {
        let item = match (collection_id, failed, at) {
            (Some(collection_id), Some(failed), Some(at)) => Some(Item { collection_id, failed: failed != 0, at }),
            _ => None,
        };
        End { part, item }
    }
}

/// Appends `end` for `job_id`'s next fold.
pub fn append(tx: &Tx, job_id: &str, end: &End) -> StoreResult<()> {
    let item = end.item.as_ref();
    tx.execute(
        "INSERT INTO job_ends (job_id, part, collection_id, item_failed, item_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        args![
            job_id,
            &end.part,
            item.map(|i| i.collection_id.as_str()),
            item.map(|i| i64::from(i.failed)),
            item.map(|i| i.at.as_str())
        ],
    )?;
    Ok(())
}

/// Takes (removes and returns) every end of `job_id` appended so far, oldest first. On
/// PostgreSQL a fold running at the same time in another replica waits for these rows and
/// then finds them gone.
pub fn take(tx: &Tx, job_id: &str) -> StoreResult<Vec<End>> {
    let mut ends = tx.query(
        "DELETE FROM job_ends WHERE job_id = ?1 RETURNING seq, part, collection_id, item_failed, item_at",
        args![job_id],
        |r| Ok((r.take::<i64>(0)?, End::of_columns(r.take(1)?, r.take(2)?, r.take(3)?, r.take(4)?))),
    )?;
    ends.sort_by_key(|(seq, _)| *seq);
    Ok(ends.into_iter().map(|(_, end)| end).collect())
}

/// The jobs with ends waiting to be folded.
pub fn waiting_jobs(conn: &Conn) -> StoreResult<Vec<String>> {
    conn.query("SELECT DISTINCT job_id FROM job_ends", &[], |r| r.take(0))
}
