//! A run of more simulations than one chunk of inserts (`store::inserts::CHUNK`) is created
//! whole and intact, on both engines.

use super::*;
use crate::service::store::{Store, StoreResult, inserts, test_server};

fn engines() -> Vec<(tempfile::TempDir, Store)> {
    test_server::TestServer::both_engines()
}

/// Every test case of the seeded flows but the voicemail one (ten) on one endpoint,
/// `iterations` times each (as `tests/support/wide_plan.rs` plans it over HTTP).
fn wide_plan(tx: &Tx, iterations: i64) -> DomainResult<RunPlanInput> {
    let flows: Vec<CustomerFlow> = store::all(tx, Kind::CustomerFlow)?;
    let flows: Vec<&CustomerFlow> =
        flows.iter().filter(|f| f.flow_type != Some(FlowType::Voicemail) && f.happy_path.is_some()).collect();
    assert_eq!(flows.iter().map(|f| 1 + f.edge_cases.len()).sum::<usize>(), 10, "the seeded flows' test cases");
    let endpoints: Vec<AgentEndpoint> = store::all(tx, Kind::AgentEndpoint)?;
    let endpoint = endpoints
        .iter()
        .find(|e| e.outbound_dial_type != Some(OutboundDialType::HttpRequest))
        .unwrap_or_else(|| panic!("a seeded endpoint dialled by phone"));
    let values = |flow: &CustomerFlow| -> Variables {
        match flow.slug.as_deref() {
            Some("appointment-reschedule-basic") => {
                [("customerName", "Sam Rivera"), ("verificationDetail", "May 2, 1990")]
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect()
            }
            _ => Variables::new(),
        }
    };
    Ok(RunPlanInput {
        name: Some("Wider than a chunk".to_owned()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(iterations),
        flows: Some(
            flows
                .iter()
                .map(|f| FlowSelection {
                    id: Some(f.id),
                    happy_path: Some(true),
                    edge_cases: Some(EdgeCases::All),
                    variables: Some(values(f)),
                    ..Default::default()
                })
                .collect(),
        ),
        agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
        ..Default::default()
    })
}

#[test]
fn a_run_wider_than_a_chunk_is_created_whole_every_simulation_pending_in_its_place() {
    let iterations = (2 * inserts::CHUNK / 10 + 1) as u64;
    let simulations = 10 * iterations;
    for (_dir, store) in engines() {
        let dialect = store.dialect();
        crate::service::seed::seed_if_empty(&store, None).unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"));
        let started = store
            .write_blocking(|tx| {
                let plan = wide_plan(tx, iterations as i64)?;
                run(tx, RunRequest { plan: Some(plan), ..Default::default() }, Caller::Offline)
            })
            .unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"));
        assert_eq!(started.simulation_job_count, simulations, "{dialect:?}");
        let job_id = started.simulation_run_plan_job_id.to_string();
        let (job, pending, all, revision) = store
            .read_blocking(|c| -> StoreResult<_> {
                let job: RunPlanJob = store::require(c, Kind::RunPlanJob, &job_id)?;
                let pending = store::count_children(c, Kind::SimulationJob, &job_id, &["PENDING"])?;
                let all = store::count_children(c, Kind::SimulationJob, &job_id, &[])?;
                Ok((job, pending, all, store::child_revision(c, &job_id)?))
            })
            .unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"));
        assert_eq!(job.simulation_job_count, Some(simulations), "{dialect:?}");
        assert_eq!(job.status, Some(RunPlanJobStatus::Pending), "{dialect:?}");
        assert_eq!((pending, all), (simulations, simulations), "{dialect:?}: the kept counts");
        assert_eq!(revision, simulations as i64, "{dialect:?}: a revision a child written, as one by one");

        // Every simulation, in the order it was written: its place, its iteration, PENDING.
        let mut after = 0;
        let mut seen = 0u64;
        let mut ids = std::collections::HashSet::new();
        loop {
            let page = store
                .read_blocking(|c| store::children_after_raw(c, Kind::SimulationJob, &job_id, after, 500))
                .unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"));
            let Some((last, _)) = page.last() else { break };
            after = *last;
            for (_, body) in page {
                let simulation: SimulationJob = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e:?}"));
                assert_eq!(simulation.placement, Some(seen), "{dialect:?}");
                assert_eq!(simulation.iteration, Some(seen % iterations), "{dialect:?}");
                assert_eq!(simulation.status, Some(SimulationJobStatus::Pending), "{dialect:?}");
                assert_eq!(simulation.simulation_run_plan_job_id, Some(started.simulation_run_plan_job_id));
                assert!(ids.insert(simulation.simulation_job_id), "{dialect:?}: one id each");
                seen += 1;
            }
        }
        assert_eq!(seen, simulations, "{dialect:?}: every simulation written");
    }
}

#[test]
fn an_inline_run_of_a_saved_plans_name_is_one_of_its_runs_and_of_two_such_plans_neither() {
    for (_dir, store) in engines() {
        let dialect = store.dialect();
        crate::service::seed::seed_if_empty(&store, None).unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"));
        let plan_named = |tx: &Tx, name: &str| -> DomainResult<RunPlanInput> {
            Ok(RunPlanInput { name: Some(name.to_owned()), ..wide_plan(tx, 1)? })
        };
        let save = |name: &'static str| {
            store
                .write_blocking(move |tx| {
                    let request = RunRequest { plan: Some(plan_named(tx, name)?), ..Default::default() };
                    run(tx, RunRequest { save_as_plan: Some(true), ..request }, Caller::Offline)
                })
                .unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"))
                .simulation_run_plan_id
        };
        let inline = |name: &'static str| {
            store
                .write_blocking(move |tx| {
                    run(tx, RunRequest { plan: Some(plan_named(tx, name)?), ..Default::default() }, Caller::Offline)
                })
                .unwrap_or_else(|e| panic!("{dialect:?}: {e:?}"))
                .simulation_run_plan_id
        };
        let saved = save("Saved once (test)");
        assert!(saved.is_some());
        assert_eq!(inline("Saved once (test)"), saved, "{dialect:?}: listed under the saved plan");
        let (first, second) = (save("Saved twice (test)"), save("Saved twice (test)"));
        let own = inline("Saved twice (test)");
        assert!(own != first && own != second, "{dialect:?}: two saved plans of the name, neither is it");
        assert!(inline("Never saved (test)").is_some_and(|id| Some(id) != saved), "{dialect:?}: an id of its own");
    }
}

/// The documents' reads (index and sequential scans of `docs`, as PostgreSQL counts them in
/// the transaction) of starting an inline run of `plan`, and how many flows it selects.
fn reads_of_a_start(store: &Store, plan: impl Fn(&Tx) -> DomainResult<RunPlanInput>) -> (i64, i64) {
    let reads = |tx: &Tx| -> StoreResult<i64> {
        let sql = "SELECT CAST(coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS BIGINT) \
                   FROM pg_stat_xact_user_tables WHERE relname = 'docs'";
        Ok(tx.value::<i64>(sql, &[])?.unwrap_or(0))
    };
    store
        .write_blocking(|tx| -> DomainResult<(i64, i64)> {
            let plan = plan(tx)?;
            let selections = plan.flow_selections().len() as i64;
            let before = reads(tx)?;
            run(tx, RunRequest { plan: Some(plan), ..Default::default() }, Caller::Offline)?;
            Ok((reads(tx)? - before, selections))
        })
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_start_reads_each_selected_flow_once() {
    let store = test_server::TestServer::fresh_store();
    crate::service::seed::seed_if_empty(&store, None).unwrap_or_else(|e| panic!("{e:?}"));
    let (once, selections) = reads_of_a_start(&store, |tx| wide_plan(tx, 1));
    // The same selections twice: every read a selection costs, twice.
    let (twice, _) = reads_of_a_start(&store, |tx| {
        let mut plan = wide_plan(tx, 1)?;
        let selections = plan.flows.clone().unwrap_or_default();
        plan.flows.get_or_insert_with(Vec::new).extend(selections);
        Ok(plan)
    });
    eprintln!("a start's reads of docs: {once} with {selections} selections, {twice} with twice as many");
    assert_eq!(twice - once, selections, "one read a selection (its flow), not one a step of the start");
}
