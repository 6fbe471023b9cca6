//! Scheduled plans run by themselves: a slot a few seconds ahead starts one job on its own, and
//! however many replicas share the store, each due slot starts one job.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use switchboard::service::sim::scheduler::{Outcome, run_due};
use switchboard::service::sim::start::Caller;
use switchboard::service::store::test_server::TestServer;
use switchboard::service::store::{Location, Store};

const KEY: &str = "sk-scheduled-plans";

async fn call(base: &str, key: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let (status, value, _) = support::raw(base, method, path, Some(&format!("Bearer {key}")), body).await;
    (status, value)
}

/// A plan of the dental flow's happy path, once, run by itself at `at`.
fn scheduled_plan(at: jiff::Timestamp) -> Value {
    let (flow, endpoint) = support::dental();
    json!({
        "name": "Scheduled",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": flow["id"], "happyPath": true}],
        "agentEndpoints": [{"id": endpoint["id"]}],
        "metrics": [{"slug": "call_duration"}],
        "schedule": {"type": "once", "at": at.to_string()},
    })
}

/// The jobs of a plan.
async fn jobs(base: &str, key: &str, plan: &str) -> Vec<Value> {
    let path = format!("/v1/simulation/plan/jobs?simulationRunPlanId={plan}&limit=50");
    let (status, page) = call(base, key, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{page}");
    page["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_plan_scheduled_seconds_ahead_starts_one_job_by_itself() {
    let service = support::start(true).await;
    let (base, key) = (service.base_url(), service.running.api_key.expose().to_owned());
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_millis(2500);
    let (status, created) = call(&base, &key, Method::POST, "/v1/simulation/plan", Some(scheduled_plan(at))).await;
    assert_eq!(status, 201, "{created}");
    let plan = created["data"]["runPlan"]["id"].as_str().unwrap().to_owned();
    let next: jiff::Timestamp = created["data"]["runPlan"]["nextRunAt"].as_str().unwrap().parse().unwrap();
    assert_eq!(next.as_millisecond(), at.as_millisecond(), "to the millisecond");
    assert!(jobs(&base, &key, &plan).await.is_empty(), "nothing runs before its time");

    let deadline = Instant::now() + Duration::from_secs(30);
    let job = loop {
        if let Some(job) = jobs(&base, &key, &plan).await.pop() {
            break job;
        }
        assert!(Instant::now() < deadline, "the scheduled run did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(job["triggeredBy"], "SCHEDULED");
    let started: jiff::Timestamp = job["createdAt"].as_str().unwrap().parse().unwrap();
    assert!(started >= at, "started at {started}, before its slot {at}");
    let (_, read) = call(&base, &key, Method::GET, &format!("/v1/simulation/plan/{plan}"), None).await;
    assert!(read["data"]["nextRunAt"].is_null(), "a once schedule has no next run: {}", read["data"]);
    // Ticks go on; the slot is spent.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(jobs(&base, &key, &plan).await.len(), 1);
}

#[tokio::test]
async fn a_disabled_schedule_or_one_past_its_end_starts_nothing() {
    let service = support::start(true).await;
    let (base, key) = (service.base_url(), service.running.api_key.expose().to_owned());
    let mut off = scheduled_plan(jiff::Timestamp::now() + jiff::SignedDuration::from_secs(1));
    off["schedule"]["enabled"] = json!(false);
    let (_, created) = call(&base, &key, Method::POST, "/v1/simulation/plan", Some(off)).await;
    let plan = created["data"]["runPlan"]["id"].as_str().unwrap().to_owned();
    assert!(created["data"]["runPlan"]["nextRunAt"].is_null());
    let mut ended = scheduled_plan(jiff::Timestamp::now());
    ended["schedule"] = json!({"type": "interval", "everyMinutes": 1, "endDate": "2020-01-01"});
    let (_, created) = call(&base, &key, Method::POST, "/v1/simulation/plan", Some(ended)).await;
    assert!(created["data"]["runPlan"]["nextRunAt"].is_null(), "{created}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(jobs(&base, &key, &plan).await.is_empty());
}

/// Two replicas' transactions on one PostgreSQL database decide on the same due slot at once:
/// one starts its job, the other finds the slot taken.
#[tokio::test]
async fn two_stores_deciding_on_one_due_slot_start_one_job() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { database: Some(url.clone()), ..support::options(dir.path(), true) };
    let service = support::start_with(options, dir).await;
    let (base, key) = (service.base_url(), service.running.api_key.expose().to_owned());
    // Due in an hour, decided as if the hour had passed: the service's own scheduler keeps out.
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(1);
    let (_, created) = call(&base, &key, Method::POST, "/v1/simulation/plan", Some(scheduled_plan(at))).await;
    let plan = created["data"]["runPlan"]["id"].as_str().unwrap().to_owned();
    let now = at + jiff::SignedDuration::from_secs(1);

    // The synchronous PostgreSQL client may not be opened (nor dropped) on an async test's thread.
    let opening = url.clone();
    let replicas: Vec<Store> = tokio::task::spawn_blocking(move || {
        (0..2).map(|_| Store::open(&Location::Postgres(opening.clone())).unwrap()).collect()
    })
    .await
    .unwrap();
    let decide = |store: Store| {
        let plan = plan.clone();
        async move { store.write(move |tx| run_due(tx, &plan, now, Some(Caller::Offline))).await }
    };
    let (a, b) = tokio::join!(decide(replicas[0].clone()), decide(replicas[1].clone()));
    let outcomes = [a.unwrap(), b.unwrap()];
    let started: Vec<&Outcome> = outcomes.iter().filter(|o| matches!(o, Outcome::Started { .. })).collect();
    assert_eq!(started.len(), 1, "{outcomes:?}");
    assert!(outcomes.contains(&Outcome::Nothing), "{outcomes:?}");
    assert_eq!(jobs(&base, &key, &plan).await.len(), 1);
    let (_, read) = call(&base, &key, Method::GET, &format!("/v1/simulation/plan/{plan}"), None).await;
    assert!(read["data"]["nextRunAt"].is_null());
    tokio::task::spawn_blocking(move || drop(replicas)).await.unwrap();
}

/// Two `serve` replicas on one database, a slot a few seconds ahead: one job, whichever replica
/// started it.
#[test]
fn two_replicas_start_a_due_slot_once() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let keys = support::serve::SharedSecretsKey::fresh();
    let replica = |dir: &tempfile::TempDir| {
        let extra = ["--database", url.as_str(), "--sim-speed", "max", "--secrets-key-file", keys.path()];
        support::serve::spawn_serve(dir.path(), KEY, &extra)
    };
    let (_a, a_url) = replica(&dirs.0);
    let (_b, b_url) = replica(&dirs.1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(3);
    let (status, created) =
        runtime.block_on(call(&a_url, KEY, Method::POST, "/v1/simulation/plan", Some(scheduled_plan(at))));
    assert_eq!(status, 201, "{created}");
    let plan = created["data"]["runPlan"]["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    while runtime.block_on(jobs(&b_url, KEY, &plan)).is_empty() {
        assert!(Instant::now() < deadline, "the scheduled run did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Both replicas tick past the slot several times.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(runtime.block_on(jobs(&a_url, KEY, &plan)).len(), 1);
    let rows = std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let sql = format!("SELECT count(*) FROM schedule_runs WHERE plan_id = '{plan}'");
        client.query_one(sql.as_str(), &[]).unwrap().get::<_, i64>(0)
    })
    .join()
    .unwrap();
    assert_eq!(rows, 1);
}
