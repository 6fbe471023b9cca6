//! The settings of a connection that holds a session-level advisory lock other replicas count
//! on (the duties', presence's): each end notices a dead peer within seconds. The replica's side
//! reconnects rather than block on a socket TCP gives up on after a quarter of an hour; the
//! server's side ends a session whose replica vanished without a word (its host died, the
//! network was cut), which would otherwise keep its lock that long — the duties held by a
//! replica that runs none, a replica counted live that takes no share of the places.

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
    // The server's own probes, set for the session at its start (after any the URL gives).
    let server = format!(
        "-c tcp_keepalives_idle={} -c tcp_keepalives_interval={} -c tcp_keepalives_count={PROBES} -c tcp_user_timeout={}",
        PROBE_IDLE.as_secs(),
        PROBE_EVERY.as_secs(),
        give_up.as_millis()
    );
    let options = match config.get_options() {
        Some(given) if !given.is_empty() => format!("{given} {server}"),
        _ => server,
    };
    config.options(&options);
    config
}

#[cfg(test)]
mod tests {
    use postgres::NoTls;

    use super::*;
    use crate::service::store::test_server::TestServer;

    /// The server probes a lock-holding session's replica too (over TCP, as every replica
    /// connects): a vanished replica's session ends within seconds, and its lock with it.
    #[test]
    fn a_lock_holding_session_is_probed_from_both_ends() {
        let server = TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
        let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
        let mut config: postgres::Config = url.parse().unwrap_or_else(|e| panic!("{e}"));
        config.options("-c application_name=given");
        let mut client = watched(config, Duration::from_secs(3)).connect(NoTls).unwrap_or_else(|e| panic!("{e}"));
        let show = |client: &mut postgres::Client, setting: &str| -> String {
            client.query_one(&format!("SHOW {setting}"), &[]).unwrap_or_else(|e| panic!("{e}")).get(0)
        };
        assert_eq!(show(&mut client, "tcp_keepalives_idle"), "2");
        assert_eq!(show(&mut client, "tcp_keepalives_interval"), "1");
        assert_eq!(show(&mut client, "tcp_keepalives_count"), "3");
        assert_eq!(show(&mut client, "tcp_user_timeout"), "3000");
        assert_eq!(show(&mut client, "application_name"), "given", "the URL's options kept");
    }
}
