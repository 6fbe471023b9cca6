//! Documents inserted many at a time (`store::inserts`) against the same documents inserted one
//! by one, on both engines: the same rows in the same order, the same counts and revisions the
//! triggers keep, the same events.

use super::*;

/// What the inserts leave in the store: the documents' rows in order, the kept counts and
/// revisions (summed over PostgreSQL's shards), and the events.
#[derive(Debug, PartialEq)]
struct Written {
    docs: Vec<Vec<Option<String>>>,
    counts: BTreeMap<(String, String), i64>,
    children: BTreeMap<(String, String, String), i64>,
    revisions: BTreeMap<String, i64>,
    events: Vec<(String, String, String, Option<String>)>,
}

fn written(store: &Store) -> Written {
    read(store, |c| {
        let docs = c.query(
            "SELECT kind, id, CAST(body AS TEXT), status, parent_id, created_at, deleted_at, lease_owner \
             FROM docs ORDER BY seq",
            &[],
            |r| (0..8).map(|i| r.take::<Option<String>>(i)).collect::<StoreResult<Vec<_>>>(),
        )?;
        let counts = c.query(
            "SELECT kind, status, CAST(sum(live) AS BIGINT) FROM doc_counts GROUP BY kind, status",
            &[],
            |r| Ok(((r.take::<String>(0)?, r.take::<String>(1)?), r.take::<i64>(2)?)),
        )?;
        let children = c.query(
            "SELECT parent_id, kind, status, CAST(sum(live) AS BIGINT) FROM child_counts \
             GROUP BY parent_id, kind, status",
            &[],
            |r| Ok(((r.take::<String>(0)?, r.take::<String>(1)?, r.take::<String>(2)?), r.take::<i64>(3)?)),
        )?;
        let parents: Vec<String> = c.query("SELECT DISTINCT parent_id FROM child_revisions", &[], |r| r.take(0))?;
        let revisions: BTreeMap<String, i64> =
            parents.into_iter().map(|p| Ok((p.clone(), child_revision(c, &p)?))).collect::<StoreResult<_>>()?;
        let events =
            c.query("SELECT type, resource_kind, resource_id, parent_id FROM events ORDER BY seq", &[], |r| {
                Ok((r.take::<String>(0)?, r.take::<String>(1)?, r.take::<String>(2)?, r.take::<Option<String>>(3)?))
            })?;
        Ok(Written {
            docs,
            counts: counts.into_iter().collect(),
            children: children.into_iter().collect(),
            revisions,
            events,
        })
    })
}

/// More than two chunks of children of two parents (PENDING, the way a run's simulations are
/// placed), with issues among them whose status announces an event and bodies with text to
/// escape.
fn documents() -> Vec<Doc> {
    let awkward = "tab\there, line\nthere, \\N, a \\ and \"quotes\", {braces} and ünïcödé";
    (0..2 * inserts::CHUNK + 7)
        .map(|n| {
            if n % 500 == 3 {
                return issue(&format!("issue-{n}"), "OPEN");
            }
            let parent = if n % 3 == 0 { "job-a" } else { "job-b" };
            let body = serde_json::json!({ "id": format!("sim-{n}"), "status": "PENDING", "note": awkward, "n": n });
            Doc::new(Kind::SimulationJob, format!("sim-{n}"), &body, "2026-11-28T00:00:00Z")
                .unwrap_or_else(|e| panic!("{e:?}"))
                .status(Some("PENDING"))
                .parent(Some(parent))
        })
        .collect()
}

#[test]
fn inserting_in_chunks_writes_what_inserting_one_by_one_writes() {
    for ((_one_dir, one), (_chunked_dir, chunked)) in engines().into_iter().zip(engines()) {
        let docs = documents();
        write(&one, |tx| docs.iter().try_for_each(|doc| insert(tx, doc)));
        write(&chunked, |tx| {
            let mut inserts = Inserts::new(tx);
            docs.iter().cloned().try_for_each(|doc| inserts.push(doc))?;
            inserts.finish()
        });
        let (expected, got) = (written(&one), written(&chunked));
        assert_eq!(got.docs.len(), docs.len(), "{:?}", chunked.dialect());
        assert_eq!(got.events.len(), 5, "{:?}: an event an issue OPEN", chunked.dialect());
        assert_eq!(got.counts.get(&("simulation_job".into(), "PENDING".into())), Some(&(docs.len() as i64 - 5)));
        assert_eq!(got, expected, "{:?}", chunked.dialect());
    }
}

#[test]
fn a_chunk_with_text_the_store_cannot_keep_is_refused_whole() {
    for (_dir, store) in engines() {
        let nul = Doc::new(Kind::Issue, "i2", &serde_json::json!({ "title": "a\u{0}b" }), "2026-01-01T00:00:00Z")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let refused = store.write_blocking(|tx| insert_all(tx, &[issue("i1", "OPEN"), nul.clone()]));
        assert!(matches!(refused, Err(StoreError::Unstorable)), "{:?}: {refused:?}", store.dialect());
        assert!(!read(&store, |c| exists(c, Kind::Issue, "i1")), "{:?}", store.dialect());

        // A duplicate id fails the statement, and nothing of the chunk is kept.
        write(&store, |tx| insert(tx, &issue("i3", "OPEN")));
        let duplicate = store.write_blocking(|tx| insert_all(tx, &[issue("i4", "OPEN"), issue("i3", "OPEN")]));
        assert!(duplicate.is_err(), "{:?}", store.dialect());
        assert!(!read(&store, |c| exists(c, Kind::Issue, "i4")), "{:?}", store.dialect());
        assert_eq!(totals(&store).0, 1, "{:?}", store.dialect());
    }
}
