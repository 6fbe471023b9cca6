//! One OpenAI-compatible chat-completions client, shared by the judge (`[judge]`) and the model
//! caller (`[caller]`): the key read from the environment variable the config names and sent as
//! a bearer token, each request bounded in time and its answer in size, and every failure a
//! message that names who failed (`judge`, `caller model`) and never holds the key.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The most of an answer that is read: a completion is a few KiB, so anything past this is an
/// endpoint gone wrong, and it must not fill memory.
const ANSWER_BYTES_MAX: usize = 1 << 20;

/// A chat-completions endpoint and the key it is called with.
#[derive(Clone)]
pub struct ChatCompletions {
    /// Who is calling, for messages: "judge", "caller model".
    who: &'static str,
    http: reqwest::Client,
    base_url: String,
    model: String,
    key: Option<String>,
}

impl std::fmt::Debug for ChatCompletions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatCompletions")
            .field("who", &self.who)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
}

/// One message of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: Role::System, content: content.into() }
    }

    pub fn user(content: impl Into<String>) -> Message {
        Message { role: Role::User, content: content.into() }
    }
}

/// One request: the messages and how the answer is wanted.
#[derive(Debug, Clone)]
pub struct Request {
    pub messages: Vec<Message>,
    pub temperature: f64,
    /// Ask for a JSON object (`response_format: json_object`).
    pub json: bool,
    pub max_tokens: Option<u32>,
    /// Sent as `seed`, which endpoints that support it use to repeat an answer.
    pub seed: Option<u64>,
    /// From sending the request to the whole answer.
    pub timeout: Duration,
}

/// The body as the endpoint reads it.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(serialize_with = "whole_as_integer")]
    temperature: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    messages: &'a [Message],
}

/// A whole temperature is sent as an integer (`0`, not `0.0`), as people write it.
fn whole_as_integer<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

#[derive(Serialize)]
struct ResponseFormat {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The parts of an answer that are read.
#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<Said>,
}

#[derive(Deserialize)]
struct Said {
    content: Option<String>,
}

#[derive(Deserialize)]
struct Refusal {
    error: Option<RefusalDetail>,
}

#[derive(Deserialize)]
struct RefusalDetail {
    message: Option<String>,
}

impl ChatCompletions {
    /// A client of `base_url` (`https://api.openai.com/v1`) for `model`, with the key from
    /// `api_key_env` when one is named (an error when that variable is not set).
    pub fn new(
        who: &'static str,
        base_url: &str,
        model: &str,
        api_key_env: Option<&str>,
    ) -> Result<ChatCompletions, String> {
        let key = match api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| format!("{who} key variable ${var} is not set"))?),
            None => None,
        };
        let http = reqwest::Client::builder().build().map_err(|e| e.to_string())?;
        Ok(ChatCompletions {
            who,
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.to_owned(),
            key,
        })
    }

    /// The content of the first choice's message.
    pub async fn complete(&self, request: &Request) -> Result<String, String> {
        self.send(request).await.map_err(|e| self.redact(e))
    }

    /// A message with the key, should anything echo it, blanked out.
    pub fn redact(&self, message: String) -> String {
        match &self.key {
            Some(key) if !key.is_empty() => message.replace(key.as_str(), "<redacted>"),
            _ => message,
        }
    }

    async fn send(&self, request: &Request) -> Result<String, String> {
        let who = self.who;
        let body = Body {
            model: &self.model,
            temperature: request.temperature,
            response_format: request.json.then_some(ResponseFormat { kind: "json_object" }),
            max_tokens: request.max_tokens,
            seed: request.seed,
            messages: &request.messages,
        };
        let mut sending =
            self.http.post(format!("{}/chat/completions", self.base_url)).json(&body).timeout(request.timeout);
        if let Some(key) = &self.key {
            sending = sending.bearer_auth(key);
        }
        let late = |e: &reqwest::Error| {
            e.is_timeout().then(|| format!("{who} did not answer within {} s", request.timeout.as_secs_f64()))
        };
        let response = sending
            .send()
            .await
            .map_err(|e| late(&e).unwrap_or_else(|| format!("{who} unreachable: {}", e.without_url())))?;
        let status = response.status();
        let bytes = read_capped(response).await.map_err(|e| {
            late(&e).unwrap_or_else(|| format!("{who} answered {status} unreadably: {}", e.without_url()))
        })?;
        let Some(bytes) = bytes else {
            return Err(format!("{who} answered {status} with more than {} KiB", ANSWER_BYTES_MAX >> 10));
        };
        if !status.is_success() {
            let refusal = serde_json::from_slice::<Refusal>(&bytes).ok().and_then(|r| r.error).and_then(|e| e.message);
            return Err(format!("{who} answered {status}: {}", refusal.as_deref().unwrap_or("no message")));
        }
        let completion: Completion =
            serde_json::from_slice(&bytes).map_err(|_| format!("{who} answered {status} without JSON"))?;
        completion
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.message)
            .and_then(|m| m.content)
            .ok_or_else(|| format!("{who} reply has no message content"))
    }
}

/// The answer's bytes, or None when it holds more than `ANSWER_BYTES_MAX`.
async fn read_capped(mut response: reqwest::Response) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if bytes.len() + chunk.len() > ANSWER_BYTES_MAX {
            return Ok(None);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Some(bytes))
}
