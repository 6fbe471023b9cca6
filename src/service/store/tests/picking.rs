//! Picks of simulations to start across replicas (`Store::write_pick`, PostgreSQL): no pick
//! waits for a pick of another job, a pick of a job another replica is picking for passes it by
//! at once, and a pick alone (a sequential job) waits for every other.

use std::sync::mpsc;

use super::*;

/// `pick` run on a thread of its own, its answer awaited for at most ten seconds: a pick that
/// waited for another (held until the test says) fails the test instead of hanging it.
fn within_ten_seconds(store: &Store, pick: Pick, answer: i64) -> Option<i64> {
    let (sent, answered) = mpsc::channel();
    let store = store.clone();
    std::thread::spawn(move || {
        let _ = sent.send(store.write_pick_blocking(pick, |_| Ok::<_, StoreError>(answer)));
    });
    let answer = answered.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("{pick:?} waited"));
    answer.unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_pick_waits_for_no_other_jobs_pick_and_passes_by_its_own_jobs() {
    let store = postgres_store();
    // Replica A picks for job j1 and holds its transaction open until told.
    let (started, picking) = mpsc::channel::<()>();
    let (finish, finished) = mpsc::channel::<()>();
    let finished = std::sync::Mutex::new(finished);
    let a = {
        let store = store.clone();
        std::thread::spawn(move || {
            store.write_pick_blocking(Pick::job("j1"), |_| {
                let _ = started.send(());
                let _ = finished.lock().map(|f| f.recv());
                Ok(1)
            })
        })
    };
    picking.recv().unwrap_or_else(|e| panic!("{e:?}"));

    assert_eq!(within_ten_seconds(&store, Pick::job("j1"), 2), None, "the same job is passed by");
    assert_eq!(within_ten_seconds(&store, Pick::job("j2"), 3), Some(3), "another job's pick goes on");

    // A pick alone waits for A's.
    let alone = {
        let store = store.clone();
        std::thread::spawn(move || store.write_pick_blocking(Pick::Alone, |_| Ok(4)))
    };
    let waiting = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() \
                   AND wait_event_type = 'Lock' AND wait_event = 'advisory'";
    eventually("the pick alone waits for the job's", || read(&store, |c| c.exists(waiting, &[])));
    finish.send(()).unwrap_or_else(|e| panic!("{e:?}"));
    let answer = |t: std::thread::JoinHandle<StoreResult<Option<i64>>>| {
        t.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert_eq!(answer(a), Some(1));
    assert_eq!(answer(alone), Some(4));
    // Once nobody picks, each runs.
    assert_eq!(within_ten_seconds(&store, Pick::job("j1"), 5), Some(5));
}

#[test]
fn a_job_picks_under_the_same_key_in_every_replica_and_sqlite_always_picks() {
    assert_eq!(Pick::job("6f1c0d5e-0000-4000-8000-000000000001"), Pick::job("6f1c0d5e-0000-4000-8000-000000000001"));
    assert_ne!(Pick::job("6f1c0d5e-0000-4000-8000-000000000001"), Pick::job("6f1c0d5e-0000-4000-8000-000000000002"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let sqlite = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(within_ten_seconds(&sqlite, Pick::job("j1"), 6), Some(6));
}
