//! New documents written many at a time (a run's simulations, issue 33): on PostgreSQL one
//! multi-row `INSERT` a chunk, its columns sent as arrays (`UNNEST`), where each document
//! was a statement and a round trip of its own; on SQLite the one prepared insert, reused. The
//! rows, the counts and revisions their triggers keep, and the events are those `insert` writes
//! document by document, in the same order.

use super::db::{Arg, Dialect, Tx, storable};
use super::{Doc, StoreError, StoreResult, docs};

/// How many documents one statement writes: enough that a 10,000-simulation run is ten
/// statements, few enough that a chunk's columns (a megabyte or two) are all it holds.
pub const CHUNK: usize = 1000;

/// Documents pushed one at a time and written `CHUNK` at a time, so a job of any size is never
/// held whole. Call `finish` to write the last chunk: what is still pushed when it is dropped
/// is not written.
pub struct Inserts<'t, 'c> {
    tx: &'t Tx<'c>,
    chunk: Vec<Doc>,
}

impl<'t, 'c> Inserts<'t, 'c> {
    pub fn new(tx: &'t Tx<'c>) -> Self {
        Inserts { tx, chunk: Vec::with_capacity(CHUNK) }
    }

    /// Adds a new document, writing the chunk once it is full.
    pub fn push(&mut self, doc: Doc) -> StoreResult<()> {
        self.chunk.push(doc);
        if self.chunk.len() >= CHUNK {
            insert_all(self.tx, &self.chunk)?;
            self.chunk.clear();
        }
        Ok(())
    }

    /// Writes what is left.
    pub fn finish(mut self) -> StoreResult<()> {
        insert_all(self.tx, &self.chunk)?;
        self.chunk.clear();
        Ok(())
    }
}

/// Inserts new documents, in order, each with the event its status announces (as `insert`
/// does one by one).
pub fn insert_all(tx: &Tx, new: &[Doc]) -> StoreResult<()> {
    if new.is_empty() {
        return Ok(());
    }
    match tx.dialect() {
        Dialect::Sqlite => {
            for doc in new {
                docs::insert_row(tx, doc)?;
            }
        }
        Dialect::Postgres => rows_at_once(tx, new)?,
    }
    for doc in new {
        docs::announce(tx, doc, None)?;
    }
    Ok(())
}

/// The documents' rows in one statement. The arrays go in PostgreSQL's binary format (no text
/// to escape or parse but the bodies, read as JSON as a one-row insert reads them); the rows
/// are inserted in the order given, so their sequence numbers follow it.
fn rows_at_once(tx: &Tx, new: &[Doc]) -> StoreResult<()> {
    let column = |of: fn(&Doc) -> Option<&str>| new.iter().map(of).collect::<Vec<_>>();
    let kinds = column(|d| Some(d.kind.as_str()));
    let ids = column(|d| Some(d.id.as_str()));
    let bodies = column(|d| Some(d.body.as_str()));
    let statuses = column(|d| d.status.as_deref());
    let parents = column(|d| d.parent_id.as_deref());
    let times = column(|d| Some(d.created_at.as_str()));
    let columns = [&kinds, &ids, &bodies, &statuses, &parents, &times].map(|c| Arg::Texts(c));
    storable(&columns)?;
    let inserted = tx.execute(
        "INSERT INTO docs (kind, id, body, status, parent_id, created_at) \
         SELECT x.kind, x.id, CAST(x.body AS JSON), x.status, x.parent_id, x.created_at \
         FROM UNNEST(CAST(?1 AS TEXT[]), CAST(?2 AS TEXT[]), CAST(?3 AS TEXT[]), CAST(?4 AS TEXT[]), \
                     CAST(?5 AS TEXT[]), CAST(?6 AS TEXT[])) \
             WITH ORDINALITY AS x (kind, id, body, status, parent_id, created_at, n) \
         ORDER BY x.n",
        &columns,
    )?;
    if inserted != new.len() {
        return Err(StoreError::backend(format!("store: {inserted} of {} documents inserted", new.len())));
    }
    Ok(())
}
