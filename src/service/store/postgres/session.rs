//! A pooled connection in use by one thread for one transaction, and the statements it has
//! prepared (kept with the connection, so each is parsed once per connection).

use std::cell::{Cell as Flag, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Statement};

use super::super::db::{Arg, Row};
use crate::service::store::error::{StoreError, StoreResult};

/// Makes and checks the pool's connections.
#[derive(Debug)]
pub(in crate::service::store) struct Manager {
    config: postgres::Config,
}

impl Manager {
    pub(super) fn new(config: postgres::Config) -> Manager {
        Manager { config }
    }
}

/// A connection and its prepared statements, by the SQL they were written as.
pub(in crate::service::store) struct Connection {
    client: Client,
    statements: HashMap<String, Statement>,
    /// When it last came back to the pool unbroken (or was made).
    returned_at: Instant,
}

/// A connection back in the pool for less than this is handed out again without asking the
/// server whether it is still there: the pool's check is a round trip of its own at every
/// checkout (an empty query, which `pg_stat_statements` does not count), as many as the
/// statements themselves under load. One that went away meanwhile fails its statement, is
/// found closed when it comes back, and is dropped then.
const FRESH: Duration = Duration::from_secs(1);

impl Connection {
    pub(super) fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Connection;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Connection, postgres::Error> {
        let client = self.config.connect(NoTls)?;
        Ok(Connection { client, statements: HashMap::new(), returned_at: Instant::now() })
    }

    fn is_valid(&self, conn: &mut Connection) -> Result<(), postgres::Error> {
        if conn.returned_at.elapsed() < FRESH {
            return Ok(());
        }
        conn.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut Connection) -> bool {
        let broken = conn.client.is_closed();
        if !broken {
            conn.returned_at = Instant::now();
        }
        broken
    }
}

/// One connection, checked out of the pool for one write transaction or for one read's
/// statements (each its own transaction).
pub struct Session {
    conn: RefCell<r2d2::PooledConnection<Manager>>,
    /// A transaction is open on it (rolled back if the session is dropped first).
    open: Flag<bool>,
    /// A statement failed because another transaction got in the way: running the whole
    /// transaction again may succeed.
    conflicted: Flag<bool>,
    /// The advisory lock held for the session (released when it ends).
    locked: Flag<Option<i64>>,
    /// The transaction appended events.
    appended: Flag<bool>,
    /// A round trip on it was answered.
    answered: Flag<bool>,
}

impl Session {
    pub(super) fn checkout(pool: &r2d2::Pool<Manager>) -> StoreResult<Session> {
        let conn = pool.get().map_err(|e| {
            tracing::error!("store: no PostgreSQL connection: {e}");
            StoreError::Unavailable("the store is unavailable; try again")
        })?;
        Ok(Session {
            conn: RefCell::new(conn),
            open: Flag::new(false),
            conflicted: Flag::new(false),
            locked: Flag::new(None),
            appended: Flag::new(false),
            answered: Flag::new(false),
        })
    }

    pub(in crate::service::store) fn note_events(&self) {
        self.appended.set(true);
    }

    /// Whether the transaction appended events.
    pub(super) fn appended_events(&self) -> bool {
        self.appended.get()
    }

    /// Takes advisory lock `key` for as long as the session lasts, waiting for another holder.
    pub(super) fn lock(&self, key: i64) -> StoreResult<()> {
        self.execute("SELECT pg_advisory_lock(?1)", &[Arg::Int(key)])?;
        self.locked.set(Some(key));
        Ok(())
    }

    /// Begins a transaction with `statement` (one message, one round trip: a setting or a
    /// pick's locks may go with the `BEGIN`).
    pub(super) fn begin(&self, statement: &str) -> StoreResult<()> {
        // Open from here: if a statement after the BEGIN fails, the transaction is rolled back.
        self.open.set(true);
        self.execute_batch(statement)
    }

    /// Commits (or, `commit` false, rolls back) the open transaction.
    pub(super) fn end(&self, commit: bool) -> StoreResult<()> {
        self.open.set(false);
        self.execute_batch(if commit { "COMMIT" } else { "ROLLBACK" })
    }

    pub(super) fn conflicted(&self) -> bool {
        self.conflicted.get()
    }

    pub(in crate::service::store) fn execute_batch(&self, sql: &str) -> StoreResult<()> {
        let mut conn = self.conn.borrow_mut();
        self.answered(conn.client.batch_execute(sql))
    }

    /// Runs `COPY … FROM STDIN` (`sql`) with `data` in the format it names; how many rows it copied.
    pub(in crate::service::store) fn copy_in(&self, sql: &str, data: &[u8]) -> StoreResult<u64> {
        use std::io::Write;
        let mut conn = self.conn.borrow_mut();
        let mut writer = self.answered(conn.client.copy_in(sql))?;
        writer.write_all(data).map_err(|e| StoreError::backend(format!("store: COPY: {e}")))?;
        self.answered(writer.finish())
    }

    pub(in crate::service::store) fn execute(&self, sql: &str, args: &[Arg]) -> StoreResult<usize> {
        let mut conn = self.conn.borrow_mut();
        let statement = self.prepared(&mut conn, sql)?;
        let params = params(args);
        let changed = self.answered(conn.client.execute(&statement, &params))?;
        Ok(changed as usize)
    }

    pub(in crate::service::store) fn query(&self, sql: &str, args: &[Arg]) -> StoreResult<Vec<Row>> {
        let mut conn = self.conn.borrow_mut();
        let statement = self.prepared(&mut conn, sql)?;
        let params = params(args);
        let rows = self.answered(conn.client.query(&statement, &params))?;
        rows.iter()
            .map(|row| {
                (0..row.len())
                    .map(|index| row.try_get(index).map_err(|e| self.failure(e)))
                    .collect::<StoreResult<Vec<_>>>()
                    .map(Row)
            })
            .collect()
    }

    /// The statement `sql` prepared on this connection (written with `?N`, sent with `$N`).
    fn prepared(&self, conn: &mut Connection, sql: &str) -> StoreResult<Statement> {
        if let Some(statement) = conn.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.answered(conn.client.prepare(&numbered(sql)))?;
        conn.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// A round trip's result: noted as answered, or its error (`failure`).
    fn answered<T>(&self, result: Result<T, postgres::Error>) -> StoreResult<T> {
        match result {
            Ok(value) => {
                self.answered.set(true);
                Ok(value)
            }
            Err(error) => Err(self.failure(error)),
        }
    }

    /// The error a failed statement answers; a conflict with another transaction is noted,
    /// and logged only if it is never overcome. A connection found gone is the store's
    /// unavailability, not a fault; found gone at a transaction's BEGIN (one the server ended
    /// while it sat in the pool, handed out unasked: `FRESH`), nothing can have committed, so
    /// the write runs again on another, as after a conflict. A statement of its own is not run
    /// again: it may have committed before the answer was lost.
    fn failure(&self, error: postgres::Error) -> StoreError {
        if connection_lost(&error) {
            // Run again only what surely did not commit: a transaction's BEGIN, unanswered
            // (its COMMIT was never sent). A statement of its own may have committed even when
            // the connection is reported closed: it may have been sent first.
            if !self.answered.get() && self.open.get() {
                self.conflicted.set(true);
            }
            tracing::warn!("store: a PostgreSQL connection was lost: {}", described(&error));
            return StoreError::Unavailable("the store's connection was lost; try again");
        }
        let code = error.code();
        if code == Some(&SqlState::LOCK_NOT_AVAILABLE) {
            tracing::warn!("store: {}", described(&error));
            return StoreError::Unavailable("the store was busy: a lock was held too long; try again");
        }
        if code == Some(&SqlState::T_R_SERIALIZATION_FAILURE) || code == Some(&SqlState::T_R_DEADLOCK_DETECTED) {
            self.conflicted.set(true);
            tracing::debug!("store: {error}");
            return StoreError::Unavailable("the store was busy with a conflicting change; try again");
        }
        StoreError::backend(format!("store: {}", described(&error)))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A transaction left open (a panic mid-write) must not go back to the pool with it.
        let client = &mut self.conn.get_mut().client;
        if self.open.get() {
            let _ = client.batch_execute("ROLLBACK");
        }
        // Nor a lock: the connection outlives the session.
        if let Some(key) = self.locked.get() {
            let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&key]);
        }
    }
}

/// Whether `error` says the connection is gone: closed, cut, or ended by the server (a
/// shutdown, an administrator's `pg_terminate_backend`, an idle session's timeout).
fn connection_lost(error: &postgres::Error) -> bool {
    let ended = [SqlState::ADMIN_SHUTDOWN, SqlState::CRASH_SHUTDOWN, SqlState::IDLE_SESSION_TIMEOUT];
    let cut = std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>());
    error.is_closed() || cut || error.code().is_some_and(|code| ended.contains(code))
}

/// An error PostgreSQL answered, with its detail, or the driver's own.
fn described(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!(
            "{} ({}){}",
            db.message(),
            db.code().code(),
            db.detail().map(|d| format!(": {d}")).unwrap_or_default()
        ),
        None => error.to_string(),
    }
}

fn params<'a>(args: &'a [Arg<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter().map(|arg| arg as &(dyn ToSql + Sync)).collect()
}

/// `sql` with its `?N` and `?` placeholders written as PostgreSQL's `$N` (a bare `?` takes the
/// next number), quoted text left alone.
pub(super) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut next = 0;
    let mut quoted = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                if digits.is_empty() {
                    next += 1;
                    digits = next.to_string();
                }
                out.push('$');
                out.push_str(&digits);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(numbered("a = ?1 AND b = ?12"), "a = $1 AND b = $12");
        assert_eq!(numbered("a IN (?, ?) AND c = '?'"), "a IN ($1, $2) AND c = '?'");
    }
}
