//! Customer flows: the conversation a simulated customer has with the agent under test.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::agent::Agent;
use super::common::{IdRef, Timestamp};
use super::persona::{BackgroundNoise, Persona};
use crate::wire_enum;

// The hosted interface's values (its SDK's customer flow types). Older local values are
// mapped onto these where stored data is read (`service::legacy`).
wire_enum! {
    /// Who owns a flow: the service (curated, SYSTEM) or the caller's project (CUSTOM).
    pub enum FlowSource { System = "SYSTEM", Custom = "CUSTOM" }
}
wire_enum! {
    /// The kind of a flow; each of its variants (happy path, edge cases) has the same type.
    pub enum FlowType { Scripted = "SCRIPTED", Improv = "IMPROV", Voicemail = "VOICEMAIL" }
}
wire_enum! { pub enum ScriptAdherence { Loose = "LOOSE", Strict = "STRICT" } }
wire_enum! {
    /// How the caller picks among a step's alternatives: always the first (DETERMINISTIC), or
    /// one chosen per simulation (ADAPTIVE; here a generator seeded from the simulation).
    pub enum BranchingMode { Deterministic = "DETERMINISTIC", Adaptive = "ADAPTIVE" }
}
wire_enum! {
    /// What the simulated customer does when the agent goes off script.
    pub enum OffScriptReaction { StaySilent = "STAY_SILENT", Repeat = "REPEAT", Respond = "RESPOND", Say = "SAY" }
}
wire_enum! {
    /// What happens once the off-script attempts are used up.
    pub enum OffScriptThen { HangUp = "HANG_UP", MoveOn = "MOVE_ON", Adapt = "ADAPT", HangUpInvalidate = "HANG_UP_INVALIDATE" }
}
wire_enum! {
    /// What a step of a flow's script is.
    pub enum StepType {
        AgentTurn = "AGENT_TURN",
        CustomerTurn = "CUSTOMER_TURN",
        CustomerFirstMessage = "CUSTOMER_FIRST_MESSAGE",
        CustomerVerbatimTurn = "CUSTOMER_VERBATIM_TURN",
        CustomerSilence = "CUSTOMER_SILENCE",
        CustomerDtmf = "CUSTOMER_DTMF",
        AgentDtmf = "AGENT_DTMF",
        Voicemail = "VOICEMAIL",
        CustomerHandoff = "CUSTOMER_HANDOFF",
        ScenarioLink = "SCENARIO_LINK",
    }
}

/// The members of a step that only some step types take (the hosted interface's step shapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepMember {
    Content,
    OffScript,
    DtmfDigits,
    SilenceDuration,
    HandoffPersona,
    LinkedFlow,
}

impl StepType {
    /// Whether the simulated customer says this step's content.
    pub fn is_customer_line(&self) -> bool {
        matches!(self, Self::CustomerTurn | Self::CustomerFirstMessage | Self::CustomerVerbatimTurn)
    }

    /// Whether a step of this type takes `member`; the bundle's and the routes' checks both ask.
    pub fn takes(&self, member: StepMember) -> bool {
        match member {
            StepMember::Content => {
                matches!(
                    self,
                    Self::AgentTurn | Self::CustomerTurn | Self::CustomerFirstMessage | Self::CustomerVerbatimTurn
                )
            }
            StepMember::OffScript => *self == Self::AgentTurn,
            StepMember::DtmfDigits => matches!(self, Self::CustomerDtmf | Self::AgentDtmf),
            StepMember::SilenceDuration => *self == Self::CustomerSilence,
            StepMember::HandoffPersona => *self == Self::CustomerHandoff,
            StepMember::LinkedFlow => *self == Self::ScenarioLink,
        }
    }

    /// Whether a flow of type `flow` may hold this step: VOICEMAIL steps belong to the
    /// service's own voicemail flows, which no caller writes.
    pub fn allowed_in(&self, flow: &FlowType) -> bool {
        *self != Self::Voicemail || *flow == FlowType::Voicemail
    }
}

/// Limits of a flow's graph (the hosted interface's: "at most 100 steps across at most 25
/// paths"), checked for a bundle's flows and the flow routes alike.
pub mod flow_limits {
    pub const STEPS_MAX: usize = 100;
    pub const PATHS_MAX: usize = 25;
    pub const TITLE_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 5_000;
    pub const PROMPT_MAX: usize = 20_000;
    pub const CONTENT_MAX: usize = 5_000;
    pub const EXPECTATIONS_MAX: usize = 50;
    pub const EDGE_CASES_MAX: usize = 50;
    /// A step's `ref`, and so a merge target's name (a node id or a ref).
    pub const REF_MAX: usize = 100;
    pub const MERGES_MAX: usize = 20;
    pub const STAGE_NAME_MAX: usize = 100;
}

/// How many steps a graph holds, nested ones included.
pub fn step_count(steps: &[FlowStep]) -> usize {
    steps.iter().map(|s| 1 + step_count(&s.steps)).sum()
}

/// How many ways through a graph there are: a step's several next steps are alternatives, one
/// next step continues, and the top-level steps follow one another (as a run walks it).
pub fn path_count(steps: &[FlowStep]) -> usize {
    steps.iter().fold(1usize, |paths, step| {
        let through = match step.steps.len() {
            0 => 1,
            1 => path_count(&step.steps),
            _ => step.steps.iter().map(|s| path_count(std::slice::from_ref(s))).fold(0usize, usize::saturating_add),
        };
        paths.saturating_mul(through)
    })
}

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
    /// Null when the flow has none (the hosted interface always sends the member).
    #[serialize_always]
    pub off_script_policy: Option<OffScriptPolicy>,
    pub branching_mode: Option<BranchingMode>,
    #[serialize_always]
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
    /// The `{{name}}`s its script, variants and expectations use, each once, in order: what a
    /// run's variables can fill.
    pub fn variables(&self) -> Vec<String> {
        let mut names = Vec::new();
        step_placeholders(&self.graph, &mut names);
        for expectation in &self.agent_expectations {
            placeholders(expectation.prompt.as_deref().unwrap_or_default(), &mut names);
        }
        for variant in self.happy_path.iter().chain(&self.edge_cases) {
            placeholders(variant.prompt.as_deref().unwrap_or_default(), &mut names);
            step_placeholders(&variant.steps, &mut names);
            for expectation in &variant.additional_expectations {
                placeholders(expectation.prompt.as_deref().unwrap_or_default(), &mut names);
            }
        }
        names
    }

    pub fn is_voicemail(&self) -> bool {
        self.flow_type == Some(FlowType::Voicemail)
    }

    /// Whether `variant` is this flow's happy path (rather than one of its edge cases).
    pub fn is_happy_path(&self, variant: &FlowVariant) -> bool {
        self.happy_path.as_ref().is_some_and(|h| h.id == variant.id)
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
    #[schema(minimum = 1, maximum = 10)]
    pub max_attempts: Option<i64>,
    pub then: Option<OffScriptThen>,
    #[schema(max_length = 5000)]
    pub say_line: Option<String>,
    #[schema(minimum = 1, maximum = 600)]
    pub wait_seconds: Option<i64>,
}

/// A happy path or edge case of a flow. Its `type` is its flow's; which one is the happy path
/// is where the flow holds it.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowVariant {
    pub id: Uuid,
    pub title: Option<String>,
    /// Local extension: an edge case's name in the config bundle that made it (plans name it so).
    pub name: Option<String>,
    #[serialize_always]
    pub preceded_by_customer_flow_id: Option<Uuid>,
    #[serialize_always]
    pub preceded_by_customer_flow_variant_id: Option<Uuid>,
    pub is_generated: Option<bool>,
    /// Whether the flow's own expectations apply to this variant as well as its additional ones.
    pub include_flow_expectations: Option<bool>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    #[serialize_always]
    pub persona_override: Option<Persona>,
    #[serialize_always]
    pub environment: Option<Environment>,
    #[serde(default)]
    pub additional_expectations: Vec<Expectation>,
    #[serde(rename = "type")]
    pub variant_type: Option<FlowType>,
    /// The brief an improvising caller follows (IMPROV variants).
    pub prompt: Option<String>,
    /// Personas the call may be handed to (IMPROV variants; always sent for them, maybe empty).
    pub handoff_personas: Option<Vec<Persona>>,
    #[serde(default)]
    pub steps: Vec<FlowStep>,
    pub system_key: Option<String>,
}

impl FlowVariant {
    /// Its name in a config bundle: its name, else its title, else its id.
    pub fn config_name(&self) -> String {
        self.name.clone().or(self.title.clone()).unwrap_or_else(|| self.id.to_string())
    }
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

/// One step of a flow's graph. `steps` are what follows it: one step continues the script,
/// several are alternatives the caller picks one of (by the flow's `branchingMode`).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
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
    /// The keys a DTMF step presses.
    pub dtmf_digits: Option<String>,
    /// How long a CUSTOMER_SILENCE step keeps quiet.
    pub silence_duration_seconds: Option<i64>,
    pub stage: Option<Stage>,
    /// CUSTOMER_HANDOFF: the persona the call is handed to.
    pub handoff_persona_id: Option<Uuid>,
    /// SCENARIO_LINK: the flow the conversation continues in.
    pub linked_customer_flow_id: Option<Uuid>,
}

impl FlowStep {
    /// The step for people: `step "confirm" (AGENT_TURN)` by its `ref`, else by its node id.
    pub fn label(&self) -> String {
        let kind = self.step_type.as_ref().map_or("step", StepType::as_str);
        match (&self.step_ref, self.node_id) {
            (Some(reference), _) => format!("step \"{reference}\" ({kind})"),
            (None, Some(node)) => format!("step {node} ({kind})"),
            (None, None) => format!("a {kind} step"),
        }
    }
}

/// A named stage of a script that a step belongs to.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Stage {
    #[schema(max_length = 100)]
    pub name: String,
    pub analyze: Option<bool>,
    pub required: Option<bool>,
}

/// The `{{name}}`s in `text`, in order, each once.
fn placeholders(text: &str, names: &mut Vec<String>) {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else { break };
        let name = rest[start + 2..start + end].trim();
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &rest[start + end + 2..];
    }
}

fn step_placeholders(steps: &[FlowStep], names: &mut Vec<String>) {
    for step in steps {
        for text in [step.content.as_deref(), step.dtmf_digits.as_deref()].into_iter().flatten() {
            placeholders(text, names);
        }
        let say = step.off_script_policy.as_ref().and_then(|p| p.say_line.as_deref());
        placeholders(say.unwrap_or_default(), names);
        step_placeholders(&step.steps, names);
    }
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn finds_placeholders_once_in_order() {
        let mut names = Vec::new();
        placeholders("Hi {{ name }}, your {{slot}} with {{name}}; {{}} {{open", &mut names);
        assert_eq!(names, vec!["name", "slot"]);
    }
}
