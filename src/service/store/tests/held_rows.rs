//! Writes to a row the transaction has read for writing, and documents read together
//! (`store::held`, `store::together`): the same rows, counts and events as the general path,
//! on both engines.

use super::*;

fn events_of(store: &Store, id: &str) -> Vec<crate::api::model::EventType> {
    let all = read(store, |c| outbox::events_between(c, 0, i64::MAX, &outbox::EventFilter::default(), 100));
    all.into_iter().filter(|e| e.resource_id == id).map(|e| e.event_type).collect()
}

#[test]
fn a_held_rewrite_keeps_the_counts_and_announces_a_change_of_status_once() {
    use crate::api::model::EventType;
    for (_dir, store) in engines() {
        write(&store, |tx| insert(tx, &simulation("s1", "j1", "QUEUED")));
        let before = write(&store, |tx| held::read(tx, Kind::SimulationJob, "s1")).map(|h| h.status);
        assert_eq!(before, Some(Some("QUEUED".to_owned())));
        write(&store, |tx| held::update(tx, &simulation("s1", "j1", "PROCESSING"), Some("QUEUED")));
        // A rewrite in the same status announces nothing.
        write(&store, |tx| held::update(tx, &simulation("s1", "j1", "PROCESSING"), Some("PROCESSING")));
        let counted = |status: &str| read(&store, |c| count_children(c, Kind::SimulationJob, "j1", &[status]));
        assert_eq!((counted("QUEUED"), counted("PROCESSING")), (0, 1), "{:?}", store.dialect());
        // PostgreSQL numbers an event once it is published, a moment after its commit.
        eventually("the start is published", || !events_of(&store, "s1").is_empty());
        assert_eq!(events_of(&store, "s1"), [EventType::SimulationJobStarted], "{:?}", store.dialect());
        let stored = read(&store, |c| status(c, Kind::SimulationJob, "s1"));
        assert_eq!(stored.as_deref(), Some("PROCESSING"));

        // A missing document is named, and its event is not appended.
        let missing =
            store.write_blocking(|tx| held::update(tx, &simulation("gone", "j1", "COMPLETED"), Some("QUEUED")));
        assert!(matches!(missing, Err(StoreError::NotFound { .. })), "{:?}", store.dialect());
        assert!(events_of(&store, "gone").is_empty(), "{:?}", store.dialect());
    }
}

#[test]
fn only_the_holder_gives_a_lease_back_and_learns_the_status() {
    for (_dir, store) in engines() {
        write(&store, |tx| insert(tx, &simulation("s1", "j1", "PROCESSING")));
        write(&store, |tx| leases::take(tx, Kind::SimulationJob, "s1", "replica-a", i64::MAX));
        let held = write(&store, |tx| held::read(tx, Kind::SimulationJob, "s1"));
        assert_eq!(held.and_then(|h| h.lease_owner).as_deref(), Some("replica-a"));

        let other = write(&store, |tx| held::give_back(tx, Kind::SimulationJob, "s1", "replica-b"));
        assert_eq!(other, None, "{:?}: not its lease", store.dialect());
        let holder = read(&store, |c| leases::holder(c, Kind::SimulationJob, "s1"));
        assert_eq!(holder.map(|h| h.owner).as_deref(), Some("replica-a"));

        let mine = write(&store, |tx| held::give_back(tx, Kind::SimulationJob, "s1", "replica-a"));
        assert_eq!(mine, Some(Some("PROCESSING".to_owned())), "{:?}", store.dialect());
        assert_eq!(read(&store, |c| leases::holder(c, Kind::SimulationJob, "s1")), None);
        let again = write(&store, |tx| held::give_back(tx, Kind::SimulationJob, "s1", "replica-a"));
        assert_eq!(again, None, "{:?}: given back once", store.dialect());
    }
}

#[test]
fn three_documents_that_name_each_other_are_read_in_one_statement() {
    let doc = |kind: Kind, id: &str, body: serde_json::Value| {
        Doc::new(kind, id, &body, "2026-01-01T00:00:00Z").unwrap_or_else(|e| panic!("{e:?}"))
    };
    for (_dir, store) in engines() {
        write(&store, |tx| {
            insert(tx, &doc(Kind::AgentEndpoint, "e1", serde_json::json!({ "id": "e1", "agentId": "a1" })))?;
            insert(tx, &doc(Kind::AgentEndpoint, "e2", serde_json::json!({ "id": "e2" })))?;
            insert(tx, &doc(Kind::Agent, "a1", serde_json::json!({ "id": "a1", "name": "Ada" })))?;
            insert(tx, &doc(Kind::CustomerFlow, "f1", serde_json::json!({ "id": "f1" })))
        });
        let three = |first: &str, other: Option<&str>| {
            read(&store, |c| {
                together::get_three_raw(
                    c,
                    (Kind::AgentEndpoint, first),
                    (Kind::Agent, "$.agentId"),
                    other.map(|f| (Kind::CustomerFlow, f)),
                )
            })
            .map(|body| body.map(|b| serde_json::from_str::<serde_json::Value>(&b).unwrap_or_default()["id"].clone()))
        };
        let ids = |ids: [Option<&str>; 3]| ids.map(|id| id.map(serde_json::Value::from));
        assert_eq!(three("e1", Some("f1")), ids([Some("e1"), Some("a1"), Some("f1")]), "{:?}", store.dialect());
        assert_eq!(three("e2", Some("f1")), ids([Some("e2"), None, Some("f1")]), "no agent named");
        assert_eq!(three("e1", None), ids([Some("e1"), Some("a1"), None]), "no flow asked for");
        write(&store, |tx| soft_delete(tx, Kind::Agent, "a1", "2026-01-02T00:00:00Z"));
        assert_eq!(
            three("e1", Some("nope")),
            ids([Some("e1"), None, None]),
            "{:?}: deleted or missing",
            store.dialect()
        );
        assert_eq!(three("nope", Some("f1")), ids([None, None, Some("f1")]));
    }
}
