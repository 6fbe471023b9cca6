//! A pick's claim walks a job's waiting simulations from where the replica's last claim of the
//! job ended (PostgreSQL migration 19), by the waiting simulations' index in every plan, and
//! what waits below that is still claimed.

use super::*;
use crate::service::store::picks::{InOne, PickedInOne, index_scans, pick_after_in, plain};

/// A pick of two places of job `job`, walking from `after`: the ids claimed, in the order
/// claimed, and the last sequence number.
fn pick_two(store: &Store, after: Option<i64>) -> (Vec<String>, Option<i64>) {
    let (picked, last) = write(store, |tx| pick_after_in(tx, InOne { max: 2, ..plain("PENDING") }, after));
    let PickedInOne::Claimed(bodies) = picked else { panic!("not claimed: {picked:?}") };
    let id = |body: &String| -> String {
        let body: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}"));
        body["simulationJobId"].as_str().unwrap_or_default().to_owned()
    };
    (bodies.iter().map(id).collect(), last)
}

fn set_status(store: &Store, ids: &[&str], status: &str) {
    write(store, |tx| {
        for id in ids {
            tx.execute("UPDATE docs SET status = ?2 WHERE id = ?1", args![*id, status])?;
        }
        Ok(())
    });
}

#[test]
fn a_pick_walks_from_where_its_last_claim_ended_and_below_when_it_finds_too_few() {
    let store = postgres_store();
    for n in 1..=6 {
        write(&store, |tx| insert(tx, &simulation(&format!("s{n}"), "job", "PENDING")));
    }
    let seq = |id: &str| -> i64 {
        read(&store, |c| c.value("SELECT seq FROM docs WHERE id = ?1", args![id])).unwrap_or_else(|| panic!("{id}"))
    };
    let (first, last) = pick_two(&store, None);
    assert_eq!((first, last), (vec!["s1".to_owned(), "s2".to_owned()], Some(seq("s2"))), "from the first");
    set_status(&store, &["s1", "s2"], "COMPLETED");
    // s1 is handed back (its replica stopped): it waits again, below where the claims ended.
    set_status(&store, &["s1"], "PENDING");

    let (second, last) = pick_two(&store, last.map(|l| l + 1));
    assert_eq!((second, last), (vec!["s3".to_owned(), "s4".to_owned()], Some(seq("s4"))), "from after s2");
    set_status(&store, &["s3", "s4"], "COMPLETED");
    let (third, last) = pick_two(&store, last.map(|l| l + 1));
    assert_eq!(third, ["s5", "s6"], "from after s4");
    set_status(&store, &["s5", "s6"], "COMPLETED");
    // Nothing waits from after s6: the walk from the first finds s1.
    let (fourth, _) = pick_two(&store, last.map(|l| l + 1));
    assert_eq!(fourth, ["s1"], "what waits below, once the walk from the floor finds too few");
    // Found short from the floor, the rest from the first, in one pick: the order claimed.
    set_status(&store, &["s1", "s6"], "PENDING");
    let (fifth, last) = pick_two(&store, Some(seq("s6")));
    assert_eq!((fifth, last), (vec!["s6".to_owned(), "s1".to_owned()], Some(seq("s6"))));
    let place =
        |id: &str| -> Option<i64> { read(&store, |c| c.value("SELECT place FROM docs WHERE id = ?1", args![id])) };
    assert_eq!((place("s6"), place("s1")), (Some(0), Some(1)), "each its own free place, in the order claimed");
}

#[test]
fn a_pick_from_a_floor_walks_the_waiting_simulations_alone_in_every_plan() {
    let store = postgres_store();
    for n in 0..40 {
        let status = if n < 36 { "COMPLETED" } else { "PENDING" };
        write(&store, |tx| insert(tx, &simulation(&format!("s{n}"), "job", status)));
    }
    let floor: i64 = read(&store, |c| c.value("SELECT seq FROM docs WHERE id = 's30'", &[])).unwrap_or_default();
    for plans in ["force_custom_plan", "force_generic_plan"] {
        let ((picked, _), before, after) = write(&store, |tx| {
            tx.execute_batch(&format!("SET LOCAL plan_cache_mode = {plans}"))?;
            let before = index_scans(tx, &["docs_waiting", "docs_parent"])?;
            let picked = pick_after_in(tx, InOne { max: 1, ..plain("PENDING") }, Some(floor))?;
            Ok((picked, before, index_scans(tx, &["docs_waiting", "docs_parent"])?))
        });
        let scanned: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        assert!(matches!(&picked, PickedInOne::Claimed(bodies) if bodies.len() == 1), "{plans}: {picked:?}");
        assert_eq!(scanned, [1, 0], "{plans}: docs_waiting, docs_parent");
        // The simulation claimed waits again, for the next plan's pick.
        write(&store, |tx| {
            tx.execute("UPDATE docs SET status = 'PENDING', place = NULL WHERE status = 'QUEUED'", &[])?;
            Ok(())
        });
    }
}
