//! Picks of simulations to start across replicas (`Store::write_pick`, PostgreSQL): no pick
//! waits for a pick of another job, a pick of a job another replica is picking for waits for
//! it (each replica takes its own share of the job's places), and a pick alone (a sequential
//! job) waits for every other.

use std::sync::mpsc;

use super::*;

/// `pick` run on a thread of its own, its answer awaited for at most ten seconds: a pick that
/// waited for another (held until the test says) fails the test instead of hanging it.
fn within_ten_seconds(store: &Store, pick: Pick, answer: i64) -> i64 {
    let (sent, answered) = mpsc::channel();
    let store = store.clone();
    std::thread::spawn(move || {
        let _ = sent.send(store.write_pick_blocking(pick, |_| Ok::<_, StoreError>(answer)));
    });
    let answer = answered.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("{pick:?} waited"));
    answer.unwrap_or_else(|e| panic!("{e:?}"))
}

/// How many of the service's connections wait on an advisory lock now.
fn waiting_on_advisory_locks(store: &Store) -> i64 {
    let sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
               AND wait_event_type = 'Lock' AND wait_event = 'advisory'";
    read(store, |c| Ok(c.value::<i64>(sql, &[])?.unwrap_or(0)))
}

/// A pick of job `j1` holding its lock on a thread of its own until the test sends on the
/// returned channel; its thread answers 1.
fn holding_j1(store: &Store) -> (mpsc::Sender<()>, std::thread::JoinHandle<StoreResult<i64>>) {
    let (started, picking) = mpsc::channel::<()>();
    let (finish, finished) = mpsc::channel::<()>();
    let finished = std::sync::Mutex::new(finished);
    let store = store.clone();
    let holder = std::thread::spawn(move || {
        store.write_pick_blocking(Pick::job("j1"), |_| {
            let _ = started.send(());
            let _ = finished.lock().map(|f| f.recv());
            Ok(1)
        })
    });
    picking.recv().unwrap_or_else(|e| panic!("{e:?}"));
    (finish, holder)
}

#[test]
fn a_pick_waits_for_no_other_jobs_pick_and_for_its_own_jobs() {
    let store = postgres_store();
    // Replica A picks for job j1 and holds its transaction open until told.
    let (finish, a) = holding_j1(&store);

    // Replica B's pick for the same job waits for A's.
    let b = {
        let store = store.clone();
        std::thread::spawn(move || store.write_pick_blocking(Pick::job("j1"), |_| Ok(2)))
    };
    eventually("the same job's pick waits", || waiting_on_advisory_locks(&store) == 1);
    assert!(!b.is_finished(), "the same job's pick went on while A held the job");
    assert_eq!(within_ten_seconds(&store, Pick::job("j2"), 3), 3, "another job's pick goes on");

    // A pick alone waits for A's (and B's).
    let alone = {
        let store = store.clone();
        std::thread::spawn(move || store.write_pick_blocking(Pick::Alone, |_| Ok(4)))
    };
    eventually("the pick alone waits for the job's", || waiting_on_advisory_locks(&store) == 2);
    finish.send(()).unwrap_or_else(|e| panic!("{e:?}"));
    let answer = |t: std::thread::JoinHandle<StoreResult<i64>>| {
        t.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert_eq!((answer(a), answer(b), answer(alone)), (1, 2, 4));
    // Once nobody picks, each runs.
    assert_eq!(within_ten_seconds(&store, Pick::job("j1"), 5), 5);
}

/// A pick waits for its job's lock only so long (`PICK_WAIT`): a holder stalled inside its
/// transaction fails the waiting pick as the store's unavailability (the statement's pick:
/// `sim::pick`'s tests), and once it lets go, picks for the job go on.
#[test]
fn a_pick_held_up_by_a_stalled_holder_fails_as_busy_and_the_next_goes_on() {
    let store = postgres_store();
    let (finish, stalled) = holding_j1(&store);
    let (sent, answered) = mpsc::channel();
    let waiting = store.clone();
    std::thread::spawn(move || {
        let _ = sent.send(waiting.write_pick_blocking(Pick::job("j1"), |_| Ok::<_, StoreError>(2)));
    });
    let waited = answered.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("the pick waited on"));
    assert!(matches!(waited, Err(StoreError::Unavailable(_))), "the transaction's pick: {waited:?}");
    finish.send(()).unwrap_or_else(|e| panic!("{e:?}"));
    let held = stalled.join().unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(held.unwrap_or_else(|e| panic!("{e:?}")), 1);
    assert_eq!(within_ten_seconds(&store, Pick::job("j1"), 3), 3, "the next pick goes on");
}
