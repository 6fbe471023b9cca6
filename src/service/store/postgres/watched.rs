//! The settings of a connection that holds a session-level advisory lock other replicas count
//! on (the duties', presence's): the replica notices a dead server within seconds and
//! reconnects, rather than block on a socket TCP gives up on after a quarter of an hour. (The
//! server's side is not probed: set as session options, its probes made the alert tests flaky
//! on PostgreSQL, which is not understood yet; see docs/interface-decisions.md.) A session
//! given up on may live on in the server, holding its lock, until the server's own TCP gives
//! up (hours, after a partition): the replica's next session ends it (`reconnect`).

use std::time::{Duration, SystemTime};

use postgres::{Client, NoTls};

/// How long a peer may go unheard: the probes' idle time, their interval and count.
const PROBE_IDLE: Duration = Duration::from_secs(2);
const PROBE_EVERY: Duration = Duration::from_secs(1);
const PROBES: u32 = 3;

/// `config` for a lock-holding connection that gives a silent peer up after `give_up`.
pub(super) fn watched(mut config: postgres::Config, give_up: Duration) -> postgres::Config {
    config
        .connect_timeout(give_up)
        .keepalives(true)
        .keepalives_idle(PROBE_IDLE)
        .keepalives_interval(PROBE_EVERY)
        .keepalives_retries(PROBES)
        .tcp_user_timeout(give_up);
    config
}

/// How many of a replica's sessions for one lock `reconnect` remembers to end, its newest among
/// them.
const REMEMBERED: usize = 4;

/// A session as the server knows it: its backend and when that began (a backend's id alone may
/// be another session's later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::service::store) struct SessionId {
    pid: i32,
    began: SystemTime,
}

impl SessionId {
    /// The session `client` is.
    fn of(client: &mut Client) -> Result<SessionId, postgres::Error> {
        let row =
            client.query_one("SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()", &[])?;
        Ok(SessionId { pid: row.get(0), began: row.get(1) })
    }

    /// Ends this session from `client`'s, if the server still runs it; whether it did. The
    /// same role may end its own sessions; the lock goes as the backend exits, moments later.
    pub(in crate::service::store) fn end_from(&self, client: &mut Client) -> Result<bool, postgres::Error> {
        let rows = client.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2",
            &[&self.pid, &self.began],
        )?;
        Ok(rows.first().is_some_and(|row| row.get::<_, bool>(0)))
    }
}

/// A new lock-holding session (`config` made by `watched`) that has ended this replica's
/// earlier sessions for the same lock (`sessions`, each given up on) if the server still ran
/// them, and is the newest of `sessions` from now on; one that could not be ended is tried
/// again at the next. Without it, a session cut off by a partition held its lock until the
/// server noticed: presence counted the replica twice (halving its share of every job), and
/// the duties stayed with a session no replica used. `None` if it cannot connect.
pub(in crate::service::store) fn reconnect(
    config: &postgres::Config,
    sessions: &mut Vec<SessionId>,
    what: &str,
) -> Option<Client> {
    let mut client = config.connect(NoTls).map_err(|e| tracing::debug!("store: {what} cannot connect: {e}")).ok()?;
    sessions.retain(|old| match old.end_from(&mut client) {
        Ok(ended) => {
            if ended {
                tracing::info!("store: {what}: ended this replica's session given up on (backend {})", old.pid);
            }
            false
        }
        // Tried again at the next: the new session serves meanwhile.
        Err(e) => {
            tracing::warn!("store: {what}: the session given up on (backend {}) not ended: {e}", old.pid);
            true
        }
    });
    make_room(sessions);
    match SessionId::of(&mut client) {
        Ok(id) => sessions.push(id),
        Err(e) => {
            tracing::debug!("store: {what}: the new session not known: {e}");
            return None;
        }
    }
    Some(client)
}

/// Room for one more session among `sessions`: a server that keeps refusing to end them leaves
/// the newest few remembered, not every one since.
fn make_room(sessions: &mut Vec<SessionId>) {
    if sessions.len() >= REMEMBERED {
        sessions.drain(..=sessions.len() - REMEMBERED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_remembers_its_newest_sessions_to_end() {
        let id = |pid| SessionId { pid, began: SystemTime::UNIX_EPOCH };
        let mut sessions: Vec<SessionId> = (1..=6).map(id).collect();
        make_room(&mut sessions);
        sessions.push(id(7));
        assert_eq!(sessions, [4, 5, 6, 7].map(id), "the newest four");
        let mut few = vec![id(1)];
        make_room(&mut few);
        assert_eq!(few, [id(1)], "under the limit, all kept");
    }
}
