//! The SQLite engine's own machinery: progress committed in groups, synced writes, the
//! checkpointer, and a dropped store's last batch.

use std::sync::Arc;

use crate::service::store::db::Conn;
use crate::service::store::{Doc, Filter, Kind, Store, get_raw, insert, list};
use crate::service::store::{StoreError, StoreResult};

fn open() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let store = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    (dir, store)
}

fn issue(id: &str, status: &str) -> Doc {
    let body = serde_json::json!({ "id": id, "status": status });
    Doc::new(Kind::Issue, id, &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}")).status(Some(status))
}

/// Issues listed (the kept count) and scanned.
fn kept_and_scanned(store: &Store) -> (u64, i64) {
    let writer = store.sqlite().writer.lock();
    let conn = Conn::sqlite(&writer.conn);
    let kept = list(&conn, Kind::Issue, &Filter::default(), None, 1).unwrap_or_else(|e| panic!("{e:?}")).total;
    let scanned = writer
        .conn
        .query_row("SELECT count(*) FROM docs WHERE kind = 'issue' AND deleted_at IS NULL", [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e:?}"));
    (kept, scanned)
}

fn stored(store: &Store, id: &str) -> Option<String> {
    let writer = store.sqlite().writer.lock();
    get_raw(&Conn::sqlite(&writer.conn), Kind::Issue, id).unwrap_or_else(|e| panic!("{e:?}"))
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
        let writer = store.sqlite().writer.lock();
        writer.conn.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert_eq!(mode, 2, "a synced write runs with synchronous = FULL");
    drop(store);
    let reopened = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    for id in ["p1", "p2"] {
        assert!(stored(&reopened, id).is_some(), "{id}");
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
        let held = store.sqlite().writer.lock();
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
                                return Err(StoreError::Backend(format!("write {n} refuses")));
                            }
                            assert_ne!(n, PANICS, "write {n} panics");
                            Ok(n)
                        })
                        .await
                })
            })
            .collect();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while store.sqlite().progress.len() < 40 {
            assert!(std::time::Instant::now() < deadline, "{} of 40 writes queued", store.sqlite().progress.len());
            std::thread::sleep(std::time::Duration::from_millis(5)); // the writes queue on the workers
        }
        drop(held);
        futures_util::future::join_all(writes).await
    });
    for (n, answer) in answers.into_iter().enumerate() {
        let answer = answer.unwrap_or_else(|e| panic!("{e:?}"));
        let stored = stored(&store, &format!("g{n}"));
        if n % 7 == 3 {
            let error = answer.err().unwrap_or_else(|| panic!("write {n} should have failed"));
            assert_eq!(error.to_string(), format!("write {n} refuses"), "each caller hears its own error");
            assert!(stored.is_none(), "write {n} failed, so nothing of it is kept");
        } else if n == PANICS {
            let error = answer.err().unwrap_or_else(|| panic!("write {n} panicked and should have failed"));
            assert!(matches!(error, StoreError::Backend(_)), "{error:?}");
            assert!(stored.is_none(), "write {n} panicked, so nothing of it is kept");
        } else {
            assert_eq!(answer.unwrap_or_else(|e| panic!("{e:?}")), n, "each caller gets its own result");
            assert!(stored.is_some(), "write {n} committed");
        }
    }
    let (kept, scanned) = kept_and_scanned(&store);
    assert_eq!((kept, scanned), (40 - 7, 40 - 7), "the kept count holds only what committed");
}

#[test]
fn the_log_is_copied_into_the_database_by_the_checkpointer_not_the_writer() {
    let (dir, store) = open();
    let file = dir.path().join("t.db");
    let before = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    // About 2 MB of documents, committed to the log; the writer itself never checkpoints.
    store
        .write_blocking(|tx| -> StoreResult<_> {
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
        let writer = store.sqlite().writer.lock();
        writer.conn.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0)).unwrap_or_else(|e| panic!("{e:?}"))
    };
    assert!(automatic * 4096 > 2 * 2_000_000, "the writer itself would not have checkpointed 2 MB ({automatic} pages)");
}

#[test]
fn a_dropped_store_has_its_progress_writer_commit_what_is_queued_and_let_go() {
    let (_dir, store) = open();
    let writer = store.sqlite().writer.clone();
    // The writer is held, so the write is still queued when the last clone of the store goes.
    let held = writer.lock();
    let answer = store.sqlite().progress.push(|tx| insert(tx, &issue("w1", "OPEN")).map(|()| 7));
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
    let kept = get_raw(&Conn::sqlite(&writer.conn), Kind::Issue, "w1").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(kept.is_some());
}
