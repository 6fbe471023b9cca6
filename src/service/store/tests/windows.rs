//! An alert's window (`store::alerts::scored`): the scored calls started in it, found by the
//! index of calls' starts on both engines, in every plan, not by a walk of every call kept.

use super::*;
use crate::service::store::alerts::{scored, scored_sql};
use crate::service::store::picks::index_scans;
use crate::service::store::values::{ValueColumns, ValueKey, put_raw};

/// Calls `c00`…`c59`, one a minute from midnight, each scored 1.0 on `d1` (`c10` twice, then
/// 2.0), one on `d2`, and a call in the window that is deleted.
fn calls_scored(store: &Store) {
    write(store, |tx| {
        for n in 0..60 {
            let id = format!("c{n:02}");
            let started = format!("2026-01-01T00:{n:02}:00Z");
            let body = serde_json::json!({ "id": id, "agentId": format!("a{}", n % 2), "createdAt": started });
            insert(tx, &Doc::new(Kind::Call, &id, &body, &started)?)?;
            let value = |definition_id, value: f64| {
                let key = ValueKey { job_id: "job", definition_id, call_id: Some(&id), chat_id: None };
                let columns = ValueColumns { capture_status: "SUCCESS", value: Some(value), ..ValueColumns::default() };
                put_raw(tx, &key, &columns, "{}")
            };
            value("d1", 1.0)?;
            if n == 10 {
                value("d1", 2.0)?;
            }
            value("d2", 5.0)?;
        }
        let body = serde_json::json!({ "id": "gone" });
        insert(tx, &Doc::new(Kind::Call, "gone", &body, "2026-01-01T00:11:30Z")?)?;
        put_raw(
            tx,
            &ValueKey { job_id: "job", definition_id: "d1", call_id: Some("gone"), chat_id: None },
            &ValueColumns { capture_status: "SUCCESS", value: Some(9.0), ..ValueColumns::default() },
            "{}",
        )?;
        tx.execute("UPDATE docs SET deleted_at = 'then' WHERE id = 'gone'", &[])?;
        Ok(())
    });
}

#[test]
fn a_window_reads_the_scored_calls_started_in_it() {
    for (_dir, store) in engines() {
        let engine = store.dialect();
        calls_scored(&store);
        let window = read(&store, |c| scored(c, "d1", "2026-01-01T00:09:00Z", "2026-01-01T00:12:00Z"));
        let read: Vec<(&str, Option<&str>, &str, f64)> = window
            .iter()
            .map(|s| (s.call_id.as_str(), s.agent_id.as_deref(), s.started_at.as_str(), s.value))
            .collect();
        assert_eq!(
            read,
            [
                ("c09", Some("a1"), "2026-01-01T00:09:00Z", 1.0),
                ("c10", Some("a0"), "2026-01-01T00:10:00Z", 1.0),
                ("c10", Some("a0"), "2026-01-01T00:10:00Z", 2.0),
                ("c11", Some("a1"), "2026-01-01T00:11:00Z", 1.0),
            ],
            "{engine:?}: from its start up to its end, in the order written, the deleted call left out"
        );
        assert_eq!(window[0].arrived_at.as_deref(), Some("2026-01-01T00:09:00Z"), "{engine:?}");
    }
}

#[test]
fn a_window_finds_its_calls_by_their_starts_in_every_plan() {
    for (_dir, store) in engines() {
        calls_scored(&store);
        match store.dialect() {
            Dialect::Sqlite => {
                let plan: Vec<String> = read(&store, |c| {
                    let sql = format!("EXPLAIN QUERY PLAN {}", scored_sql(c)?);
                    c.query(&sql, args!["d1", "a", "b"], |r| r.take::<String>(3))
                });
                // The calls by their starts (were the index not named, the kinds' index), each
                // call's values by the call.
                assert!(plan.iter().any(|step| step.contains("docs_calls_started")), "{plan:?}");
                assert!(plan.iter().any(|step| step.contains("metric_values_call")), "{plan:?}");
            }
            Dialect::Postgres => {
                for plans in ["force_custom_plan", "force_generic_plan"] {
                    let (found, before, after) = write(&store, |tx| {
                        tx.execute_batch(&format!("SET LOCAL plan_cache_mode = {plans}"))?;
                        let before = index_scans(tx, &["docs_calls_started", "docs_list"])?;
                        let found = scored(tx, "d1", "2026-01-01T00:20:00Z", "2026-01-01T00:22:00Z")?;
                        Ok((found.len(), before, index_scans(tx, &["docs_calls_started", "docs_list"])?))
                    });
                    let scanned: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
                    assert_eq!((found, scanned), (2, vec![1, 0]), "{plans}: found; docs_calls_started, docs_list");
                }
            }
        }
    }
}
