//! The OpenAI-compatible judge against a small chat-completions server on 127.0.0.1: what it
//! sends, what it accepts, and what it refuses (with a clear error, never the key, and never
//! stored as a wrong value).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use support::{eventually, id_of, seeded};
use switchboard::api::model::*;
use switchboard::service::metrics::judge::{Answer, Judge, JudgeConfig, Question, Standing};

type Seen = Arc<Mutex<Vec<(HeaderMap, Value)>>>;
/// The status and raw body the server answers with.
type Reply = Arc<Mutex<(u16, String)>>;

async fn completions(
    State((seen, reply)): State<(Seen, Reply)>,
    headers: HeaderMap,
    body: axum::Json<Value>,
) -> Response {
    seen.lock().unwrap().push((headers, body.0));
    let (status, reply) = reply.lock().unwrap().clone();
    (StatusCode::from_u16(status).unwrap(), [("content-type", "application/json")], reply).into_response()
}

struct Stub {
    base: String,
    seen: Seen,
    reply: Reply,
}

impl Stub {
    async fn start() -> Stub {
        let seen: Seen = Arc::default();
        let reply: Reply = Arc::new(Mutex::new((200, String::new())));
        let app =
            Router::new().route("/v1/chat/completions", post(completions)).with_state((seen.clone(), reply.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { base, seen, reply }
    }

    /// The next answer: `content` as the assistant's message.
    fn answers(&self, content: &str) {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": content}}]});
        *self.reply.lock().unwrap() = (200, body.to_string());
    }

    fn answers_raw(&self, status: u16, body: &str) {
        *self.reply.lock().unwrap() = (status, body.to_owned());
    }

    fn judge(&self, key_env: Option<&str>) -> Judge {
        Judge::open_ai(&JudgeConfig {
            base_url: self.base.clone(),
            model: "gpt-test".into(),
            api_key_env: key_env.map(str::to_owned),
        })
        .unwrap()
    }
}

fn entry(role: ParticipantType, at: i64, text: &str) -> TranscriptEntry {
    TranscriptEntry {
        start_offset_ms: at,
        end_offset_ms: at + 2000,
        text: text.into(),
        role: Some(role),
        participant_id: None,
    }
}

fn transcript() -> Transcript {
    Transcript {
        entries: vec![
            entry(ParticipantType::Agent, 0, "Brightsmile Dental, how can I help?"),
            entry(ParticipantType::Customer, 2500, "I need to move my cleaning."),
            entry(ParticipantType::Agent, 5000, "Can you confirm your date of birth?"),
        ],
        participants: Vec::new(),
        transcription_source: None,
    }
}

fn ask<'a>(prompt: &'a str, answer: Answer, t: &'a Transcript) -> Question<'a> {
    Question { prompt, answer, transcript: t, agent_only: true, knowledge: Some("Verify DOB first.") }
}

fn verdict_json(value: Value, label: Value) -> String {
    json!({"value": value, "label": label, "reasoning": "The agent asked for the DOB at 5.0 s.", "confidence": 0.9})
        .to_string()
}

#[tokio::test]
async fn the_judge_sends_the_prompt_and_the_transcript_with_roles_and_reads_the_verdict() {
    let stub = Stub::start().await;
    stub.answers(&verdict_json(json!(1), Value::Null));
    unsafe { std::env::set_var("SWITCHBOARD_TEST_JUDGE_KEY", "judge-key-123") };
    let judge = stub.judge(Some("SWITCHBOARD_TEST_JUDGE_KEY"));
    let t = transcript();
    let verdict = judge.judge(&ask("Agent verifies identity", Answer::Boolean, &t)).await.unwrap();
    assert_eq!((verdict.value, verdict.standing), (1.0, Standing::Answered));
    assert_eq!(verdict.reasoning, "The agent asked for the DOB at 5.0 s.");
    assert_eq!(verdict.confidence, 0.9);

    let (headers, body) = stub.seen.lock().unwrap()[0].clone();
    assert_eq!(headers["authorization"], "Bearer judge-key-123", "the key from the variable the config names");
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert_eq!(body["temperature"], 0);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!((messages[0]["role"].as_str(), messages[1]["role"].as_str()), (Some("system"), Some("user")));
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.contains("Verify DOB first."), "knowledge is sent as ground truth: {system}");
    assert!(system.contains("value is 1 if the statement holds"), "the answer's shape: {system}");
    assert!(system.contains("AGENT"), "an agent-only question says so: {system}");
    let user = messages[1]["content"].as_str().unwrap();
    assert!(user.starts_with("Agent verifies identity"), "{user}");
    for line in [
        "[0 ms] AGENT: Brightsmile Dental, how can I help?",
        "[2500 ms] CUSTOMER: I need to move my cleaning.",
        "[5000 ms] AGENT: Can you confirm your date of birth?",
    ] {
        assert!(user.contains(line), "every line with its role and time: {user}");
    }

    // A classification is answered by number and named; a scale's label comes from the scale.
    stub.answers(&verdict_json(json!(2), json!("Reschedule")));
    let options = vec![("Billing".to_owned(), "bills".to_owned()), ("Reschedule".to_owned(), "move".to_owned())];
    let v = judge.judge(&ask("Why did they call?", Answer::Classification { options }, &t)).await.unwrap();
    assert_eq!((v.value, v.label.as_deref()), (2.0, Some("Reschedule")));
    stub.answers(&verdict_json(json!(4), Value::Null));
    let labels = vec![ScaleLabel {
        range_min: Some(4.0),
        range_max: Some(5.0),
        label: Some("Warm".into()),
        ..Default::default()
    }];
    let v = judge.judge(&ask("Empathy", Answer::Scale { min: 1, max: 5, labels }, &t)).await.unwrap();
    assert_eq!((v.value, v.label.as_deref()), (4.0, Some("Warm")));
    // null: the question did not apply.
    stub.answers(&verdict_json(Value::Null, Value::Null));
    let v = judge.judge(&ask("Agent reads back the slot", Answer::Boolean, &t)).await.unwrap();
    assert!(v.standing == Standing::NotApplicable && !v.holds());
}

#[tokio::test]
async fn replies_that_are_not_the_asked_json_are_errors() {
    let stub = Stub::start().await;
    let judge = stub.judge(None);
    let t = transcript();
    let q = ask("p", Answer::Boolean, &t);
    stub.answers("I think yes");
    assert!(judge.judge(&q).await.unwrap_err().contains("not the asked JSON"));
    stub.answers(&json!({"value": 1}).to_string());
    let err = judge.judge(&q).await.unwrap_err();
    assert!(err.contains("not the asked JSON") && err.contains("reasoning"), "names what is missing: {err}");
    stub.answers_raw(200, "<html>gateway</html>");
    assert!(judge.judge(&q).await.unwrap_err().contains("without JSON"));
    stub.answers_raw(200, &json!({"choices": []}).to_string());
    assert!(judge.judge(&q).await.unwrap_err().contains("no message content"));
}

#[tokio::test]
async fn values_out_of_range_are_refused_with_a_clear_error() {
    let stub = Stub::start().await;
    let judge = stub.judge(None);
    let t = transcript();
    let cases = [
        (Answer::Boolean, json!(2), Value::Null, "a boolean answer must be 0 or 1"),
        (Answer::Boolean, json!("yes"), Value::Null, "is not a number"),
        (Answer::Scale { min: 1, max: 5, labels: Vec::new() }, json!(7), Value::Null, "whole numbers 1 to 5"),
        (Answer::Scale { min: 1, max: 5, labels: Vec::new() }, json!(3.5), Value::Null, "whole numbers 1 to 5"),
        (
            Answer::Classification { options: vec![("A".into(), "a".into()), ("B".into(), "b".into())] },
            json!(3),
            Value::Null,
            "numbered 1 to 2",
        ),
        (
            Answer::Classification { options: vec![("A".into(), "a".into()), ("B".into(), "b".into())] },
            json!(1),
            json!("B"),
            "is not option 1",
        ),
    ];
    for (answer, value, label, says) in cases {
        stub.answers(&verdict_json(value.clone(), label));
        let err = judge.judge(&ask("p", answer, &t)).await.unwrap_err();
        assert!(err.contains(says), "{value}: {err}");
        assert!(err.contains("out of range") || err.contains("not option") || err.contains("not a number"), "{err}");
    }
}

#[tokio::test]
async fn failures_are_messages_that_never_show_the_key() {
    let stub = Stub::start().await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_JUDGE_KEY_2", "sk-secret-987") };
    let judge = stub.judge(Some("SWITCHBOARD_TEST_JUDGE_KEY_2"));
    let t = transcript();
    let q = ask("p", Answer::Boolean, &t);
    // An upstream that echoes the key it was sent.
    stub.answers_raw(401, &json!({"error": {"message": "invalid key Bearer sk-secret-987"}}).to_string());
    let err = judge.judge(&q).await.unwrap_err();
    assert!(err.contains("401") && err.contains("invalid key"), "{err}");
    assert!(!err.contains("sk-secret-987"), "the key is redacted: {err}");
    stub.answers_raw(503, &json!({"error": {"message": "model overloaded"}}).to_string());
    let err = judge.judge(&q).await.unwrap_err();
    assert!(err.contains("503") && err.contains("model overloaded"), "{err}");
    stub.answers(&verdict_json(json!("sk-secret-987"), Value::Null));
    assert!(!judge.judge(&q).await.unwrap_err().contains("sk-secret-987"));
    assert!(!format!("{judge:?}").contains("sk-secret-987"), "nor in a debug print");

    let unreachable = JudgeConfig { base_url: "http://127.0.0.1:1".into(), model: "m".into(), api_key_env: None };
    let err = Judge::open_ai(&unreachable).unwrap().judge(&q).await.unwrap_err();
    assert!(err.contains("unreachable"), "{err}");
    let missing = JudgeConfig {
        base_url: "http://x".into(),
        model: "m".into(),
        api_key_env: Some("SWITCHBOARD_TEST_UNSET_JUDGE".into()),
    };
    assert!(Judge::open_ai(&missing).unwrap_err().contains("SWITCHBOARD_TEST_UNSET_JUDGE"));
}

#[tokio::test]
async fn the_service_stores_a_refused_value_as_an_error_not_as_a_value() {
    let stub = Stub::start().await;
    stub.answers(&verdict_json(json!(7), Value::Null));
    unsafe { std::env::set_var("SWITCHBOARD_TEST_JUDGE_KEY_3", "sk-service-555") };
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        judge: Some(JudgeConfig {
            base_url: stub.base.clone(),
            model: "gpt-test".into(),
            api_key_env: Some("SWITCHBOARD_TEST_JUDGE_KEY_3".into()),
        }),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let call = id_of(&seeded("calls", |c| c["transcript"]["entries"].as_array().unwrap().len() > 4)[0]);
    let metric = service.client.get_metric_definition("task_completion").await.unwrap();
    let input = CollectionJobInput {
        metrics: Some(vec![IdRef { id: metric.id }]),
        call_ids: Some(vec![call]),
        ..Default::default()
    };
    let job = service.client.create_collection_job(&input).await.unwrap();
    let groups = eventually(Duration::from_secs(30), || async {
        let job = service.client.get_collection_job(job.id).await.unwrap();
        // Every item failed, so the job is FAILED; its values say why.
        if !job.status.as_ref().is_some_and(CollectionJobStatus::is_terminal) {
            return None;
        }
        Some(service.client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap())
    })
    .await;
    let value = &groups[0].values[0];
    assert_eq!(value.capture_status, Some(CaptureStatus::Error), "{value:?}");
    assert_eq!(value.value, None, "a refused answer is not stored as a value");
    let message = value.error_message.as_deref().unwrap();
    assert!(message.contains("out of range"), "{message}");
    assert!(!message.contains("sk-service-555"));
    let (headers, _) = stub.seen.lock().unwrap()[0].clone();
    assert_eq!(headers["authorization"], "Bearer sk-service-555");
}
