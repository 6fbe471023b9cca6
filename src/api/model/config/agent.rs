//! The bundle's agents (with their endpoints), HTTP request definitions and tools.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::config_limits::*;
use super::{check_name, check_texts};
use crate::api::model::common::UnknownFields;
use crate::api::model::{EndpointDirection, EndpointType, HttpMethod, OutboundDialType, header_limits};
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

/// `kind: agent`: an agent under test and how it is reached.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentConfig {
    pub name: Option<String>,
    /// The agent's name as people see it; `name` when omitted.
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub custom_id: Option<String>,
    /// The agent's own prompt, kept for reference (the local service does not run it).
    pub prompt: Option<String>,
    pub endpoints: Option<Vec<AgentEndpointConfig>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AgentConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "customId", self.custom_id.as_deref(), 0, Some(NAME_MAX));
        c.length(at, "prompt", self.prompt.as_deref(), 0, Some(PROMPT_MAX));
        c.items(
            at,
            "endpoints",
            self.endpoints.as_deref(),
            0,
            Some(crate::api::model::run_plan_limits::AGENT_ENDPOINTS_MAX),
        );
        c.each(at, "endpoints", self.endpoints.as_deref());
    }
}

/// One endpoint of a bundle agent: a phone number or a websocket URL.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentEndpointConfig {
    pub value: Option<String>,
    /// PHONE when omitted.
    #[serde(rename = "type")]
    pub endpoint_type: Option<EndpointType>,
    /// INCOMING when omitted.
    pub direction: Option<EndpointDirection>,
    /// `production` when omitted.
    pub environment: Option<String>,
    /// NONE when omitted.
    pub outbound_dial_type: Option<OutboundDialType>,
    /// The `name` of the HTTP request definition that dials the agent (HTTP_REQUEST).
    pub outbound_dial_http_request_definition: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AgentEndpointConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "value", &self.value);
        c.length(at, "value", self.value.as_deref(), 1, Some(URL_MAX));
        c.one_of(at, "type", self.endpoint_type.as_ref(), &[EndpointType::Phone, EndpointType::Websocket]);
        c.known(at, "direction", self.direction.as_ref());
        c.length(at, "environment", self.environment.as_deref(), 1, Some(crate::api::model::ENVIRONMENT_MAX));
        c.known(at, "outboundDialType", self.outbound_dial_type.as_ref());
        let definition = self.outbound_dial_http_request_definition.as_deref();
        c.length(at, "outboundDialHttpRequestDefinition", definition, 1, Some(NAME_MAX));
        if self.outbound_dial_type == Some(OutboundDialType::HttpRequest) && definition.is_none() {
            c.missing(join(at, "outboundDialHttpRequestDefinition"));
        }
    }
}

/// How long an endpoint's value (a number or a URL) may be.
pub const URL_MAX: usize = 2_000;

/// `kind: httpRequestDefinition`: the request that dials an agent out.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestDefinitionConfig {
    pub name: Option<String>,
    pub url: Option<String>,
    /// POST when omitted.
    pub method: Option<HttpMethod>,
    /// The body template.
    pub body: Option<String>,
    pub description: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for HttpRequestDefinitionConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use crate::api::model::request_definition_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.required(at, "url", &self.url);
        c.length(at, "url", self.url.as_deref(), 1, Some(URL_MAX));
        if let Some(url) = &self.url
            && !(url.starts_with("http://") || url.starts_with("https://") || url.starts_with("{{baseUrl}}"))
        {
            c.invalid(join(at, "url"), "url must start with http://, https:// or {{baseUrl}}");
        }
        c.one_of(
            at,
            "method",
            self.method.as_ref(),
            &[HttpMethod::Post, HttpMethod::Put, HttpMethod::Patch, HttpMethod::Get],
        );
        c.length(at, "body", self.body.as_deref(), 0, Some(PROMPT_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        let headers = self.headers.as_ref();
        if headers.is_some_and(|h| h.len() > header_limits::HEADERS_MAX) {
            c.invalid(join(at, "headers"), format!("headers must have at most {} entries", header_limits::HEADERS_MAX));
        }
        for (name, value) in headers.into_iter().flatten() {
            let param = join(&join(at, "headers"), name);
            if name.is_empty() || name.len() > header_limits::HEADER_NAME_MAX || !name.bytes().all(is_token) {
                c.invalid(&param, format!("{param}: a header name is letters, digits and !#$%&'*+-.^_`|~"));
            }
            if value.len() > header_limits::HEADER_VALUE_MAX || value.chars().any(char::is_control) {
                c.invalid(
                    &param,
                    format!(
                        "{param}: a header value is printable text of at most {} characters",
                        header_limits::HEADER_VALUE_MAX
                    ),
                );
            }
            if crate::api::model::TRANSPORT_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                c.invalid(&param, format!("{param} is set by the transport on every request"));
            }
        }
    }
}

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

wire_enum! { pub enum ToolHandlerType { Http = "http" } }
wire_enum! {
    /// The type of a tool parameter.
    pub enum ToolParameterType { String = "string", Number = "number", Boolean = "boolean" }
}

/// `kind: tool`: a tool an agent may call, and what calling it should yield.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    pub name: Option<String>,
    /// The `name` of the agent that has the tool.
    pub agent: Option<String>,
    pub description: Option<String>,
    pub expected_result: Option<String>,
    pub handler: Option<ToolHandlerConfig>,
    pub invocation_criteria: Option<String>,
    pub parameters: Option<BTreeMap<String, ToolParameterType>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ToolConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "agent", self.agent.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "expectedResult", self.expected_result.as_deref(), 0, Some(TEXT_MAX));
        c.length(at, "invocationCriteria", self.invocation_criteria.as_deref(), 0, Some(TEXT_MAX));
        if let Some(handler) = &self.handler {
            handler.check(c, &join(at, "handler"));
        }
        let parameters = self.parameters.as_ref();
        if parameters.is_some_and(|p| p.len() > LIST_MAX) {
            c.invalid(join(at, "parameters"), format!("parameters must have at most {LIST_MAX} entries"));
        }
        for (name, kind) in parameters.into_iter().flatten() {
            c.length(&join(at, "parameters"), name, Some(name), 1, Some(NAME_MAX));
            c.known(&join(at, "parameters"), name, Some(kind));
        }
    }
}

/// How a tool is served: an HTTP call.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolHandlerConfig {
    #[serde(rename = "type")]
    pub handler_type: Option<ToolHandlerType>,
    pub url: Option<String>,
    pub method: Option<HttpMethod>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ToolHandlerConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "type", &self.handler_type);
        c.known(at, "type", self.handler_type.as_ref());
        c.required(at, "url", &self.url);
        c.length(at, "url", self.url.as_deref(), 1, Some(URL_MAX));
        c.known(at, "method", self.method.as_ref());
    }
}

/// Checks a list of names referring to other resources.
pub(crate) fn check_names(c: &mut Checks, at: &str, member: &str, names: Option<&[String]>) {
    check_texts(c, at, member, names, NAME_MAX);
}
