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

    pub(super) fn begin(&self, statement: &str) -> StoreResult<()> {
        self.execute_batch(statement)?;
        self.open.set(true);
        Ok(())
    }

    /// Begins a transaction with `statements` (one message, one round trip), the last a query
    /// answering a boolean: its answer.
    pub(super) fn begin_trying(&self, statements: &str) -> StoreResult<bool> {
        // Open from here: if a statement fails, the transaction it began is rolled back.
        self.open.set(true);
        let mut conn = self.conn.borrow_mut();
        let answers = conn.client.simple_query(statements).map_err(|e| self.failure(e))?;
        let last = answers.iter().rev().find_map(|answer| match answer {
            postgres::SimpleQueryMessage::Row(row) => Some(row.get(0) == Some("t")),
            _ => None,
        });
        Ok(last.unwrap_or(false))
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
        conn.client.batch_execute(sql).map_err(|e| self.failure(e))
    }

    /// Runs `COPY … FROM STDIN` (`sql`) with `data` in the format it names; how many rows it copied.
    pub(in crate::service::store) fn copy_in(&self, sql: &str, data: &[u8]) -> StoreResult<u64> {
        use std::io::Write;
        let mut conn = self.conn.borrow_mut();
        let mut writer = conn.client.copy_in(sql).map_err(|e| self.failure(e))?;
        writer.write_all(data).map_err(|e| StoreError::backend(format!("store: COPY: {e}")))?;
        writer.finish().map_err(|e| self.failure(e))
    }

    pub(in crate::service::store) fn execute(&self, sql: &str, args: &[Arg]) -> StoreResult<usize> {
        let mut conn = self.conn.borrow_mut();
        let statement = self.prepared(&mut conn, sql)?;
        let params = params(args);
        let changed = conn.client.execute(&statement, &params).map_err(|e| self.failure(e))?;
        Ok(changed as usize)
    }

    pub(in crate::service::store) fn query(&self, sql: &str, args: &[Arg]) -> StoreResult<Vec<Row>> {
        let mut conn = self.conn.borrow_mut();
        let statement = self.prepared(&mut conn, sql)?;
        let params = params(args);
        let rows = conn.client.query(&statement, &params).map_err(|e| self.failure(e))?;
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
        let statement = conn.client.prepare(&numbered(sql)).map_err(|e| self.failure(e))?;
        conn.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// The error a failed statement answers; a conflict with another transaction is noted,
    /// and logged only if it is never overcome.
    fn failure(&self, error: postgres::Error) -> StoreError {
        let code = error.code();
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
