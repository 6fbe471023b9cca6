//! What changes, told as it happens: the event stream (`GET /v1/events`, resumable with
//! `Last-Event-ID`) and webhooks (signed deliveries, retried, each attempt readable, none lost
//! across a SIGKILL between a change and its delivery).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/receiver.rs"]
mod receiver;
mod support;

use std::collections::HashSet;
use std::time::Duration;

use receiver::{Receiver, receiver, verify};
use reqwest::Method;
use support::{eventually, options, raw, start, start_with};
use switchboard::api::model::*;
use switchboard::api::{ApiKey, Client, ListQuery};

const SEEDED_PLAN: &str = "def19c4f-3b29-5880-ab66-2113c56938c5";

fn issue(title: &str) -> IssueInput {
    IssueInput {
        title: Some(title.into()),
        summary: Some("raised by the events test".into()),
        severity: Some(Severity::Low),
        ..Default::default()
    }
}

/// Reads events until `done` says enough, within a deadline.
async fn read_until(stream: &mut switchboard::api::EventStream, mut done: impl FnMut(&[Event]) -> bool) -> Vec<Event> {
    let mut seen = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), async {
        while !done(&seen) {
            let event = stream.next().await.unwrap().expect("the stream stays open");
            seen.push(event);
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!("the events did not come: saw {:?}", seen.iter().map(|e| &e.event_type).collect::<Vec<_>>())
    });
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_told_as_it_happens_and_a_resumed_stream_misses_nothing() {
    let service = start(true).await;
    let client = &service.client;
    let mut stream = client.events(&EventQuery::default(), None).await.unwrap();

    let run = RunRequest { plan_id: Some(SEEDED_PLAN.parse().unwrap()), ..Default::default() };
    let job = client.run(&run).await.unwrap().simulation_run_plan_job_id.to_string();
    let first =
        read_until(&mut stream, |seen| seen.iter().any(|e| e.event_type == EventType::SimulationJobCompleted)).await;
    assert!(
        first.iter().any(|e| e.event_type == EventType::SimulationRunPlanJobStarted && e.resource_id == job),
        "the run's start comes first"
    );
    let completed = first.iter().find(|e| e.event_type == EventType::SimulationJobCompleted).unwrap();
    assert_eq!(completed.parent_id.as_deref(), Some(job.as_str()), "a simulation's event names its run");
    let data: serde_json::Value = completed.data_as().unwrap();
    assert_eq!(data["status"], "COMPLETED", "the event carries the resource as it then was");
    assert!(data.get("tally").is_none() && data.get("plan").is_none());

    // The connection drops; changes go on; a reconnect with Last-Event-ID gets them all, once.
    let resume_from = stream.last_id.clone().unwrap();
    drop(stream);
    let raised = client.create_issue(&issue("Raised while nobody listened")).await.unwrap();
    let mut resumed = client.events(&EventQuery::default(), Some(&resume_from)).await.unwrap();
    let rest = read_until(&mut resumed, |seen| {
        seen.iter().any(|e| e.event_type == EventType::SimulationRunPlanJobCompleted)
            && seen.iter().any(|e| e.resource_id == raised.id.to_string())
    })
    .await;
    let opened = rest.iter().find(|e| e.resource_id == raised.id.to_string()).unwrap();
    assert_eq!(opened.event_type, EventType::IssueOpened);
    let ids: Vec<u64> = first.iter().chain(&rest).map(|e| e.id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase, with no event twice: {ids:?}");
    assert!(rest.iter().all(|e| e.id.parse::<u64>().unwrap() > resume_from.parse::<u64>().unwrap()));

    // Every simulation of the run announced its end once: as many as the job counts.
    let ended = client.get_run_plan_job(job.parse().unwrap()).await.unwrap();
    let finished: HashSet<_> = first
        .iter()
        .chain(&rest)
        .filter(|e| {
            matches!(e.event_type, EventType::SimulationJobCompleted | EventType::SimulationJobFailed)
                && e.parent_id.as_deref() == Some(&job)
        })
        .map(|e| e.resource_id.clone())
        .collect();
    let simulations_ended = ended.simulation_jobs.iter().filter(|s| s.status.as_ref().is_some_and(|s| s.is_terminal()));
    assert_eq!(finished.len(), simulations_ended.count());

    // `children=none`: only the named resources' own events (the job and one simulation of it),
    // not every simulation's.
    let one = ended.simulation_jobs[0].simulation_job_id.to_string();
    let query = EventQuery {
        resource_id: Some(format!("{job},{one}")),
        children: Some("none".into()),
        after: Some(0),
        ..Default::default()
    };
    let mut named = client.events(&query, None).await.unwrap();
    let told = read_until(&mut named, |seen| {
        seen.iter().any(|e| e.event_type == EventType::SimulationRunPlanJobCompleted)
            && seen.iter().any(|e| e.event_type == EventType::SimulationJobCompleted)
    })
    .await;
    assert!(told.iter().all(|e| e.resource_id == job || e.resource_id == one), "{told:?}");
    let about_one = told.iter().filter(|e| e.resource_id == one).map(|e| e.event_type.clone()).collect::<Vec<_>>();
    assert_eq!(about_one, vec![EventType::SimulationJobStarted, EventType::SimulationJobCompleted]);
    // Without it, a job's id brings its simulations' events too (as above).
    let query = EventQuery { resource_id: Some(job.clone()), after: Some(0), ..Default::default() };
    let mut with_children = client.events(&query, None).await.unwrap();
    let all = read_until(&mut with_children, |seen| seen.iter().filter(|e| e.resource_id != job).count() > 1).await;
    assert!(all.iter().any(|e| e.resource_id != job && e.resource_id != one));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_filters_by_type_and_resource_and_replays_from_an_id() {
    let service = start(false).await;
    let client = &service.client;
    let a = client.create_issue(&issue("First")).await.unwrap();
    let b = client.create_issue(&issue("Second")).await.unwrap();
    client
        .update_issue(a.id, &IssueUpdate { status: Some(IssueStatus::Resolved), ..Default::default() })
        .await
        .unwrap();

    // `after=0` replays every event kept; `kind` keeps one type.
    let query = EventQuery { kind: Some("ISSUE_RESOLVED".into()), after: Some(0), ..Default::default() };
    let mut resolved = client.events(&query, None).await.unwrap();
    let only = read_until(&mut resolved, |seen| !seen.is_empty()).await;
    assert_eq!((only[0].event_type.clone(), only[0].resource_id.clone()), (EventType::IssueResolved, a.id.to_string()));

    // `resourceId` keeps one resource's events.
    let query = EventQuery { resource_id: Some(b.id.to_string()), after: Some(0), ..Default::default() };
    let mut about_b = client.events(&query, None).await.unwrap();
    let first = read_until(&mut about_b, |seen| !seen.is_empty()).await;
    assert_eq!(first[0].resource_id, b.id.to_string());
    assert_eq!(first[0].event_type, EventType::IssueOpened);
    client
        .update_issue(b.id, &IssueUpdate { status: Some(IssueStatus::Resolved), ..Default::default() })
        .await
        .unwrap();
    let next = read_until(&mut about_b, |seen| !seen.is_empty()).await;
    assert_eq!((next[0].event_type.clone(), next[0].resource_id.clone()), (EventType::IssueResolved, b.id.to_string()));

    // `data=none`: the same events without their resources.
    let query = EventQuery { resource_id: Some(b.id.to_string()), after: Some(0), ..Default::default() }.without_data();
    let mut bare = client.events(&query, None).await.unwrap();
    let told = read_until(&mut bare, |seen| seen.len() >= 2).await;
    assert_eq!(
        told.iter().map(|e| (e.event_type.clone(), e.data.is_none())).collect::<Vec<_>>(),
        vec![(EventType::IssueOpened, true), (EventType::IssueResolved, true)]
    );
    assert!(next[0].data_as::<Issue>().is_ok_and(|i| i.id == b.id), "by default each event carries its resource");

    // Bad input names the parameter.
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (status, body, _) = raw(&service.base_url(), Method::GET, "/v1/events?data=some", Some(&key), None).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("data")), "{body}");
    let (status, body, _) = raw(&service.base_url(), Method::GET, "/v1/events?children=few", Some(&key), None).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("children")), "{body}");
    let many = (0..101).map(|_| uuid::Uuid::new_v4().to_string()).collect::<Vec<_>>().join(",");
    let path = format!("/v1/events?resourceId={many}");
    let (status, body, _) = raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("resourceId")), "{body}");
    assert!(body["message"].as_str().is_some_and(|m| m.contains("at most 100")), "{body}");
    let (status, body, _) =
        raw(&service.base_url(), Method::GET, "/v1/events?kind=ISSUE_EXPLODED", Some(&key), None).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("kind")), "{body}");
    let bad_resume = reqwest::Client::new()
        .get(format!("{}/v1/events", service.base_url()))
        .header("authorization", &key)
        .header("last-event-id", "yesterday")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_resume.status(), 400);
    let body: serde_json::Value = bad_resume.json().await.unwrap();
    assert_eq!(body["param"], "Last-Event-ID");
}

fn webhook_input(url: &str, events: Vec<EventType>) -> WebhookInput {
    WebhookInput {
        events: Some(events),
        url: Some(url.to_owned()),
        description: Some("the test's receiver".into()),
        headers: Some([("x-team-token".to_owned(), "team-42".to_owned())].into()),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_are_signed_retried_and_each_attempt_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(dir.path(), false);
    options.webhook_retry.first = Duration::from_millis(50);
    let service = start_with(options, dir).await;
    let client = &service.client;
    let (receiver, url) = receiver(3).await;

    let created = client.create_webhook(&webhook_input(&url, vec![EventType::IssueOpened])).await.unwrap();
    assert!(created.signing_secret.starts_with("whsec_"));
    let read = client.get_webhook(created.webhook.id).await.unwrap();
    assert_eq!(read, created.webhook);
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (_, listed, _) = raw(&service.base_url(), Method::GET, "/v1/webhook", Some(&key), None).await;
    assert_eq!(listed["data"][0]["id"], created.webhook.id.to_string());
    assert!(!listed.to_string().contains(&created.signing_secret), "no read shows the secret");
    let (_, one, _) =
        raw(&service.base_url(), Method::GET, &format!("/v1/webhook/{}", created.webhook.id), Some(&key), None).await;
    assert!(one["data"].get("signingSecret").is_none());

    let raised = client.create_issue(&issue("Sent to the receiver")).await.unwrap();
    // A type the webhook did not ask for is not sent.
    client
        .update_issue(raised.id, &IssueUpdate { status: Some(IssueStatus::Acknowledged), ..Default::default() })
        .await
        .unwrap();

    // Three 500s, then accepted: four attempts, all the same delivery, all signed.
    let requests = eventually(Duration::from_secs(30), || async {
        let requests = receiver.requests();
        (requests.len() >= 4).then_some(requests)
    })
    .await;
    assert_eq!(requests.len(), 4, "nothing after the receiver accepted");
    let ids: HashSet<_> = requests.iter().map(|(h, _)| h["webhook-id"].to_str().unwrap().to_owned()).collect();
    assert_eq!(ids.len(), 1, "a retry is the same delivery (the same webhook-id)");
    for (headers, body) in &requests {
        assert!(verify(&created.signing_secret, headers, body), "a valid signature on {body}");
        assert!(
            !verify("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", headers, body),
            "and only with its secret"
        );
        assert_eq!(headers["x-team-token"], "team-42", "the webhook's own headers go along");
        let event: Event = serde_json::from_str(body).unwrap();
        assert_eq!((event.event_type, event.resource_id), (EventType::IssueOpened, raised.id.to_string()));
    }

    let attempts = eventually(Duration::from_secs(10), || async {
        let page = client.webhook_deliveries(created.webhook.id, &ListQuery::default().limit(50)).await.unwrap();
        (page.data.len() == 4).then_some(page)
    })
    .await;
    let numbers: Vec<u32> = attempts.data.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, vec![4, 3, 2, 1], "newest first");
    assert_eq!(attempts.data[0].response_status, Some(204));
    assert!(attempts.data.iter().all(|a| a.delivery_status == DeliveryStatus::Delivered));
    assert!(attempts.data[1..].iter().all(|a| a.response_status == Some(500) && a.error.is_some()));

    let deleted = client.delete_webhook(created.webhook.id).await.unwrap();
    assert!(deleted.success);
    let gone = client.get_webhook(created.webhook.id).await.unwrap_err();
    assert!(gone.to_string().contains("404") || gone.to_string().contains("no webhook"), "{gone}");
}

#[tokio::test]
async fn a_webhook_input_is_checked_field_by_field() {
    let service = start(false).await;
    let key = format!("Bearer {}", service.running.api_key.expose());
    let post = |body: serde_json::Value| {
        let (base, key) = (service.base_url(), key.clone());
        async move { raw(&base, Method::POST, "/v1/webhook", Some(&key), Some(body.to_string().into_bytes())).await }
    };
    for (body, param) in [
        (serde_json::json!({"url": "http://127.0.0.1:9/x"}), "events"),
        (serde_json::json!({"events": [], "url": "http://127.0.0.1:9/x"}), "events"),
        (serde_json::json!({"events": ["ISSUE_EXPLODED"], "url": "http://127.0.0.1:9/x"}), "events[0]"),
        (serde_json::json!({"events": ["ISSUE_OPENED"], "url": "ftp://example.com/x"}), "url"),
        (serde_json::json!({"events": ["ISSUE_OPENED"]}), "url"),
        (
            serde_json::json!({"events": ["ISSUE_OPENED"], "url": "http://127.0.0.1:9/x", "headers": {"webhook-signature": "v1,forged"}}),
            "headers.webhook-signature",
        ),
        (serde_json::json!({"events": ["ISSUE_OPENED"], "url": "http://127.0.0.1:9/x", "secret": "mine"}), "secret"),
    ] {
        let (status, answer, _) = post(body.clone()).await;
        assert_eq!(status, 400, "{body} → {answer}");
        assert_eq!(answer["param"], param, "{body} → {answer}");
    }
    let (status, listed, _) = raw(&service.base_url(), Method::GET, "/v1/webhook", Some(&key), None).await;
    assert_eq!((status, listed["pagination"]["total"].as_u64()), (200, Some(0)), "nothing half-made");
}

fn spawn_serve(data_dir: &std::path::Path, key: &str) -> (support::serve::Serving, String) {
    support::serve::spawn_serve(data_dir, key, &["--no-seed", "--webhook-retry-ms", "200"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_between_a_change_and_its_delivery_still_delivers() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-webhook-durability";
    // The receiver's address is taken now but nothing listens yet: every attempt before the
    // kill fails to connect, so the delivery is still owed when the service dies.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{addr}/hook");

    let (mut child, base) = spawn_serve(dir.path(), key);
    let client = Client::new(&base, ApiKey::new(key), support::no_retries()).unwrap();
    let webhook = client.create_webhook(&webhook_input(&url, vec![EventType::IssueOpened])).await.unwrap();
    let raised = client.create_issue(&issue("Owed across a crash")).await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();

    let receiver = Receiver::default();
    tokio::spawn(receiver.clone().listen(tokio::net::TcpListener::bind(addr).await.unwrap()));
    let (mut again, base) = spawn_serve(dir.path(), key);
    let requests =
        eventually(Duration::from_secs(60), || async { Some(receiver.requests()).filter(|r| !r.is_empty()) }).await;
    let (headers, body) = &requests[0];
    assert!(verify(&webhook.signing_secret, headers, body));
    let event: Event = serde_json::from_str(body).unwrap();
    assert_eq!((event.event_type, event.resource_id), (EventType::IssueOpened, raised.id.to_string()));
    let client = Client::new(&base, ApiKey::new(key), support::no_retries()).unwrap();
    let attempts = client.webhook_deliveries(webhook.webhook.id, &ListQuery::default()).await.unwrap();
    assert_eq!(attempts.data[0].delivery_status, DeliveryStatus::Delivered);
    again.kill().unwrap();
    again.wait().unwrap();
}
