//! Batches of writes applied under a guard (`store::batch`): one `sb_apply` on PostgreSQL,
//! statement by statement on SQLite, the same rows on both; nothing written under a lease
//! another holds or over a status that moved.

use super::*;
use crate::service::store::batch::{Applied, Batch, Guard};
use crate::service::store::values::StoredValue;

fn guard(owner: &str, status: &str, release: bool) -> Guard {
    Guard {
        kind: Kind::SimulationJob,
        id: "s1".into(),
        owner: owner.into(),
        status: Some(status.into()),
        parent_in: Some((Kind::RunPlanJob, "j1".into(), vec!["RUNNING_SIMULATIONS".into()])),
        release,
    }
}

fn value(definition_id: &str, value: Option<f64>, label: Option<&str>) -> StoredValue {
    StoredValue {
        job_id: "col1".into(),
        definition_id: definition_id.into(),
        call_id: Some("c1".into()),
        chat_id: None,
        capture_status: "SUCCESS".into(),
        body: format!(r#"{{"value":{},"note":"tab\there, quote \" and \\ kept"}}"#, value.unwrap_or(0.0)),
        value,
        context: Some("ctx".into()),
        participant_role: None,
        label: label.map(str::to_owned),
    }
}

/// A simulation's end: its call, transcript, two values, itself completed, its part.
fn an_end() -> Batch {
    an_end_under(guard("replica-a", "PROCESSING", true))
}

fn an_end_under(guard: Guard) -> Batch {
    let mut batch = Batch::under(guard);
    let call = serde_json::json!({ "id": "c1", "note": "ünïcode ✓ and \\u escapes" });
    let call = Doc::new(Kind::Call, "c1", &call, "2026-01-01T00:00:01Z").unwrap_or_else(|e| panic!("{e:?}"));
    batch.insert(call.parent(Some("j1"))).unwrap_or_else(|e| panic!("{e:?}"));
    batch.transcript("c1", r#"[{"role":"agent","text":"hi\nthere"}]"#.into());
    batch.values([value("m1", Some(0.1), Some("yes")), value("m2", None, None)]);
    batch.update(simulation("s1", "j1", "COMPLETED"), Some("PROCESSING")).unwrap_or_else(|e| panic!("{e:?}"));
    let item = ends::Item { collection_id: "col1".into(), failed: false, at: "\"2026-01-01T00:00:02Z\"".into() };
    batch.end("j1", ends::End { part: r#"{"passed":1}"#.into(), item: Some(item) });
    batch
}

/// A store with a running job, its simulation PROCESSING leased to replica-a, and a webhook
/// that hears simulations complete.
fn set_up(store: &Store) {
    let job = serde_json::json!({ "id": "j1" });
    let job = Doc::new(Kind::RunPlanJob, "j1", &job, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"));
    let hook = serde_json::json!({ "id": "w1", "events": ["SIMULATION_JOB_COMPLETED", "OTHER"] });
    let hook = Doc::new(Kind::Webhook, "w1", &hook, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"));
    write(store, |tx| {
        insert(tx, &job.clone().status(Some("RUNNING_SIMULATIONS")))?;
        insert(tx, &hook)?;
        insert(tx, &simulation("s1", "j1", "PROCESSING"))?;
        leases::take(tx, Kind::SimulationJob, "s1", "replica-a", i64::MAX)
    });
    // The job's and the simulation's starts, published (PostgreSQL numbers them a moment later).
    eventually("the starts are published", || events(store).len() == 2);
}

fn events(store: &Store) -> Vec<crate::api::model::Event> {
    read(store, |c| outbox::events_between(c, 0, i64::MAX, &outbox::EventFilter::default(), 100))
}

/// Everything a batch writes, as text to compare across engines.
fn rows(store: &Store) -> Vec<String> {
    let mut all = read(store, |c| {
        let docs = c.query(
            "SELECT kind || ' ' || id || ' ' || coalesce(status, '-') || ' ' || coalesce(parent_id, '-') || ' ' \
             || coalesce(lease_owner, 'free') || ' ' || created_at, body FROM docs ORDER BY seq",
            &[],
            |r| Ok(format!("{} {}", r.take::<String>(0)?, json_of(&r.take::<String>(1)?))),
        )?;
        let transcripts = c.query("SELECT call_id || ' ' || body FROM transcripts", &[], |r| r.take::<String>(0))?;
        let values = c.query(
            "SELECT job_id, definition_id, call_id, chat_id, capture_status, body, value, context, participant_role, label \
             FROM metric_values ORDER BY seq",
            &[],
            |r| {
                let texts = [0, 1, 2, 3, 4, 5].map(|i| r.take::<Option<String>>(i));
                let value = r.take::<Option<f64>>(6)?;
                let more = [7, 8, 9].map(|i| r.take::<Option<String>>(i));
                Ok(format!("{texts:?} {value:?} {more:?}"))
            },
        )?;
        let deliveries = c.query(
            "SELECT webhook_id || ' ' || status || ' ' || attempts FROM webhook_deliveries ORDER BY seq",
            &[],
            |r| r.take::<String>(0),
        )?;
        Ok::<_, StoreError>([docs, transcripts, values, deliveries].concat())
    });
    let ends = write(store, |tx| ends::take(tx, "j1"));
    all.extend(ends.into_iter().map(|end| format!("{end:?}")));
    all.extend(events(store).into_iter().map(|e| format!("{:?} {} {:?}", e.event_type, e.resource_id, e.data)));
    all
}

/// JSON text as one engine or the other keeps it, compared by value.
fn json_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_batch_writes_the_same_rows_on_both_engines() {
    let mut seen = Vec::new();
    for (_dir, store) in engines() {
        set_up(&store);
        let applied = store.apply_blocking(&an_end(), false).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(applied, Applied::Written, "{:?}", store.dialect());
        // PostgreSQL numbers the events once they are published, a moment after the commit.
        eventually("the completion is published", || events(&store).len() == 3);
        let counted = |status: &str| read(&store, |c| count_children(c, Kind::SimulationJob, "j1", &[status]));
        assert_eq!((counted("PROCESSING"), counted("COMPLETED")), (0, 1), "{:?}: counts follow", store.dialect());
        seen.push((store.dialect(), rows(&store)));
    }
    let (sqlite, postgres) = (&seen[0].1, &seen[1].1);
    assert!(sqlite.iter().any(|r| r.starts_with("simulation_job s1 COMPLETED j1 free")), "{sqlite:#?}");
    assert!(sqlite.iter().any(|r| r.starts_with("call c1 - j1 free 2026-01-01T00:00:01Z")), "{sqlite:#?}");
    assert!(sqlite.iter().any(|r| r == "w1 PENDING 0"), "one delivery to the webhook: {sqlite:#?}");
    assert!(sqlite.iter().any(|r| r.contains("SimulationJobCompleted s1")), "{sqlite:#?}");
    assert!(sqlite.iter().any(|r| r.contains(r#"part: "{\"passed\":1}""#)), "{sqlite:#?}");
    assert_eq!(sqlite, postgres, "the same rows on SQLite and PostgreSQL");
}

#[test]
fn a_batch_writes_nothing_under_a_lease_another_holds_or_over_a_status_that_moved() {
    for (_dir, store) in engines() {
        set_up(&store);
        let before = rows(&store);
        let with = |guard: Guard| store.apply_blocking(&an_end_under(guard), true);
        let lost = with(guard("replica-b", "PROCESSING", true));
        assert!(matches!(lost, Err(StoreError::LeaseLost { .. })), "{:?}: {lost:?}", store.dialect());
        let moved = with(guard("replica-a", "QUEUED", true));
        assert_eq!(moved.ok(), Some(Applied::Moved), "{:?}: the status moved", store.dialect());
        let mut closed = guard("replica-a", "PROCESSING", true);
        closed.parent_in = Some((Kind::RunPlanJob, "j1".into(), vec!["CANCELLING".into()]));
        assert_eq!(with(closed).ok(), Some(Applied::Moved), "{:?}: the job moved", store.dialect());
        assert_eq!(rows(&store), before, "{:?}: nothing written, the lease still held", store.dialect());
        let holder = read(&store, |c| leases::holder(c, Kind::SimulationJob, "s1")).map(|h| h.owner);
        assert_eq!(holder.as_deref(), Some("replica-a"));

        // A NUL the engines would keep apart is refused before anything is written.
        let mut poisoned = Batch::under(guard("replica-a", "PROCESSING", true));
        poisoned.transcript("c9", "a\0b".into());
        let refused = store.apply_blocking(&poisoned, true);
        assert!(matches!(refused, Err(StoreError::Unstorable)), "{:?}: {refused:?}", store.dialect());
        assert_eq!(rows(&store), before, "{:?}", store.dialect());
    }
}

/// The endpoint e1 naming agent a1, and flow f1.
fn cast_docs(agent_name: &str) -> [Doc; 3] {
    let doc = |kind: Kind, id: &str, body: serde_json::Value| {
        Doc::new(kind, id, &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"))
    };
    [
        doc(Kind::AgentEndpoint, "e1", serde_json::json!({ "id": "e1", "agentId": "a1" })),
        doc(Kind::Agent, "a1", serde_json::json!({ "id": "a1", "name": agent_name })),
        doc(Kind::CustomerFlow, "f1", serde_json::json!({ "id": "f1" })),
    ]
}

#[test]
fn a_batch_answers_the_revisions_of_the_documents_it_was_asked_to_see() {
    use crate::service::store::together::{self, Three};
    let three = Three {
        first: (Kind::AgentEndpoint, "e1".into()),
        named: (Kind::Agent, "$.agentId".into()),
        other: Some((Kind::CustomerFlow, "f1".into())),
    };
    for (_dir, store) in engines() {
        set_up(&store);
        write(&store, |tx| cast_docs("Ada").iter().try_for_each(|d| insert(tx, d)));
        let now = || read(&store, |c| together::revisions(c, &three));
        let before = now();
        assert!(before.iter().all(Option::is_some), "{:?}: {before:?}", store.dialect());
        // Nothing written (the status moved): nothing seen.
        let moved = store.apply_blocking_seeing(&an_end_under(guard("replica-a", "QUEUED", true)), false, Some(&three));
        assert_eq!(moved.ok(), Some((Applied::Moved, [None, None, None])), "{:?}", store.dialect());

        let answered = store.apply_blocking_seeing(&an_end(), false, Some(&three));
        let (applied, seen) = answered.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(applied, Applied::Written);
        assert_eq!(seen, before, "{:?}: the batch wrote none of them", store.dialect());
        let (bodies, revisions) = read(&store, |c| together::get_three_revised(c, &three));
        assert_eq!(revisions, before, "{:?}: read with their bodies, the same revisions", store.dialect());
        assert!(bodies.iter().all(Option::is_some));

        // The agent renamed: its revision moves, the others' do not.
        let [_, renamed, _] = cast_docs("Grace");
        write(&store, |tx| docs::rewrite(tx, &renamed));
        let after = now();
        assert_ne!(after[1], before[1], "{:?}: the agent was written", store.dialect());
        assert_eq!((&after[0], &after[2]), (&before[0], &before[2]), "{:?}", store.dialect());
        write(&store, |tx| soft_delete(tx, Kind::CustomerFlow, "f1", "2026-01-02T00:00:00Z"));
        assert_eq!(now()[2], None, "{:?}: a deleted flow has no revision", store.dialect());
    }
}
