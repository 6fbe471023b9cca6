//! The OpenAI-compatible judge against a small chat-completions server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use switchboard::api::model::{ParticipantType, Transcript, TranscriptEntry};
use switchboard::service::metrics::judge::{Answer, Judge, JudgeConfig, Question};

type Seen = Arc<Mutex<Vec<(HeaderMap, Value)>>>;
/// The status and body the server answers with.
type Reply = Arc<Mutex<(u16, Value)>>;

async fn completions(
    State((seen, reply)): State<(Seen, Reply)>,
    headers: HeaderMap,
    body: axum::Json<Value>,
) -> Response {
    seen.lock().unwrap().push((headers, body.0));
    let (status, reply) = reply.lock().unwrap().clone();
    (StatusCode::from_u16(status).unwrap(), axum::Json(reply)).into_response()
}

async fn server(status: u16, reply: Value) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state((seen.clone(), Arc::new(Mutex::new((status, reply)))));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen)
}

fn transcript() -> Transcript {
    Transcript {
        entries: vec![TranscriptEntry {
            start_offset_ms: 0,
            end_offset_ms: 2000,
            text: "Can you confirm your date of birth?".into(),
            role: Some(ParticipantType::Agent),
            participant_id: None,
        }],
        participants: Vec::new(),
    }
}

fn content(value: Value) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": value.to_string()}}]})
}

#[tokio::test]
async fn the_judge_sends_the_prompt_and_transcript_and_reads_the_verdict() {
    let (base, seen) = server(
        200,
        content(
            json!({"value": 1, "label": null, "reasoning": "The agent asked for the DOB first.", "confidence": 0.9}),
        ),
    )
    .await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_JUDGE_KEY", "judge-key-123") };
    let judge = Judge::open_ai(&JudgeConfig {
        base_url: base,
        model: "gpt-test".into(),
        api_key_env: Some("SWITCHBOARD_TEST_JUDGE_KEY".into()),
    })
    .unwrap();
    let t = transcript();
    let question = Question {
        prompt: "Agent verifies identity",
        answer: Answer::Boolean,
        transcript: &t,
        agent_only: true,
        knowledge: Some("Verify DOB first."),
    };
    let verdict = judge.judge(&question).await.unwrap();
    assert_eq!(verdict.value, 1.0);
    assert_eq!(verdict.reasoning, "The agent asked for the DOB first.");
    assert_eq!(verdict.confidence, 0.9);
    let (headers, body) = seen.lock().unwrap()[0].clone();
    assert_eq!(headers["authorization"], "Bearer judge-key-123");
    assert_eq!(body["model"], "gpt-test");
    let messages = body["messages"].as_array().unwrap();
    assert!(
        messages[0]["content"].as_str().unwrap().contains("Verify DOB first."),
        "knowledge is sent as ground truth"
    );
    let user = messages[1]["content"].as_str().unwrap();
    assert!(user.contains("Agent verifies identity") && user.contains("date of birth"));
}

#[tokio::test]
async fn judge_failures_are_messages_not_panics() {
    let t = transcript();
    let question =
        Question { prompt: "p", answer: Answer::Boolean, transcript: &t, agent_only: false, knowledge: None };
    let config = |base: String| JudgeConfig { base_url: base, model: "m".into(), api_key_env: None };
    let (base, _) = server(500, json!({"error": {"message": "model overloaded"}})).await;
    let err = Judge::open_ai(&config(base)).unwrap().judge(&question).await.unwrap_err();
    assert!(err.contains("model overloaded"), "{err}");
    let (base, _) = server(200, json!({"choices": [{"message": {"content": "I think yes"}}]})).await;
    let err = Judge::open_ai(&config(base)).unwrap().judge(&question).await.unwrap_err();
    assert!(err.contains("not the asked JSON"), "{err}");
    let err = Judge::open_ai(&config("http://127.0.0.1:1".into())).unwrap().judge(&question).await.unwrap_err();
    assert!(err.contains("unreachable"), "{err}");
    let missing = JudgeConfig {
        base_url: "http://x".into(),
        model: "m".into(),
        api_key_env: Some("SWITCHBOARD_TEST_UNSET_JUDGE".into()),
    };
    assert!(Judge::open_ai(&missing).unwrap_err().contains("SWITCHBOARD_TEST_UNSET_JUDGE"));
}
