//! Agents, their endpoints, and the HTTP request definitions that dial them.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use super::simulation::EndpointType;
use crate::api::validate::{Checks, Validate};
use crate::wire_enum;

wire_enum! { pub enum EndpointDirection { Incoming = "INCOMING", Outgoing = "OUTGOING" } }
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
    pub description: Option<String>,
    pub custom_id: Option<String>,
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
        c.unknown(at, &self.unknown_fields);
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
    pub description: Option<String>,
    pub url: Option<String>,
    pub method: Option<HttpMethod>,
    pub body: Option<String>,
    pub parsed_body: Option<serde_json::Value>,
    pub headers: Option<serde_json::Map<String, serde_json::Value>>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}
