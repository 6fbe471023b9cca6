//! The deployment's one-runner duties (`replica::duties`, PostgreSQL): one replica holds them,
//! the other's events are still published (by the holder), and when the holder goes — its
//! store dropped, so its connection closes as a killed process's does — the other takes them
//! over. SQLite, one process, always holds them.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

#[test]
fn one_replica_holds_the_duties_and_another_takes_them_over_when_it_goes() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let open = || Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let a = open();
    eventually("the first replica runs the duties", || a.holds_duties());
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
    eventually("A runs the duties", || a.holds_duties());
    assert!(!b.holds_duties());
    // The holder's session ends as if its replica died: its lock is freed at once.
    let ended = end_duties_sessions(&b);
    assert_eq!(ended, 1, "the duties' session was found and ended");
    eventually("A gives the duties up or holds them again, and one replica holds them", || {
        let holders = [a.holds_duties(), b.holds_duties()].iter().filter(|h| **h).count();
        holders == 1 && holders_in_database(&b) == 1
    });
}

#[test]
fn a_command_never_tries_for_the_duties() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let location = Location::Postgres(url);
    // A command opened first, with no service on the database, takes nothing.
    let command = Store::open_by(&location, Opener::Command).unwrap_or_else(|e| panic!("{e:?}"));
    std::thread::sleep(2 * crate::service::store::postgres::duties::TRY_EVERY);
    assert_eq!(holders_in_database(&command), 0, "the command took no lock");
    let service = Store::open(&location).unwrap_or_else(|e| panic!("{e:?}"));
    eventually("the service runs the duties", || service.holds_duties());
    assert!(!command.holds_duties());
    // The command's events are the holder's to publish.
    let newest = command.events();
    write(&command, |tx| insert(tx, &issue("i1", "OPEN")));
    eventually("the command's event is published by the service", || *newest.borrow() >= 1);
}

#[test]
fn a_holder_cut_off_stops_its_duties_before_another_replica_starts_them() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let proxy = Proxy::start(&url);
    let a = Store::open(&Location::Postgres(proxy.url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    eventually("A runs the duties", || a.holds_duties());
    let b = Store::open(&Location::Postgres(url)).unwrap_or_else(|e| panic!("{e:?}"));
    // A hears nothing more (its packets still acknowledged: no TCP timeout fires), and the
    // server ends A's session, freeing the lock, as a failover or a partition would.
    proxy.frozen.store(true, Ordering::SeqCst);
    let ended = end_duties_sessions(&b);
    assert_eq!(ended, 1, "A's duties session was found and ended");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !b.holds_duties() {
        assert!(!a.holds_duties() || !b.holds_duties(), "both replicas run the duties");
        assert!(Instant::now() < deadline, "B never took the duties over");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!a.holds_duties(), "A, cut off, gave the duties up before B took them");
}

/// A duties session the replica gave up on (its peer unheard, as after a partition) may live on
/// in the server holding the lock, and no replica could take the duties until the server's own
/// TCP gave up. The replica's next session (`watched::reconnect`, as `duties::spawn` makes
/// them) ends it, and the lock is free again.
#[test]
fn a_duties_session_given_up_on_is_ended_by_the_replicas_next() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let config: ::postgres::Config = url.parse().unwrap_or_else(|e| panic!("{e}"));
    let take = |client: &mut ::postgres::Client| -> bool {
        let row = client.query_one("SELECT pg_try_advisory_lock($1)", &[&postgres::duties::LOCK]);
        row.unwrap_or_else(|e| panic!("{e}")).get(0)
    };
    let mut sessions = Vec::new();
    let mut given_up =
        postgres::watched::reconnect(&config, &mut sessions, "duties").unwrap_or_else(|| panic!("a session"));
    assert!(take(&mut given_up), "the first session takes the duties' lock");
    let mut next =
        postgres::watched::reconnect(&config, &mut sessions, "duties").unwrap_or_else(|| panic!("a session"));
    eventually("the next session takes the lock the one given up on held", || take(&mut next));
    assert!(given_up.simple_query("").is_err(), "the server ended the session given up on");
}

#[test]
fn sqlite_always_holds_the_duties() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let store = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(store.holds_duties());
}

/// The duties' lock held in this database, one-key form (`objsubid = 1`): not a transaction's
/// passing lock (a publish, a pick) nor the presence lock (two keys).
const DUTIES_HELD: &str = "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND objid::BIGINT = ?1 \
     AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

/// Sessions holding the duties' advisory lock on this database now.
fn holders_in_database(store: &Store) -> i64 {
    read(store, |c| Ok(c.value(&format!("SELECT count(*) {DUTIES_HELD}"), args![postgres::duties::LOCK])?.unwrap_or(0)))
}

/// Ends, from `store`'s connection, every session holding the duties' lock (as a failover or a
/// killed replica would), and says how many.
fn end_duties_sessions(store: &Store) -> i64 {
    read(store, |c| {
        Ok(c.value(
            &format!("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) {DUTIES_HELD}"),
            args![postgres::duties::LOCK],
        )?
        .unwrap_or(0))
    })
}

/// A TCP relay to the test server that can be frozen: it stops relaying, while the kernel
/// still acknowledges what arrives, as a stalled peer or a partition past a proxy looks.
struct Proxy {
    url: String,
    frozen: Arc<AtomicBool>,
    closed: Arc<AtomicBool>,
}

impl Proxy {
    fn start(url: &str) -> Proxy {
        let (head, rest) = url.rsplit_once(':').unwrap_or_else(|| panic!("no port in {url}"));
        let (port, database) = rest.split_once('/').unwrap_or_else(|| panic!("no database in {url}"));
        let server: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap_or_else(|e| panic!("{e}"));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().unwrap_or_else(|e| panic!("{e}")).port();
        listener.set_nonblocking(true).unwrap_or_else(|e| panic!("{e}"));
        let (frozen, closed) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (freezing, closing) = (frozen.clone(), closed.clone());
        std::thread::spawn(move || {
            while !closing.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                let Ok(upstream) = TcpStream::connect(server) else { continue };
                let _ = client.set_nonblocking(false);
                for (from, to) in [(&client, &upstream), (&upstream, &client)] {
                    let (from, to) = (from.try_clone(), to.try_clone());
                    let (Ok(from), Ok(to)) = (from, to) else { continue };
                    let (frozen, closed) = (freezing.clone(), closing.clone());
                    std::thread::spawn(move || relay(from, to, &frozen, &closed));
                }
            }
        });
        Proxy { url: format!("{head}:{port}/{database}"), frozen, closed }
    }
}

impl Drop for Proxy {
    /// Every relayed connection closes: the frozen replica's threads see it end and stop.
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

fn relay(mut from: TcpStream, mut to: TcpStream, frozen: &AtomicBool, closed: &AtomicBool) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(20)));
    let mut buffer = [0u8; 16 * 1024];
    while !closed.load(Ordering::SeqCst) {
        if frozen.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) if to.write_all(&buffer[..n]).is_ok() => {}
            Ok(_) => break,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let _ = from.shutdown(std::net::Shutdown::Both);
    let _ = to.shutdown(std::net::Shutdown::Both);
}
