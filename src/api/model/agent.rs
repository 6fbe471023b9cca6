//! Agents, their endpoints, and the HTTP request definitions that dial them.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use super::headers::{self, Masks};
use super::simulation::EndpointType;
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

wire_enum! {
    pub enum EndpointDirection {
        Incoming = "INCOMING", Outgoing = "OUTGOING", IncomingAndOutgoing = "INCOMING_AND_OUTGOING",
    }
}
wire_enum! { pub enum OutboundDialType { None = "NONE", HttpRequest = "HTTP_REQUEST" } }
wire_enum! { pub enum RequestScope { AgentOutboundDial = "AGENT_OUTBOUND_DIAL" } }
wire_enum! {
    pub enum HttpMethod { Get = "GET", Post = "POST", Put = "PUT", Patch = "PATCH", Delete = "DELETE" }
}

/// An agent under test.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub id: Uuid,
    pub name: Option<String>,
    #[serialize_always]
    pub description: Option<String>,
    #[serialize_always]
    pub custom_id: Option<String>,
    /// Local extension: the agent's own prompt, as a config bundle gives it (kept, never run).
    pub prompt: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// How an agent is reached.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentEndpoint {
    pub id: Uuid,
    pub agent_id: Option<Uuid>,
    #[serde(rename = "type")]
    pub endpoint_type: Option<EndpointType>,
    pub value: Option<String>,
    pub environment: Option<String>,
    pub direction: Option<EndpointDirection>,
    pub outbound_dial_type: Option<OutboundDialType>,
    #[serialize_always]
    pub outbound_dial_http_request_definition_id: Option<Uuid>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// Limits of the endpoint update.
pub const ENVIRONMENT_MAX: usize = 100;

/// Body of `PUT /v1/agent/endpoint/{id}`: only environment and outboundDialType change.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentEndpointUpdate {
    #[schema(min_length = 1, max_length = 100)]
    pub environment: Option<String>,
    pub outbound_dial_type: Option<OutboundDialType>,
    /// Accepted in the body, but it may not change the endpoint's definition.
    pub outbound_dial_http_request_definition_id: Option<Uuid>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl AgentEndpointUpdate {
    /// Rules that depend on the endpoint being changed.
    pub fn validate_against(&self, endpoint: &AgentEndpoint) -> Vec<crate::api::validate::Violation> {
        let mut c = Checks::default();
        if let Some(id) = self.outbound_dial_http_request_definition_id
            && Some(id) != endpoint.outbound_dial_http_request_definition_id
        {
            c.invalid("outboundDialHttpRequestDefinitionId", "outboundDialHttpRequestDefinitionId cannot be changed");
        }
        let dial_type = self.outbound_dial_type.as_ref().or(endpoint.outbound_dial_type.as_ref());
        if dial_type == Some(&OutboundDialType::HttpRequest)
            && endpoint.outbound_dial_http_request_definition_id.is_none()
        {
            c.invalid("outboundDialType", "HTTP_REQUEST needs an HTTP request definition, and this endpoint has none");
        }
        c.into_violations()
    }
}

impl Validate for AgentEndpointUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.length(at, "environment", self.environment.as_deref(), 1, Some(ENVIRONMENT_MAX));
        c.known(at, "outboundDialType", self.outbound_dial_type.as_ref());
    }
}

/// The outbound HTTP request that dials an agent.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestDefinition {
    pub id: Uuid,
    pub scope: Option<RequestScope>,
    #[serialize_always]
    pub description: Option<String>,
    pub url: Option<String>,
    pub method: Option<HttpMethod>,
    #[serialize_always]
    pub body: Option<String>,
    #[serialize_always]
    pub parsed_body: Option<serde_json::Value>,
    /// Secret values masked: `••••` and, for a value of 12 characters or more, its last four.
    pub headers: Option<serde_json::Map<String, serde_json::Value>>,
    /// Local extension: the header names the user marked secret (`secretHeaders`).
    pub secret_headers: Option<Vec<String>>,
    /// Whether a config file manages the definition (never, here).
    pub is_config_managed: Option<bool>,
    /// Shown once, in the answer to its creation: the secret requests would be signed with.
    /// The local service signs nothing with it.
    pub signing_secret: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// Body of `POST /v1/agent` (the hosted service's shape).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    #[schema(max_length = 200)]
    pub custom_id: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AgentInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(200));
        c.length(at, "description", self.description.as_deref(), 0, Some(2000));
        c.length(at, "customId", self.custom_id.as_deref(), 0, Some(200));
    }
}

/// Body of `PUT /v1/agent/{id}`: the members given change; `description: null` clears it.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentUpdate {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, max_length = 2000)]
    pub description: Option<Option<String>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AgentUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.length(at, "name", self.name.as_deref(), 1, Some(200));
        c.length(at, "description", self.description.clone().flatten().as_deref(), 0, Some(2000));
    }
}

impl AgentUpdate {
    /// The agent these changes make of `agent`.
    pub fn apply_to(self, mut agent: Agent) -> Agent {
        if let Some(name) = self.name {
            agent.name = Some(name);
        }
        if let Some(description) = self.description {
            agent.description = description;
        }
        agent
    }
}

/// Body of `POST /v1/agent/endpoint` (the hosted service's shape).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentEndpointInput {
    #[schema(value_type = Uuid, required = true)]
    pub agent_id: Option<Uuid>,
    #[schema(value_type = EndpointDirection, required = true)]
    pub direction: Option<EndpointDirection>,
    /// The phone number, E.164.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 32)]
    pub value: Option<String>,
    /// `production` when omitted.
    #[schema(min_length = 1, max_length = 100)]
    pub environment: Option<String>,
    /// NONE when omitted.
    pub outbound_dial_type: Option<OutboundDialType>,
    /// Required when `outboundDialType` is HTTP_REQUEST.
    pub outbound_dial_http_request_definition_id: Option<Uuid>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AgentEndpointInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "agentId", &self.agent_id);
        c.required(at, "direction", &self.direction);
        c.known(at, "direction", self.direction.as_ref());
        c.required(at, "value", &self.value);
        c.length(at, "value", self.value.as_deref(), 1, Some(32));
        c.length(at, "environment", self.environment.as_deref(), 1, Some(100));
        c.known(at, "outboundDialType", self.outbound_dial_type.as_ref());
        if self.outbound_dial_type == Some(OutboundDialType::HttpRequest)
            && self.outbound_dial_http_request_definition_id.is_none()
        {
            c.missing(join(at, "outboundDialHttpRequestDefinitionId"));
        }
    }
}

/// Limits of an HTTP request definition (its headers': `header_limits`).
pub mod request_definition_limits {
    pub const URL_MAX: usize = 2000;
    /// What a definition's `url` starts with: the prefix test below, stated as a pattern.
    pub const URL_PATTERN: &str = "^(http://|https://|\\{\\{baseUrl\\}\\})";
    pub const DESCRIPTION_MAX: usize = 2000;
}

/// Headers the transport sets on a request to an agent, which a definition may not.
pub const TRANSPORT_HEADERS: &[&str] = &["host", "content-length", "transfer-encoding", "connection"];

/// Body of `POST /v1/http-request-definition` (the hosted service's shape): `body` is a
/// template string, or a JSON object that is stored as its text.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestDefinitionInput {
    #[schema(value_type = RequestScope, required = true)]
    pub scope: Option<RequestScope>,
    #[schema(value_type = String, required = true, min_length = 1, max_length = 2000)]
    pub url: Option<String>,
    /// POST when omitted.
    pub method: Option<HttpMethod>,
    #[schema(value_type = Option<Object>)]
    pub body: Option<serde_json::Value>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// Sent with every request. Secret ones (see `secretHeaders`) are kept encrypted and every
    /// read shows them masked.
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Local extension: more header names whose values are secrets, besides those always
    /// treated so (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, names ending
    /// in `-key` or `-token`, names containing `secret` or `password`).
    #[schema(max_items = 20)]
    pub secret_headers: Option<Vec<String>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl HttpRequestDefinitionInput {
    /// The body template as stored: a string as given, an object as its JSON text.
    pub fn body_text(&self) -> Option<String> {
        body_text(self.body.as_ref())
    }
}

/// A body template as stored: a string as given, an object as its JSON text.
pub fn body_text(body: Option<&serde_json::Value>) -> Option<String> {
    match body {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(text)) => Some(text.clone()),
        Some(other) => Some(other.to_string()),
    }
}

impl Validate for HttpRequestDefinitionInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "scope", &self.scope);
        c.known(at, "scope", self.scope.as_ref());
        c.required(at, "url", &self.url);
        let request = Request { url: self.url.as_deref(), method: self.method.as_ref(), body: self.body.as_ref() };
        request.check(c, at, self.description.as_deref());
        headers::check_headers(c, at, self.headers.as_ref(), TRANSPORT_HEADERS, TRANSPORTS, Masks::Refused);
        headers::check_secret_headers(c, at, self.secret_headers.as_deref());
    }
}

/// Why a definition may not set a transport header.
const TRANSPORTS: &str = "is set by the transport on every request";

/// Body of `PUT /v1/http-request-definition/{id}` (the hosted service's shape): the members
/// given replace the stored ones. A header sent back masked, as a read shows it, keeps the
/// value stored under its name.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestDefinitionUpdate {
    #[schema(min_length = 1, max_length = 2000)]
    pub url: Option<String>,
    pub method: Option<HttpMethod>,
    #[schema(value_type = Option<Object>)]
    pub body: Option<serde_json::Value>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// The whole header map (the headers left out are dropped); a masked value keeps the
    /// stored one.
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Local extension: replaces the names marked secret.
    #[schema(max_items = 20)]
    pub secret_headers: Option<Vec<String>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for HttpRequestDefinitionUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        let request = Request { url: self.url.as_deref(), method: self.method.as_ref(), body: self.body.as_ref() };
        request.check(c, at, self.description.as_deref());
        headers::check_headers(c, at, self.headers.as_ref(), TRANSPORT_HEADERS, TRANSPORTS, Masks::KeepStored);
        headers::check_secret_headers(c, at, self.secret_headers.as_deref());
    }
}

/// What a creation and an update of a definition check alike.
struct Request<'a> {
    url: Option<&'a str>,
    method: Option<&'a HttpMethod>,
    body: Option<&'a serde_json::Value>,
}

impl Request<'_> {
    fn check(&self, c: &mut Checks, at: &str, description: Option<&str>) {
        use request_definition_limits::*;
        c.length(at, "url", self.url, 1, Some(URL_MAX));
        if let Some(url) = self.url
            && !(url.starts_with("http://") || url.starts_with("https://") || url.starts_with("{{baseUrl}}"))
        {
            c.invalid(join(at, "url"), "url must start with http://, https:// or {{baseUrl}}");
        }
        c.known(at, "method", self.method);
        if matches!(self.method, Some(HttpMethod::Delete)) {
            c.invalid(join(at, "method"), "method is one of POST, PUT, PATCH or GET");
        }
        c.length(at, "description", description, 0, Some(DESCRIPTION_MAX));
        if let Some(body) = self.body
            && !(body.is_string() || body.is_object() || body.is_null())
        {
            c.invalid(join(at, "body"), "body is a template string or a JSON object");
        }
    }
}
