//! Which replicas are alive, without a row any of them writes: each holds the presence key's
//! advisory lock SHARED, at session level, on a connection of its own, and counts the holders
//! granted it (`pg_locks`) once a second. A replica that stops, dies or loses the database
//! loses its session and with it its lock, so it drops out of the count by itself, within a
//! second of the others' next look. The count is what a job's places are shared out by
//! (`sim::limits::share`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use postgres::Client;

use super::watched::SessionId;
use crate::service::store::rounds::guarded;

/// The presence advisory lock's two keys (a two-key lock: apart from the one-key locks, such as
/// the duties'; its first key apart from the picks').
const KEY: (i32, i32) = (0x5b11, 0x7e);

/// How often the live replicas are counted again.
pub(in crate::service::store) const COUNT_EVERY: Duration = Duration::from_secs(1);

/// How long the presence connection may go unheard before it is given up and made again
/// (`watched`); the next ends the one given up on, which the server might otherwise count on.
const GIVE_UP: Duration = Duration::from_secs(5);

/// Takes this replica's place among the live ones and counts them once, so that a replica
/// knows from its start, then keeps its place and counts again on a thread of its own until
/// `stopping`. `live` holds the count, this replica among them (at least one).
pub(super) fn spawn(
    config: postgres::Config,
    live: Arc<AtomicUsize>,
    stopping: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let config = super::watched::watched(config, GIVE_UP);
    let mut sessions = Vec::new();
    let mut client = connect(&config, &mut sessions);
    if let Some(c) = client.as_mut() {
        live.store(count(c).unwrap_or(1), Ordering::Relaxed);
    }
    std::thread::Builder::new().name("replica-presence".into()).spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            std::thread::sleep(COUNT_EVERY);
            let Some(c) = client.as_mut().filter(|c| !c.is_closed()) else {
                client = connect(&config, &mut sessions);
                continue;
            };
            match guarded("counting the live replicas", || count(c)) {
                Some(Ok(n)) => live.store(n, Ordering::Relaxed),
                Some(Err(e)) => {
                    tracing::warn!("store: the presence connection: {e}; reconnecting");
                    client = None;
                }
                None => client = None,
            }
        }
        // Dropping the connection takes this replica out of the others' count at once.
    })?;
    Ok(())
}

/// A presence session holding the key, this replica's earlier ones (`sessions`) ended first.
pub(in crate::service::store) fn connect(config: &postgres::Config, sessions: &mut Vec<SessionId>) -> Option<Client> {
    let mut client = super::watched::reconnect(config, sessions, "presence")?;
    present(&mut client).map_err(|e| tracing::debug!("store: presence cannot hold its key: {e}")).ok()?;
    Some(client)
}

/// Holds the presence key shared for the session (no replica ever holds it alone).
fn present(client: &mut Client) -> Result<(), postgres::Error> {
    client.execute("SELECT pg_advisory_lock_shared($1, $2)", &[&KEY.0, &KEY.1]).map(drop)
}

/// The sessions holding the presence key on this database: the live replicas, at least this one.
pub(in crate::service::store) fn count(client: &mut Client) -> Result<usize, postgres::Error> {
    let (class, key) = (i64::from(KEY.0), i64::from(KEY.1));
    let row = client.query_one(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 \
         AND classid::BIGINT = $1 AND objid::BIGINT = $2 \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        &[&class, &key],
    )?;
    Ok((row.get::<_, i64>(0).max(1)) as usize)
}
