//! The settings of a connection that holds a session-level advisory lock other replicas count
//! on (the duties', presence's): the replica notices a dead server within seconds and
//! reconnects, rather than block on a socket TCP gives up on after a quarter of an hour. (The
//! server's side is not probed: set as session options, its probes made the alert tests flaky
//! on PostgreSQL, which is not understood yet; see docs/interface-decisions.md.)

use std::time::Duration;

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
