//! Work announced on one replica (`Store::announce_work`, a run created there) is heard by
//! every replica sharing its database, itself among them, and by no other database's. A
//! SQLite store has no other replica: no channel, and announcing is nothing.

use tokio::sync::watch;

use super::*;

#[test]
fn work_announced_on_one_replica_is_heard_by_every_replica_of_its_database() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let open = || Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let (a, b, elsewhere) = (open(), open(), test_server::TestServer::fresh_store());
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let announce = |store: &Store| runtime.block_on(store.announce_work()).unwrap_or_else(|e| panic!("{e}"));
    // Each listening first: its listener counts one as it begins (it may have missed some), so
    // one is counted once it listens. Then what it counted is set aside.
    let listening = |store: &Store, name: &str| -> watch::Receiver<u64> {
        let mut heard = store.work_announced().unwrap_or_else(|| panic!("PostgreSQL has the channel"));
        eventually(&format!("{name} listens"), || *heard.borrow_and_update() >= 1);
        heard
    };
    let (heard_a, heard_b, heard_elsewhere) = (listening(&a, "A"), listening(&b, "B"), listening(&elsewhere, "C"));
    announce(&a);
    eventually("B hears A's announcement", || heard_b.has_changed().unwrap_or(false));
    eventually("A hears its own", || heard_a.has_changed().unwrap_or(false));
    assert!(!heard_elsewhere.has_changed().unwrap_or(true), "another database's replica heard it");

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let sqlite = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(sqlite.work_announced().is_none());
    announce(&sqlite);
}
