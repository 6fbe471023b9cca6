//! Hostile input, tried as an attacker would, on whichever store the suite runs on: text the
//! stores cannot hold (NUL, lone surrogates, broken UTF-8) is refused at the edge naming the
//! member, bodies must be JSON and arrive uncompressed, ids are checked alike in paths and
//! filters, errors repeat only a short escaped prefix of what was sent, and a job the engine
//! cannot run fails alone instead of stopping every run behind it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, eventually, options, raw, seeded, start, start_with};
use switchboard::api::model::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn bearer(service: &Service) -> String {
    format!("Bearer {}", service.running.api_key.expose())
}

/// The seeded plan, for runs.
fn seeded_plan() -> uuid::Uuid {
    support::id_of(&seeded("run_plans", |_| true)[0])
}

fn assert_refused(status: u16, body: &Value, want: u16, param: &str) {
    assert_eq!(status, want, "{body}");
    assert_eq!(body["param"], param, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

async fn wait_for_end(service: &Service, id: uuid::Uuid) -> RunPlanJob {
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await
}

async fn issue_count(service: &Service) -> usize {
    let (_, issues, _) = raw(&service.base_url(), Method::GET, "/v1/issue", Some(&bearer(service)), None).await;
    issues["data"].as_array().map_or(0, Vec::len)
}

/// Sends `request` as written on a new connection and reads the answer to its end.
async fn raw_http(service: &Service, request: &[u8]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(service.running.addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the service answered within 20 s");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

#[tokio::test]
async fn a_run_with_a_nul_variable_is_refused_and_the_next_run_completes() {
    let service = start(true).await;
    let key = bearer(&service);
    let body = json!({ "planId": seeded_plan(), "variables": { "a": "b\u{0}" } });
    let (status, answer, _) =
        raw(&service.base_url(), Method::POST, "/v1/simulation/run", Some(&key), Some(body.to_string().into_bytes()))
            .await;
    assert_refused(status, &answer, 400, "variables.a");
    let (_, jobs, _) = raw(&service.base_url(), Method::GET, "/v1/simulation/plan/jobs", Some(&key), None).await;
    assert_eq!(jobs["data"], json!([]), "nothing was started");

    let started = service.client.run(&RunRequest { plan_id: Some(seeded_plan()), ..Default::default() }).await.unwrap();
    let job = wait_for_end(&service, started.simulation_run_plan_job_id).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
}

#[tokio::test]
async fn nul_and_broken_text_in_paths_and_queries_are_400s_naming_the_parameter() {
    let service = start(true).await;
    let key = bearer(&service);
    for (path, param) in [
        ("/v1/metric/definitions/call%00duration", "id"),
        ("/v1/benchmark/target/x/score-sample?suite=a%00b", "suite"),
        ("/v1/persona/%ED%A0%80", "id"),
        ("/v1/issue?status=%FF", "status"),
        ("/v1/call?agentId=a%00", "agentId"),
    ] {
        let (status, body, _) = raw(&service.base_url(), Method::GET, path, Some(&key), None).await;
        assert_refused(status, &body, 400, param);
    }
}

#[tokio::test]
async fn ids_in_paths_and_filters_are_checked_alike() {
    let service = start(true).await;
    let key = bearer(&service);
    for (path, param) in [
        ("/v1/events?resourceId=not-a-uuid", "resourceId"),
        ("/v1/persona/not-a-uuid", "id"),
        ("/v1/simulation/plan/job/not-a-uuid", "id"),
        ("/v1/simulation/plan/jobs?simulationRunPlanId=not-a-uuid", "simulationRunPlanId"),
        ("/v1/call?agentId=not-a-uuid", "agentId"),
    ] {
        // The event stream stays open when it is accepted; a refusal answers at once.
        let answer = tokio::time::timeout(
            Duration::from_secs(10),
            raw(&service.base_url(), Method::GET, path, Some(&key), None),
        )
        .await;
        let (status, body, _) = answer.unwrap_or_else(|_| panic!("{path} was not refused at once"));
        assert_refused(status, &body, 400, param);
    }
}

#[tokio::test]
async fn bodies_holding_nul_or_lone_surrogates_are_refused_naming_every_member_and_nothing_is_stored() {
    let service = start(false).await;
    let key = bearer(&service);
    let base = service.base_url();
    let post = |body: &'static str| raw(&base, Method::POST, "/v1/issue", Some(&key), Some(body.into()));
    let (status, body, _) = post(r#"{"title": "a\u0000b", "summary": "ok", "sev\u0000": 1}"#).await;
    assert_eq!(status, 400, "{body}");
    let params: Vec<&str> =
        body["details"]["violations"].as_array().unwrap().iter().map(|v| v["param"].as_str().unwrap()).collect();
    assert!(params.contains(&"title") && params.iter().any(|p| p.starts_with("sev")), "every member named: {body}");
    let (status, body, _) = post(r#"{"title": "a\ud800b"}"#).await;
    assert_refused(status, &body, 400, "title");
    // An escaped backslash before `u0000` is text, not NUL: it is kept as sent.
    let (status, body, _) = post(r#"{"title": "C:\\u0000 is a path"}"#).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["title"], "C:\\u0000 is a path");
    assert_eq!(issue_count(&service).await, 1, "only the one accepted");
}

/// A body of thousands of NUL strings under a long member name is refused naming the first
/// few, in a short answer.
#[tokio::test]
async fn a_body_full_of_nul_is_refused_in_a_short_answer() {
    let service = start(false).await;
    let key = bearer(&service);
    let body = json!({ "k".repeat(50_000): vec!["\u{0}"; 5_000] }).to_string();
    let (status, answer, _) =
        raw(&service.base_url(), Method::POST, "/v1/issue", Some(&key), Some(body.into_bytes())).await;
    assert_eq!(status, 400);
    let named = answer["details"]["violations"].as_array().unwrap().len();
    assert!((1..=20).contains(&named), "{named} named");
    assert!(answer.to_string().len() < 20_000, "{} bytes", answer.to_string().len());
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415_and_a_compressed_one_is_refused() {
    let service = start(false).await;
    let key = bearer(&service);
    let body = r#"{"title": "Refused", "summary": "s"}"#;
    for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
        let mut request = reqwest::Client::new()
            .post(format!("{}/v1/issue", service.base_url()))
            .header("authorization", &key)
            .body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let answer: Value = response.json().await.unwrap();
        assert_eq!(status, 415, "{content_type:?}: {answer}");
        assert_eq!(answer["code"], "unsupported_media_type", "{answer}");
    }
    let chunked = format!(
        "POST /v1/issue HTTP/1.1\r\nhost: x\r\nauthorization: {key}\r\ncontent-type: application/json\r\n\
         transfer-encoding: gzip, chunked\r\nconnection: close\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    let (status, answer) = raw_http(&service, chunked.as_bytes()).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("unsupported_transfer_coding"), "{answer}");
    let response = reqwest::Client::new()
        .post(format!("{}/v1/issue", service.base_url()))
        .header("authorization", &key)
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    assert_eq!(issue_count(&service).await, 0, "nothing was stored");
}

#[tokio::test]
async fn errors_repeat_only_a_short_escaped_prefix_of_what_was_sent() {
    let service = start(false).await;
    let key = bearer(&service);
    let long = "X".repeat(100_000);
    let request = format!("{long} /v1/issue HTTP/1.1\r\nhost: x\r\nauthorization: {key}\r\nconnection: close\r\n\r\n");
    let (status, answer) = raw_http(&service, request.as_bytes()).await;
    assert_eq!(status, 405, "{}", &answer[..200.min(answer.len())]);
    assert!(answer.len() < 1_000, "a 100 KB method is not sent back: {} bytes", answer.len());

    let hostile = format!("{}\u{1b}[2J\r\nInjected: 1", "V".repeat(10_000));
    let bodies = [
        json!({ "title": "t", "severity": hostile }),
        json!({ "title": "t", hostile.clone(): 1 }),
        json!({ "title": hostile.repeat(2) }),
    ];
    for sent in bodies {
        let (status, body, _) =
            raw(&service.base_url(), Method::POST, "/v1/issue", Some(&key), Some(sent.to_string().into_bytes())).await;
        assert_eq!(status, 400, "{body}");
        let text = body.to_string();
        assert!(text.len() < 3_000, "the error is short: {} bytes", text.len());
        assert!(!text.contains('\u{1b}') && !text.contains("\r\nInjected"), "control characters escaped: {text}");
    }
    let path = format!("/v1/{}", "p".repeat(20_000));
    let (status, body, _) = raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.to_string().len() < 1_000, "{body}");
}

#[tokio::test]
async fn a_variant_name_never_reads_as_a_path() {
    let service = start(true).await;
    let key = bearer(&service);
    for name in ["..%2F..%2Fetc%2Fpasswd", "a%0Ab", "a%2Fb"] {
        let path = format!("/v1/metric/definitions/task_completion/variants/{name}");
        let (status, body, _) = raw(&service.base_url(), Method::PUT, &path, Some(&key), Some(b"{}".to_vec())).await;
        assert_refused(status, &body, 400, "variant");
    }
    // A client library resolves `..` before sending it; sent as written it is refused too.
    let request = format!(
        "PUT /v1/metric/definitions/task_completion/variants/.. HTTP/1.1\r\nhost: x\r\nauthorization: {key}\r\n\
         content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
    );
    let (status, answer) = raw_http(&service, request.as_bytes()).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("\"param\":\"variant\""), "{answer}");
    let path = "/v1/metric/definitions/task_completion/variants/strict v2";
    let (status, body, _) =
        raw(&service.base_url(), Method::PUT, &path.replace(' ', "%20"), Some(&key), Some(b"{}".to_vec())).await;
    assert!(status < 300, "a plain name forks: {body}");
}

/// A job whose plan cannot be read (its document changed behind the service's back) fails
/// with that reason, and a run started after it completes: the scheduler goes on.
#[tokio::test]
async fn a_job_the_engine_cannot_run_fails_alone_and_later_runs_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let service = start_with(options(&path, true), dir).await;
    let poisoned =
        service.client.run(&RunRequest { plan_id: Some(seeded_plan()), ..Default::default() }).await.unwrap();
    let id = poisoned.simulation_run_plan_job_id.to_string();
    let Service { running, dir, .. } = service;
    running.shutdown().await.unwrap();
    let changed = support::tamper(
        &path,
        &format!("UPDATE docs SET body = json_set(body, '$.plan', 'not a plan') WHERE id = '{id}'"),
        &format!("UPDATE docs SET body = jsonb_set(body::jsonb, '{{plan}}', '\"not a plan\"')::json WHERE id = '{id}'"),
    );
    assert_eq!(changed, 1);

    let service = start_with(options(&path, true), dir).await;
    let later = service.client.run(&RunRequest { plan_id: Some(seeded_plan()), ..Default::default() }).await.unwrap();
    let later = wait_for_end(&service, later.simulation_run_plan_job_id).await;
    assert_eq!(later.status, Some(RunPlanJobStatus::Completed));
    let failed = wait_for_end(&service, poisoned.simulation_run_plan_job_id).await;
    assert_eq!(failed.status, Some(RunPlanJobStatus::Failed));
    let reason = serde_json::to_value(&failed).unwrap()["errorMessage"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("plan cannot be read"), "the job says why: {reason:?}");
}
