//! How a simulation reaches the agent under test: the built-in reference agent, or an HTTP
//! request definition that the endpoint dials out through (URL, method, headers and a body
//! template with `{{text}}`, `{{callId}}`, `{{turn}}` and `{{agent}}`).

use super::reference_agent::{self, Heard, ReferenceBuild, Reply};
use crate::api::model::{HttpMethod, HttpRequestDefinition};

#[derive(Debug, Clone)]
pub enum AgentLink {
    /// The reference agent's current build.
    Reference,
    /// The reference agent as another build (one with an injected regression); the current
    /// build here answers exactly as `Reference`.
    ReferenceBuild(ReferenceBuild),
    Http {
        http: reqwest::Client,
        definition: Box<HttpRequestDefinition>,
        base_url: String,
        /// How long one turn's request may take, from sending it to the whole answer.
        turn_timeout: std::time::Duration,
    },
}

/// How long an HTTP agent may take to answer one turn unless the service is told otherwise.
pub const TURN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl AgentLink {
    pub async fn reply(&self, heard: &Heard) -> Result<Reply, String> {
        match self {
            AgentLink::Reference => Ok(reference_agent::reply(heard)),
            AgentLink::ReferenceBuild(build) => Ok(reference_agent::reply_as(*build, heard)),
            AgentLink::Http { http, definition, base_url, turn_timeout } => {
                dial(http, definition, base_url, heard, *turn_timeout).await
            }
        }
    }

    /// Whether the built-in agent answers (in-process, with no session of its own).
    pub fn is_reference(&self) -> bool {
        matches!(self, AgentLink::Reference | AgentLink::ReferenceBuild(_))
    }
}

/// A JSON string's inside, so a value can be put into a JSON body template safely.
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_owned()
}

fn render(template: &str, heard: &Heard, base_url: &str, escape: bool) -> String {
    let value = |v: &str| if escape { json_escaped(v) } else { v.to_owned() };
    template
        .replace("{{baseUrl}}", base_url)
        .replace("{{text}}", &value(&heard.text))
        .replace("{{callId}}", &value(&heard.call_id))
        .replace("{{turn}}", &heard.turn.to_string())
        .replace("{{agent}}", &value(&heard.agent))
}

async fn dial(
    http: &reqwest::Client,
    definition: &HttpRequestDefinition,
    base_url: &str,
    heard: &Heard,
    turn_timeout: std::time::Duration,
) -> Result<Reply, String> {
    let url =
        render(definition.url.as_deref().ok_or("the HTTP request definition has no url")?, heard, base_url, false);
    let method = match definition.method.as_ref() {
        Some(HttpMethod::Get) => reqwest::Method::GET,
        Some(HttpMethod::Put) => reqwest::Method::PUT,
        Some(HttpMethod::Patch) => reqwest::Method::PATCH,
        _ => reqwest::Method::POST,
    };
    let mut request = http.request(method, &url);
    for (name, value) in definition.headers.iter().flatten() {
        if let Some(value) = value.as_str() {
            request = request.header(name, render(value, heard, base_url, false));
        }
    }
    let template = definition.body.clone().unwrap_or_else(|| r#"{"text": "{{text}}", "callId": "{{callId}}"}"#.into());
    let body = render(&template, heard, base_url, true);
    let body = if body.contains("\"turn\"") {
        body
    } else {
        // The reference agent reads the turn and agent name too; other agents ignore them.
        match serde_json::from_str::<serde_json::Value>(&body) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.entry("turn").or_insert(heard.turn.into());
                map.entry("agent").or_insert(heard.agent.clone().into());
                serde_json::Value::Object(map).to_string()
            }
            _ => body,
        }
    };
    let started = std::time::Instant::now();
    let timed_out = |e: &reqwest::Error| {
        e.is_timeout().then(|| {
            format!("the agent at {url} did not answer within {} s (the per-turn timeout)", turn_timeout.as_secs_f64())
        })
    };
    let response = request
        .timeout(turn_timeout)
        .body(body)
        .send()
        .await
        .map_err(|e| timed_out(&e).unwrap_or_else(|| format!("the agent at {url} is unreachable: {e}")))?;
    let status = response.status();
    let reply: serde_json::Value = response.json().await.map_err(|e| {
        timed_out(&e).unwrap_or_else(|| format!("the agent at {url} answered {status} without JSON: {e}"))
    })?;
    if !status.is_success() {
        return Err(format!("the agent at {url} answered {status}"));
    }
    let answer = Answer::of(reply).map_err(|e| format!("the agent at {url} answered {status} unreadably: {e}"))?;
    let text = answer.text().ok_or_else(|| format!("the agent at {url} answered without a text"))?;
    if text.contains('\0') {
        // PostgreSQL cannot keep it in a transcript: the simulation fails saying why.
        return Err(format!("the agent at {url} answered a text holding a NUL character (\\u0000)"));
    }
    let latency_ms = answer.latency_ms.unwrap_or(started.elapsed().as_millis() as i64);
    Ok(Reply { text: text.to_owned(), latency_ms, off_script: answer.off_script.unwrap_or(false) })
}

/// What an HTTP agent answers. Agents differ, so it is read leniently: the text under the
/// first of four names that holds one, and a member of another type than expected counts as
/// absent rather than failing the turn.
#[serde_with::serde_as]
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    text: Option<String>,
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    reply: Option<String>,
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    message: Option<String>,
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    response: Option<String>,
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    latency_ms: Option<i64>,
    #[serde_as(deserialize_as = "serde_with::DefaultOnError")]
    #[serde(default)]
    off_script: Option<bool>,
}

impl Answer {
    /// The answer in a JSON reply: one that is not an object holds none of its members.
    fn of(reply: serde_json::Value) -> serde_json::Result<Answer> {
        match reply {
            serde_json::Value::Object(_) => serde_json::from_value(reply),
            _ => Ok(Answer::default()),
        }
    }

    fn text(&self) -> Option<&str> {
        [&self.text, &self.reply, &self.message, &self.response].into_iter().find_map(|t| t.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use axum::extract::State;
    use axum::http::HeaderMap;

    use super::*;

    type Seen = Arc<Mutex<Option<(HeaderMap, String)>>>;

    async fn agent(State(seen): State<Seen>, headers: HeaderMap, body: String) -> axum::Json<serde_json::Value> {
        *seen.lock().unwrap() = Some((headers, body));
        axum::Json(serde_json::json!({"reply": "Thanks, you're all set.", "latencyMs": 640}))
    }

    #[tokio::test]
    async fn dials_with_the_definitions_method_headers_and_filled_body() {
        let seen: Seen = Arc::default();
        let app = axum::Router::new().route("/hooks/agent", axum::routing::put(agent)).with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let definition: HttpRequestDefinition = serde_json::from_value(serde_json::json!({
            "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
            "url": "{{baseUrl}}/hooks/agent",
            "method": "PUT",
            "headers": {"X-Agent-Key": "abc123", "Content-Type": "application/json"},
            "body": "{\"message\": \"{{text}}\", \"session\": \"{{callId}}\"}"
        }))
        .unwrap();
        let link = AgentLink::Http {
            http: reqwest::Client::new(),
            definition: Box::new(definition),
            base_url: base,
            turn_timeout: TURN_TIMEOUT,
        };
        let heard = Heard {
            text: "She said \"Tuesday\"".into(),
            call_id: "call-9".into(),
            turn: 2,
            agent: "Desk".into(),
            earlier: Vec::new(),
        };
        let reply = link.reply(&heard).await.unwrap();
        assert_eq!((reply.text.as_str(), reply.latency_ms), ("Thanks, you're all set.", 640));
        let (headers, body) = seen.lock().unwrap().clone().unwrap();
        assert_eq!(headers["x-agent-key"], "abc123");
        #[derive(serde::Deserialize)]
        struct Sent {
            message: String,
            session: String,
        }
        let sent: Sent = serde_json::from_str(&body).unwrap();
        assert_eq!(sent.message, "She said \"Tuesday\"", "values are JSON-escaped into the template");
        assert_eq!(sent.session, "call-9");
    }

    #[tokio::test]
    async fn the_reference_agent_answers_as_the_build_the_link_names() {
        let mut differs = false;
        for turn in 1..=5 {
            let heard = Heard {
                text: "[DTMF 2]".into(),
                call_id: "c".into(),
                turn,
                agent: "Brightsmile Dental".into(),
                earlier: Vec::new(),
            };
            let current = AgentLink::Reference.reply(&heard).await.unwrap();
            assert_eq!(AgentLink::ReferenceBuild(ReferenceBuild::Current).reply(&heard).await.unwrap(), current);
            let regressed = AgentLink::ReferenceBuild(ReferenceBuild::IgnoresKeypadChoice).reply(&heard).await.unwrap();
            differs |= regressed.text != current.text;
        }
        assert!(differs, "the regression build answers a press of 2 differently");
        assert!(AgentLink::ReferenceBuild(ReferenceBuild::IgnoresKeypadChoice).is_reference());
    }

    /// A link to the agent at `url`, given `timeout` a turn.
    fn link_to(url: &str, timeout: std::time::Duration) -> AgentLink {
        let definition: HttpRequestDefinition =
            serde_json::from_value(serde_json::json!({"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "url": url}))
                .unwrap();
        AgentLink::Http {
            http: reqwest::Client::new(),
            definition: Box::new(definition),
            base_url: String::new(),
            turn_timeout: timeout,
        }
    }

    /// Serves `app` on a free loopback port; the URL of its `/turn`.
    async fn serve(app: axum::Router) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/turn", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    /// What the caller said first, on a call.
    fn hello() -> Heard {
        Heard { text: "hi".into(), call_id: "c".into(), turn: 0, agent: String::new(), earlier: Vec::new() }
    }

    #[tokio::test]
    async fn an_unreachable_agent_is_an_error_not_a_panic() {
        let link = link_to("http://127.0.0.1:1/x", TURN_TIMEOUT);
        assert!(link.reply(&hello()).await.unwrap_err().contains("unreachable"));
    }

    #[tokio::test]
    async fn an_agent_that_answers_nul_fails_its_simulation_saying_so() {
        let app = axum::Router::new()
            .route("/turn", axum::routing::post(|| async { axum::Json(serde_json::json!({"text": "Hi\u{0}there"})) }));
        let link = link_to(&serve(app).await, TURN_TIMEOUT);
        assert!(link.reply(&hello()).await.unwrap_err().contains("NUL character"));
    }

    #[tokio::test]
    async fn an_agent_slower_than_the_turn_timeout_fails_its_simulation_saying_so() {
        let app = axum::Router::new().route(
            "/turn",
            axum::routing::post(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                axum::Json(serde_json::json!({"text": "Too late"}))
            }),
        );
        let link = link_to(&serve(app).await, std::time::Duration::from_millis(200));
        let error = link.reply(&hello()).await.unwrap_err();
        assert!(error.contains("did not answer within 0.2 s (the per-turn timeout)"), "{error}");
    }

    #[test]
    fn an_answer_is_read_leniently_as_agents_differ() {
        let answer =
            Answer::of(serde_json::json!({"text": 5, "reply": "Booked.", "latencyMs": "fast", "offScript": true}))
                .unwrap();
        assert_eq!(answer.text(), Some("Booked."), "a text that is not a string counts as absent");
        assert_eq!((answer.latency_ms, answer.off_script), (None, Some(true)));
        let answer = Answer::of(serde_json::json!({"response": "Hi", "message": "Hello", "latencyMs": 12})).unwrap();
        assert_eq!((answer.text(), answer.latency_ms), (Some("Hello"), Some(12)), "message comes before response");
        let answer = Answer::of(serde_json::json!(["Booked."])).unwrap();
        assert_eq!(answer.text(), None, "a reply that is not an object holds no text");
    }
}
