//! The deployment's one-runner duties (`replica::duties`, PostgreSQL): one replica holds them,
//! the other's events are still published (by the holder), and when the holder goes — its
//! store dropped, so its connection closes as a killed process's does — the other takes them
//! over. SQLite, one process, always holds them.

use super::*;

#[test]
fn one_replica_holds_the_duties_and_another_takes_them_over_when_it_goes() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let open = || Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let a = open();
    assert!(a.holds_duties(), "the first replica holds the duties from its start");
    let b = open();
    assert!(!b.holds_duties(), "a second replica waits");

    // B publishes nothing itself; the holder's sweep publishes what B commits.
    let newest = b.events();
    write(&b, |tx| insert(tx, &issue("i1", "OPEN")));
    eventually("B's event is published by A", || *newest.borrow() >= 1);
    assert!(!b.holds_duties(), "B still waits while A lives");

    drop(a);
    eventually("B takes the duties over", || b.holds_duties());
    write(&b, |tx| insert(tx, &issue("i2", "OPEN")));
    eventually("B publishes its own events now", || *newest.borrow() >= 2);
}

#[test]
fn a_replica_that_lost_its_connection_gives_the_duties_up_and_one_holds_them_again() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let open = || Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let (a, b) = (open(), open());
    assert!(a.holds_duties() && !b.holds_duties());
    // The holder's session ends as if its replica died: its lock is freed at once.
    let ended: i64 = read(&b, |c| {
        Ok(c.value(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' \
             AND objsubid = 1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )?
        .unwrap_or(0))
    });
    assert_eq!(ended, 1, "the duties' session was found and ended");
    eventually("A gives the duties up or holds them again, and one replica holds them", || {
        let holders = [a.holds_duties(), b.holds_duties()].iter().filter(|h| **h).count();
        holders == 1 && holders_in_database(&b) == 1
    });
}

#[test]
fn sqlite_always_holds_the_duties() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let store = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(store.holds_duties());
}

/// Sessions holding a one-key advisory lock on this database now (the presence lock has two).
fn holders_in_database(store: &Store) -> i64 {
    read(store, |c| {
        Ok(c.value(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )?
        .unwrap_or(0))
    })
}
