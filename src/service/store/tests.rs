//! The store's own bookkeeping: kept counts, children's counts and revisions, the outbox.

use super::*;

fn open() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let store = Store::open(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    (dir, store)
}

fn issue(id: &str, status: &str) -> Doc {
    let body = serde_json::json!({ "id": id, "status": status });
    Doc::new(Kind::Issue, id, &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}")).status(Some(status))
}

fn totals(store: &Store) -> (u64, u64, i64, i64) {
    let writer = store.writer.lock();
    let writer = &writer.conn;
    let page = |status| {
        let filter = Filter { status, ..Default::default() };
        list(writer, Kind::Issue, &filter, None, 1).unwrap_or_else(|e| panic!("{e:?}")).total
    };
    let scan = |status: Option<&str>| -> i64 {
        writer
            .query_row(
                "SELECT count(*) FROM docs WHERE kind = 'issue' AND deleted_at IS NULL AND (?1 IS NULL OR status = ?1)",
                params![status],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("{e:?}"))
    };
    (page(None), page(Some("OPEN")), scan(None), scan(Some("OPEN")))
}

#[test]
fn a_list_total_is_kept_through_inserts_status_changes_and_deletes() {
    let (_dir, store) = open();
    store
        .write_blocking(|tx| {
            for n in 0..5 {
                insert(tx, &issue(&format!("i{n}"), "OPEN"))?;
            }
            update(tx, &issue("i1", "RESOLVED"))?;
            soft_delete(tx, Kind::Issue, "i2", "2026-01-02T00:00:00Z")?;
            soft_delete(tx, Kind::Issue, "i1", "2026-01-02T00:00:00Z")?;
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (all, open, scanned_all, scanned_open) = totals(&store);
    assert_eq!((all as i64, open as i64), (scanned_all, scanned_open));
    assert_eq!((all, open), (3, 3));
}

#[test]
fn a_change_of_status_appends_its_event_in_the_same_transaction() {
    let (_dir, store) = open();
    let mut newest = store.events();
    store.write_blocking(|tx| insert(tx, &issue("i1", "OPEN"))).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(newest.has_changed().unwrap_or(false), "a commit with an event wakes the streams");
    let seen = *newest.borrow_and_update();
    // A rewrite in the same status announces nothing; a failed write leaves no event behind.
    store.write_blocking(|tx| update(tx, &issue("i1", "OPEN"))).unwrap_or_else(|e| panic!("{e:?}"));
    let failed: ServiceResult<()> = store.write_blocking(|tx| {
        update(tx, &issue("i1", "RESOLVED"))?;
        Err(ServiceError::internal("rolled back"))
    });
    assert!(failed.is_err());
    let writer = store.writer.lock();
    let events = outbox::events_between(&writer.conn, 0, i64::MAX, &outbox::EventFilter::default(), 10)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].id, seen.to_string());
    assert_eq!(events[0].event_type, crate::api::model::EventType::IssueOpened);
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
    let (_dir, store) = open();
    let write =
        |f: &dyn Fn(&Transaction) -> ServiceResult<()>| store.write_blocking(f).unwrap_or_else(|e| panic!("{e:?}"));
    let read = |f: &dyn Fn(&Connection) -> ServiceResult<i64>| {
        let writer = store.writer.lock();
        f(&writer.conn).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let counted = |statuses: &'static [&'static str]| {
        read(&|c| Ok(count_children(c, Kind::SimulationJob, "j1", statuses)? as i64))
    };
    let scanned = |status: &str| {
        read(&|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM docs WHERE parent_id = 'j1' AND deleted_at IS NULL AND status = ?1",
                params![status],
                |r| r.get(0),
            )?)
        })
    };
    let revision = |parent: &'static str| read(&|c| child_revision(c, parent));
    write(&|tx| {
        for n in 0..4 {
            insert(tx, &simulation(&format!("s{n}"), "j1", "PENDING"))?;
        }
        insert(tx, &simulation("t0", "j2", "PENDING"))
    });
    let (first, other) = (revision("j1"), revision("j2"));
    assert!(first > 0 && other > 0);
    assert_eq!((counted(&[]), counted(&["PENDING"])), (4, 4));

    write(&|tx| update(tx, &simulation("s1", "j1", "COMPLETED")));
    assert_eq!((counted(&["PENDING"]), counted(&["COMPLETED"])), (scanned("PENDING"), scanned("COMPLETED")));
    assert_eq!((counted(&["PENDING", "QUEUED"]), counted(&["COMPLETED"])), (3, 1));
    let after_status = revision("j1");
    assert!(after_status > first, "a change of status moves the revision");

    // A rewrite in the same status changes no count, but the revision still moves: the body did.
    write(&|tx| update(tx, &simulation("s2", "j1", "PENDING")));
    assert_eq!(counted(&["PENDING"]), 3);
    assert!(revision("j1") > after_status, "any write to a child moves its parent's revision");
    let mut noted = simulation("s2", "j1", "PENDING");
    noted.body = serde_json::json!({ "simulationJobId": "s2", "status": "PENDING", "note": "kept" }).to_string();
    write(&|tx| update(tx, &noted));
    let body = read(&|c| Ok(get_raw(c, Kind::SimulationJob, "s2")?.unwrap_or_default().len() as i64));
    assert_eq!(body, noted.body.len() as i64, "a rewrite keeping the columns still writes the body");
    assert_eq!((counted(&["PENDING"]), scanned("PENDING")), (3, 3));

    let before_delete = revision("j1");
    write(&|tx| soft_delete(tx, Kind::SimulationJob, "s3", "2026-01-02T00:00:00Z").map(|_| ()));
    assert_eq!((counted(&[]), counted(&["PENDING"])), (3, scanned("PENDING")));
    assert!(revision("j1") > before_delete);
    assert_eq!(revision("j2"), other, "another parent's children were not written");
    assert_eq!(revision("nobody"), 0);
}

#[test]
fn progress_writes_commit_and_a_synced_write_after_them_still_syncs() {
    let (dir, store) = open();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| panic!("{e:?}"));
    runtime.block_on(async {
        store.write_progress(|tx| insert(tx, &issue("p1", "OPEN"))).await.unwrap_or_else(|e| panic!("{e:?}"));
        store.write(|tx| insert(tx, &issue("p2", "OPEN"))).await.unwrap_or_else(|e| panic!("{e:?}"));
    });
    let mode: i64 = {
        let writer = store.writer.lock();
        writer.conn.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert_eq!(mode, 2, "a synced write runs with synchronous = FULL");
    drop(store);
    let reopened = Store::open(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    let writer = reopened.writer.lock();
    for id in ["p1", "p2"] {
        assert!(get_raw(&writer.conn, Kind::Issue, id).unwrap_or_else(|e| panic!("{e:?}")).is_some(), "{id}");
    }
}

/// The write of `progress_written_together…` that panics.
const PANICS: usize = 20;

#[test]
fn progress_written_together_keeps_each_write_whole_and_answers_each_caller() {
    let (_dir, store) = open();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let answers = runtime.block_on(async {
        // The writer is held until all forty have queued, so they commit as one batch.
        let held = store.writer.lock();
        let writes: Vec<_> = (0..40)
            .map(|n| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .write_progress(move |tx| {
                            insert(tx, &issue(&format!("g{n}"), "OPEN"))?;
                            // Every seventh write fails after writing, and one panics: only its
                            // own insert is undone.
                            if n % 7 == 3 {
                                return Err(ServiceError::invalid("n", format!("write {n} refuses")));
                            }
                            assert_ne!(n, PANICS, "write {n} panics");
                            Ok(n)
                        })
                        .await
                })
            })
            .collect();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while store.progress.len() < 40 {
            assert!(std::time::Instant::now() < deadline, "{} of 40 writes queued", store.progress.len());
            std::thread::sleep(std::time::Duration::from_millis(5)); // the writes queue on the workers
        }
        drop(held);
        futures_util::future::join_all(writes).await
    });
    let writer = store.writer.lock();
    for (n, answer) in answers.into_iter().enumerate() {
        let answer = answer.unwrap_or_else(|e| panic!("{e:?}"));
        let stored = get_raw(&writer.conn, Kind::Issue, &format!("g{n}")).unwrap_or_else(|e| panic!("{e:?}"));
        if n % 7 == 3 {
            let error = answer.err().unwrap_or_else(|| panic!("write {n} should have failed"));
            assert_eq!(error.body.message, format!("write {n} refuses"), "each caller hears its own error");
            assert!(stored.is_none(), "write {n} failed, so nothing of it is kept");
        } else if n == PANICS {
            let error = answer.err().unwrap_or_else(|| panic!("write {n} panicked and should have failed"));
            assert_eq!(error.status, 500);
            assert!(stored.is_none(), "write {n} panicked, so nothing of it is kept");
        } else {
            assert_eq!(answer.unwrap_or_else(|e| panic!("{e:?}")), n, "each caller gets its own result");
            assert!(stored.is_some(), "write {n} committed");
        }
    }
    drop(writer);
    let (kept, _, scanned, _) = totals(&store);
    assert_eq!((kept, scanned), (40 - 7, 40 - 7), "the kept count holds only what committed");
}

#[test]
fn the_log_is_copied_into_the_database_by_the_checkpointer_not_the_writer() {
    let (dir, store) = open();
    let file = dir.path().join("t.db");
    let before = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    // About 2 MB of documents, committed to the log; the writer itself never checkpoints.
    store
        .write_blocking(|tx| {
            for n in 0..1000 {
                let body = serde_json::json!({ "id": format!("c{n}"), "status": "OPEN", "padding": "x".repeat(2000) });
                insert(
                    tx,
                    &Doc::new(Kind::Issue, format!("c{n}"), &body, "2026-01-01T00:00:00Z")?.status(Some("OPEN")),
                )?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        if size > before + 1_500_000 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the log was never checkpointed ({before} → {size} bytes)");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let automatic: i64 = {
        let writer = store.writer.lock();
        writer.conn.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0)).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert!(automatic * 4096 > 2 * 2_000_000, "the writer itself would not have checkpointed 2 MB ({automatic} pages)");
}

#[test]
fn a_dropped_store_has_its_progress_writer_commit_what_is_queued_and_let_go() {
    let (_dir, store) = open();
    let writer = store.writer.clone();
    // The writer is held, so the write is still queued when the last clone of the store goes.
    let held = writer.lock();
    let answer = store.progress.push(|tx| insert(tx, &issue("w1", "OPEN")).map(|()| 7));
    drop(store);
    drop(held);
    let answered = answer.blocking_recv().unwrap_or_else(|_| panic!("the queued write was dropped unanswered"));
    assert_eq!(answered.unwrap_or_else(|e| panic!("{e:?}")), 7);
    // Then the thread ends, and with it its hold on the connection.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while Arc::strong_count(&writer) > 1 {
        assert!(std::time::Instant::now() < deadline, "the progress writer still holds the connection");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let writer = writer.lock();
    assert!(get_raw(&writer.conn, Kind::Issue, "w1").unwrap_or_else(|e| panic!("{e:?}")).is_some());
}

#[test]
fn setting_members_rewrites_only_them_keeps_the_rest_verbatim_and_announces_nothing() {
    let (_dir, store) = open();
    let body = serde_json::json!({ "id": "i1", "status": "OPEN", "tally": { "n": 1 }, "rate": 0.8333333333333334, "z": "last" });
    let doc = Doc::new(Kind::Issue, "i1", &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"));
    store.write_blocking(|tx| insert(tx, &doc.status(Some("OPEN")))).unwrap_or_else(|e| panic!("{e:?}"));
    let events_before = outbox::last_event(&store.writer.lock().conn).unwrap_or_else(|e| panic!("{e:?}"));
    store
        .write_blocking(|tx| {
            assert_eq!(member(tx, Kind::Issue, "i1", "$.tally")?.as_deref(), Some(r#"{"n":1}"#));
            assert_eq!(member(tx, Kind::Issue, "i1", "$.absent")?, None);
            assert_eq!(member(tx, Kind::Issue, "nobody", "$.tally")?, None);
            set_members(
                tx,
                Kind::Issue,
                "i1",
                &[("$.tally", r#"{"n":2,"rate":1.50}"#.to_owned()), ("$.verdict", r#""PASS""#.to_owned())],
            )
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
    let writer = store.writer.lock();
    let stored = get_raw(&writer.conn, Kind::Issue, "i1").unwrap_or_else(|e| panic!("{e:?}")).unwrap_or_default();
    assert_eq!(
        stored,
        r#"{"id":"i1","rate":0.8333333333333334,"status":"OPEN","tally":{"n":2,"rate":1.50},"z":"last","verdict":"PASS"}"#,
        "the set members changed (a new one added at the end), the rest and its numbers as they were"
    );
    assert_eq!(status(&writer.conn, Kind::Issue, "i1").unwrap_or_else(|e| panic!("{e:?}")).as_deref(), Some("OPEN"));
    assert_eq!(outbox::last_event(&writer.conn).unwrap_or_else(|e| panic!("{e:?}")), events_before, "no event");
    let missing = set_members(
        &writer.conn.unchecked_transaction().unwrap_or_else(|e| panic!("{e:?}")),
        Kind::Issue,
        "nobody",
        &[("$.a", "1".to_owned())],
    );
    assert_eq!(missing.err().map(|e| e.status.as_u16()), Some(404));
}
