//! The seam between the store's statements and its two engines: SQLite (embedded, the default)
//! and PostgreSQL (shared by several replicas). A statement is written once, with `?N`
//! placeholders, and runs on either; the few that must differ ask `dialect()`.

use std::ops::Deref;

use super::error::{StoreError, StoreResult};
use super::postgres::Session;

/// Which SQL a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection to read with: a reader, or a write transaction (`Tx` derefs to it).
pub struct Conn<'a> {
    engine: Engine<'a>,
    /// Inside a write transaction (`Tx`).
    writing: bool,
}

enum Engine<'a> {
    Sqlite(&'a rusqlite::Connection),
    Postgres(&'a Session),
}

/// A write transaction: it all commits, or none of it does.
pub struct Tx<'a>(Conn<'a>);

impl<'a> Deref for Tx<'a> {
    type Target = Conn<'a>;
    fn deref(&self) -> &Conn<'a> {
        &self.0
    }
}

impl<'a> Conn<'a> {
    pub(super) fn sqlite(conn: &'a rusqlite::Connection) -> Conn<'a> {
        Conn { engine: Engine::Sqlite(conn), writing: false }
    }

    pub(super) fn postgres(session: &'a Session) -> Conn<'a> {
        Conn { engine: Engine::Postgres(session), writing: false }
    }

    /// What ends a statement that reads one document a write is about to change: on
    /// PostgreSQL, whose writes run concurrently (READ COMMITTED), a lock on its row until the
    /// transaction ends, so that two writes reading and rewriting one document take turns
    /// instead of one losing the other's change; nothing on SQLite, whose writes run one at a
    /// time, nor in a read.
    pub fn row_lock(&self) -> &'static str {
        match (&self.engine, self.writing) {
            (Engine::Postgres(_), true) => " FOR UPDATE",
            _ => "",
        }
    }

    pub fn dialect(&self) -> Dialect {
        match self.engine {
            Engine::Sqlite(_) => Dialect::Sqlite,
            Engine::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs a statement; how many rows it changed.
    pub fn execute(&self, sql: &str, args: &[Arg]) -> StoreResult<usize> {
        storable(args)?;
        match self.engine {
            Engine::Sqlite(conn) => Ok(conn.prepare_cached(sql)?.execute(rusqlite::params_from_iter(args))?),
            Engine::Postgres(session) => session.execute(sql, args),
        }
    }

    /// Runs `COPY … FROM STDIN` with `data` (PostgreSQL only); how many rows it copied.
    pub(super) fn copy_in(&self, sql: &str, data: &[u8]) -> StoreResult<u64> {
        match self.engine {
            Engine::Sqlite(_) => Err(StoreError::backend("store: COPY is PostgreSQL's")),
            Engine::Postgres(session) => session.copy_in(sql, data),
        }
    }

    /// Runs statements without arguments, one after another.
    pub fn execute_batch(&self, sql: &str) -> StoreResult<()> {
        match self.engine {
            Engine::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Engine::Postgres(session) => session.execute_batch(sql),
        }
    }

    /// Every row a query returns, each made into a `T` by `map`.
    pub fn query<T>(
        &self,
        sql: &str,
        args: &[Arg],
        mut map: impl FnMut(&mut Row) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        storable(args)?;
        match self.engine {
            Engine::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let width = statement.column_count();
                let mut rows = statement.query(rusqlite::params_from_iter(args))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    let mut row = Row::from_sqlite(row, width)?;
                    out.push(map(&mut row)?);
                }
                Ok(out)
            }
            Engine::Postgres(session) => session.query(sql, args)?.iter_mut().map(map).collect(),
        }
    }

    /// The first row a query returns, if any.
    pub fn query_row<T>(
        &self,
        sql: &str,
        args: &[Arg],
        map: impl FnOnce(&mut Row) -> StoreResult<T>,
    ) -> StoreResult<Option<T>> {
        storable(args)?;
        match self.engine {
            Engine::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let width = statement.column_count();
                let mut rows = statement.query(rusqlite::params_from_iter(args))?;
                match rows.next()? {
                    Some(row) => Ok(Some(map(&mut Row::from_sqlite(row, width)?)?)),
                    None => Ok(None),
                }
            }
            Engine::Postgres(session) => match session.query(sql, args)?.first_mut() {
                Some(row) => Ok(Some(map(row)?)),
                None => Ok(None),
            },
        }
    }

    /// One value of the first row (`None` without a row).
    pub fn value<T: FromCell>(&self, sql: &str, args: &[Arg]) -> StoreResult<Option<T>> {
        self.query_row(sql, args, |row| row.take(0))
    }

    /// Notes that the transaction appended events, for the engine to announce once it commits
    /// (SQLite announces after every write anyway).
    pub(super) fn note_events(&self) {
        if let Engine::Postgres(session) = self.engine {
            session.note_events();
        }
    }

    /// Whether a query returns any row.
    pub fn exists(&self, sql: &str, args: &[Arg]) -> StoreResult<bool> {
        Ok(self.query_row(sql, args, |_| Ok(()))?.is_some())
    }
}

impl<'a> Tx<'a> {
    pub(super) fn new(conn: Conn<'a>) -> Tx<'a> {
        Tx(Conn { writing: true, ..conn })
    }
}

/// The wire code of `StoreError::Unstorable`.
pub const UNSTORABLE: &str = "unstorable_text";

/// Refuses text neither engine keeps alike: NUL, which PostgreSQL refuses in text and, as the
/// escape `\u0000`, in a JSON document (the service's own checks refuse it at the edge; this
/// stops what got past them, an agent's reply say, on both stores the same way).
pub(super) fn storable(args: &[Arg]) -> StoreResult<()> {
    let unstorable = |text: &str| {
        let bytes = text.as_bytes();
        memchr::memchr(0, bytes).is_some() || (matches!(bytes.first(), Some(b'{' | b'[')) && has_nul_escape(bytes))
    };
    let poisoned = args.iter().any(|arg| match arg {
        Arg::Text(text) => unstorable(text),
        Arg::Texts(texts) => texts.iter().flatten().any(|text| unstorable(text)),
        _ => false,
    });
    if poisoned {
        return Err(StoreError::Unstorable);
    }
    Ok(())
}

/// Whether JSON text holds the escape `\u0000` (and not an escaped backslash before `u0000`).
pub fn has_nul_escape(json: &[u8]) -> bool {
    memchr::memmem::find_iter(json, br"\u0000").any(|at| {
        let backslashes = json[..=at].iter().rev().take_while(|&&b| b == b'\\').count();
        backslashes % 2 == 1
    })
}

/// A value bound to a statement.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    /// A column of texts, bound as one array (`CAST(?1 AS TEXT[])`): PostgreSQL's alone.
    Texts(&'a [Option<&'a str>]),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(text: &'a str) -> Self {
        Arg::Text(text)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(text: &'a String) -> Self {
        Arg::Text(text)
    }
}

impl<'a> From<&&'a str> for Arg<'a> {
    fn from(text: &&'a str) -> Self {
        Arg::Text(text)
    }
}

impl From<i64> for Arg<'_> {
    fn from(n: i64) -> Self {
        Arg::Int(n)
    }
}

impl From<u32> for Arg<'_> {
    fn from(n: u32) -> Self {
        Arg::Int(n.into())
    }
}

impl From<u64> for Arg<'_> {
    fn from(n: u64) -> Self {
        Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<f64> for Arg<'_> {
    fn from(x: f64) -> Self {
        Arg::Real(x)
    }
}

impl<'a, T: Into<Arg<'a>>> From<Option<T>> for Arg<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Arg::Null, Into::into)
    }
}

/// The arguments of a statement: `args![kind.as_str(), id]`.
#[macro_export]
macro_rules! args {
    ($($arg:expr),* $(,)?) => {
        &[$($crate::service::store::Arg::from($arg)),*][..]
    };
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Arg::Null => ValueRef::Null,
            Arg::Int(n) => ValueRef::Integer(n),
            Arg::Real(x) => ValueRef::Real(x),
            Arg::Text(text) => ValueRef::Text(text.as_bytes()),
            Arg::Texts(_) => {
                return Err(rusqlite::Error::ToSqlConversionFailure("store: arrays are PostgreSQL's".into()));
            }
        }))
    }
}

/// One value of a row, as either engine returns it.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Cell {
    #[default]
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Cell {
    fn kind(&self) -> &'static str {
        match self {
            Cell::Null => "NULL",
            Cell::Int(_) => "an integer",
            Cell::Real(_) => "a real",
            Cell::Text(_) => "text",
        }
    }
}

/// A row of a query's result; each value is taken out once.
#[derive(Debug, Default)]
pub struct Row(pub(super) Vec<Cell>);

impl Row {
    fn from_sqlite(row: &rusqlite::Row, width: usize) -> StoreResult<Row> {
        use rusqlite::types::ValueRef;
        let mut cells = Vec::with_capacity(width);
        for index in 0..width {
            cells.push(match row.get_ref(index)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(n) => Cell::Int(n),
                ValueRef::Real(x) => Cell::Real(x),
                ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                    Cell::Text(String::from_utf8(bytes.to_vec()).map_err(StoreError::backend)?)
                }
            });
        }
        Ok(Row(cells))
    }

    /// Takes the value of column `index` as a `T`.
    pub fn take<T: FromCell>(&mut self, index: usize) -> StoreResult<T> {
        let cell = self.0.get_mut(index).map(std::mem::take).unwrap_or_default();
        let kind = cell.kind();
        T::from_cell(cell)
            .ok_or_else(|| StoreError::backend(format!("store: column {index} is {kind}, not {}", T::NAME)))
    }

    /// The same, `None` when the value is of another type (a JSON member that may hold anything).
    pub fn take_lenient<T: FromCell>(&mut self, index: usize) -> Option<T> {
        let cell = self.0.get_mut(index).map(std::mem::take).unwrap_or_default();
        T::from_cell(cell)
    }
}

/// A Rust value a row's cell can become.
pub trait FromCell: Sized {
    const NAME: &'static str;
    fn from_cell(cell: Cell) -> Option<Self>;
}

impl FromCell for String {
    const NAME: &'static str = "text";
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Text(text) => Some(text),
            _ => None,
        }
    }
}

impl FromCell for i64 {
    const NAME: &'static str = "an integer";
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Int(n) => Some(n),
            _ => None,
        }
    }
}

impl FromCell for f64 {
    const NAME: &'static str = "a number";
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Real(x) => Some(x),
            Cell::Int(n) => Some(n as f64),
            _ => None,
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    const NAME: &'static str = T::NAME;
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Null => Some(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// `?, ?, …` for `n` values of an `IN` list.
pub fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

impl Dialect {
    /// A JSON member of `column` as SQL text: a string member's text (`path` like `$.a.b`, a
    /// path written in the code, checked here so that it may be spliced into a statement).
    pub fn member(self, column: &str, path: &str) -> StoreResult<String> {
        let segments = path
            .strip_prefix("$.")
            .map(|rest| rest.split('.').collect::<Vec<_>>())
            .filter(|segments| {
                segments.iter().all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            })
            .ok_or_else(|| StoreError::backend(format!("store: {path:?} is not a member path")))?;
        Ok(match self {
            Dialect::Sqlite => format!("json_extract({column}, '{path}')"),
            Dialect::Postgres => format!("({column} #>> '{{{}}}')", segments.join(",")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_refused_in_text_and_as_an_escape_in_json_on_either_engine() {
        assert!(storable(&[Arg::Int(0), Arg::Text("plain")]).is_ok());
        assert!(matches!(storable(&[Arg::Text("a\0b")]), Err(StoreError::Unstorable)));
        assert!(storable(&[Arg::Text(r#"{"a": "b\u0000"}"#)]).is_err());
        assert!(storable(&[Arg::Text(r#"["\\\u0000"]"#)]).is_err(), "an escaped backslash, then the escape");
        assert!(storable(&[Arg::Text(r#"{"path": "C:\\u0000"}"#)]).is_ok(), "a backslash and the text u0000");
        assert!(storable(&[Arg::Text(r#"see \u0000"#)]).is_ok(), "not a JSON document: the text as written");
    }
}
