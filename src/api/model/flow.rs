//! Customer flows: the conversation a simulated customer has with the agent under test.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::agent::Agent;
use super::common::{IdRef, Timestamp};
use super::persona::{BackgroundNoise, Persona};
use crate::wire_enum;

wire_enum! { pub enum FlowSource { Custom = "CUSTOM", Service = "SERVICE" } }
wire_enum! { pub enum FlowType { Scripted = "SCRIPTED", Improv = "IMPROV", Voicemail = "VOICEMAIL" } }
wire_enum! { pub enum ScriptAdherence { Strict = "STRICT", Loose = "LOOSE" } }
wire_enum! { pub enum BranchingMode { Deterministic = "DETERMINISTIC", Probabilistic = "PROBABILISTIC" } }
wire_enum! {
    /// What the simulated customer does when the agent goes off script.
    pub enum OffScriptReaction { StaySilent = "STAY_SILENT", Redirect = "REDIRECT", RepeatLine = "REPEAT_LINE" }
}
wire_enum! {
    /// What happens once the off-script attempts are used up.
    pub enum OffScriptThen { HangUp = "HANG_UP", Continue = "CONTINUE" }
}
wire_enum! {
    pub enum StepType {
        CustomerLine = "CUSTOMER_LINE", AgentTurn = "AGENT_TURN", KeypadEntry = "KEYPAD_ENTRY", Branch = "BRANCH",
    }
}
wire_enum! { pub enum VariantType { HappyPath = "HAPPY_PATH", EdgeCase = "EDGE_CASE" } }

/// A customer flow.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerFlow {
    pub id: Uuid,
    pub title: Option<String>,
    pub source: Option<FlowSource>,
    pub description: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    #[serde(default)]
    pub agents: Vec<Agent>,
    #[serde(default)]
    pub agent_expectations: Vec<Expectation>,
    #[serde(rename = "type")]
    pub flow_type: Option<FlowType>,
    pub script_adherence: Option<ScriptAdherence>,
    pub off_script_policy: Option<OffScriptPolicy>,
    pub branching_mode: Option<BranchingMode>,
    pub happy_path: Option<FlowVariant>,
    #[serde(default)]
    pub edge_cases: Vec<FlowVariant>,
    #[serde(default)]
    pub graph: Vec<FlowStep>,
    /// Stable slug of a service-curated flow; the caller's own flows have none.
    pub slug: Option<String>,
    /// Metrics the flow owns, collected when a plan includes flow metrics.
    pub metrics: Option<Vec<IdRef>>,
}

impl CustomerFlow {
    pub fn is_voicemail(&self) -> bool {
        self.flow_type == Some(FlowType::Voicemail)
    }
}

/// `{id, prompt}`: something the agent is expected to do.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Expectation {
    pub id: Option<Uuid>,
    pub prompt: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OffScriptPolicy {
    pub reaction: Option<OffScriptReaction>,
    pub max_attempts: Option<i64>,
    pub then: Option<OffScriptThen>,
    pub say_line: Option<String>,
    pub wait_seconds: Option<i64>,
}

/// A happy path or edge case of a flow.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowVariant {
    pub id: Uuid,
    pub title: Option<String>,
    pub preceded_by_customer_flow_id: Option<Uuid>,
    pub preceded_by_customer_flow_variant_id: Option<Uuid>,
    pub is_generated: Option<bool>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub persona_override: Option<Persona>,
    pub environment: Option<Environment>,
    #[serde(default)]
    pub additional_expectations: Vec<Expectation>,
    #[serde(rename = "type")]
    pub variant_type: Option<VariantType>,
    #[serde(default)]
    pub steps: Vec<FlowStep>,
    pub system_key: Option<String>,
}

/// Where a simulated call takes place.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    pub id: Option<Uuid>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub background_noise: Option<BackgroundNoise>,
    pub background_noise_volume: Option<f64>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// One step of a flow's graph; steps nest.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowStep {
    #[serde(rename = "type")]
    pub step_type: Option<StepType>,
    pub node_id: Option<Uuid>,
    #[serde(rename = "ref")]
    pub step_ref: Option<String>,
    #[serde(default)]
    #[schema(no_recursion)]
    pub steps: Vec<FlowStep>,
    #[serde(default)]
    pub merge_into_node_ids: Vec<String>,
    pub content: Option<String>,
    pub off_script_policy: Option<OffScriptPolicy>,
}
