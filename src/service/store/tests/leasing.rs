//! Lease renewals: only the leases running out are rewritten, and on PostgreSQL the renewal
//! and the event publisher's numbering walk their partial indexes entry by entry, marking the
//! entries of ended leases and numbered events dead for the walks after them.

use super::*;

/// Each simulation's lease, by id.
fn lease_ends(store: &Store) -> BTreeMap<String, Option<i64>> {
    let rows = read(store, |c| {
        c.query("SELECT id, lease_until FROM docs WHERE kind = 'simulation_job' ORDER BY id", &[], |r| {
            Ok((r.take::<String>(0)?, r.take::<Option<i64>>(1)?))
        })
    });
    rows.into_iter().collect()
}

#[test]
fn a_renewal_extends_the_leases_running_out_and_passes_the_fresh_ones_by() {
    for (_dir, store) in engines() {
        write(&store, |tx| {
            for (id, owner, until) in [("old", "me", 1_000), ("fresh", "me", 5_000), ("theirs", "them", 1_000)] {
                insert(tx, &simulation(id, "job", "PROCESSING"))?;
                leases::take(tx, Kind::SimulationJob, id, owner, until)?;
            }
            insert(tx, &simulation("free", "job", "PENDING"))
        });
        let renewed = write(&store, |tx| leases::renew(tx, "me", 4_000, 9_000));
        assert_eq!(renewed, 1, "{:?}", store.dialect());
        let expected: BTreeMap<String, Option<i64>> =
            [("free", None), ("fresh", Some(5_000)), ("old", Some(9_000)), ("theirs", Some(1_000))]
                .into_iter()
                .map(|(id, until)| (id.to_owned(), until))
                .collect();
        assert_eq!(lease_ends(&store), expected, "{:?}", store.dialect());
    }
}

#[test]
fn a_renewal_of_more_leases_than_one_statement_writes_renews_them_all() {
    for (_dir, store) in engines() {
        let many = 1_005;
        write(&store, |tx| {
            for n in 0..many {
                let id = format!("s{n:04}");
                insert(tx, &simulation(&id, "job", "PROCESSING"))?;
                leases::take(tx, Kind::SimulationJob, &id, "me", 1_000)?;
            }
            Ok(())
        });
        assert_eq!(write(&store, |tx| leases::renew(tx, "me", 2_000, 9_000)), many, "{:?}", store.dialect());
        let ends = lease_ends(&store);
        assert!(ends.len() == many && ends.values().all(|until| *until == Some(9_000)), "{:?}", store.dialect());
    }
}

/// A server of its own, for what depends on no other transaction running: an index entry is
/// marked dead only once its row is dead to every transaction, and on the shared server
/// other tests' transactions hold that back.
fn quiet_database() -> (test_server::TestServer, String) {
    let server = test_server::TestServer::start(test_server::Durability::Scratch).unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    (server, url)
}

/// How many entries of `index` `statement` walked, and in how many scans.
fn walk_of(client: &mut ::postgres::Client, index: &str, statement: &str) -> (i64, i64) {
    // Read in the statement's transaction, before and after: counts are reported at the end of
    // a transaction, or up to a second later, and the reads would take in earlier ones.
    let stats = walk_stats(index);
    let mut tx = client.transaction().unwrap_or_else(|e| panic!("{e}"));
    let before = tx.query_one(&stats, &[]).unwrap_or_else(|e| panic!("{e}"));
    tx.batch_execute(statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
    let after = tx.query_one(&stats, &[]).unwrap_or_else(|e| panic!("{e}"));
    tx.commit().unwrap_or_else(|e| panic!("{e}"));
    let delta = |column: usize| after.get::<_, i64>(column) - before.get::<_, i64>(column);
    (delta(0), delta(1))
}

/// Walks with `statement` until a walk passes the dead entries by (it returns at most `most`
/// entries), within ten seconds; the walks made. Autovacuum is off for the table: only the
/// walks themselves may mark entries dead.
fn walks_until_passed_by(client: &mut ::postgres::Client, index: &str, statement: &str, most: i64) -> Vec<(i64, i64)> {
    let mut walks = Vec::new();
    eventually(&format!("a walk of {index} passes its dead entries by"), || {
        walks.push(walk_of(client, index, statement));
        walks.last().is_some_and(|&(entries, _)| entries <= most)
    });
    walks
}

#[test]
fn a_renewal_and_a_publishing_pass_the_dead_entries_of_their_indexes_by_once_walked() {
    let (_server, url) = quiet_database();
    let store = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
    client
        .batch_execute(
            "ALTER TABLE docs SET (autovacuum_enabled = false); ALTER TABLE events SET (autovacuum_enabled = false)",
        )
        .unwrap_or_else(|e| panic!("{e}"));

    // Three hundred leases taken and ended leave their entries in `docs_leased`, dead.
    write(&store, |tx| {
        for n in 0..2_000 {
            insert(tx, &simulation(&format!("s{n:04}"), "job", "COMPLETED"))?;
        }
        tx.execute("UPDATE docs SET lease_owner = 'me', lease_until = 1000 WHERE id < 's0300'", &[])?;
        Ok(())
    });
    write(&store, |tx| {
        tx.execute("UPDATE docs SET lease_owner = NULL, lease_until = NULL WHERE id < 's0300'", &[])?;
        leases::take(tx, Kind::SimulationJob, "s1998", "me", 1_000)?;
        leases::take(tx, Kind::SimulationJob, "s1999", "me", 1_000)?;
        tx.execute_batch("ANALYZE docs")
    });
    let mut until = 10_000;
    let mut renewals = Vec::new();
    eventually("a renewal passes the ended leases' entries by", || {
        until += 10_000;
        let renewal = write(&store, |tx| {
            let before = walked(tx, "docs_leased")?;
            let renewed = leases::renew(tx, "me", until - 1, until)?;
            let after = walked(tx, "docs_leased")?;
            Ok((renewed, after.0 - before.0, after.1 - before.1))
        });
        renewals.push(renewal);
        // The two leases, and the two entries the renewal before left, in each of its reads.
        renewal.1 <= 8
    });
    assert!(renewals[0].1 >= 300, "the first renewal walks the ended leases' entries: {renewals:?}");
    assert!(renewals.iter().all(|&(renewed, _, scans)| renewed == 2 && scans <= 2), "{renewals:?}");
    drop(store);

    // Three hundred events numbered leave their entries in `events_unpublished`, dead.
    let add_events = |n: i64| {
        format!(
            "INSERT INTO events (type, resource_kind, resource_id, created_at, body) \
             SELECT 'issue.created', 'issue', 'i' || n, '2026-01-01T00:00:00Z', '{{}}' FROM generate_series(1, {n}) n"
        )
    };
    let publish =
        format!("SELECT sb_publish_events(1, '{}', 'sb_test_events')", crate::service::store::postgres::LAST_EVENT_ID);
    for statement in [add_events(2_000), publish.clone(), "ANALYZE events".into(), add_events(300), publish.clone()] {
        client.batch_execute(&statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    // The planner chose a bitmap scan for the numbering's read under a run's load, which
    // marks nothing; the function runs with bitmap scans off (migration 20).
    let settings: Vec<String> = client
        .query_one("SELECT proconfig FROM pg_proc WHERE proname = 'sb_publish_events'", &[])
        .unwrap_or_else(|e| panic!("{e}"))
        .get(0);
    assert_eq!(settings, ["enable_bitmapscan=off"]);
    // The event added, and the one the walk before numbered.
    let walks = walks_until_passed_by(&mut client, "events_unpublished", &format!("{}; {publish}", add_events(1)), 2);
    assert!(walks[0].0 >= 300, "the first publishing walks the numbered events' entries: {walks:?}");
    assert!(walks.iter().all(|&(_, scans)| scans == 1), "each publishing reads events_unpublished: {walks:?}");
}

/// How many entries scans of `index` returned in this transaction, and how many scans ran.
fn walked(conn: &Conn, index: &str) -> StoreResult<(i64, i64)> {
    Ok(conn.query_row(&walk_stats(index), &[], |r| Ok((r.take(0)?, r.take(1)?)))?.unwrap_or_default())
}

/// The statement that reads what scans of `index` returned in this transaction, and how many ran.
fn walk_stats(index: &str) -> String {
    format!(
        "SELECT pg_stat_get_xact_tuples_returned('{index}'::regclass), pg_stat_get_xact_numscans('{index}'::regclass)"
    )
}
