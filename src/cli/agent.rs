//! `--agent-url`: test the user's own agent. An agent, an HTTP request definition (URL,
//! method, headers, body template) and an endpoint that dials out through it are created on
//! the fly with the client, and the run's plan is pointed at that endpoint. Settable with
//! flags, or under `agent:` in the plan file (flags win). The request and reply shapes are in
//! `docs/cli.md`.

use std::collections::BTreeMap;

use clap::Args;
use futures_util::TryStreamExt;
use serde::Deserialize;

use super::exit::Failure;
use crate::api::Client;
use crate::api::model::{
    Agent, AgentEndpoint, AgentEndpointInput, AgentInput, CursorPage, EndpointDirection, HttpMethod,
    HttpRequestDefinition, HttpRequestDefinitionInput, HttpRequestDefinitionUpdate, IdRef, OutboundDialType,
    RequestScope,
};
use crate::api::operations::{ListQuery, routes};

/// The body sent when no template is given: what the agent heard, and where in which call.
pub const DEFAULT_BODY: &str =
    r#"{"text": "{{text}}", "callId": "{{callId}}", "turn": {{turn}}, "agent": "{{agent}}"}"#;

/// A number no real phone has: the endpoint is dialled over HTTP, never by phone.
const PLACEHOLDER_NUMBER: &str = "+15550100000";
/// The environment of the endpoints `--agent-url` makes, by which a later run finds them.
const ENVIRONMENT: &str = "switchboard-agent-url";
/// How an agent `--agent-url` made is described, by which a later run tells it from one a
/// person made under the same name.
const DESCRIBED: &str = "Dialled by switchboard --agent-url";

/// An agent's name when none is given: where it is dialled ("Agent at 127.0.0.1:8080/turn").
fn name_from_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => {
            let host = parsed.host_str().unwrap_or_default();
            let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
            format!("Agent at {host}{port}{}", parsed.path().trim_end_matches('/'))
        }
        Err(_) => format!("Agent at {url}"),
    }
}

#[derive(Debug, Clone, Default, Args)]
pub struct AgentArgs {
    /// Dial your own agent at this URL for every turn (see docs/cli.md for the request and reply).
    #[arg(long)]
    pub agent_url: Option<String>,
    /// HTTP method of the agent request (POST, PUT, PATCH or GET).
    #[arg(long, requires = "agent_url")]
    pub agent_method: Option<String>,
    /// A header of the agent request, `Name: value`; repeatable.
    #[arg(long = "agent-header", value_name = "NAME: VALUE")]
    pub agent_headers: Vec<String>,
    /// The request body template ({{text}}, {{callId}}, {{turn}}, {{agent}}); `@FILE` reads a file.
    #[arg(long)]
    pub agent_body: Option<String>,
    /// The name the agent gets (filled into {{agent}}).
    #[arg(long)]
    pub agent_name: Option<String>,
}

/// `agent:` in a plan file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSection {
    pub url: Option<String>,
    pub method: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    pub body: Option<serde_json::Value>,
    pub name: Option<String>,
}

/// The agent to dial, flags over the file.
#[derive(Debug, Clone)]
pub struct HttpAgent {
    pub url: String,
    pub method: HttpMethod,
    pub headers: BTreeMap<String, String>,
    pub body: serde_json::Value,
    pub name: String,
}

impl HttpAgent {
    /// The agent the flags and the file's `agent:` ask for, if any.
    pub fn from(args: &AgentArgs, section: Option<AgentSection>) -> Result<Option<HttpAgent>, Failure> {
        let section = section.unwrap_or_default();
        let Some(url) = args.agent_url.clone().or(section.url) else {
            if !args.agent_headers.is_empty() || args.agent_body.is_some() || args.agent_method.is_some() {
                return Err(Failure::invalid(
                    "--agent-url",
                    "--agent-header, --agent-body and --agent-method need --agent-url",
                ));
            }
            return Ok(None);
        };
        let method_text = args.agent_method.clone().or(section.method).unwrap_or_else(|| "POST".into());
        let method = match method_text.to_ascii_uppercase().as_str() {
            "POST" => HttpMethod::Post,
            "PUT" => HttpMethod::Put,
            "PATCH" => HttpMethod::Patch,
            "GET" => HttpMethod::Get,
            other => {
                return Err(Failure::invalid(
                    "--agent-method",
                    format!("--agent-method is POST, PUT, PATCH or GET, not {other:?}"),
                ));
            }
        };
        let mut headers = section.headers;
        for header in &args.agent_headers {
            let (name, value) = header.split_once(':').ok_or_else(|| {
                Failure::invalid("--agent-header", format!("--agent-header takes `Name: value`, not {header:?}"))
            })?;
            headers.insert(name.trim().to_string(), value.trim().to_string());
        }
        if !headers.keys().any(|k| k.eq_ignore_ascii_case("content-type")) {
            headers.insert("Content-Type".into(), "application/json".into());
        }
        let body = match &args.agent_body {
            Some(body) => match body.strip_prefix('@') {
                Some(path) => serde_json::Value::String(
                    std::fs::read_to_string(path)
                        .map_err(|e| Failure::invalid("--agent-body", format!("cannot read {path}: {e}")))?,
                ),
                None => serde_json::Value::String(body.clone()),
            },
            None => section.body.unwrap_or_else(|| serde_json::Value::String(DEFAULT_BODY.into())),
        };
        let name = args.agent_name.clone().or(section.name).unwrap_or_else(|| name_from_url(&url));
        Ok(Some(HttpAgent { url, method, headers, body, name }))
    }

    /// The endpoint to run against: the one an earlier run registered for an agent of this name
    /// (its request brought up to date), or a new agent, request definition and endpoint. One
    /// agent per name, so later runs of it pair with earlier ones in `diff` and `flaky`.
    pub async fn provision(&self, client: &Client) -> Result<IdRef, Failure> {
        let Some(agent) = self.registered_agent(client).await? else { return self.create(client).await };
        let endpoints: CursorPage<AgentEndpoint> = client
            .list_page(routes::AGENT_ENDPOINTS, &ListQuery::default().filter("agentId", agent.id).limit(50))
            .await?;
        let ours = endpoints.data.into_iter().find(|e| {
            e.environment.as_deref() == Some(ENVIRONMENT) && e.outbound_dial_type == Some(OutboundDialType::HttpRequest)
        });
        let Some(endpoint) = ours else { return self.create_endpoint(client, agent.id).await };
        let Some(definition_id) = endpoint.outbound_dial_http_request_definition_id else {
            return self.create_endpoint(client, agent.id).await;
        };
        let definition = client.get_http_request_definition(definition_id).await?;
        let changed = self.changes(&definition);
        if !changed.is_empty() {
            let update = HttpRequestDefinitionUpdate {
                url: Some(self.url.clone()),
                method: Some(self.method.clone()),
                body: Some(self.body.clone()),
                headers: Some(self.headers.clone()),
                ..Default::default()
            };
            client.update_http_request_definition(definition_id, &update).await?;
            eprintln!("agent {:?}: its request changed ({}); updated", self.name, changed.join(", "));
        }
        Ok(IdRef { id: endpoint.id })
    }

    /// The agent an earlier `--agent-url` run registered under this name.
    async fn registered_agent(&self, client: &Client) -> Result<Option<Agent>, Failure> {
        let made_here = |a: &Agent| a.description.as_deref().is_some_and(|d| d.starts_with(DESCRIBED));
        let mut agents = std::pin::pin!(client.list_all::<Agent>(routes::AGENTS, ListQuery::default().limit(50)));
        while let Some(agent) = agents.try_next().await? {
            if agent.name.as_deref() == Some(self.name.as_str()) && made_here(&agent) {
                return Ok(Some(agent));
            }
        }
        Ok(None)
    }

    /// What differs between the stored request and this one (secret values compared by their
    /// masks, which is all a read shows).
    fn changes(&self, definition: &HttpRequestDefinition) -> Vec<&'static str> {
        let mut changed = Vec::new();
        if definition.url.as_deref() != Some(self.url.as_str()) {
            changed.push("url");
        }
        if definition.method.as_ref() != Some(&self.method) {
            changed.push("method");
        }
        if definition.body != crate::api::model::body_text(Some(&self.body)) {
            changed.push("body");
        }
        let stored: BTreeMap<String, String> = definition
            .headers
            .iter()
            .flatten()
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
            .collect();
        if stored != crate::api::model::headers::masked(&self.headers, &[]) {
            changed.push("headers");
        }
        changed
    }

    /// Creates the agent, its request definition and its endpoint; the endpoint to run against.
    async fn create(&self, client: &Client) -> Result<IdRef, Failure> {
        let context = |what: &str| {
            format!(
                "cannot create the {what} for --agent-url (the service needs POST {what} routes, as the local service and the hosted one have)"
            )
        };
        let agent = client
            .create_agent(&AgentInput {
                name: Some(self.name.clone()),
                description: Some(format!("{DESCRIBED} over HTTP at {}", self.url)),
                ..Default::default()
            })
            .await
            .map_err(|e| Failure::from(e).context(context("/v1/agent")))?;
        self.create_endpoint(client, agent.id).await
    }

    /// A request definition and an endpoint that dials through it, for `agent`.
    async fn create_endpoint(&self, client: &Client, agent: uuid::Uuid) -> Result<IdRef, Failure> {
        let context = |what: &str| format!("cannot create the {what} for --agent-url");
        let definition = client
            .create_http_request_definition(&HttpRequestDefinitionInput {
                scope: Some(RequestScope::AgentOutboundDial),
                url: Some(self.url.clone()),
                method: Some(self.method.clone()),
                body: Some(self.body.clone()),
                description: Some(
                    "Made by switchboard --agent-url: one request per turn of the simulated caller".into(),
                ),
                headers: Some(self.headers.clone()),
                ..Default::default()
            })
            .await
            .map_err(|e| Failure::from(e).context(context("/v1/http-request-definition")))?;
        let endpoint = client
            .create_agent_endpoint(&AgentEndpointInput {
                agent_id: Some(agent),
                direction: Some(EndpointDirection::IncomingAndOutgoing),
                value: Some(PLACEHOLDER_NUMBER.into()),
                environment: Some(ENVIRONMENT.into()),
                outbound_dial_type: Some(OutboundDialType::HttpRequest),
                outbound_dial_http_request_definition_id: Some(definition.id),
                ..Default::default()
            })
            .await
            .map_err(|e| Failure::from(e).context(context("/v1/agent/endpoint")))?;
        Ok(IdRef { id: endpoint.id })
    }
}
