//! The model caller's turns against a model on loopback that answers from a list, with the
//! reference agent on the other end: what is sent through the model and what is not, how LOOSE
//! and STRICT flows keep to the script, and which replies are refused.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;

use super::*;
use crate::api::model::*;
use crate::service::metrics::judge::Judge;
use crate::service::sim::agent_link::AgentLink;
use crate::service::sim::conversation::{Outcome, Setup, converse};

/// The replies still to give, and the user messages received.
#[derive(Clone, Default)]
struct Model {
    replies: Arc<Mutex<Vec<String>>>,
    heard: Arc<Mutex<Vec<String>>>,
}

async fn complete(State(model): State<Model>, body: axum::Json<serde_json::Value>) -> axum::Json<serde_json::Value> {
    let user = body["messages"][1]["content"].as_str().unwrap_or_default().to_owned();
    model.heard.lock().unwrap().push(user);
    let mut replies = model.replies.lock().unwrap();
    let content =
        if replies.is_empty() { "{\"say\": \"Bye.\", \"hangUp\": true}".to_owned() } else { replies.remove(0) };
    axum::Json(serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]}))
}

async fn model(replies: &[serde_json::Value]) -> (ModelCaller, Model) {
    let model = Model::default();
    *model.replies.lock().unwrap() = replies.iter().map(|r| r.to_string()).collect();
    let app =
        axum::Router::new().route("/v1/chat/completions", axum::routing::post(complete)).with_state(model.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let config =
        CallerConfig { base_url, model: "caller".into(), api_key_env: None, timeout_seconds: None, max_tokens: None };
    (ModelCaller::new(&config).unwrap(), model)
}

fn flow(adherence: &str, steps: serde_json::Value) -> CustomerFlow {
    serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "type": "SCRIPTED", "scriptAdherence": adherence, "graph": steps
    }))
    .unwrap()
}

async fn call(flow: &CustomerFlow, persona: Option<&Persona>, caller: &ModelCaller) -> Result<Outcome, Failed> {
    let variables = BTreeMap::from([("orderNumber".to_owned(), "PX-4417".to_owned())]);
    let setup = Setup {
        call_id: "model-call-0".into(),
        flow,
        variant: None,
        persona,
        variables: &variables,
        end_call_phrases: vec!["goodbye".into()],
        end_call_reasons: Vec::new(),
        silence_timeout_ms: 30_000,
        max_duration_ms: 600_000,
        agent_name: "Brightsmile Dental — Front Desk".into(),
        caller: Some(caller),
    };
    converse(&setup, &AgentLink::Reference, &Judge::Rubric).await
}

fn caller_lines(outcome: &Outcome) -> Vec<&str> {
    let customer = |e: &&TranscriptEntry| e.role == Some(ParticipantType::Customer);
    outcome.transcript.entries.iter().filter(customer).map(|e| e.text.as_str()).collect()
}

fn directions(model: &Model) -> Vec<String> {
    let heard = model.heard.lock().unwrap();
    heard.iter().map(|m| m.rsplit("\n\n").next().unwrap_or_default().to_owned()).collect()
}

#[tokio::test]
async fn a_loose_caller_answers_what_was_not_foreseen_then_does_its_step() {
    let (caller, model) = model(&[
        serde_json::json!({"say": "Oh, sure: it's Maria Lopez.", "hangUp": false, "stepDone": false}),
        serde_json::json!({"say": "I'd like to move my cleaning, please.", "hangUp": false, "stepDone": true}),
        serde_json::json!({"say": "Perfect, that's all. Take care!", "hangUp": true}),
    ])
    .await;
    let f = flow("LOOSE", serde_json::json!([{"type": "CUSTOMER_TURN", "content": "Ask to move your cleaning"}]));
    let outcome = call(&f, None, &caller).await.unwrap();
    assert_eq!(
        caller_lines(&outcome),
        ["Oh, sure: it's Maria Lopez.", "I'd like to move my cleaning, please.", "Perfect, that's all. Take care!"]
    );
    let step = prompt::step("Ask to move your cleaning");
    assert_eq!(directions(&model), [step.as_str(), step.as_str(), prompt::FREE_DIRECTION], "the step is asked again");
    assert_eq!(outcome.ended_status, EndedStatus::CustomerEndedCall);
    assert_eq!(outcome.end_reason, "the caller model ended the call");
    let last = outcome.transcript.entries.last().unwrap();
    assert_eq!(last.role, Some(ParticipantType::Customer), "no one answers a caller who hung up");
}

#[tokio::test]
async fn a_strict_caller_does_its_steps_and_says_goodbye_after_them() {
    let (caller, model) = model(&[
        serde_json::json!({"say": "Move my cleaning, please.", "stepDone": false}),
        serde_json::json!({"say": "Thanks, bye now.", "hangUp": false}),
    ])
    .await;
    let f = flow("STRICT", serde_json::json!([{"type": "CUSTOMER_TURN", "content": "Ask to move your cleaning"}]));
    let outcome = call(&f, None, &caller).await.unwrap();
    assert_eq!(caller_lines(&outcome), ["Move my cleaning, please.", "Thanks, bye now."]);
    assert_eq!(directions(&model), [prompt::step("Ask to move your cleaning").as_str(), prompt::CLOSE_DIRECTION]);
    assert_eq!(outcome.end_reason, "the caller model ended the call", "the caller hangs up after the script");
}

#[tokio::test]
async fn verbatim_lines_and_keys_are_never_sent_through_the_model() {
    let (caller, model) = model(&[serde_json::json!({"say": "Hi, I need to change a delivery."})]).await;
    let f = flow(
        "LOOSE",
        serde_json::json!([
            {"type": "CUSTOMER_TURN", "content": "Say you need to change a delivery"},
            {"type": "CUSTOMER_VERBATIM_TURN", "content": "The order number is {{orderNumber}}, exactly as on the slip."},
            {"type": "CUSTOMER_DTMF", "dtmfDigits": "2"}
        ]),
    );
    // A persona who hesitates: the offline caller would put "Um," in front of some lines.
    let persona: Persona = serde_json::from_value(serde_json::json!({
        "id": "5a0c9e1b-2d3f-4e4a-8b5c-6d7e8f9a0b1c", "name": "hesitant", "hasDisfluencies": true,
        "baseEmotion": "ANXIOUS"
    }))
    .unwrap();
    let outcome = call(&f, Some(&persona), &caller).await.unwrap();
    let lines = caller_lines(&outcome);
    assert_eq!(
        &lines[..3],
        ["Hi, I need to change a delivery.", "The order number is PX-4417, exactly as on the slip.", "[DTMF 2]"]
    );
    let directions = directions(&model);
    assert!(directions.iter().all(|d| !d.contains("PX-4417") && !d.contains("DTMF")), "{directions:#?}");
    let requests = model.heard.lock().unwrap().len();
    assert_eq!(requests, 2, "one step, then the free turn that hung up");
}

#[tokio::test]
async fn replies_that_are_not_a_turn_fail_the_call_as_the_caller_models() {
    let f = flow("LOOSE", serde_json::json!([]));
    for (reply, says) in [
        (serde_json::json!("Sure, I can help with that!"), "not the asked JSON"),
        (serde_json::json!({"say": "  ", "hangUp": false}), "empty line without hanging up"),
        (serde_json::json!({"speech": "hello"}), "not the asked JSON"),
    ] {
        let content = reply.as_str().map_or_else(|| reply.to_string(), str::to_owned);
        let (caller, model) = model(&[]).await;
        *model.replies.lock().unwrap() = vec![content];
        let failed = call(&f, None, &caller).await.unwrap_err();
        let Failed::CallerModel(message) = failed else { panic!("{failed:?} is the caller model's") };
        assert!(message.contains(says), "{reply}: {message}");
    }
}

#[test]
fn a_fenced_object_and_a_silent_hang_up_are_turns() {
    let fenced = read_turn("```json\n{\"say\": \"Hi\", \"hangUp\": false}\n```").unwrap();
    assert_eq!(fenced, Turn { say: "Hi".into(), hang_up: false, step_done: true });
    assert!(read_turn("{\"say\": \"\", \"hangUp\": true}").unwrap().hang_up);
    assert!(read_turn("{\"say\": \"a\\u0000b\"}").unwrap_err().contains("NUL"));
}

#[test]
fn a_caller_model_with_a_zero_bound_or_a_missing_key_is_refused() {
    let config = CallerConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
        api_key_env: None,
        timeout_seconds: Some(0),
        max_tokens: None,
    };
    assert!(ModelCaller::new(&config).unwrap_err().contains("timeout_seconds"));
    let config = CallerConfig { timeout_seconds: None, max_tokens: Some(0), ..config };
    assert!(ModelCaller::new(&config).unwrap_err().contains("max_tokens"));
    let config =
        CallerConfig { max_tokens: None, api_key_env: Some("SWITCHBOARD_TEST_UNSET_CALLER_KEY".into()), ..config };
    assert!(ModelCaller::new(&config).unwrap_err().contains("SWITCHBOARD_TEST_UNSET_CALLER_KEY"));
}
