//! A pick's claim (`store::claims`): the oldest children in one status moved to the next and
//! leased, with the same bytes, counts and revisions on both engines, and no event.

use super::*;
use crate::service::store::claims::{Claim, move_leased};
use crate::service::store::picks::index_scans;

fn claim(owner: &str) -> Claim<'_> {
    Claim { kind: Kind::SimulationJob, parent_id: "j1", from: "PENDING", to: "QUEUED", owner, until_ms: 1_000 }
}

#[test]
fn a_claim_moves_the_oldest_leases_them_and_keeps_the_rest_of_each_body() {
    for (_dir, store) in engines() {
        let engine = store.dialect();
        for id in ["s1", "s2", "s3"] {
            write(&store, |tx| insert(tx, &simulation(id, "j1", "PENDING")));
        }
        write(&store, |tx| insert(tx, &simulation("other", "j2", "PENDING")));
        let revision = read(&store, |c| child_revision(c, "j1"));

        let bodies = write(&store, |tx| move_leased(tx, &claim("replica-a"), 2));
        // The body as the engine's rewrite wrote it: the status member set, the rest in place.
        let expected: Vec<String> = ["s1", "s2"].iter().map(|id| simulation(id, "j1", "QUEUED").body).collect();
        assert_eq!(bodies, expected, "{engine:?}: the oldest two, oldest first");
        for id in ["s1", "s2"] {
            let stored = read(&store, |c| get_raw(c, Kind::SimulationJob, id));
            assert_eq!(stored.as_deref(), Some(expected[usize::from(id == "s2")].as_str()), "{engine:?}");
            let holder = read(&store, |c| leases::holder(c, Kind::SimulationJob, id)).map(|h| h.owner);
            assert_eq!(holder.as_deref(), Some("replica-a"), "{engine:?}: leased in the claim");
        }
        let counted =
            |parent: &str, status: &str| read(&store, |c| count_children(c, Kind::SimulationJob, parent, &[status]));
        assert_eq!((counted("j1", "PENDING"), counted("j1", "QUEUED")), (1, 2), "{engine:?}");
        assert_eq!(counted("j2", "PENDING"), 1, "{engine:?}: another job's children are not claimed");
        assert_eq!(read(&store, |c| child_revision(c, "j1")), revision + 2, "{engine:?}: one revision a row");
        let events = read(&store, |c| outbox::events_between(c, 0, i64::MAX, &outbox::EventFilter::default(), 10));
        assert!(events.is_empty(), "{engine:?}: a claim announces nothing: {events:?}");

        assert_eq!(write(&store, |tx| move_leased(tx, &claim("replica-b"), 5)).len(), 1, "{engine:?}");
        assert!(write(&store, |tx| move_leased(tx, &claim("replica-b"), 5)).is_empty(), "{engine:?}");

        // A move that announces an event is not a claim's to write.
        let starting = Claim { from: "QUEUED", to: "PROCESSING", ..claim("replica-a") };
        let refused = store.write_blocking(|tx| move_leased(tx, &starting, 1));
        assert!(refused.is_err(), "{engine:?}");
        assert_eq!(counted("j1", "PROCESSING"), 0, "{engine:?}");
    }
}

/// On PostgreSQL a row another transaction holds is passed over, not waited for: two replicas
/// claiming at once take different rows.
#[test]
fn a_claim_passes_over_a_row_another_transaction_holds() {
    let store = postgres_store();
    for id in ["s1", "s2"] {
        write(&store, |tx| insert(tx, &simulation(id, "j1", "PENDING")));
    }
    let (held, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
    let holder = {
        let store = store.clone();
        std::thread::spawn(move || {
            write(&store, |tx| {
                let bodies = move_leased(tx, &claim("replica-a"), 1)?;
                let _ = held.0.send(bodies.len());
                let _ = release.1.recv_timeout(Duration::from_secs(10));
                Ok(bodies)
            })
        })
    };
    assert_eq!(held.1.recv_timeout(Duration::from_secs(10)).ok(), Some(1), "the first claim holds s1");
    let second = write(&store, |tx| move_leased(tx, &claim("replica-b"), 2));
    let _ = release.0.send(());
    let first = holder.join().unwrap_or_else(|_| panic!("the holder panicked"));
    assert_eq!(first, [simulation("s1", "j1", "QUEUED").body]);
    assert_eq!(second, [simulation("s2", "j1", "QUEUED").body], "s1 passed over while held");
}

/// On PostgreSQL a claim of PENDING children walks `docs_waiting` alone (migration 16), its
/// prepared statement's generic plan included; a claim from another status walks by its own.
#[test]
fn a_claim_of_pending_children_walks_the_waiting_ones_alone_in_every_plan() {
    let store = postgres_store();
    for n in 0..40 {
        let status = if n < 36 { "QUEUED" } else { "PENDING" };
        write(&store, |tx| insert(tx, &simulation(&format!("s{n}"), "j1", status)));
    }
    write(&store, |tx| insert(tx, &simulation("r1", "j1", "RETRY_SCHEDULED")));
    let scans = |tx: &Tx| index_scans(tx, &["docs_waiting", "docs_parent"]);
    for plans in ["force_custom_plan", "force_generic_plan"] {
        let (claimed, before, after) = write(&store, |tx| {
            tx.execute_batch(&format!("SET LOCAL plan_cache_mode = {plans}"))?;
            let before = scans(tx)?;
            let claimed = move_leased(tx, &claim("replica-a"), 1)?;
            Ok((claimed, before, scans(tx)?))
        });
        let scanned: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        assert_eq!((claimed.len(), scanned), (1, vec![1, 0]), "{plans}: claimed; docs_waiting, docs_parent");
    }
    let retry = Claim { from: "RETRY_SCHEDULED", to: "PENDING", ..claim("replica-a") };
    let claimed = write(&store, |tx| move_leased(tx, &retry, 5));
    assert_eq!(claimed, [simulation("r1", "j1", "PENDING").body], "another status, by a parameter");
}
