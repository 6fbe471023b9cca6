//! What a watcher reads of a run plan job: the job without its simulations but with their
//! counts (`?simulationJobs=none`), and the simulations a page at a time
//! (`GET …/job/{id}/simulation-jobs`), filtered by status and outcome.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::HashSet;
use std::time::Duration;

use reqwest::Method;
use support::{eventually, raw, start};
use switchboard::api::ListQuery;
use switchboard::api::model::{RunPlanJob, RunRequest};

const SEEDED_PLAN: &str = "def19c4f-3b29-5880-ab66-2113c56938c5";

async fn ended_run(service: &support::Service) -> RunPlanJob {
    let run = RunRequest { plan_id: Some(SEEDED_PLAN.parse().unwrap()), ..Default::default() };
    let id = service.client.run(&run).await.unwrap().simulation_run_plan_job_id;
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(|s| s.is_terminal()).then_some(job)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_summary_read_counts_the_simulations_it_leaves_out() {
    let service = start(true).await;
    let job = ended_run(&service).await;
    let id = job.simulation_run_plan_job_id;
    assert!(job.simulation_jobs.len() > 3, "a run with several simulations");
    let counts = job.counts.clone().expect("a job's read carries counts");
    assert_eq!(counts.total as usize, job.simulation_jobs.len());

    let key = format!("Bearer {}", service.running.api_key.expose());
    let (status, body, _) = raw(
        &service.base_url(),
        Method::GET,
        &format!("/v1/simulation/plan/job/{id}?simulationJobs=none"),
        Some(&key),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["simulationJobs"], serde_json::json!([]));
    let summary: RunPlanJob = serde_json::from_value(body["data"].clone()).unwrap();
    assert_eq!(summary.counts.as_ref(), Some(&counts));
    assert_eq!(summary.verdict, job.verdict, "the verdict is there without the simulations");
    assert_eq!(summary.simulation_job_count, Some(counts.total));
    // The counts add up to what the simulations say.
    for (status, n) in &counts.by_status {
        let seen =
            job.simulation_jobs.iter().filter(|s| s.status.as_ref().map(|s| s.as_str()) == Some(status.as_str()));
        assert_eq!(seen.count() as u64, *n, "{status}");
    }
    for (outcome, n) in &counts.by_outcome {
        let seen =
            job.simulation_jobs.iter().filter(|s| s.outcome.as_ref().map(|o| o.as_str()) == Some(outcome.as_str()));
        assert_eq!(seen.count() as u64, *n, "{outcome}");
    }

    let with_outcome = job.simulation_jobs.iter().filter(|s| s.outcome.is_some()).count() as u64;
    assert_eq!(counts.by_outcome.values().sum::<u64>(), with_outcome, "every outcome is counted");

    // What it does not know it refuses, naming the parameter.
    for query in ["simulationJobs=some", "simulationjobs=none", "verbose=1"] {
        let (status, body, _) =
            raw(&service.base_url(), Method::GET, &format!("/v1/simulation/plan/job/{id}?{query}"), Some(&key), None)
                .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body["param"].as_str().is_some_and(|p| !p.is_empty()), "{query}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_simulations_page_by_cursor_without_duplicates_and_filter() {
    let service = start(true).await;
    let job = ended_run(&service).await;
    let id = job.simulation_run_plan_job_id;
    let mut seen = HashSet::new();
    let mut query = ListQuery::default().limit(2);
    loop {
        let page = service.client.list_job_simulations(id, &query).await.unwrap();
        assert_eq!(page.pagination.total, job.simulation_jobs.len() as u64);
        for sim in &page.data {
            assert!(seen.insert(sim.simulation_job_id), "no simulation twice");
            assert_eq!(sim.simulation_run_plan_job_id, Some(id));
        }
        match page.pagination.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
    }
    let all: HashSet<_> = job.simulation_jobs.iter().map(|s| s.simulation_job_id).collect();
    assert_eq!(seen, all, "the walk covers exactly the job's simulations");

    // `sort=createdAt` walks the other way: oldest first, by cursor too.
    let walk = |sort: &'static str| {
        let client = service.client.clone();
        async move {
            let (mut order, mut query) = (Vec::new(), ListQuery::default().limit(3).filter("sort", sort));
            loop {
                let page = client.list_job_simulations(id, &query).await.unwrap();
                order.extend(page.data.iter().map(|s| s.simulation_job_id));
                match page.pagination.next_cursor {
                    Some(cursor) => query.cursor = Some(cursor),
                    None => break order,
                }
            }
        }
    };
    let (newest, mut oldest) = (walk("-createdAt").await, walk("createdAt").await);
    assert_eq!(newest.len(), all.len());
    oldest.reverse();
    assert_eq!(newest, oldest, "oldest first is newest first reversed");
    let bad =
        service.client.list_job_simulations(id, &ListQuery::default().filter("sort", "status")).await.unwrap_err();
    assert_eq!((bad.status(), bad.param()), (Some(400), Some("sort")));

    let counts = job.counts.clone().unwrap();
    for (outcome, n) in &counts.by_outcome {
        let page = service
            .client
            .list_job_simulations(id, &ListQuery::default().limit(50).filter("outcome", outcome))
            .await
            .unwrap();
        assert_eq!(page.pagination.total, *n, "{outcome}");
        assert!(page.data.iter().all(|s| s.outcome.as_ref().map(|o| o.as_str()) == Some(outcome.as_str())));
    }
    let completed =
        service.client.list_job_simulations(id, &ListQuery::default().filter("status", "COMPLETED")).await.unwrap();
    assert_eq!(completed.pagination.total, counts.by_status.get("COMPLETED").copied().unwrap_or(0));

    let bad =
        service.client.list_job_simulations(id, &ListQuery::default().filter("outcome", "GREAT")).await.unwrap_err();
    assert_eq!((bad.status(), bad.param()), (Some(400), Some("outcome")));
    let missing = service.client.list_job_simulations(uuid::Uuid::new_v4(), &ListQuery::default()).await.unwrap_err();
    assert_eq!(missing.status(), Some(404));
}

/// A job's whole read is streamed a page at a time: every simulation once, in the order they
/// were made, across many pages; its tag moves when a simulation changes, and an unchanged job
/// answers 304.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_jobs_whole_read_is_streamed_in_order_and_tagged_by_its_simulations() {
    let dir = tempfile::tempdir().unwrap();
    // Calls this slow never end during the test: the job holds still but for what it is told.
    let options = switchboard::service::Options {
        sim_speed: switchboard::service::SimSpeed::Factor(0.001),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let flows = support::seeded("customer_flows", |f| f["type"] != "VOICEMAIL" && f["happyPath"].is_object());
    let test_cases: usize = flows.iter().map(|f| 1 + f["edgeCases"].as_array().map_or(0, Vec::len)).sum();
    let iterations = 1_201 / test_cases + 1;
    let endpoint = support::seed("agent_endpoints")[0]["id"].clone();
    let plan = serde_json::json!({
        "name": "streamed",
        "direction": "INBOUND",
        "iterationCount": iterations,
        "maxConcurrentJobs": 1,
        "maxSimulationDurationSeconds": 600,
        "metrics": [{"slug": "call_duration"}],
        "flows": flows.iter().map(|f| serde_json::json!({"id": f["id"], "happyPath": true, "edgeCases": "ALL"})).collect::<Vec<_>>(),
        "agentEndpoints": [{"id": endpoint}],
    });
    let key = format!("Bearer {}", service.running.api_key.expose());
    // The basic reschedule flow's lines need a name and a detail no persona gives.
    let variables = serde_json::json!({"customerName": "Sam Rivera", "verificationDetail": "May 2, 1990"});
    let body = serde_json::to_vec(&serde_json::json!({ "plan": plan, "variables": variables })).unwrap();
    let (status, started, _) =
        raw(&service.base_url(), Method::POST, "/v1/simulation/run", Some(&key), Some(body)).await;
    assert_eq!(status, 201, "{started}");
    let expected = iterations * test_cases;
    assert!(expected > 1_200, "more than two pages of 500");
    let id = started["data"]["simulationRunPlanJobId"].as_str().unwrap().to_owned();

    let http = reqwest::Client::new();
    let url = format!("{}/v1/simulation/plan/job/{id}", service.base_url());
    let read = |etag: Option<String>| {
        let mut request = http.get(&url).header("authorization", &key);
        if let Some(etag) = etag {
            request = request.header("if-none-match", etag);
        }
        request.send()
    };
    // The one simulation allowed to start is then in its (endless) call: the job holds still.
    let path = format!("/v1/simulation/plan/job/{id}/simulation-jobs?status=PROCESSING");
    eventually(Duration::from_secs(30), || async {
        let (_, page, _) = raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
        (page["data"][0]["processingStatus"] == "SIMULATING").then_some(())
    })
    .await;
    let first = read(None).await.unwrap();
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let job: serde_json::Value = first.json().await.unwrap();
    let simulations = job["data"]["simulationJobs"].as_array().unwrap();
    assert_eq!(simulations.len(), expected);
    assert_eq!(job["data"]["simulationJobCount"], expected);
    assert_eq!(job["data"]["counts"]["total"], expected);
    let ids: HashSet<&str> = simulations.iter().map(|s| s["simulationJobId"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), expected, "no simulation twice");
    let placements: Vec<u64> = simulations.iter().map(|s| s["placement"].as_u64().unwrap()).collect();
    assert_eq!(placements, (0..expected as u64).collect::<Vec<_>>(), "in the order they were made");
    // Iterations are numbered within each test case (its iterations are placed together), so a
    // second test case's only iteration is never "#2".
    let numbered: Vec<u64> = simulations.iter().map(|s| s["iteration"].as_u64().unwrap()).collect();
    let per_case: Vec<u64> = (0..expected as u64).map(|i| i % iterations as u64).collect();
    assert_eq!(numbered, per_case, "each test case's iterations from 0");
    assert!(job["data"].get("plan").is_none() && job["data"].get("tally").is_none(), "no internal member");

    // Unchanged: 304, no body. A lease renewal of the simulation in its call rewrites its row,
    // which moves the job's children's revision and so its tag, while nothing the read shows
    // changes (docs/interface-decisions.md, "a job's tag and lease renewals"): a 200 here must
    // carry the same body under a new tag, and the next conditional read with that tag is
    // tried, until one answers 304.
    let mut tag = etag.clone();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let again = read(Some(tag.clone())).await.unwrap();
        if again.status() == 304 {
            assert!(again.bytes().await.unwrap().is_empty());
            break;
        }
        assert_eq!(again.status(), 200);
        let moved = again.headers()["etag"].to_str().unwrap().to_owned();
        assert_ne!(moved, tag, "a 200 to a conditional read carries another tag");
        let body: serde_json::Value = again.json().await.unwrap();
        assert_eq!(body, job, "the tag moved while the job read the same (a renewal)");
        assert!(std::time::Instant::now() < deadline, "no 304 within 60 s: the tag keeps moving");
        tag = moved;
    }
    let (_, _, summary_headers) = raw(
        &service.base_url(),
        Method::GET,
        &format!("/v1/simulation/plan/job/{id}?simulationJobs=none"),
        Some(&key),
        None,
    )
    .await;
    assert_ne!(summary_headers["etag"].to_str().unwrap(), etag);

    // The simulations change (the job is cancelled): the old tag no longer matches.
    service.client.cancel_run_plan_job(id.parse().unwrap()).await.unwrap();
    let changed = read(Some(etag.clone())).await.unwrap();
    assert_eq!(changed.status(), 200);
    let new_tag = changed.headers()["etag"].to_str().unwrap().to_owned();
    assert_ne!(new_tag, etag);
    let job: serde_json::Value = changed.json().await.unwrap();
    let simulations = job["data"]["simulationJobs"].as_array().unwrap();
    assert_eq!(simulations.len(), expected);
    // Every simulation but the one mid-call (it finishes first) is cancelled, in the body too.
    let cancelled = simulations.iter().filter(|s| s["status"] == "CANCELLED").count();
    assert_eq!(cancelled, expected - 1, "the change is in the body");
}
