//! An OpenAI-compatible chat-completions server on 127.0.0.1, written for the tests: each request
//! is answered by a function of its body, and every request is kept with its headers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// How the server answers one request.
pub enum Answer {
    /// `content` as the assistant's message.
    Content(String),
    /// This status and raw body.
    Raw(u16, String),
    /// The content, after this long.
    Late(Duration, String),
}

type Answering = Arc<dyn Fn(&Value) -> Answer + Send + Sync>;

/// The requests received, oldest first.
pub type Seen = Arc<Mutex<Vec<(HeaderMap, Value)>>>;

pub struct ChatModel {
    /// What to name as `base_url` (it ends in `/v1`).
    pub base_url: String,
    pub seen: Seen,
}

async fn complete(State((seen, answer)): State<(Seen, Answering)>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let answer = answer(&body);
    seen.lock().unwrap().push((headers, body));
    let content = match answer {
        Answer::Raw(status, raw) => {
            return (StatusCode::from_u16(status).unwrap(), [("content-type", "application/json")], raw)
                .into_response();
        }
        Answer::Late(wait, content) => {
            tokio::time::sleep(wait).await;
            content
        }
        Answer::Content(content) => content,
    };
    axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": content}}]})).into_response()
}

impl ChatModel {
    pub async fn start(answer: impl Fn(&Value) -> Answer + Send + Sync + 'static) -> ChatModel {
        let seen: Seen = Arc::default();
        let answering: Answering = Arc::new(answer);
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(complete))
            .with_state((seen.clone(), answering));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ChatModel { base_url, seen }
    }

    /// The bodies received, oldest first.
    pub fn bodies(&self) -> Vec<Value> {
        self.seen.lock().unwrap().iter().map(|(_, body)| body.clone()).collect()
    }
}

/// A request's message of `role` (`system`, `user`).
pub fn message<'a>(body: &'a Value, role: &str) -> &'a str {
    let messages = body["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    messages.iter().find(|m| m["role"] == role).and_then(|m| m["content"].as_str()).unwrap_or_default()
}

/// What a caller model request asks for now: its user message's last paragraph.
pub fn direction(body: &Value) -> &str {
    message(body, "user").rsplit("\n\n").next().unwrap_or_default()
}

/// The agent's latest line in a caller model request, lower-cased.
pub fn agent_said(body: &Value) -> String {
    let user = message(body, "user");
    user.lines().filter_map(|l| l.strip_prefix("AGENT: ")).next_back().unwrap_or_default().to_lowercase()
}

/// A caller's turn as the model answers it.
pub fn turn(say: &str, hang_up: bool) -> Answer {
    Answer::Content(json!({"say": say, "hangUp": hang_up, "stepDone": true}).to_string())
}
