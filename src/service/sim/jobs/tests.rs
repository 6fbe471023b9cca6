//! Simulations' ends and their job's fold, on both engines: an end is counted by the fold that
//! follows it, once, and (on PostgreSQL) never waits for the job's row.

use std::time::Duration;

use serde_json::json;
use uuid::Uuid;

use super::*;
use crate::service::sim::verdict::CheckTally;
use crate::service::store::{Dialect, Store, test_server};

const JOB: &str = "00000000-0000-4000-8000-000000000001";
const COLLECTION: &str = "00000000-0000-4000-8000-000000000002";

fn engines() -> Vec<(tempfile::TempDir, Store)> {
    test_server::TestServer::both_engines()
}

fn write<R>(store: &Store, f: impl Fn(&Tx) -> StoreResult<R>) -> R {
    store.write_blocking(f).unwrap_or_else(|e| panic!("{:?}: {e:?}", store.dialect()))
}

fn check() -> Uuid {
    Uuid::from_u128(7)
}

/// A running job of `simulations` PROCESSING simulations judged on one check, with its
/// collection job; the simulations' ids.
fn running_job(store: &Store, simulations: u32) -> Vec<SimulationJob> {
    let tally = Tally {
        checks: vec![CheckTally {
            metric_definition_id: check(),
            metric_name: Some("resolved".into()),
            min_pass_rate: 50.0,
            inherited: false,
            evaluated: 0,
            passed: 0,
        }],
        simulations: u64::from(simulations),
        ..Tally::default()
    };
    let job = json!({
        "simulationRunPlanJobId": JOB, "status": "RUNNING_SIMULATIONS", "createdAt": "2026-01-01T00:00:00Z",
        "collectionJobId": COLLECTION, "tally": tally,
    });
    let collection = json!({ "id": COLLECTION, "status": "PROCESSING", "createdAt": "2026-01-01T00:00:00Z",
        "totalItems": simulations, "completedItems": 0, "failedItems": 0 });
    let sims: Vec<SimulationJob> = (0..simulations)
        .map(|_| {
            let simulation =
                json!({ "simulationJobId": Uuid::new_v4(), "simulationRunPlanJobId": JOB, "status": "PROCESSING" });
            serde_json::from_value(simulation).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    write(store, |tx| {
        store::insert(
            tx,
            &Doc::new(Kind::RunPlanJob, JOB, &job, "2026-01-01T00:00:00Z")?.status(Some("RUNNING_SIMULATIONS")),
        )?;
        store::insert(
            tx,
            &Doc::new(Kind::CollectionJob, COLLECTION, &collection, "2026-01-01T00:00:00Z")?.status(Some("PROCESSING")),
        )?;
        for s in &sims {
            store::insert(tx, &Doc::of(s)?)?;
        }
        Ok(())
    });
    sims
}

/// Ends a simulation as judged, passing the check or not, with its collection item.
fn end(tx: &Tx, simulation: &SimulationJob, passed: bool) -> StoreResult<()> {
    let mut ended = simulation.clone();
    ended.status = Some(SimulationJobStatus::Completed);
    ended.outcome = Some(if passed { SimulationOutcome::Passed } else { SimulationOutcome::Failed });
    let item = ends::Item { collection_id: COLLECTION.into(), failed: false, at: "\"2026-01-01T00:05:00Z\"".into() };
    record_simulation(tx, ended, JOB, &[(check(), passed)], None, Some(item))
}

/// The job as stored (its status, verdict and tally) and its collection job.
fn job(store: &Store) -> (serde_json::Value, Tally, serde_json::Value) {
    let (raw, collection): (serde_json::Value, serde_json::Value) = store
        .read_blocking(|c| -> StoreResult<_> {
            Ok((store::require(c, Kind::RunPlanJob, JOB)?, store::require(c, Kind::CollectionJob, COLLECTION)?))
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
    let tally = serde_json::from_value(raw["tally"].clone()).unwrap_or_else(|e| panic!("{e}: {raw}"));
    (raw, tally, collection)
}

#[test]
fn ends_are_counted_by_the_next_fold_once_and_the_job_settles_with_all_of_them() {
    for (_dir, store) in engines() {
        let sims = running_job(&store, 3);
        write(&store, |tx| end(tx, &sims[0], true));
        write(&store, |tx| end(tx, &sims[1], false));
        let (_, tally, _) = job(&store);
        assert_eq!(tally.ended, 0, "{:?}: an end alone leaves the job's row as it was", store.dialect());

        // A simulation still running: no reason to fold again before its end.
        assert_eq!(write(&store, |tx| fold_job(tx, JOB)), Folded::Done, "{:?}", store.dialect());
        let (running, tally, collection) = job(&store);
        assert_eq!(running["status"], "RUNNING_SIMULATIONS", "{:?}", store.dialect());
        assert_eq!((tally.ended, tally.scored, tally.checks[0].evaluated, tally.checks[0].passed), (2, 2, 2, 1));
        assert_eq!(
            (&collection["completedItems"], &collection["updatedAt"]),
            (&json!(2), &json!("2026-01-01T00:05:00Z"))
        );

        write(&store, |tx| end(tx, &sims[2], true));
        assert_eq!(write(&store, |tx| fold_job(tx, JOB)), Folded::Settled, "{:?}: settled", store.dialect());
        write(&store, |tx| settle_job(tx, JOB)); // a fold with nothing appended changes nothing
        let (ended, tally, collection) = job(&store);
        assert_eq!(ended["status"], "COMPLETED", "{:?}", store.dialect());
        assert_eq!(
            (tally.ended, tally.checks[0].evaluated, tally.checks[0].passed),
            (3, 3, 2),
            "{:?}",
            store.dialect()
        );
        let verdict = &ended["verdict"];
        assert_eq!(verdict["passed"], true, "{:?}: 2 of 3 passed against 50 %: {verdict}", store.dialect());
        assert_eq!(
            (collection["completedItems"].as_u64(), collection["status"].as_str()),
            (Some(3), Some("COMPLETED"))
        );
        let waiting = store.read_blocking(store::ends::waiting_jobs).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(waiting.is_empty(), "{:?}: {waiting:?}", store.dialect());
    }
}

/// On PostgreSQL, where writes run side by side, a simulation's end commits while another
/// transaction holds its job's row (the fold, a cancel): ends of one run do not take turns.
#[test]
fn an_end_commits_while_the_jobs_row_is_held() {
    let (_dir, store) = engines().swap_remove(0);
    assert_eq!(store.dialect(), Dialect::Postgres);
    let sims = running_job(&store, 2);
    let (held_tx, release) = std::sync::mpsc::channel::<()>();
    let (locked, is_locked) = std::sync::mpsc::channel::<()>();
    let holder = {
        let store = store.clone();
        let release = std::sync::Mutex::new(release);
        std::thread::spawn(move || {
            store.write_blocking(|tx| -> StoreResult<_> {
                store::status(tx, Kind::RunPlanJob, JOB)?; // claims the job's row
                let _ = locked.send(());
                let _ = release.lock().map(|r| r.recv());
                Ok(())
            })
        })
    };
    is_locked.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|e| panic!("the row was not held: {e}"));
    let (ended_tx, ended) = std::sync::mpsc::channel();
    {
        let (store, simulation) = (store.clone(), sims[0].clone());
        std::thread::spawn(move || {
            let _ = ended_tx.send(store.write_blocking(|tx| end(tx, &simulation, true)));
        });
    }
    let landed = ended.recv_timeout(Duration::from_secs(30));
    let _ = held_tx.send(());
    let _ = holder.join();
    landed.unwrap_or_else(|e| panic!("the end waited for the job's row: {e}")).unwrap_or_else(|e| panic!("{e:?}"));
    write(&store, |tx| settle_job(tx, JOB));
    assert_eq!(job(&store).1.ended, 1);
}

fn postgres_store() -> Store {
    test_server::TestServer::fresh_store()
}

/// The job's and its collection job's stored bodies, as text.
fn raw_bodies(store: &Store) -> (Option<String>, Option<String>) {
    store
        .read_blocking(|c| -> StoreResult<_> {
            Ok((store::get_raw(c, Kind::RunPlanJob, JOB)?, store::get_raw(c, Kind::CollectionJob, COLLECTION)?))
        })
        .unwrap_or_else(|e| panic!("{e:?}"))
}

/// Reads the waiting folds in one statement, decides each, and applies it in one.
fn fold_in_one_statement(store: &Store) -> Vec<store::folds::FoldApplied> {
    let waiting =
        store.read_blocking(|c| store::folds::waiting(c, &open_statuses())).unwrap_or_else(|e| panic!("{e:?}"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    waiting
        .iter()
        .map(|w| {
            let fold = decide_fold(w).unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|| panic!("no fold: {w:?}"));
            runtime.block_on(store.apply_fold(fold)).unwrap_or_else(|e| panic!("{e:?}"))
        })
        .collect()
}

/// On PostgreSQL a fold read in one statement and applied in one (`store::folds`) writes the
/// job and its collection job byte for byte as the fold in a transaction does; one whose read
/// another fold overtook writes nothing; one that leaves no simulation open says so.
#[test]
fn a_fold_in_one_statement_writes_what_the_transaction_writes() {
    use store::folds::FoldApplied;
    let (by_transaction, by_statement) = (postgres_store(), postgres_store());
    let (sims, others) = (running_job(&by_transaction, 3), running_job(&by_statement, 3));
    for (store, sims) in [(&by_transaction, &sims), (&by_statement, &others)] {
        write(store, |tx| end(tx, &sims[0], true));
        write(store, |tx| end(tx, &sims[1], false));
    }
    assert_eq!(write(&by_transaction, |tx| fold_job(tx, JOB)), Folded::Done);
    let before = raw_bodies(&by_statement);
    assert_eq!(fold_in_one_statement(&by_statement), [FoldApplied::Written]);
    let after = raw_bodies(&by_statement);
    assert_ne!(after, before, "the statement wrote");
    assert_eq!(after, raw_bodies(&by_transaction), "the same bytes as the transaction's");
    let waiting = by_statement.read_blocking(store::ends::waiting_jobs).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(waiting.is_empty(), "the ends were taken: {waiting:?}");

    // Read, then overtaken by a fold in a transaction: nothing written, the end folded once.
    write(&by_statement, |tx| end(tx, &others[2], true));
    let read =
        by_statement.read_blocking(|c| store::folds::waiting(c, &open_statuses())).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].open, 0, "the last simulation ended in the same snapshot as its end was read");
    let mut overtaken = read[0].clone();
    overtaken.open = 1; // decided as if one were still open
    let fold = decide_fold(&overtaken).unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|| panic!("no fold"));
    assert_eq!(write(&by_statement, |tx| fold_job(tx, JOB)), Folded::Settled);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    let settled = raw_bodies(&by_statement);
    assert_eq!(runtime.block_on(by_statement.apply_fold(fold)).unwrap_or_else(|e| panic!("{e:?}")), FoldApplied::Moved);
    assert_eq!(raw_bodies(&by_statement), settled, "nothing written over the settled job");
    let (ended, tally, collection) = job(&by_statement);
    assert_eq!((ended["status"].as_str(), tally.ended), (Some("COMPLETED"), 3), "each end counted once");
    assert_eq!(collection["completedItems"], 3);
}

/// The events and the children's revision of the job, as a watcher's ETag reads them.
fn events_and_revision(store: &Store) -> (Vec<String>, i64) {
    store
        .read_blocking(|c| -> StoreResult<_> {
            let filter = store::outbox::EventFilter::default();
            let events = store::outbox::events_between(c, 0, i64::MAX, &filter, 1000)?;
            let kinds = events.iter().map(|e| format!("{:?} {}", e.event_type, e.resource_id)).collect();
            Ok((kinds, store::child_revision(c, JOB)?))
        })
        .unwrap_or_else(|e| panic!("{e:?}"))
}

/// A fold of N ends in one statement leaves the events and revisions the transaction leaves,
/// and an end that commits between the fold's read and its statement is not lost: the next
/// fold takes it, and the job settles with every end counted once.
#[test]
fn an_end_during_a_fold_in_one_statement_is_folded_by_the_next() {
    let (by_transaction, by_statement) = (postgres_store(), postgres_store());
    let (sims, others) = (running_job(&by_transaction, 5), running_job(&by_statement, 5));
    for (store, sims) in [(&by_transaction, &sims), (&by_statement, &others)] {
        for (n, simulation) in sims.iter().take(3).enumerate() {
            write(store, |tx| end(tx, simulation, n != 1));
        }
    }
    assert_eq!(write(&by_transaction, |tx| fold_job(tx, JOB)), Folded::Done);
    let read =
        by_statement.read_blocking(|c| store::folds::waiting(c, &open_statuses())).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((read.len(), read[0].ends.len(), read[0].open), (1, 3, 2));
    // The fourth end commits after the read, before the fold's statement.
    write(&by_statement, |tx| end(tx, &others[3], true));
    let fold = decide_fold(&read[0]).unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|| panic!("no fold"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        runtime.block_on(by_statement.apply_fold(fold)).unwrap_or_else(|e| panic!("{e:?}")),
        store::folds::FoldApplied::Written
    );
    write(&by_transaction, |tx| end(tx, &sims[3], true));
    assert_eq!(write(&by_transaction, |tx| fold_job(tx, JOB)), Folded::Done);
    let waiting = by_statement.read_blocking(store::ends::waiting_jobs).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(waiting, [JOB], "the end after the read still waits");
    assert_eq!(fold_in_one_statement(&by_statement), [store::folds::FoldApplied::Written]);
    let normalised = |store: &Store| {
        let (job, tally, collection) = job(store);
        (job["verdict"].clone(), tally, collection["completedItems"].clone(), collection["failedItems"].clone())
    };
    assert_eq!(normalised(&by_statement), normalised(&by_transaction), "4 ends counted once each way");
    assert_eq!(job(&by_statement).1.ended, 4);

    // The last end settles the job: the same document, events and revision either way.
    for (store, sims) in [(&by_transaction, &sims), (&by_statement, &others)] {
        write(store, |tx| end(tx, &sims[4], false));
    }
    assert_eq!(write(&by_transaction, |tx| fold_job(tx, JOB)), Folded::Settled);
    let read =
        by_statement.read_blocking(|c| store::folds::waiting(c, &open_statuses())).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(decide_fold(&read[0]).unwrap_or_else(|e| panic!("{e:?}")), None, "a settling fold is a transaction's");
    assert_eq!(write(&by_statement, |tx| fold_job(tx, JOB)), Folded::Settled);
    let settled = |store: &Store| {
        let (mut job, tally, mut collection) = job(store);
        for times in [&mut job, &mut collection] {
            for at in ["endedAt", "completedAt", "updatedAt"] {
                times.as_object_mut().map(|o| o.remove(at));
            }
        }
        (job, tally, collection)
    };
    assert_eq!(settled(&by_statement), settled(&by_transaction));
    assert_eq!(job(&by_statement).0["status"], "COMPLETED");
    // Events are numbered once published: wait for each store's settle to be published (the
    // job's own completion is among the settle's events; before it, both may lack the same).
    let settle_published = |store: &Store| {
        let completed = format!("{:?} {JOB}", EventType::SimulationRunPlanJobCompleted);
        events_and_revision(store).0.contains(&completed)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !settle_published(&by_statement) || !settle_published(&by_transaction) {
        assert!(std::time::Instant::now() < deadline, "the job's events were not published within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ids = |store: &Store, sims: &[SimulationJob]| {
        let (events, revision) = events_and_revision(store);
        let rename = |e: String| {
            sims.iter().enumerate().fold(e, |e, (n, s)| e.replace(&s.simulation_job_id.to_string(), &format!("sim{n}")))
        };
        let mut named: Vec<String> = events.into_iter().map(rename).collect();
        named.sort();
        (named, revision)
    };
    assert_eq!(ids(&by_statement, &others), ids(&by_transaction, &sims), "the same events and revision");
}
