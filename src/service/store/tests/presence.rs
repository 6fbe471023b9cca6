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
