//! Two `switchboard serve` replicas on one PostgreSQL database share a run: both pick its
//! simulations; one is SIGKILLed mid-run; the other takes over what it held once its leases run
//! out, and the run completes with every simulation run to its end once, nothing acknowledged
//! lost. Runs on the test PostgreSQL server whichever store the rest of the suite uses.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;
#[path = "support/wide_plan.rs"]
mod wide_plan;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use support::serve::{count, query};
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client};
use switchboard::service::store::test_server::TestServer;

const KEY: &str = "sk-two-replicas";
const SIMULATIONS: u64 = 2_000;

/// The plan of a run of `SIMULATIONS`: every test case of the seeded flows but the voicemail
/// one, on one endpoint, a metric per simulation.
async fn plan(client: &Client) -> RunPlanInput {
    wide_plan::wide_plan(client, "Two replicas", SIMULATIONS, 16, &["call_duration"]).await
}

fn issue(n: usize) -> IssueInput {
    IssueInput {
        title: Some(format!("acknowledged {n}")),
        summary: Some("written while a replica died".into()),
        ..Default::default()
    }
}

#[test]
fn two_replicas_share_a_run_and_one_dying_mid_run_loses_nothing() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let keys = support::serve::SharedSecretsKey::fresh();
    let replica = |dir: &tempfile::TempDir| {
        support::serve::spawn_serve(
            dir.path(),
            KEY,
            // One thread each, as replicas sharing one machine are run (docs/deployment.md).
            &[
                "--database",
                &url,
                "--sim-speed",
                "max",
                "--lease-seconds",
                "3",
                "--secrets-key-file",
                keys.path(),
                "--threads",
                "1",
            ],
        )
    };
    let (mut a, a_url) = replica(&dirs.0);
    let (mut b, b_url) = replica(&dirs.1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client_a = Client::new(&a_url, ApiKey::new(KEY), support::no_retries()).unwrap();
    let client_b = Client::new(&b_url, ApiKey::new(KEY), support::no_retries()).unwrap();

    // The demo world was seeded once, whichever replica came first.
    let seeded = support::seed("personas").as_array().unwrap().len() as i64;
    assert_eq!(count(&url, "SELECT count(*) FROM docs WHERE kind = 'persona'"), seeded);

    let plan = runtime.block_on(plan(&client_a));
    let started = runtime.block_on(client_b.run(&RunRequest { plan: Some(plan), ..Default::default() })).unwrap();
    let job = started.simulation_run_plan_job_id.to_string();
    let (a_pid, b_pid) = (a.id().to_string(), b.id().to_string());

    // Both replicas hold simulations of the run; writes are acknowledged by both meanwhile.
    let mut acknowledged = Vec::new();
    let mut holders = BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let held = query(
            &url,
            &format!(
                "SELECT DISTINCT lease_owner FROM docs WHERE kind = 'simulation_job' AND parent_id = '{job}' \
                 AND lease_owner IS NOT NULL"
            ),
        );
        for row in held {
            let owner: String = row.get(0);
            let pid = owner.split(':').nth(1).unwrap_or_default().to_owned();
            assert!(pid == a_pid || pid == b_pid, "a lease held by {owner}, neither replica");
            holders.insert(pid);
        }
        let client = if acknowledged.len() % 2 == 0 { &client_a } else { &client_b };
        let created = runtime.block_on(client.create_issue(&issue(acknowledged.len()))).unwrap();
        acknowledged.push(created.id);
        let ended = count(
            &url,
            &format!(
                "SELECT count(*) FROM docs WHERE kind = 'simulation_job' AND parent_id = '{job}' AND status = 'COMPLETED'"
            ),
        );
        if holders.len() == 2 && ended >= SIMULATIONS as i64 / 5 {
            break;
        }
        assert!(Instant::now() < deadline, "both replicas did not take part: {holders:?}, {ended} ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    // B is frozen (SIGSTOP) at a moment it holds simulations, then SIGKILLed: no shutdown, no
    // lease given back. Between two picks it may hold none for a moment; it is let go on then.
    let holding = || {
        count(
            &url,
            &format!("SELECT count(*) FROM docs WHERE kind = 'simulation_job' AND lease_owner LIKE '%:{b_pid}:%'"),
        )
    };
    let signal = |name: &str| {
        let sent = std::process::Command::new("kill").args([name, &b_pid]).status().unwrap();
        assert!(sent.success(), "kill {name} {b_pid}");
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        signal("-STOP");
        if holding() > 0 {
            break;
        }
        signal("-CONT");
        assert!(Instant::now() < deadline, "the replica never held a simulation when stopped");
        std::thread::sleep(Duration::from_millis(20));
    }
    b.kill().unwrap();
    b.wait().unwrap();
    let held_by_b = holding();
    assert!(held_by_b > 0, "what it held at its death is still leased to it, to be handed back");

    // Alone now, the survivor fills the whole limit of 16: its share grows back once B drops
    // out of the live replicas (a second or two), and B's places free once its leases are
    // handed back.
    let a_running = || {
        count(
            &url,
            &format!(
                "SELECT count(*) FROM docs WHERE kind = 'simulation_job' AND parent_id = '{job}' \
                 AND lease_owner LIKE '%:{a_pid}:%' AND status IN ('QUEUED', 'PROCESSING')"
            ),
        )
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut most = 0;
    while most < 16 {
        most = most.max(a_running());
        assert!(Instant::now() < deadline, "the survivor ran at most {most} of 16 at once");
        std::thread::sleep(Duration::from_millis(10));
    }

    // The survivor hands back what the dead one held once its leases run out, and finishes.
    let job_id = started.simulation_run_plan_job_id;
    let deadline = Instant::now() + Duration::from_secs(300);
    let summary = loop {
        let summary = runtime.block_on(client_a.get_run_plan_job_if_changed(job_id, false, None)).unwrap();
        let switchboard::api::Conditional::Changed { value, .. } = summary else { unreachable!("no tag was sent") };
        if value.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
            break value;
        }
        assert!(Instant::now() < deadline, "the run did not end after a replica died: {:?}", value.counts);
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(summary.status, Some(RunPlanJobStatus::Completed), "{:?}", summary.counts);
    let counts = summary.counts.unwrap();
    assert_eq!((counts.total, counts.by_status.get("COMPLETED").copied()), (SIMULATIONS, Some(SIMULATIONS)));

    // Every simulation ran to its end once: one live call each, one value per metric per call,
    // and none still leased.
    let calls = count(
        &url,
        &format!("SELECT count(*) FROM docs WHERE kind = 'call' AND parent_id = '{job}' AND deleted_at IS NULL"),
    );
    let simulated = count(
        &url,
        &format!(
            "SELECT count(DISTINCT body ->> 'simulationJobId') FROM docs WHERE kind = 'call' AND parent_id = '{job}' \
             AND deleted_at IS NULL"
        ),
    );
    assert_eq!((calls, simulated), (SIMULATIONS as i64, SIMULATIONS as i64));
    let collection = query(
        &url,
        &format!("SELECT body ->> 'collectionJobId' FROM docs WHERE kind = 'run_plan_job' AND id = '{job}'"),
    )[0]
    .get::<_, String>(0);
    // Values are written with a simulation's end, on the call it made: every call scored, and
    // none scored that is not one of them (an end written twice would have left its own).
    let scored =
        count(&url, &format!("SELECT count(DISTINCT call_id) FROM metric_values WHERE job_id = '{collection}'"));
    let astray = count(
        &url,
        &format!(
            "SELECT count(*) FROM metric_values WHERE job_id = '{collection}' AND call_id NOT IN \
             (SELECT id FROM docs WHERE kind = 'call' AND parent_id = '{job}' AND deleted_at IS NULL)"
        ),
    );
    assert_eq!((scored, astray), (SIMULATIONS as i64, 0), "each simulation's values, once");
    // Each end was folded into the job once, the dead replica's too: its tally and its
    // collection job count every simulation, and no end waits to be folded.
    let folded = query(
        &url,
        &format!(
            "SELECT CAST(j.body #>> '{{tally,ended}}' AS BIGINT), CAST(c.body ->> 'completedItems' AS BIGINT) \
             FROM docs j, docs c WHERE j.kind = 'run_plan_job' AND j.id = '{job}' \
             AND c.kind = 'collection_job' AND c.id = '{collection}'"
        ),
    );
    let (ended, items): (i64, i64) = (folded[0].get(0), folded[0].get(1));
    assert_eq!((ended, items), (SIMULATIONS as i64, SIMULATIONS as i64), "every end folded once");
    assert_eq!(count(&url, "SELECT count(*) FROM job_ends"), 0, "no end left unfolded");
    assert_eq!(
        count(&url, &format!("SELECT count(*) FROM docs WHERE parent_id = '{job}' AND lease_owner IS NOT NULL")),
        0
    );
    let taken_over =
        count(&url, &format!("SELECT count(*) FROM docs WHERE parent_id = '{job}' AND lease_expiries > 0"));
    assert!(
        taken_over >= held_by_b,
        "the {held_by_b} simulations the dead replica held were handed back: {taken_over}"
    );

    // Nothing acknowledged was lost, whichever replica acknowledged it.
    for id in &acknowledged {
        runtime
            .block_on(client_a.get_issue(*id))
            .unwrap_or_else(|e| panic!("issue {id} was acknowledged and lost: {e}"));
    }
    a.kill().unwrap();
    a.wait().unwrap();
}

/// The simulations picked or running, each with its job and the pid of the replica holding it.
fn running(url: &str) -> Vec<(String, String)> {
    query(
        url,
        "SELECT parent_id, lease_owner FROM docs WHERE kind = 'simulation_job' AND status IN ('QUEUED', 'PROCESSING')",
    )
    .iter()
    .map(|row| {
        let owner: Option<String> = row.get(1);
        (row.get(0), owner.unwrap_or_default().split(':').nth(1).unwrap_or_default().to_owned())
    })
    .collect()
}

/// A plan of `iterations` of the first seeded scripted flow's happy path.
async fn small_plan(client: &Client, iterations: i64, mode: ExecutionMode, max: i64) -> RunPlanInput {
    let mut plan = plan(client).await;
    plan.flows.as_mut().unwrap().truncate(1);
    plan.flows.as_mut().unwrap()[0].edge_cases = None;
    RunPlanInput {
        iteration_count: Some(iterations),
        execution_mode: Some(mode),
        max_concurrent_jobs: Some(max),
        ..plan
    }
}

#[test]
fn concurrency_and_execution_modes_hold_across_replicas() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let keys = support::serve::SharedSecretsKey::fresh();
    // Simulated time at 60 times wall time: a call takes about a second.
    let replica = |dir: &tempfile::TempDir| {
        let args = ["--database", &url, "--sim-speed", "60", "--lease-seconds", "5", "--secrets-key-file", keys.path()];
        support::serve::spawn_serve(dir.path(), KEY, &args)
    };
    let (mut a, a_url) = replica(&dirs.0);
    let (mut b, b_url) = replica(&dirs.1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client_a = Client::new(&a_url, ApiKey::new(KEY), support::no_retries()).unwrap();
    let client_b = Client::new(&b_url, ApiKey::new(KEY), support::no_retries()).unwrap();
    // The seeded history runs first; the limits are watched on the runs started here alone.
    let deadline = Instant::now() + Duration::from_secs(120);
    while count(
        &url,
        "SELECT count(*) FROM docs WHERE kind = 'run_plan_job' AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')",
    ) > 0
    {
        assert!(Instant::now() < deadline, "the seeded history did not end");
        std::thread::sleep(Duration::from_millis(100));
    }
    let pids = [a.id().to_string(), b.id().to_string()];

    // maxConcurrentJobs 2, whichever replica picks: never more than two at once.
    let parallel = runtime.block_on(small_plan(&client_a, 8, ExecutionMode::Parallel, 2));
    let job = runtime.block_on(client_a.run(&RunRequest { plan: Some(parallel), ..Default::default() })).unwrap();
    let job = job.simulation_run_plan_job_id.to_string();
    let mut holders = BTreeSet::new();
    let mut most = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while count(
        &url,
        &format!("SELECT count(*) FROM docs WHERE kind = 'run_plan_job' AND id = '{job}' AND status = 'COMPLETED'"),
    ) == 0
    {
        let now = running(&url);
        most = most.max(now.len());
        holders.extend(now.into_iter().map(|(_, pid)| pid));
        assert!(most <= 2, "{most} simulations of a maxConcurrentJobs 2 run at once");
        assert!(Instant::now() < deadline, "the run did not end");
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(most, 2, "the run never used its two places");
    assert!(holders.iter().all(|pid| pids.contains(pid)) && holders.len() == 2, "both replicas took part: {holders:?}");

    // Two jobs of one SEQUENTIAL_SAME_RUN_PLAN plan, started on different replicas: one
    // simulation at a time between them. Beside them a SEQUENTIAL_PROJECT run, which runs alone.
    let sequential = runtime.block_on(small_plan(&client_a, 3, ExecutionMode::SequentialSameRunPlan, 4));
    let saved = runtime.block_on(client_a.create_run_plan(&sequential)).unwrap().run_plan;
    let alone = runtime.block_on(small_plan(&client_a, 2, ExecutionMode::SequentialProject, 4));
    let jobs = [
        runtime.block_on(client_a.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() })).unwrap(),
        runtime.block_on(client_b.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() })).unwrap(),
        runtime.block_on(client_b.run(&RunRequest { plan: Some(alone), ..Default::default() })).unwrap(),
    ]
    .map(|started| started.simulation_run_plan_job_id.to_string());
    let deadline = Instant::now() + Duration::from_secs(180);
    let ended = |job: &str| {
        count(
            &url,
            &format!("SELECT count(*) FROM docs WHERE kind = 'run_plan_job' AND id = '{job}' AND status = 'COMPLETED'"),
        ) == 1
    };
    let mut seen_alone = false;
    while !jobs.iter().all(|job| ended(job)) {
        let now = running(&url);
        let of_plan = now.iter().filter(|(job, _)| *job == jobs[0] || *job == jobs[1]).count();
        assert!(of_plan <= 1, "{of_plan} simulations of one SEQUENTIAL_SAME_RUN_PLAN plan at once: {now:?}");
        if now.iter().any(|(job, _)| *job == jobs[2]) {
            seen_alone = true;
            assert_eq!(now.len(), 1, "a SEQUENTIAL_PROJECT simulation runs alone: {now:?}");
        }
        assert!(Instant::now() < deadline, "the runs did not end");
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(seen_alone, "the SEQUENTIAL_PROJECT run was never seen running");
    a.kill().unwrap();
    b.kill().unwrap();
    let _ = (a.wait(), b.wait());
}

/// What a receiver was sent: each request's `webhook-id` and its event's id.
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

async fn receiver() -> (Received, String) {
    use axum::routing::post;
    let received = Received::default();
    let keep = received.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move |headers: axum::http::HeaderMap, body: String| {
            let keep = keep.clone();
            async move {
                let event: Event = serde_json::from_str(&body).unwrap();
                let id = headers["webhook-id"].to_str().unwrap().to_owned();
                keep.lock().unwrap().push((id, event.id));
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (received, url)
}

#[test]
fn every_replica_streams_every_event_and_a_webhook_gets_each_once() {
    let server = TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Both replicas open the webhook's signing secret: they share one key file.
    let keys = support::serve::SharedSecretsKey::fresh();
    let replica = |dir: &tempfile::TempDir| {
        let args = ["--database", &url, "--no-seed", "--webhook-retry-ms", "200", "--secrets-key-file", keys.path()];
        support::serve::spawn_serve(dir.path(), KEY, &args)
    };
    let (mut a, a_url) = replica(&dirs.0);
    let (mut b, b_url) = replica(&dirs.1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client_a = Client::new(&a_url, ApiKey::new(KEY), support::no_retries()).unwrap();
    let client_b = Client::new(&b_url, ApiKey::new(KEY), support::no_retries()).unwrap();
    runtime.block_on(async {
        let (received, hook) = receiver().await;
        let input = WebhookInput {
            events: Some(vec![EventType::IssueOpened]),
            url: Some(hook),
            description: Some("two replicas' receiver".into()),
            ..Default::default()
        };
        client_a.create_webhook(&input).await.unwrap();
        let query = EventQuery { kind: Some("ISSUE_OPENED".into()), ..Default::default() };
        let mut on_a = client_a.events(&query, None).await.unwrap();
        let mut opened = Vec::new();
        for n in 0..40 {
            let client = if n % 2 == 0 { &client_b } else { &client_a };
            opened.push(client.create_issue(&issue(n)).await.unwrap().id.to_string());
        }

        // A's stream tells of every issue, half of them written on B, in one order.
        let mut streamed = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), async {
            while streamed.len() < opened.len() {
                streamed.push(on_a.next().await.unwrap().expect("the stream stays open"));
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{} of {} events streamed", streamed.len(), opened.len()));
        let resources: BTreeSet<_> = streamed.iter().map(|e| e.resource_id.clone()).collect();
        assert_eq!(resources, opened.iter().cloned().collect::<BTreeSet<_>>());
        let ids: Vec<i64> = streamed.iter().map(|e| e.id.parse().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "one order, no repeats: {ids:?}");

        // The replica holding the duties sends the deliveries; each is sent once, with the ids
        // the stream gave.
        let deadline = Instant::now() + Duration::from_secs(30);
        while received.lock().unwrap().len() < opened.len() {
            assert!(Instant::now() < deadline, "{} of {} delivered", received.lock().unwrap().len(), opened.len());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await; // time for a second send, if there were one
        let received = received.lock().unwrap().clone();
        let deliveries: BTreeSet<_> = received.iter().map(|(delivery, _)| delivery.clone()).collect();
        assert_eq!((received.len(), deliveries.len()), (opened.len(), opened.len()), "each delivery sent once");
        let sent: BTreeSet<i64> = received.iter().map(|(_, event)| event.parse().unwrap()).collect();
        assert_eq!(sent, ids.iter().copied().collect::<BTreeSet<_>>());
    });
    a.kill().unwrap();
    b.kill().unwrap();
    let _ = (a.wait(), b.wait());
}

#[test]
fn a_replica_says_it_is_not_ready_while_its_database_is_down() {
    let server = TestServer::start(switchboard::service::store::test_server::Durability::Scratch).unwrap();
    let url = server.fresh_database().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut replica, base) = support::serve::spawn_serve(dir.path(), KEY, &["--database", &url, "--no-seed"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // Served without a key, for a load balancer's checks.
        let (status, body, _) = support::raw(&base, reqwest::Method::GET, "/ready", None, None).await;
        assert_eq!((status, body), (200, serde_json::json!({ "status": "ready" })));

        drop(server);
        let deadline = Instant::now() + Duration::from_secs(30);
        let body = loop {
            let (status, body, _) = support::raw(&base, reqwest::Method::GET, "/ready", None, None).await;
            if status == 503 {
                break body;
            }
            assert_eq!(status, 200);
            assert!(Instant::now() < deadline, "still ready with its database stopped");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(body["code"], "store_unavailable", "{body}");
        assert!(!body.to_string().contains("127.0.0.1"), "no connection details: {body}");
        // The key check does not need the database: the replica is alive, only not ready.
        let bearer = format!("Bearer {KEY}");
        let (status, _, _) = support::raw(&base, reqwest::Method::GET, "/v1/health", Some(&bearer), None).await;
        assert_eq!(status, 200);
    });
    assert!(replica.try_wait().unwrap().is_none(), "the replica keeps running");
    replica.kill().unwrap();
    let _ = replica.wait();
}
