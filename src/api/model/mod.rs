//! The interface as Rust types: one file per resource group, camelCase on the wire.

pub mod agent;
pub mod alert_status;
pub mod annotation;
pub mod benchmark;
pub mod call;
pub mod collection;
pub mod common;
pub mod config;
pub mod environment;
pub mod event;
pub mod flow;
pub mod flow_input;
pub mod flow_variant_input;
pub mod headers;
pub mod issue;
pub mod job_status;
pub mod judged;
pub mod knowledge_base;
pub mod metric;
pub mod persona;
pub mod policy;
pub mod results;
pub mod run_plan;
pub mod run_plan_update;
pub mod schedule;
pub mod schema_rules;
pub mod simulation;
pub mod tool;
pub mod verdict;
pub mod webhook;

pub use agent::*;
pub use alert_status::*;
pub use annotation::*;
pub use benchmark::*;
pub use call::*;
pub use collection::*;
pub use common::*;
pub use environment::*;
pub use event::*;
pub use flow::*;
pub use flow_input::*;
pub use headers::header_limits;
pub use issue::*;
pub use judged::*;
pub use knowledge_base::*;
pub use metric::*;
pub use persona::*;
pub use policy::*;
pub use results::*;
pub use run_plan::*;
pub use run_plan_update::*;
pub use schedule::*;
pub use schema_rules::rules_beyond_the_generator;
pub use simulation::*;
pub use tool::*;
pub use verdict::*;
pub use webhook::*;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

crate::wire_enum! {
    /// What a key may do (local service extension on health).
    pub enum KeyScope { Full = "full", Read = "read" }
}

/// `GET /v1/health`: whether the key was accepted, and for which account (the spec's members),
/// the service's state (the hosted SDK's `status`, `timestamp`, `version`), and what the key may
/// do (`scope`, ours). A 200 means the key was accepted, so `authenticated` defaults to true
/// where a service leaves it out.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Health {
    #[serde(default = "accepted")]
    pub authenticated: bool,
    #[serde(default)]
    pub account: String,
    /// `healthy`, `degraded` or `unhealthy` on the hosted service.
    pub status: Option<String>,
    pub timestamp: Option<Timestamp>,
    pub version: Option<String>,
    /// `read` for a key that cannot write; absent where a service does not say.
    pub scope: Option<KeyScope>,
}

fn accepted() -> bool {
    true
}

/// `data` of a persona deletion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Deleted {
    pub id: uuid::Uuid,
    pub deleted: bool,
}

/// The inputs that keep unknown members and refuse them (`validate()` names each), so their
/// schemas say `additionalProperties: false`. `tests/service_inputs.rs` probes every object
/// a request body can hold and checks this list against what the service does.
pub fn inputs_refusing_unknown_members() -> Vec<std::borrow::Cow<'static, str>> {
    vec![
        AgentInput::name(),
        AgentUpdate::name(),
        AgentEndpointInput::name(),
        HttpRequestDefinitionInput::name(),
        HttpRequestDefinitionUpdate::name(),
        AgentEndpointUpdate::name(),
        AnnotationInput::name(),
        CallInput::name(),
        CollectionJobInput::name(),
        IssueInput::name(),
        IssueUpdate::name(),
        KnowledgeBaseInput::name(),
        KnowledgeFile::name(),
        MetricDefinitionUpdate::name(),
        MetricVariantInput::name(),
        ThresholdInput::name(),
        MetricDefinitionInput::name(),
        PersonaFields::name(),
        PersonaUpdate::name(),
        PolicyInput::name(),
        PolicyUpdate::name(),
        RunPlanInput::name(),
        RunPlanUpdate::name(),
        Schedule::name(),
        ScenarioSelection::name(),
        FlowSelection::name(),
        MetricReference::name(),
        RunRequest::name(),
        WebhookInput::name(),
        EnvironmentInput::name(),
        EnvironmentUpdate::name(),
        FlowInput::name(),
        FlowUpdate::name(),
        FlowStepInput::name(),
        GraphInput::name(),
        VariantInput::name(),
        EdgeCaseInput::name(),
        ExpectationInput::name(),
        config::ConfigBundle::name(),
    ]
}

/// Limits the schema generator cannot state, as (schema, JSON pointer inside it, keyword,
/// value): the entries of a `Vec<String>`, a list inside an untagged enum, and what a header
/// map's names and values may be. The document adds them from here.
pub fn limits_beyond_the_generator()
-> Vec<(std::borrow::Cow<'static, str>, &'static str, &'static str, serde_json::Value)> {
    let mut limits: Vec<(std::borrow::Cow<'static, str>, &'static str, &'static str, serde_json::Value)> = vec![
        (
            RunPlanInput::name(),
            "/properties/endCallPhrases/items",
            "maxLength",
            run_plan_limits::END_CALL_PHRASE_MAX.into(),
        ),
        (
            RunPlanInput::name(),
            "/properties/endCallReasons/items",
            "maxLength",
            run_plan_limits::END_CALL_REASON_MAX.into(),
        ),
        (
            RunPlanUpdate::name(),
            "/properties/endCallPhrases/items",
            "maxLength",
            run_plan_limits::END_CALL_PHRASE_MAX.into(),
        ),
        (
            RunPlanUpdate::name(),
            "/properties/endCallReasons/items",
            "maxLength",
            run_plan_limits::END_CALL_REASON_MAX.into(),
        ),
        (PersonaFields::name(), "/properties/idleMessages/items", "maxLength", persona_limits::IDLE_MESSAGE_MAX.into()),
        (PersonaUpdate::name(), "/properties/idleMessages/items", "maxLength", persona_limits::IDLE_MESSAGE_MAX.into()),
        (RunVariables::name(), "/oneOf/1", "maxItems", run_plan_limits::RUN_VARIABLES_MAX.into()),
        (FlowStepInput::name(), "/properties/mergeIntoNodeIds/items", "maxLength", flow_limits::REF_MAX.into()),
    ];
    limits.extend(header_map_limits(WebhookInput::name(), headers::Masks::Refused));
    limits.extend(header_map_limits(HttpRequestDefinitionInput::name(), headers::Masks::Refused));
    limits.extend(header_map_limits(HttpRequestDefinitionUpdate::name(), headers::Masks::KeepStored));
    limits
}

/// A header map's limits, stated on the input `name`'s `headers` and `secretHeaders`.
fn header_map_limits(
    name: std::borrow::Cow<'static, str>,
    masks: headers::Masks,
) -> Vec<(std::borrow::Cow<'static, str>, &'static str, &'static str, serde_json::Value)> {
    use header_limits::*;
    let header_name = serde_json::json!({ "pattern": headers::HEADER_NAME_PATTERN, "maxLength": HEADER_NAME_MAX });
    let value = match masks {
        headers::Masks::Refused => serde_json::json!({
            "type": "string",
            "pattern": headers::HEADER_VALUE_PATTERN,
            "maxLength": HEADER_VALUE_MAX,
            "description": "Printable ASCII without control characters.",
        }),
        headers::Masks::KeepStored => serde_json::json!({
            "type": "string",
            "pattern": headers::HEADER_VALUE_OR_MASK_PATTERN,
            "maxLength": HEADER_VALUE_MAX,
            "description": "Printable ASCII without control characters, or the mask a read showed (`••••…`), which keeps the value stored under the name.",
        }),
    };
    vec![
        (name.clone(), "/properties/headers", "maxProperties", HEADERS_MAX.into()),
        (name.clone(), "/properties/headers", "propertyNames", header_name),
        (name.clone(), "/properties/headers", "additionalProperties", value),
        (name.clone(), "/properties/secretHeaders/items", "pattern", headers::HEADER_NAME_PATTERN.into()),
        (name, "/properties/secretHeaders/items", "maxLength", HEADER_NAME_MAX.into()),
    ]
}
