//! A pick in one statement (`sb_pick`) against the transaction on the same rows: the same room
//! under the same limits, and the same documents, leases, counts, revisions and events.

use serde_json::json;

use super::*;
use crate::service::store::leases;
use crate::service::store::{Doc, test_server};

const JOB: &str = "00000000-0000-4000-8000-00000000000a";
const OTHER: &str = "00000000-0000-4000-8000-00000000000b";
const ME: &str = "replica-me";
const UNTIL_MS: i64 = 4_102_444_800_000;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("{e}"))
}

fn write<R>(store: &Store, f: impl Fn(&Tx) -> StoreResult<R>) -> R {
    store.write_blocking(f).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A job under `mode` with `pending` PENDING simulations, `running` PROCESSING ones (`mine` of
/// them leased to this replica, the rest to another) and, with `retry`, a retry waiting.
struct Job {
    id: &'static str,
    mode: &'static str,
    pending: u128,
    running: u128,
    mine: u128,
    retry: bool,
}

impl Job {
    fn parallel(id: &'static str, pending: u128, running: u128) -> Job {
        Job { id, mode: "PARALLEL", pending, running, mine: 0, retry: false }
    }

    fn insert(&self, tx: &Tx) -> StoreResult<()> {
        let body = json!({ "simulationRunPlanJobId": self.id, "status": "RUNNING_SIMULATIONS",
            "createdAt": "2026-01-01T00:00:00Z", "plan": { "executionMode": self.mode } });
        store::insert(
            tx,
            &Doc::new(Kind::RunPlanJob, self.id, &body, "2026-01-01T00:00:00Z")?.status(Some("RUNNING_SIMULATIONS")),
        )?;
        let base = if self.id == JOB { 0x1000 } else { 0x2000 };
        let statuses = (0..self.running).map(|_| "PROCESSING").chain((0..self.pending).map(|_| "PENDING"));
        let retry = self.retry.then_some("RETRY_SCHEDULED");
        for (n, status) in statuses.chain(retry).enumerate() {
            let id = uuid::Uuid::from_u128(base + n as u128);
            let simulation = json!({ "simulationJobId": id, "simulationRunPlanJobId": self.id, "status": status,
                "scheduledAt": "2026-01-01T00:00:00.000Z", "attemptNumber": 1 });
            let simulation: SimulationJob = serde_json::from_value(simulation).unwrap_or_else(|e| panic!("{e}"));
            store::insert(tx, &Doc::of(&simulation)?)?;
            if (n as u128) < self.running {
                let owner = if (n as u128) < self.mine { ME } else { "replica-other" };
                leases::take(tx, Kind::SimulationJob, &id.to_string(), owner, UNTIL_MS)?;
            }
        }
        Ok(())
    }
}

/// Two stores holding the same rows: `jobs`.
fn twins(jobs: &[Job]) -> [Store; 2] {
    let stores = [test_server::TestServer::fresh_store(), test_server::TestServer::fresh_store()];
    for store in &stores {
        write(store, |tx| {
            for job in jobs {
                job.insert(tx)?;
            }
            Ok(())
        });
    }
    stores
}

fn order(max: i64) -> Order {
    shared(max, None)
}

/// The order of a replica whose share of the job's places is `share`.
fn shared(max: i64, share: Option<usize>) -> Order {
    Order {
        limits: Limits { job_id: JOB.into(), plan_key: JOB.into(), mode: ExecutionMode::Parallel, max, share },
        owner: ME.into(),
        until_ms: UNTIL_MS,
        now: Timestamp::now(),
    }
}

/// Every row a pick may touch, as stored: the jobs' children (body, status, lease), their
/// counts by status, the children's revision and how many events there are.
fn rows(store: &Store) -> String {
    store
        .read_blocking(|c| -> StoreResult<_> {
            let mut out = String::new();
            for job in [JOB, OTHER] {
                for n in 0..16u128 {
                    let id = uuid::Uuid::from_u128(if job == JOB { 0x1000 } else { 0x2000 } + n).to_string();
                    let body = store::get_raw(c, Kind::SimulationJob, &id)?;
                    let holder = leases::holder(c, Kind::SimulationJob, &id)?;
                    out += &format!("{id} {body:?} {holder:?}\n");
                }
                for status in ["PENDING", "QUEUED", "PROCESSING", "RETRY_SCHEDULED"] {
                    out +=
                        &format!("{job} {status} {}\n", store::count_children(c, Kind::SimulationJob, job, &[status])?);
                }
                out += &format!("{job} revision {}\n", store::child_revision(c, job)?);
            }
            // Published or not yet (the publisher numbers them on its own time).
            let events: Option<i64> = c.value("SELECT count(*) FROM events", &[])?;
            out += &format!("events {events:?}");
            Ok(out)
        })
        .unwrap_or_else(|e| panic!("{e:?}"))
}

/// Picks on `by_statement` in one statement and on `by_transaction` in a transaction, and holds
/// the two to the same picks and the same rows; the room `limits::room` read first, on each.
fn same_both_ways(stores: &[Store; 2], max: i64) -> usize {
    same_shared(stores, max, None)
}

/// `same_both_ways` for a replica whose share of the job's places is `share`.
fn same_shared([by_transaction, by_statement]: &[Store; 2], max: i64, share: Option<usize>) -> usize {
    let room = |store: &Store| {
        let order = shared(max, share);
        store.read_blocking(move |c| limits::room(c, &order.limits.as_job(ME))).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let (room_before, other_room) = (room(by_statement), room(by_transaction));
    assert_eq!(room_before, other_room, "the same rows, the same room");
    let runtime = runtime();
    let in_statement = runtime.block_on(in_one(by_statement, &shared(max, share))).unwrap_or_else(|e| panic!("{e:?}"));
    let in_tx = write(by_transaction, |tx| in_transaction(tx, &shared(max, share)));
    let bodies: Vec<String> = in_tx.iter().map(|s| serde_json::to_string(s).unwrap_or_default()).collect();
    let PickedInOne::Claimed(claimed) = in_statement else { panic!("not claimed: {in_statement:?}") };
    let decoded: Vec<String> = decoded(&claimed)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .iter()
        .map(|s| serde_json::to_string(s).unwrap_or_default())
        .collect();
    assert_eq!(decoded, bodies, "the same simulations picked, oldest first");
    assert_eq!(rows(by_statement), rows(by_transaction), "the same rows either way");
    assert!(claimed.len() <= room_before, "within the room: {} of {room_before}", claimed.len());
    claimed.len()
}

/// Under each job's limits the statement counts the room the transaction counts, and writes
/// the same bytes: the status set in place, the lease, the counts moved, no event.
#[test]
fn a_pick_in_one_statement_counts_and_writes_what_the_transaction_does() {
    // Free places: 4 of 6, then none.
    let stores = twins(&[Job::parallel(JOB, 8, 2), Job::parallel(OTHER, 1, 3)]);
    assert_eq!(same_both_ways(&stores, 6), 4);
    assert_eq!(same_both_ways(&stores, 6), 0, "full");
    // More running than the limit (it was lowered): none.
    assert_eq!(same_both_ways(&twins(&[Job::parallel(JOB, 3, 5)]), 4), 0);
    // A SEQUENTIAL_PROJECT job running: none; the same job waiting (none running): its room.
    let alone = |running| Job { id: OTHER, mode: "SEQUENTIAL_PROJECT", pending: 1, running, mine: 0, retry: false };
    assert_eq!(same_both_ways(&twins(&[Job::parallel(JOB, 3, 0), alone(1)]), 5), 0);
    assert_eq!(same_both_ways(&twins(&[Job::parallel(JOB, 3, 0), alone(0)]), 5), 3);
    // Its share of 7 places is 4, less the 1 it holds; then its share is full, free places left.
    let stores = twins(&[Job { mine: 1, ..Job::parallel(JOB, 9, 2) }]);
    assert_eq!(same_shared(&stores, 7, Some(4)), 3);
    assert_eq!(same_shared(&stores, 7, Some(4)), 0, "its share is full");
    assert_eq!(same_shared(&stores, 7, None), 2, "alone, the whole room");
}

/// A pick whose job has a retry waiting leaves it to the transaction, which `pick` then runs:
/// the due retry moved and picked with the rest.
#[test]
fn a_pick_in_one_statement_leaves_retries_to_the_transaction() {
    let [store, _] = twins(&[Job { retry: true, ..Job::parallel(JOB, 2, 0) }]);
    let runtime = runtime();
    assert_eq!(
        runtime.block_on(in_one(&store, &order(5))).unwrap_or_else(|e| panic!("{e:?}")),
        PickedInOne::RetriesWaiting
    );
    let before = rows(&store);
    assert!(before.contains(&format!("{JOB} RETRY_SCHEDULED 1")), "nothing written: {before}");
    let picked = runtime.block_on(pick(&store, order(5))).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(picked.len(), 3, "the two waiting and the due retry");
}

/// A pick holding `JOB`'s lock on a thread of its own, having picked under a limit of `max`
/// (none: nothing), until the test sends on the returned channel; its thread answers how many
/// it picked.
fn holding_the_job(
    store: &Store,
    max: Option<i64>,
) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<StoreResult<usize>>) {
    let (started, holding) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    let store = store.clone();
    let holder = std::thread::spawn(move || {
        store.write_pick_blocking(Pick::job(JOB), |tx| {
            let picked = max.map(|max| in_transaction(tx, &order(max))).transpose()?.map_or(0, |p| p.len());
            let _ = started.send(());
            let _ = released.lock().map(|r| r.recv());
            Ok(picked)
        })
    });
    holding.recv().unwrap_or_else(|e| panic!("{e}"));
    (release, holder)
}

/// A pick in one statement for a job the transaction's pick holds alone waits for it, and
/// counts the room after the holder's commit: the holder took 3 of 4 under a limit of 3,
/// without places, so the waiting pick takes none — counted before it, the room would have
/// let it take the 4th.
#[test]
fn a_pick_in_one_statement_waits_for_a_held_job_and_counts_after_its_commit() {
    let [store, _] = twins(&[Job::parallel(JOB, 4, 0)]);
    let (release, holder) = holding_the_job(&store, Some(3));
    let (answered, answer) = std::sync::mpsc::channel();
    let waiting_pick = {
        let store = store.clone();
        std::thread::spawn(move || {
            let picked = runtime().block_on(in_one(&store, &order(3)));
            let _ = answered.send(());
            picked
        })
    };
    let waiting = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() \
                   AND wait_event_type = 'Lock' AND wait_event = 'advisory'";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !store.read_blocking(|c| c.exists(waiting, &[])).unwrap_or_else(|e| panic!("{e:?}")) {
        assert!(std::time::Instant::now() < deadline, "the pick did not wait on the job's lock within 10 s");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(answer.try_recv().is_err(), "the pick answered while the job's lock was held");
    release.send(()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(holder.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}")), 3);
    let after = waiting_pick.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(after, PickedInOne::Claimed(Vec::new()), "the room counted after the holder's commit");
    let rows = rows(&store);
    assert!(rows.contains(&format!("{JOB} QUEUED 3")) && rows.contains(&format!("{JOB} PENDING 1")), "{rows}");
}

/// A pick in one statement waits for its job's lock only so long: a holder stalled inside its
/// transaction fails it as the store's unavailability, with nothing written.
#[test]
fn a_pick_in_one_statement_held_up_by_a_stalled_holder_fails_as_busy() {
    let [store, _] = twins(&[Job::parallel(JOB, 2, 0)]);
    let (release, holder) = holding_the_job(&store, None);
    let before = rows(&store);
    let (sent, answered) = std::sync::mpsc::channel();
    let waiting = store.clone();
    std::thread::spawn(move || {
        let _ = sent.send(runtime().block_on(in_one(&waiting, &order(5))));
    });
    let waited = answered.recv_timeout(std::time::Duration::from_secs(10)).unwrap_or_else(|_| panic!("it waited on"));
    assert!(matches!(waited, Err(store::StoreError::Unavailable(_))), "{waited:?}");
    assert_eq!(rows(&store), before, "nothing written");
    release.send(()).unwrap_or_else(|e| panic!("{e}"));
    holder.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"));
}

/// The places `JOB`'s simulations in `status` hold, in order.
fn places(store: &Store, status: &'static str) -> Vec<i64> {
    let sql = "SELECT place FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = ?3 ORDER BY place";
    store
        .read_blocking(|c| c.query(sql, crate::args![Kind::SimulationJob.as_str(), JOB, status], |r| r.take(0)))
        .unwrap_or_else(|e| panic!("{e:?}"))
}

/// Two replicas' picks of one job run side by side (they took turns on the job's lock, a
/// quarter of the database's busy time with two replicas), each on places of its own: caught
/// mid-way, another replica's pick holds places 0 to 2 of 5, and this one takes 3 and 4
/// without waiting for it; after both, the job is full.
#[test]
fn picks_of_one_job_run_side_by_side_on_places_of_their_own() {
    let [store, _] = twins(&[Job::parallel(JOB, 8, 0)]);
    let (started, holding) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    let other = {
        let store = store.clone();
        std::thread::spawn(move || {
            store.write_blocking(|tx| {
                let counted = limits::Counted::default();
                let order = Order { owner: "replica-other".into(), ..shared(5, Some(3)) };
                let picked = store::picks::pick_in(tx, order.in_one(&counted))?;
                let _ = started.send(());
                let _ = released.lock().map(|r| r.recv());
                Ok::<_, store::StoreError>(picked)
            })
        })
    };
    holding.recv().unwrap_or_else(|e| panic!("{e}"));
    let mine = runtime().block_on(in_one(&store, &order(5))).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(matches!(&mine, PickedInOne::Claimed(bodies) if bodies.len() == 2), "{mine:?}");
    assert_eq!(places(&store, "QUEUED"), [3, 4], "the places the other pick holds passed by");
    release.send(()).unwrap_or_else(|e| panic!("{e}"));
    let theirs = other.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(matches!(&theirs, PickedInOne::Claimed(bodies) if bodies.len() == 3), "{theirs:?}");
    assert_eq!(places(&store, "QUEUED"), [0, 1, 2, 3, 4]);
    let full = runtime().block_on(in_one(&store, &order(5))).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(full, PickedInOne::Claimed(Vec::new()), "5 of 5 places held");
}

/// How many of `JOB`'s simulations are running, and on how many places.
fn running(store: &Store) -> (i64, i64) {
    let sql = "SELECT count(*), count(DISTINCT place) FROM docs \
               WHERE kind = ?1 AND parent_id = ?2 AND status IN ('QUEUED', 'PROCESSING')";
    let args = crate::args![Kind::SimulationJob.as_str(), JOB];
    let counted = store.read_blocking(|c| c.query_row(sql, args, |r| Ok((r.take(0)?, r.take(1)?))));
    counted.unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_default()
}

/// How many of `JOB`'s simulations wait to be picked.
fn pending(store: &Store) -> i64 {
    let sql = "SELECT count(*) FROM docs WHERE kind = ?1 AND parent_id = ?2 AND status = 'PENDING'";
    let counted = store.read_blocking(|c| c.value(sql, crate::args![Kind::SimulationJob.as_str(), JOB]));
    counted.unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_default()
}

/// Three replicas pick one job of 60 simulations under a limit of 4 as fast as they can while
/// its simulations end at random: every committed state holds at most 4 running on distinct
/// places, and each simulation is picked once.
#[test]
fn picks_side_by_side_never_run_more_than_the_limit() {
    const MAX: i64 = 4;
    let [store, _] = twins(&[Job::parallel(JOB, 60, 0)]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let pickers: Vec<_> = (0..3)
        .map(|n| {
            let store = store.clone();
            std::thread::spawn(move || {
                let runtime = runtime();
                let order = Order { owner: format!("replica-{n}"), ..order(MAX) };
                let mut picked = 0;
                while pending(&store) > 0 {
                    assert!(std::time::Instant::now() < deadline, "the picks did not drain the job in 60 s");
                    match runtime.block_on(in_one(&store, &order)).unwrap_or_else(|e| panic!("{e:?}")) {
                        PickedInOne::Claimed(bodies) => picked += bodies.len(),
                        other => panic!("{other:?}"),
                    }
                    let (count, places) = running(&store);
                    assert!(count <= MAX && places == count, "{count} running on {places} places");
                }
                picked
            })
        })
        .collect();
    let ender = {
        let store = store.clone();
        std::thread::spawn(move || {
            let end = "UPDATE docs SET status = 'COMPLETED', lease_owner = NULL WHERE seq IN (SELECT seq FROM docs \
                       WHERE kind = ?1 AND parent_id = ?2 AND status = 'QUEUED' ORDER BY random() LIMIT 1 \
                       FOR UPDATE SKIP LOCKED)";
            let args = crate::args![Kind::SimulationJob.as_str(), JOB];
            let mut ended = 0;
            while ended < 60 {
                assert!(std::time::Instant::now() < deadline, "60 simulations did not end in 60 s");
                ended += store.write_blocking(|tx| tx.execute(end, args)).unwrap_or_else(|e| panic!("{e:?}"));
            }
        })
    };
    let picked: usize = pickers.into_iter().map(|p| p.join().unwrap_or_else(|e| panic!("{e:?}"))).sum();
    ender.join().unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(picked, 60, "each simulation picked once");
}

/// A pick reads the places held by index scans, never a bitmap scan (migration 15): the
/// places' index keeps an entry for every simulation that ever held a place until the table is
/// vacuumed, and only an index scan marks the dead ones, which the scans after it pass by. A
/// bitmap scan visited the row of each (3,000 rows a read, 5,000 simulations into a run). A
/// later `CREATE OR REPLACE` of `sb_pick` (migration 16's) drops the setting unless it says
/// it again.
#[test]
fn a_pick_reads_the_places_without_bitmap_scans() {
    let store = test_server::TestServer::fresh_store();
    let sql = "SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE proname = 'sb_pick'";
    let settings: Option<String> = store.read_blocking(|c| c.value(sql, &[])).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(settings.as_deref(), Some("enable_bitmapscan=off"));
}

/// A pick's claim walks the job's waiting simulations alone (migration 16), not every
/// simulation of the job in order, for a job the statistics do not know yet, whether planned
/// for the pick's values or for none (PL/pgSQL's generic plan, once a statement has run five
/// times): either way the planner estimated one row whichever index it walked, and some
/// backends walked every simulation the run had already picked, at each pick.
#[test]
fn a_pick_claims_through_the_waiting_simulations_alone() {
    for plans in ["force_custom_plan", "force_generic_plan"] {
        let store = test_server::TestServer::fresh_store();
        // Statistics taken before the job existed, as they are when a run starts.
        write(&store, |tx| tx.execute("ANALYZE docs", &[]));
        write(&store, |tx| Job::parallel(JOB, 8, 300).insert(tx));
        let scans = |tx: &Tx| store::picks::index_scans(tx, &["docs_waiting", "docs_parent", "docs_parent_status"]);
        let (claimed, before, after) = write(&store, |tx| {
            tx.execute_batch(&format!("SET LOCAL plan_cache_mode = {plans}"))?;
            let before = scans(tx)?;
            let counted = limits::Counted::default();
            let picked = store::picks::pick_in(tx, order(310).in_one(&counted))?;
            Ok((picked, before, scans(tx)?))
        });
        assert!(matches!(&claimed, PickedInOne::Claimed(c) if c.len() == 8), "{plans}: {claimed:?}");
        let scanned: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        assert_eq!(scanned, [1, 0, 0], "{plans}: scans of docs_waiting, docs_parent, docs_parent_status");
    }
}
