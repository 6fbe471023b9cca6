//! The PostgreSQL pool (`store::postgres::session`): a replica's connections carry its name,
//! and a connection the server ended while it sat in the pool costs at most the one statement
//! that finds it gone — it is dropped when it comes back — and none once it has been back for
//! a second (the pool asks the server before handing it out again); a write that finds it
//! gone runs again on another connection.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

use super::*;
use crate::service::store::picks;

/// This test process's connections to the database at `url`, ended by the server from a
/// connection of the test's own (unnamed, so not among them); how many.
fn end_pooled_connections(url: &str) -> u64 {
    let mut client = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
    let sql = "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
               WHERE datname = current_database() AND application_name = $1 AND backend_type = 'client backend'";
    let name = format!("switchboard:{}", std::process::id());
    let ended: i64 = client.query_one(sql, &[&name]).unwrap_or_else(|e| panic!("{e}")).get(0);
    ended as u64
}

/// Reads until one succeeds (within ten seconds); how many failed first, each as the store's
/// unavailability (a caller is told to try again), not as a fault.
fn failed_reads_until_one_succeeds(store: &Store) -> usize {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut failed = 0;
    while let Err(error) = store.read_blocking(|c| c.value::<i64>("SELECT 1", &[])) {
        assert!(matches!(error, StoreError::Unavailable(_)), "a lost connection failed a read as {error:?}");
        failed += 1;
        assert!(Instant::now() < deadline, "no read succeeded within 10 s ({failed} failed)");
    }
    failed
}

#[test]
fn a_replicas_connections_are_named_after_its_process() {
    let store = postgres_store();
    let name: Option<String> =
        read(&store, |c| c.value("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()", &[]));
    assert_eq!(name, Some(format!("switchboard:{}", std::process::id())));
}

#[test]
fn a_connection_ended_in_the_pool_fails_one_statement_at_most_and_none_after_a_second() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    // The pool's connections, just back from a statement.
    assert!(store.read_blocking(|c| c.value::<i64>("SELECT 1", &[])).is_ok());
    let ended = end_pooled_connections(&url);
    assert!(ended >= 1, "some pooled connections were ended");
    let failed = failed_reads_until_one_succeeds(&store);
    assert!(failed as u64 <= ended, "{failed} reads failed for {ended} ended connections: one was handed out twice");
    for _ in 0..20 {
        assert!(store.read_blocking(|c| c.value::<i64>("SELECT 1", &[])).is_ok(), "a dead connection came back");
    }

    // Back in the pool for more than a second, a connection is asked after before it is used.
    let ended = end_pooled_connections(&url);
    assert!(ended >= 1);
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(failed_reads_until_one_succeeds(&store), 0, "the pool's check found the ended connections");
}

/// A write handed a connection the server ended while it sat in the pool (nothing ran on it)
/// runs again on another: every write succeeds at its first call, each in one transaction.
#[test]
fn a_write_handed_a_connection_ended_in_the_pool_runs_again_on_another() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    for n in 0..3 {
        assert!(store.read_blocking(|c| c.value::<i64>("SELECT 1", &[])).is_ok());
        assert!(end_pooled_connections(&url) >= 1, "some pooled connections were ended");
        let id = format!("i{n}");
        let doc = issue(&id, "OPEN");
        store.write_blocking(|tx| insert(tx, &doc)).unwrap_or_else(|e| panic!("write {n}: {e:?}"));
    }
    let stored = read(&store, |c| c.value::<i64>("SELECT count(*) FROM docs WHERE kind = 'issue'", &[]));
    assert_eq!(stored, Some(3), "each write once");
}

/// The engines' progress writes take turns, `PROGRESS_AT_ONCE` at a time in a replica alone
/// (`Store::progress_blocking`): while that many hold every turn, one more waits, and a write
/// of the interface's runs at once.
#[test]
fn progress_writes_take_turns_and_the_interfaces_writes_do_not_wait_for_them() {
    let store = postgres_store();
    assert_eq!(store.live_replicas(), 1);
    turns_hold(&store, postgres::PROGRESS_AT_ONCE);
}

/// Replicas share the turns out: with a second alive on the database, each runs two at once.
#[test]
fn two_live_replicas_take_two_turns_each() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let first = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let second = Store::open(&Location::Postgres(url)).unwrap_or_else(|e| panic!("{e:?}"));
    eventually("the first replica counts the second", || first.live_replicas() == 2);
    turns_hold(&first, 2);
    drop(second);
    eventually("the first replica counts itself alone", || first.live_replicas() == 1);
    turns_hold(&first, postgres::PROGRESS_AT_ONCE);
}

/// A replica's part of the turns for any count of replicas (that each is a whole number of the
/// semaphore's parts is a const assert beside `TURN_PARTS`).
#[test]
fn a_replicas_part_of_the_turns_for_any_count() {
    let turns: Vec<_> = (0..=5).map(postgres::turns_at_once).collect();
    assert_eq!(turns, [3, 3, 2, 1, 1, 1], "none counted yet is alone");
}

/// A refill's pick in one statement waits its turn with the progress writes: while they hold
/// every turn it does not run; once they are released it does.
#[test]
fn a_pick_in_one_statement_waits_its_turn() {
    let store = postgres_store();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    let held = Holding::start(&store, &runtime, postgres::PROGRESS_AT_ONCE);
    eventually("every turn taken", || held.inside() == postgres::PROGRESS_AT_ONCE);
    let pick = || picks::plain("PENDING");
    let waiting =
        runtime.block_on(async { tokio::time::timeout(Duration::from_millis(500), store.pick_in_one(pick())).await });
    assert!(waiting.is_err(), "the pick ran while every turn was held: {waiting:?}");
    held.release(&runtime);
    let picked =
        runtime.block_on(async { tokio::time::timeout(Duration::from_secs(10), store.pick_in_one(pick())).await });
    let picked = picked.expect("the pick ran once the turns were let go").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(picked, picks::PickedInOne::Claimed(Vec::new()), "nothing waiting, nothing claimed");
}

/// Progress writes of a store's that hold their turns until released (or ten seconds pass),
/// counting themselves.
struct Holding {
    inside: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    release: Arc<AtomicBool>,
    ran: Arc<AtomicUsize>,
    writes: Vec<tokio::task::JoinHandle<StoreResult<()>>>,
}

impl Holding {
    fn start(store: &Store, runtime: &tokio::runtime::Runtime, count: usize) -> Holding {
        let (inside, most, release, ran) = Default::default();
        let mut holding = Holding { inside, most, release, ran, writes: Vec::new() };
        for _ in 0..count {
            let (store, inside, most, release, ran) = (
                store.clone(),
                holding.inside.clone(),
                holding.most.clone(),
                holding.release.clone(),
                holding.ran.clone(),
            );
            holding.writes.push(runtime.spawn(async move {
                store
                    .write_progress(move |_| -> StoreResult<()> {
                        most.fetch_max(inside.fetch_add(1, SeqCst) + 1, SeqCst);
                        let deadline = Instant::now() + Duration::from_secs(10);
                        while !release.load(SeqCst) && Instant::now() < deadline {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        inside.fetch_sub(1, SeqCst);
                        ran.fetch_add(1, SeqCst);
                        Ok(())
                    })
                    .await
            }));
        }
        holding
    }

    fn inside(&self) -> usize {
        self.inside.load(SeqCst)
    }

    /// Lets them go and waits for all of them; the most that were inside at once.
    fn release(self, runtime: &tokio::runtime::Runtime) -> usize {
        self.release.store(true, SeqCst);
        for write in self.writes {
            runtime.block_on(write).unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|e| panic!("{e:?}"));
        }
        self.most.load(SeqCst)
    }
}

/// While `at_once` progress writes of `store`'s hold their turns, one more waits and an
/// interface write runs; released, all run, never more than `at_once` together.
fn turns_hold(store: &Store, at_once: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    let held = Holding::start(store, &runtime, at_once + 1);
    eventually("every turn taken", || held.inside() == at_once);
    let (interface_store, seen) = (store.clone(), held.inside.clone());
    let interface = runtime.block_on(async move {
        let write = interface_store.write(move |_| -> StoreResult<usize> { Ok(seen.load(SeqCst)) });
        tokio::time::timeout(Duration::from_secs(5), write).await
    });
    let interface = interface.expect("the interface's write waited for a turn").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(interface, at_once, "the interface's write ran while every turn was held");
    assert_eq!((held.ran.load(SeqCst), held.inside()), (0, at_once), "one progress write more still waits");
    let ran = held.ran.clone();
    let most = held.release(&runtime);
    assert_eq!((ran.load(SeqCst), most), (at_once + 1, at_once), "all ran, never more than the turns at once");
}
