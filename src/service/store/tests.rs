//! The store's own bookkeeping, on both engines: kept counts, children's counts and revisions,
//! the outbox, members set in place; and the two engines' schemas side by side.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::*;
use crate::args;

/// A store of each engine: SQLite in a temporary directory, PostgreSQL in a new database on
/// the test server. The directory lives as long as its store.
fn engines() -> Vec<(Option<tempfile::TempDir>, Store)> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let sqlite = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    vec![(Some(dir), sqlite), (None, postgres_store())]
}

fn postgres_store() -> Store {
    test_server::TestServer::fresh_store()
}

fn read<R>(store: &Store, f: impl FnOnce(&Conn) -> StoreResult<R>) -> R {
    store.read_blocking(f).unwrap_or_else(|e| panic!("{e:?}"))
}

fn write<R>(store: &Store, f: impl Fn(&Tx) -> StoreResult<R>) -> R {
    store.write_blocking(f).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Polls `check` until it holds, failing after ten seconds.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn issue(id: &str, status: &str) -> Doc {
    let body = serde_json::json!({ "id": id, "status": status });
    Doc::new(Kind::Issue, id, &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}")).status(Some(status))
}

fn totals(store: &Store) -> (u64, u64, i64, i64) {
    read(store, |c| {
        let page = |status| {
            let filter = Filter { status, ..Default::default() };
            list(c, Kind::Issue, &filter, None, 1).map(|page| page.total)
        };
        let scan = |status: Option<&str>| -> StoreResult<i64> {
            Ok(c.value(
                "SELECT count(*) FROM docs WHERE kind = 'issue' AND deleted_at IS NULL \
                 AND (CAST(?1 AS TEXT) IS NULL OR status = ?1)",
                args![status],
            )?
            .unwrap_or(0))
        };
        Ok((page(None)?, page(Some("OPEN"))?, scan(None)?, scan(Some("OPEN"))?))
    })
}

#[test]
fn a_list_total_is_kept_through_inserts_status_changes_and_deletes() {
    for (_dir, store) in engines() {
        write(&store, |tx| {
            for n in 0..5 {
                insert(tx, &issue(&format!("i{n}"), "OPEN"))?;
            }
            update(tx, &issue("i1", "RESOLVED"))?;
            soft_delete(tx, Kind::Issue, "i2", "2026-01-02T00:00:00Z")?;
            soft_delete(tx, Kind::Issue, "i1", "2026-01-02T00:00:00Z")?;
            Ok(())
        });
        let (all, open, scanned_all, scanned_open) = totals(&store);
        assert_eq!((all as i64, open as i64), (scanned_all, scanned_open), "{:?}", store.dialect());
        assert_eq!((all, open), (3, 3), "{:?}", store.dialect());
    }
}

#[test]
fn a_change_of_status_appends_its_event_in_the_same_transaction() {
    for (_dir, store) in engines() {
        let mut newest = store.events();
        write(&store, |tx| insert(tx, &issue("i1", "OPEN")));
        // PostgreSQL numbers an event once it is published, a moment after its commit.
        eventually("a commit with an event wakes the streams", || newest.has_changed().unwrap_or(false));
        let seen = *newest.borrow_and_update();
        // A rewrite in the same status announces nothing; a failed write leaves no event behind.
        write(&store, |tx| update(tx, &issue("i1", "OPEN")));
        let failed: StoreResult<()> = store.write_blocking(|tx| {
            update(tx, &issue("i1", "RESOLVED"))?;
            Err(StoreError::backend("rolled back"))
        });
        assert!(failed.is_err());
        let events = read(&store, |c| outbox::events_between(c, 0, i64::MAX, &outbox::EventFilter::default(), 10));
        assert_eq!(events.len(), 1, "{:?}: {events:?}", store.dialect());
        assert_eq!(events[0].id, seen.to_string());
        assert_eq!(events[0].event_type, crate::api::model::EventType::IssueOpened);
    }
}

/// On PostgreSQL a transaction that took its event's sequence number first may commit last; a
/// reader that has read past the events committed meanwhile still reads it, numbered after them.
/// A write that has inserted its document and waits, uncommitted, until told to commit: for
/// the tests of transactions that commit in another order than they began.
struct HeldWrite {
    finish: std::sync::mpsc::Sender<()>,
    done: std::thread::JoinHandle<StoreResult<()>>,
}

impl HeldWrite {
    /// Returns once the document is inserted in the open transaction.
    fn insert(store: &Store, doc: Doc) -> HeldWrite {
        let (started, inserted) = std::sync::mpsc::channel::<()>();
        let (finish, commit) = std::sync::mpsc::channel::<()>();
        let (store, commit) = (store.clone(), std::sync::Mutex::new(commit));
        let done = std::thread::spawn(move || {
            store.write_blocking(|tx| {
                insert(tx, &doc)?;
                let _ = started.send(());
                let _ = commit.lock().map(|c| c.recv());
                Ok(())
            })
        });
        inserted.recv().unwrap_or_else(|e| panic!("{e:?}"));
        HeldWrite { finish, done }
    }

    fn commit(self) {
        self.finish.send(()).unwrap_or_else(|e| panic!("{e:?}"));
        self.done.join().unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_else(|e| panic!("{e:?}"));
    }
}

#[test]
fn an_event_committed_late_is_read_after_the_ones_committed_before_it() {
    let store = postgres_store();
    let slow = HeldWrite::insert(&store, issue("late", "OPEN"));
    // Another status than the slow one's: its count's row is not the one that waits on it.
    write(&store, |tx| insert(tx, &issue("early", "RESOLVED")));
    let newest = store.events();
    eventually("the early event is published", || *newest.borrow() >= 1);
    let filter = outbox::EventFilter::default();
    let upto = *newest.borrow();
    let first = read(&store, |c| outbox::events_between(c, 0, upto, &filter, 10));
    assert_eq!(first.iter().map(|e| e.resource_id.as_str()).collect::<Vec<_>>(), ["early"]);
    let read_up_to: i64 = first[0].id.parse().unwrap_or_else(|e| panic!("{e:?}"));

    slow.commit();
    eventually("the late event is published", || *newest.borrow() > read_up_to);
    let upto = *newest.borrow();
    let then = read(&store, |c| outbox::events_between(c, read_up_to, upto, &filter, 10));
    assert_eq!(then.iter().map(|e| e.resource_id.as_str()).collect::<Vec<_>>(), ["late"], "nothing is skipped");
}

fn simulation(id: &str, job: &str, status: &str) -> Doc {
    let body = serde_json::json!({ "simulationJobId": id, "status": status });
    Doc::new(Kind::SimulationJob, id, &body, "2026-01-01T00:00:00Z")
        .unwrap_or_else(|e| panic!("{e:?}"))
        .status(Some(status))
        .parent(Some(job))
}

#[test]
fn a_parents_child_counts_and_revision_follow_every_write() {
    for (_dir, store) in engines() {
        let counted = |statuses: &[&str]| read(&store, |c| count_children(c, Kind::SimulationJob, "j1", statuses));
        let scanned = |status: &str| -> u64 {
            read(&store, |c| {
                c.value::<i64>(
                    "SELECT count(*) FROM docs WHERE parent_id = 'j1' AND deleted_at IS NULL AND status = ?1",
                    args![status],
                )
                .map(|n| n.unwrap_or(0) as u64)
            })
        };
        let revision = |parent: &str| read(&store, |c| child_revision(c, parent));
        write(&store, |tx| {
            for n in 0..4 {
                insert(tx, &simulation(&format!("s{n}"), "j1", "PENDING"))?;
            }
            insert(tx, &simulation("t0", "j2", "PENDING"))
        });
        let (first, other) = (revision("j1"), revision("j2"));
        assert!(first > 0 && other > 0);
        assert_eq!((counted(&[]), counted(&["PENDING"])), (4, 4));

        write(&store, |tx| update(tx, &simulation("s1", "j1", "COMPLETED")));
        assert_eq!((counted(&["PENDING"]), counted(&["COMPLETED"])), (scanned("PENDING"), scanned("COMPLETED")));
        assert_eq!((counted(&["PENDING", "QUEUED"]), counted(&["COMPLETED"])), (3, 1));
        let after_status = revision("j1");
        assert!(after_status > first, "a change of status moves the revision");

        // A rewrite in the same status changes no count, but the revision still moves: the body did.
        write(&store, |tx| update(tx, &simulation("s2", "j1", "PENDING")));
        assert_eq!(counted(&["PENDING"]), 3);
        assert!(revision("j1") > after_status, "any write to a child moves its parent's revision");
        let mut noted = simulation("s2", "j1", "PENDING");
        noted.body = serde_json::json!({ "simulationJobId": "s2", "status": "PENDING", "note": "kept" }).to_string();
        write(&store, |tx| update(tx, &noted));
        let body = read(&store, |c| get_raw(c, Kind::SimulationJob, "s2")).unwrap_or_default();
        assert_eq!(body, noted.body, "a rewrite keeping the columns still writes the body");
        assert_eq!((counted(&["PENDING"]), scanned("PENDING")), (3, 3));

        let before_delete = revision("j1");
        write(&store, |tx| soft_delete(tx, Kind::SimulationJob, "s3", "2026-01-02T00:00:00Z").map(|_| ()));
        assert_eq!((counted(&[]), counted(&["PENDING"])), (3, scanned("PENDING")));
        assert!(revision("j1") > before_delete);
        assert_eq!(revision("j2"), other, "another parent's children were not written");
        assert_eq!(revision("nobody"), 0);
    }
}

#[test]
fn setting_members_rewrites_only_them_keeps_the_rest_verbatim_and_announces_nothing() {
    for (_dir, store) in engines() {
        let body = serde_json::json!({ "id": "i1", "status": "OPEN", "tally": { "n": 1 }, "rate": 0.8333333333333334, "z": "last" });
        let doc = Doc::new(Kind::Issue, "i1", &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"));
        let doc = doc.status(Some("OPEN"));
        write(&store, |tx| insert(tx, &doc));
        let mut newest = store.events();
        eventually("the insert's event is published", || *newest.borrow() > 0);
        newest.mark_unchanged();
        write(&store, |tx| {
            assert_eq!(member(tx, Kind::Issue, "i1", "$.tally")?.as_deref(), Some(r#"{"n":1}"#));
            assert_eq!(member(tx, Kind::Issue, "i1", "$.absent")?, None);
            assert_eq!(member(tx, Kind::Issue, "nobody", "$.tally")?, None);
            set_members(
                tx,
                Kind::Issue,
                "i1",
                &[("$.tally", r#"{"n":2,"rate":1.50}"#.to_owned()), ("$.verdict", r#""PASS""#.to_owned())],
            )
        });
        let stored = read(&store, |c| get_raw(c, Kind::Issue, "i1")).unwrap_or_default();
        assert_eq!(
            stored,
            r#"{"id":"i1","rate":0.8333333333333334,"status":"OPEN","tally":{"n":2,"rate":1.50},"z":"last","verdict":"PASS"}"#,
            "{:?}: the set members changed (a new one added at the end), the rest and its numbers as they were",
            store.dialect()
        );
        assert_eq!(read(&store, |c| status(c, Kind::Issue, "i1")).as_deref(), Some("OPEN"));
        let missing = store.write_blocking(|tx| set_members(tx, Kind::Issue, "nobody", &[("$.a", "1".to_owned())]));
        assert!(matches!(missing, Err(StoreError::NotFound { kind: "issue", .. })), "{missing:?}");
        std::thread::sleep(Duration::from_millis(100)); // time for a wrongly announced event to be published
        assert!(!newest.has_changed().unwrap_or(true), "{:?}: no event", store.dialect());
    }
}

/// Each engine's tables and their columns, as its own catalogue lists them.
fn schema(store: &Store) -> BTreeMap<String, BTreeSet<String>> {
    let sql = match store.dialect() {
        Dialect::Sqlite => {
            "SELECT m.name, c.name FROM sqlite_master m, pragma_table_xinfo(m.name) c \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
        }
        Dialect::Postgres => {
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'"
        }
    };
    let rows = read(store, |c| c.query(sql, &[], |r| Ok((r.take::<String>(0)?, r.take::<String>(1)?))));
    let mut tables: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (table, column) in rows {
        tables.entry(table).or_default().insert(column);
    }
    tables
}

#[test]
fn both_engines_schemas_hold_the_same_tables_and_columns() {
    let engines = engines();
    let (sqlite, postgres) = (schema(&engines[0].1), schema(&engines[1].1));
    assert!(sqlite.contains_key("docs") && sqlite.contains_key("events"), "{sqlite:?}");
    assert_eq!(sqlite, postgres, "SQLite's schema (left) and PostgreSQL's (right) differ");
    // And each migration list moves its own version: the kept version is the last step's.
    assert_eq!(sqlite::migrations::all().len() as i64, SCHEMA_VERSION);
    assert!(!postgres::migrations::all().is_empty());
}

/// A revision read between two writes' commits moves again when the write that began first
/// commits last (a number drawn from a sequence would not have: the first drew the lower one).
#[test]
fn a_revision_grows_with_every_commit_whatever_order_writes_began_in() {
    let store = postgres_store();
    write(&store, |tx| insert(tx, &simulation("s0", "j1", "PENDING")));
    let slow = HeldWrite::insert(&store, simulation("first", "j1", "PENDING"));
    write(&store, |tx| insert(tx, &simulation("second", "j1", "PENDING")));
    let between = read(&store, |c| child_revision(c, "j1"));
    slow.commit();
    let after = read(&store, |c| child_revision(c, "j1"));
    assert!(after > between, "{after} after the late commit, {between} before it");
}

/// The rows a connection kept its counts in are folded into shard 0 once it has ended, and
/// every count, total and revision reads the same before and after.
#[test]
fn shards_of_ended_connections_fold_into_one_keeping_every_sum() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    write(&store, |tx| {
        insert(tx, &issue("i0", "OPEN"))?;
        insert(tx, &simulation("s0", "j1", "PENDING"))
    });
    // Writes on a connection of its own, which then ends.
    let (issue_kind, simulation_kind) = (Kind::Issue.as_str(), Kind::SimulationJob.as_str());
    let ended: i32 = std::thread::spawn(move || {
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
        client
            .batch_execute(&format!(
                "INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES \
                 ('{issue_kind}', 'i1', '{{}}', 'OPEN', NULL, '2026-01-01T00:00:00Z'), \
                 ('{issue_kind}', 'i2', '{{}}', 'RESOLVED', NULL, '2026-01-01T00:00:00Z'), \
                 ('{simulation_kind}', 's1', '{{}}', 'PENDING', 'j1', '2026-01-01T00:00:00Z'), \
                 ('{simulation_kind}', 's2', '{{}}', 'PENDING', 'j1', '2026-01-01T00:00:00Z'); \
                 UPDATE docs SET status = 'COMPLETED' WHERE id = 's0'"
            ))
            .unwrap_or_else(|e| panic!("{e}"));
        client.query_one("SELECT pg_backend_pid()", &[]).map(|r| r.get(0)).unwrap_or_else(|e| panic!("{e}"))
    })
    .join()
    .unwrap_or_else(|e| panic!("{e:?}"));
    let sums = || {
        read(&store, |c| {
            let total = |status| {
                let filter = Filter { status, ..Default::default() };
                list(c, Kind::Issue, &filter, None, 1).map(|page| page.total)
            };
            let children = |statuses: &[&str]| count_children(c, Kind::SimulationJob, "j1", statuses);
            Ok((total(None)?, total(Some("OPEN"))?, children(&["PENDING"])?, children(&["COMPLETED"])?))
        })
    };
    let shard_rows = |shard: i64| {
        read(&store, |c| {
            c.value::<i64>(
                "SELECT (SELECT count(*) FROM doc_counts WHERE shard = ?1) \
                 + (SELECT count(*) FROM child_counts WHERE shard = ?1) \
                 + (SELECT count(*) FROM child_revisions WHERE shard = ?1)",
                args![shard],
            )
        })
        .unwrap_or(0)
    };
    let (before, revision) = (sums(), read(&store, |c| child_revision(c, "j1")));
    assert_eq!(before, (3, 2, 2, 1));
    assert!(shard_rows(i64::from(ended)) > 0, "the connection kept rows of its own");
    eventually("the connection has ended", || {
        !read(&store, |c| c.exists("SELECT 1 FROM pg_stat_activity WHERE pid = ?1", args![i64::from(ended)]))
    });

    let folded = write(&store, shards::fold);
    assert!(folded > 0);
    assert_eq!(shard_rows(i64::from(ended)), 0, "its rows are folded");
    assert_eq!((sums(), read(&store, |c| child_revision(c, "j1"))), (before, revision));
    // The pool's connections live on, and their rows with them.
    write(&store, |tx| insert(tx, &issue("i3", "OPEN")));
    write(&store, shards::fold);
    assert_eq!(sums().1, 3);
}

#[test]
fn a_database_is_shown_without_its_password_whichever_way_it_was_given() {
    for url in [
        "postgres://sb:s3cret-pw@db.internal:5432/switchboard",
        "postgresql://sb@db.internal/switchboard?password=s3cret-pw",
        "host=db.internal user=sb password=s3cret-pw dbname=switchboard",
        "postgres://sb:s3cret%40pw@db.internal/switchboard",
    ] {
        let shown = Location::Postgres(url.to_owned()).display();
        assert!(!shown.contains("s3cret"), "{url} shown as {shown}");
        assert!(shown.contains("db.internal") && shown.contains("switchboard"), "{shown}");
    }
    assert_eq!(Location::Postgres("postgres://sb:pw@db:5433/app".into()).display(), "postgres://sb:***@db:5433/app");
    assert!(!Location::Postgres("postgres://sb:pw@[bad".into()).display().contains("pw"));
}

/// A conversation's values written in one statement read back as written one at a time: in
/// order, each with the columns the results read summarises (a `NULL` value, a label).
#[test]
fn values_written_together_read_as_values_written_one_at_a_time() {
    use crate::api::model::{CaptureStatus, MetricValue};
    for (_dir, store) in engines() {
        let value = |n: f64, status: CaptureStatus, label: Option<&str>| -> MetricValue {
            let mut value: MetricValue =
                serde_json::from_value(serde_json::json!({ "value": n })).unwrap_or_else(|e| panic!("{e}"));
            value.value = (status == CaptureStatus::Success).then_some(n);
            value.capture_status = Some(status);
            value.label = label.map(str::to_owned);
            value
        };
        let values = [
            value(1.0, CaptureStatus::Success, Some("good")),
            value(2.0, CaptureStatus::Error, None),
            value(3.0, CaptureStatus::Success, None),
        ];
        let definitions = ["d1", "d2", "d1"];
        write(&store, |tx| {
            let keyed: Vec<(values::ValueKey, &MetricValue)> = definitions
                .iter()
                .zip(&values)
                .map(|(definition, value)| {
                    (
                        values::ValueKey {
                            job_id: "together",
                            definition_id: definition,
                            call_id: Some("c1"),
                            chat_id: None,
                        },
                        value,
                    )
                })
                .collect();
            values::put_many(tx, &keyed)?;
            for (definition, value) in definitions.iter().zip(&values) {
                let key =
                    values::ValueKey { job_id: "apart", definition_id: definition, call_id: Some("c1"), chat_id: None };
                values::put(tx, &key, value)?;
            }
            Ok(())
        });
        let together = read(&store, |c| values::of_job(c, "together"));
        assert_eq!(together, read(&store, |c| values::of_job(c, "apart")), "{:?}", store.dialect());
        assert_eq!(together.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(), definitions);
        let summarised = |job| {
            read(&store, |c| values::values_by_call(c, job))
                .remove("c1")
                .unwrap_or_default()
                .into_iter()
                .map(|row| (row.definition, row.status, row.value, row.label))
                .collect::<Vec<_>>()
        };
        assert_eq!(summarised("together"), summarised("apart"), "{:?}", store.dialect());
        assert_eq!(summarised("together").len(), 3);
    }
}

mod announcing;
mod applying;
mod batches;
mod claims;
mod duties;
mod filling;
mod floors;
mod held_rows;
mod inserting;
mod leasing;
mod migrating;
mod picking;
mod pooling;
mod presence;
mod publishing;
mod windows;
