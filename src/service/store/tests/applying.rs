//! PostgreSQL's `sb_apply` at this build's schema against migration 13's, the last before the
//! texts a batch writes were sent beside it, not inside it (issue 33): the same batches, as the
//! service sends them (and inlined for the one-argument `sb_apply`), leave the same rows in
//! both databases.

use ::postgres::Client;

use super::migrating::{database_at, kept};
use super::*;
use crate::service::store::batch::{Batch, Guard, Wire};
use crate::service::store::postgres::migrations::SCHEMA_VERSION;
use crate::service::store::values::StoredValue;

/// The last schema whose `sb_apply` read a batch's texts inside it.
const TEXTS_INSIDE: i64 = 13;

/// The batch as the one-argument `sb_apply` (migration 10) reads it: each text in its place.
fn inlined(wire: &Wire) -> String {
    let mut batch: serde_json::Value = serde_json::from_str(&wire.json).unwrap_or_else(|e| panic!("{e}"));
    let fields = [("inserts", "body"), ("updates", "body"), ("transcripts", "body"), ("values", "body")];
    let fields = fields.into_iter().chain([("events", "data"), ("ends", "part")]);
    for (list, field) in fields {
        for row in batch[list].as_array_mut().into_iter().flatten() {
            let place = row[field].as_u64().unwrap_or_else(|| panic!("{list}.{field} is not a place: {row}"));
            row[field] = wire.texts[place as usize - 1].into();
        }
    }
    batch.to_string()
}

/// Every row a batch writes, as text: the documents whole (leases too), transcripts, values,
/// events (not yet numbered: no publisher runs here), deliveries but their random ids, ends.
fn stored(client: &mut Client) -> Vec<String> {
    let queries = [
        "SELECT concat_ws(' ', seq, kind, id, body::TEXT, status, parent_id, created_at, deleted_at, lease_owner, \
         lease_until, lease_expiries) FROM docs ORDER BY seq",
        "SELECT call_id || ' ' || body FROM transcripts ORDER BY call_id",
        "SELECT concat_ws(' ', seq, job_id, definition_id, call_id, chat_id, capture_status, body, value, context, \
         participant_role, label) FROM metric_values ORDER BY seq",
        "SELECT concat_ws(' ', seq, id, type, resource_kind, resource_id, parent_id, created_at, body) FROM events \
         ORDER BY seq",
        "SELECT concat_ws(' ', seq, webhook_id, event_seq, status, attempts, next_attempt_at, created_at) \
         FROM webhook_deliveries ORDER BY seq",
        "SELECT concat_ws(' ', seq, job_id, part, collection_id, item_failed, item_at) FROM job_ends ORDER BY seq",
    ];
    let mut rows: Vec<String> = queries
        .iter()
        .flat_map(|sql| client.query(*sql, &[]).unwrap_or_else(|e| panic!("{sql}: {e:?}")))
        .map(|row| row.get::<_, String>(0))
        .collect();
    rows.extend(kept(client));
    rows
}

fn guard(id: &str, owner: &str, release: bool) -> Guard {
    Guard {
        kind: Kind::SimulationJob,
        id: id.into(),
        owner: owner.into(),
        status: Some("PROCESSING".into()),
        parent_in: Some((Kind::RunPlanJob, "j1".into(), vec!["RUNNING_SIMULATIONS".into()])),
        release,
    }
}

fn value(call: &str, definition_id: &str) -> StoredValue {
    StoredValue {
        job_id: "col1".into(),
        definition_id: definition_id.into(),
        call_id: Some(call.into()),
        chat_id: None,
        capture_status: "SUCCESS".into(),
        body: r#"{"value":0.5,"note":"ünï \" kept"}"#.into(),
        value: Some(0.5),
        context: Some("CALL".into()),
        participant_role: None,
        label: Some("yes".into()),
    }
}

/// A simulation's end as `end_batch` builds it: its call and transcript, values, itself
/// rewritten to `status` under `parent` (its job, or another, or none), its part.
fn an_end(under: Guard, status: &str, parent: Option<&str>) -> Batch {
    let call_id = format!("c-{}", under.id);
    let id = under.id.clone();
    let mut batch = Batch::under(under);
    let call = serde_json::json!({ "id": call_id, "note": "ünïcode ✓" });
    let call = Doc::new(Kind::Call, &call_id, &call, "2026-01-01T00:00:01Z").unwrap_or_else(|e| panic!("{e:?}"));
    batch.insert(call.parent(Some("j1"))).unwrap_or_else(|e| panic!("{e:?}"));
    batch.transcript(&call_id, r#"[{"role":"agent","text":"hi"}]"#.into());
    batch.values([value(&call_id, "m1"), value(&call_id, "m2")]);
    batch.update(simulation(&id, "j1", status).parent(parent), Some("PROCESSING")).unwrap_or_else(|e| panic!("{e:?}"));
    let item = ends::Item { collection_id: "col1".into(), failed: false, at: "\"2026-01-01T00:00:02Z\"".into() };
    batch.end("j1", ends::End { part: r#"{"passed":1}"#.into(), item: Some(item) });
    batch
}

/// The batches a run sends and the edges around them: ends giving their lease back (to the
/// same job, another, none), a lease given back with nothing rewritten, a rewrite keeping its
/// lease, the same document rewritten twice, a lease another holds, a status that moved.
fn batches() -> Vec<Batch> {
    let only_values = {
        let mut batch = Batch::under(guard("s5", "replica-a", true));
        batch.values([value("c-s5", "m1")]);
        batch
    };
    let twice = {
        let mut batch = an_end(guard("s6", "replica-a", true), "COMPLETED", Some("j1"));
        batch.update(simulation("s6", "j1", "FAILED"), Some("COMPLETED")).unwrap_or_else(|e| panic!("{e:?}"));
        batch
    };
    let orphan = {
        let mut batch = Batch::under(Guard { parent_in: None, ..guard("s7", "replica-a", true) });
        batch
            .update(simulation("s7", "j1", "COMPLETED").parent(None), Some("PROCESSING"))
            .unwrap_or_else(|e| panic!("{e:?}"));
        batch
    };
    vec![
        an_end(guard("s1", "replica-a", true), "COMPLETED", Some("j1")),
        an_end(guard("s2", "replica-a", true), "FAILED", Some("j2")),
        an_end(guard("s3", "replica-a", true), "COMPLETED", None),
        an_end(guard("s4", "replica-a", false), "COMPLETED", Some("j1")),
        only_values,
        twice,
        orphan,
        an_end(guard("s8", "replica-b", true), "COMPLETED", Some("j1")),
        an_end(guard("s4", "replica-a", true), "COMPLETED", Some("j1")),
    ]
}

/// A running job, another, a webhook hearing simulations complete, and simulations s1–s8
/// PROCESSING and leased to replica-a (s7 without a job).
const SET_UP: &str = "
    INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES
        ('run_plan_job', 'j1', '{\"id\":\"j1\"}', 'RUNNING_SIMULATIONS', NULL, 't0'),
        ('run_plan_job', 'j2', '{\"id\":\"j2\"}', 'RUNNING_SIMULATIONS', NULL, 't0'),
        ('webhook', 'w1', '{\"id\":\"w1\",\"events\":[\"SIMULATION_JOB_COMPLETED\"]}', NULL, NULL, 't0');
    INSERT INTO docs (kind, id, body, status, parent_id, created_at)
        SELECT 'simulation_job', 's' || g,
            CAST('{\"simulationJobId\":\"s' || g || '\",\"status\":\"PROCESSING\"}' AS JSON),
            'PROCESSING', CASE WHEN g = 7 THEN NULL ELSE 'j1' END, 't0' FROM generate_series(1, 8) AS g;
    UPDATE docs SET lease_owner = 'replica-a', lease_until = 99, lease_expiries = 1 WHERE kind = 'simulation_job';";

#[test]
fn an_end_applied_at_this_schema_writes_the_rows_migration_13_wrote() {
    let (_, mut before) = database_at(TEXTS_INSIDE);
    let (_, mut now) = database_at(SCHEMA_VERSION);
    for client in [&mut before, &mut now] {
        client.batch_execute(SET_UP).unwrap_or_else(|e| panic!("{e:?}"));
    }
    let mut answers = Vec::new();
    for (n, batch) in batches().iter().enumerate() {
        let wire = batch.to_wire(false);
        let inline = inlined(&wire);
        let answered: i64 =
            before.query_one("SELECT sb_apply($1)", &[&inline]).unwrap_or_else(|e| panic!("batch {n}: {e:?}")).get(0);
        let answer: i64 = now
            .query_one("SELECT sb_apply($1, $2)", &[&wire.json, &wire.texts])
            .unwrap_or_else(|e| panic!("batch {n}: {e:?}"))
            .get(0);
        assert_eq!(answer, answered, "batch {n} answers as before");
        assert_eq!(stored(&mut now), stored(&mut before), "after batch {n}");
        answers.push(answered);
    }
    // Written, but for the lease another holds (2) and s4 ended already (1, its status moved).
    assert_eq!(answers, [0, 0, 0, 0, 0, 0, 0, 2, 1], "the batches took the paths meant");
    let rows = stored(&mut now);
    for freed in ["s1", "s2", "s3", "s5", "s6", "s7"] {
        assert!(
            rows.iter().any(|r| r.contains(&format!(" simulation_job {freed} {{")) && !r.contains("replica-a")),
            "{freed}'s lease given back: {rows:#?}"
        );
    }
    assert!(rows.iter().any(|r| r.contains(" simulation_job s4 {") && r.contains("replica-a")), "{rows:#?}");
    assert!(rows.iter().any(|r| r.starts_with("j1@")), "j1's revisions kept: {rows:#?}");
}
