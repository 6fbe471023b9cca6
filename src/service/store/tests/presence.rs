//! Which replicas are alive (`postgres::presence`): each store counts the others sharing its
//! database within a second or two of their start, and drops one that went (its store
//! dropped, so its connection closes as a killed process's does) within a second or two. A
//! SQLite store is one replica alone.

use super::*;

#[test]
fn replicas_count_each_other_and_one_that_goes_drops_out_by_itself() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let open = || Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let a = open();
    assert_eq!(a.live_replicas(), 1, "alone from its start");
    let b = open();
    assert_eq!(b.live_replicas(), 2, "a replica counts those already there from its start");
    eventually("A counts B", || a.live_replicas() == 2);
    let c = open();
    eventually("three", || a.live_replicas() == 3 && b.live_replicas() == 3 && c.live_replicas() == 3);

    drop(c);
    eventually("C drops out", || a.live_replicas() == 2 && b.live_replicas() == 2);

    // Another database's replicas are not counted.
    let elsewhere = test_server::TestServer::fresh_store();
    assert_eq!(elsewhere.live_replicas(), 1);
    assert_eq!(a.live_replicas(), 2);

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let sqlite = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(sqlite.live_replicas(), 1);
}

/// A presence session the replica gave up on (its peer unheard, as after a partition) may live
/// on in the server, holding its key, until the server's own TCP gives up: the replica counted
/// twice, and every job's share halved. Its next session ends it; another replica's is never
/// ended.
#[test]
fn a_presence_session_given_up_on_is_ended_by_the_replicas_next() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let config: ::postgres::Config = url.parse().unwrap_or_else(|e| panic!("{e}"));
    let connect = |sessions: &mut Vec<_>| {
        postgres::presence::connect(&config, sessions).unwrap_or_else(|| panic!("a presence session"))
    };
    let count = |client: &mut ::postgres::Client| postgres::presence::count(client).unwrap_or_else(|e| panic!("{e}"));
    let mut sessions = Vec::new();
    let mut given_up = connect(&mut sessions);
    assert_eq!(count(&mut given_up), 1);

    // Another replica's session counts, and is left alone by this replica's next.
    let mut other = connect(&mut Vec::new());
    assert_eq!(count(&mut other), 2);
    let mut next = connect(&mut sessions);
    eventually("the session given up on ends: this replica and the other", || count(&mut next) == 2);
    assert!(given_up.simple_query("").is_err(), "the server ended the session given up on");
    assert!(other.simple_query("").is_ok(), "the other replica's session lives");

    // A session already gone is nothing to end (its lock goes before its process does).
    let gone = sessions.last().cloned().unwrap_or_else(|| panic!("the next session is known"));
    assert_eq!(sessions.len(), 1, "the session given up on is no longer remembered");
    drop(next);
    eventually("the next session goes with its connection", || count(&mut other) == 1);
    let mut client = config.connect(::postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
    eventually("nothing left to end", || !gone.end_from(&mut client).unwrap_or_else(|e| panic!("{e}")));
}
