//! Several documents in one read: on PostgreSQL each statement is a round trip, and a
//! simulation's start reads three documents that name each other. Their revisions can ride
//! on another statement (the simulation's claim), so a job whose simulations share them reads
//! them again only when one changed.

use super::Kind;
use super::StoreResult;
use super::db::{Arg, Conn, Dialect};
use crate::args;

/// Three documents that name each other: `first`, the one of kind `named.0` that `first`'s
/// member `named.1` (a path like `$.agentId`) names, and `other`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Three {
    pub first: (Kind, String),
    pub named: (Kind, String),
    pub other: Option<(Kind, String)>,
}

/// Each of the three documents' revision, `None` when it is missing or deleted: on PostgreSQL
/// its row version (`xmin`, new with every write to the row), on SQLite its body (in process,
/// reading it costs no round trip). Equal revisions: the documents are as they were.
pub type Revisions = [Option<String>; 3];

impl Three {
    /// The three as scalar subqueries, each the column `column` (of the named document `d`),
    /// their arguments from placeholder `?at` on.
    fn columns(&self, dialect: Dialect, column: impl Fn(&str) -> String, at: usize) -> StoreResult<String> {
        let member = dialect.member("f.body", &self.named.1)?;
        let [kind, id, named, other_kind, other_id] = [at, at + 1, at + 2, at + 3, at + 4].map(|n| format!("?{n}"));
        let (first_column, named_column) = (column("docs."), column("d."));
        Ok(format!(
            "(SELECT {first_column} FROM docs WHERE kind = {kind} AND id = {id} AND deleted_at IS NULL), \
             (SELECT {named_column} FROM docs f JOIN docs d ON d.kind = {named} AND d.id = {member} \
                 WHERE f.kind = {kind} AND f.id = {id} AND f.deleted_at IS NULL AND d.deleted_at IS NULL), \
             (SELECT {first_column} FROM docs WHERE kind = {other_kind} AND id = {other_id} AND deleted_at IS NULL)"
        ))
    }

    fn args(&self) -> Vec<Arg<'_>> {
        let (other_kind, other_id) =
            self.other.as_ref().map_or((None, None), |(kind, id)| (Some(kind.as_str()), Some(id.as_str())));
        args![self.first.0.as_str(), &self.first.1, self.named.0.as_str(), other_kind, other_id].to_vec()
    }

    /// The columns that answer the three's revisions, for a statement that reads them beside
    /// what else it does, their arguments from placeholder `?at` on.
    pub(super) fn revision_columns(&self, dialect: Dialect, at: usize) -> StoreResult<(String, Vec<Arg<'_>>)> {
        Ok((self.columns(dialect, |table| revision(dialect, table), at)?, self.args()))
    }
}

/// A row's revision as `Revisions` defines it.
fn revision(dialect: Dialect, table: &str) -> String {
    match dialect {
        Dialect::Postgres => format!("CAST({table}xmin AS TEXT)"),
        Dialect::Sqlite => format!("{table}body"),
    }
}

/// The three documents' revisions now.
pub fn revisions(conn: &Conn, three: &Three) -> StoreResult<Revisions> {
    let (columns, args) = three.revision_columns(conn.dialect(), 1)?;
    let row = conn.query_row(&format!("SELECT {columns}"), &args, |r| Ok([r.take(0)?, r.take(1)?, r.take(2)?]))?;
    Ok(row.unwrap_or_default())
}

/// The three live documents (their bodies) and their revisions, in one statement.
pub fn get_three_revised(conn: &Conn, three: &Three) -> StoreResult<([Option<String>; 3], Revisions)> {
    let dialect = conn.dialect();
    let bodies = three.columns(dialect, |table| format!("CAST({table}body AS TEXT)"), 1)?;
    let revisions = three.revision_columns(dialect, 1)?.0;
    let row = conn.query_row(&format!("SELECT {bodies}, {revisions}"), &three.args(), |r| {
        Ok(([r.take(0)?, r.take(1)?, r.take(2)?], [r.take(3)?, r.take(4)?, r.take(5)?]))
    })?;
    Ok(row.unwrap_or_default())
}

/// Three live documents in one statement (as `Three` names them), each `None` when missing.
pub fn get_three_raw(
    conn: &Conn,
    first: (Kind, &str),
    named: (Kind, &str),
    other: Option<(Kind, &str)>,
) -> StoreResult<[Option<String>; 3]> {
    let three = Three {
        first: (first.0, first.1.to_owned()),
        named: (named.0, named.1.to_owned()),
        other: other.map(|(kind, id)| (kind, id.to_owned())),
    };
    Ok(get_three_revised(conn, &three)?.0)
}
