//! The store's own bookkeeping: kept counts and the outbox.

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
    let writer = store.writer.lock().unwrap_or_else(|e| e.into_inner());
    let page = |status| {
        let filter = Filter { status, ..Default::default() };
        list(&writer, Kind::Issue, &filter, None, 1).unwrap_or_else(|e| panic!("{e:?}")).total
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
    let writer = store.writer.lock().unwrap_or_else(|e| e.into_inner());
    let events = outbox::events_between(&writer, 0, i64::MAX, &outbox::EventFilter::default(), 10)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].id, seen.to_string());
    assert_eq!(events[0].event_type, crate::api::model::EventType::IssueOpened);
}
