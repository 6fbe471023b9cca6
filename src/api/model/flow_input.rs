//! The bodies that make and change customer flows (the hosted SDK's `CustomerFlowCreateParams`,
//! `…UpdateParams`, `…ReplaceGraphParams`, `…UpdateHappyPathParams` and the edge-case params),
//! with the rules each member has on its own. Rules that need the flow or the store (which
//! step types a flow takes, merges, references) are the service's.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::UnknownFields;
use super::flow::{
    BranchingMode, FlowType, OffScriptPolicy, ScriptAdherence, Stage, StepMember, StepType, flow_limits,
};
pub use super::flow_variant_input::{EdgeCaseInput, VariantInput};
use crate::api::validate::{Checks, Validate, index, join};

/// `{prompt}`: one thing the agent under test is graded against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExpectationInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 5000)]
    pub prompt: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ExpectationInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "prompt", &self.prompt);
        c.length(at, "prompt", self.prompt.as_deref(), 1, Some(flow_limits::CONTENT_MAX));
    }
}

/// The required members of an off-script policy, and its limits.
fn check_off_script(c: &mut Checks, at: &str, policy: &OffScriptPolicy) {
    c.required(at, "reaction", &policy.reaction);
    c.known(at, "reaction", policy.reaction.as_ref());
    c.required(at, "maxAttempts", &policy.max_attempts);
    c.range(at, "maxAttempts", policy.max_attempts, Some(1), Some(10));
    c.required(at, "then", &policy.then);
    c.known(at, "then", policy.then.as_ref());
    c.range(at, "waitSeconds", policy.wait_seconds, Some(1), Some(600));
    c.length(at, "sayLine", policy.say_line.as_deref(), 0, Some(flow_limits::CONTENT_MAX));
}

/// One step of a graph as a caller sends it. `nodeId` keeps a step's id across edits (one is
/// made when omitted); `mergeIntoNodeIds` names the `nodeId` or `ref` of the steps a branch
/// rejoins.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowStepInput {
    #[serde(rename = "type")]
    #[schema(value_type = StepType, required = true)]
    pub step_type: Option<StepType>,
    pub node_id: Option<Uuid>,
    #[serde(rename = "ref")]
    #[schema(max_length = 100)]
    pub step_ref: Option<String>,
    #[schema(no_recursion, max_items = 100)]
    pub steps: Option<Vec<FlowStepInput>>,
    #[schema(max_items = 20)]
    pub merge_into_node_ids: Option<Vec<String>>,
    #[schema(max_length = 5000)]
    pub content: Option<String>,
    pub off_script_policy: Option<OffScriptPolicy>,
    #[schema(max_length = 50)]
    pub dtmf_digits: Option<String>,
    #[schema(minimum = 0, maximum = 600)]
    pub silence_duration_seconds: Option<i64>,
    pub stage: Option<Stage>,
    pub handoff_persona_id: Option<Uuid>,
    pub linked_customer_flow_id: Option<Uuid>,
    pub linked_customer_flow_variant_id: Option<Uuid>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl FlowStepInput {
    /// The members given that only some step types take.
    pub fn given(&self) -> Vec<(StepMember, &'static str)> {
        let all = [
            (StepMember::Content, "content", self.content.is_some()),
            (StepMember::OffScript, "offScriptPolicy", self.off_script_policy.is_some()),
            (StepMember::DtmfDigits, "dtmfDigits", self.dtmf_digits.is_some()),
            (StepMember::SilenceDuration, "silenceDurationSeconds", self.silence_duration_seconds.is_some()),
            (StepMember::HandoffPersona, "handoffPersonaId", self.handoff_persona_id.is_some()),
            (StepMember::LinkedFlow, "linkedCustomerFlowId", self.linked_customer_flow_id.is_some()),
            (StepMember::LinkedFlow, "linkedCustomerFlowVariantId", self.linked_customer_flow_variant_id.is_some()),
        ];
        all.into_iter().filter(|(_, _, given)| *given).map(|(m, name, _)| (m, name)).collect()
    }
}

impl Validate for FlowStepInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "type", &self.step_type);
        c.known(at, "type", self.step_type.as_ref());
        if let Some(kind) = self.step_type.as_ref().filter(|k| k.is_known()) {
            for (member, name) in self.given() {
                if !kind.takes(member) {
                    c.invalid(join(at, name), format!("{}: a {kind} step does not take {name}", join(at, name)));
                }
            }
        }
        if let Some(policy) = &self.off_script_policy {
            check_off_script(c, &join(at, "offScriptPolicy"), policy);
        }
        c.length(at, "ref", self.step_ref.as_deref(), 1, Some(flow_limits::REF_MAX));
        c.length(at, "content", self.content.as_deref(), 0, Some(flow_limits::CONTENT_MAX));
        c.length(at, "dtmfDigits", self.dtmf_digits.as_deref(), 0, Some(50));
        c.range(at, "silenceDurationSeconds", self.silence_duration_seconds, Some(0), Some(600));
        if let Some(stage) = &self.stage {
            c.length(&join(at, "stage"), "name", Some(&stage.name), 1, Some(flow_limits::STAGE_NAME_MAX));
        }
        c.items(at, "steps", self.steps.as_deref(), 0, Some(flow_limits::STEPS_MAX));
        c.items(at, "mergeIntoNodeIds", self.merge_into_node_ids.as_deref(), 0, Some(flow_limits::MERGES_MAX));
        c.each_length(at, "mergeIntoNodeIds", self.merge_into_node_ids.as_deref(), flow_limits::REF_MAX);
        c.each(at, "steps", self.steps.as_deref());
    }
}

/// Body of `POST /v1/customer-flow`: a SCRIPTED flow (with `graph`) or an IMPROV one (with
/// `agentIds`, `happyPath` and maybe `edgeCases`).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowInput {
    /// SCRIPTED or IMPROV (voicemail flows are the service's own).
    #[serde(rename = "type")]
    #[schema(value_type = FlowType, required = true)]
    pub flow_type: Option<FlowType>,
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub title: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// Agents the flow exercises: at least one for an improv flow.
    #[schema(max_items = 50)]
    pub agent_ids: Option<Vec<Uuid>>,
    #[schema(max_items = 50)]
    pub agent_expectations: Option<Vec<ExpectationInput>>,
    /// SCRIPTED: the conversation; at most 100 steps across at most 25 paths.
    #[schema(max_items = 100)]
    pub graph: Option<Vec<FlowStepInput>>,
    pub branching_mode: Option<BranchingMode>,
    pub off_script_policy: Option<OffScriptPolicy>,
    pub script_adherence: Option<ScriptAdherence>,
    /// IMPROV: the way the flow is meant to go (title, persona and environment required).
    pub happy_path: Option<VariantInput>,
    /// IMPROV: other ways of running it, each inheriting from the happy path what it does not name.
    #[schema(max_items = 50)]
    pub edge_cases: Option<Vec<VariantInput>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for FlowInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "type", &self.flow_type);
        c.required(at, "title", &self.title);
        check_flow_members(c, at, &FlowMembers::of_input(self));
        match self.flow_type.as_ref() {
            Some(FlowType::Scripted) => {
                c.required(at, "graph", &self.graph);
                for (member, given) in
                    [("happyPath", self.happy_path.is_some()), ("edgeCases", self.edge_cases.is_some())]
                {
                    if given {
                        let message = format!("{member}: a SCRIPTED flow's variants come from its graph");
                        c.invalid(join(at, member), message);
                    }
                }
            }
            Some(FlowType::Improv) => {
                for (member, given) in [
                    ("graph", self.graph.is_some()),
                    ("branchingMode", self.branching_mode.is_some()),
                    ("offScriptPolicy", self.off_script_policy.is_some()),
                    ("scriptAdherence", self.script_adherence.is_some()),
                ] {
                    if given {
                        c.invalid(join(at, member), format!("{member}: scripted flows only; this flow is IMPROV"));
                    }
                }
                if c.required(at, "agentIds", &self.agent_ids).is_some_and(Vec::is_empty) {
                    c.invalid(join(at, "agentIds"), "agentIds: an improv flow needs at least one agent");
                }
                let happy = join(at, "happyPath");
                if let Some(h) = c.required(at, "happyPath", &self.happy_path) {
                    c.required(&happy, "title", &h.title);
                    if h.persona_override_id.flatten().is_none() {
                        c.missing(join(&happy, "personaOverrideId"));
                    }
                    if h.environment_id.flatten().is_none() {
                        c.missing(join(&happy, "environmentId"));
                    }
                }
                for (i, case) in self.edge_cases.iter().flatten().enumerate() {
                    c.required(&index(&join(at, "edgeCases"), i), "title", &case.title);
                }
            }
            Some(other) => {
                c.invalid(join(at, "type"), format!("type {other}: a flow made here is SCRIPTED or IMPROV"));
            }
            None => {}
        }
        // Each member's own rules hold whatever the type, so every problem is named at once.
        if let Some(h) = &self.happy_path {
            h.check(c, &join(at, "happyPath"));
        }
        c.items(at, "edgeCases", self.edge_cases.as_deref(), 0, Some(flow_limits::EDGE_CASES_MAX));
        c.each(at, "edgeCases", self.edge_cases.as_deref());
        c.items(at, "graph", self.graph.as_deref(), 0, Some(flow_limits::STEPS_MAX));
        c.each(at, "graph", self.graph.as_deref());
    }
}

/// Body of `PUT /v1/customer-flow/{id}`: the members given change, the rest are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200)]
    pub title: Option<String>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable, max_length = 5000)]
    pub description: Option<Option<String>>,
    /// Replaces the linked agents; an improv flow keeps at least one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 50)]
    pub agent_ids: Option<Vec<Uuid>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 50)]
    pub agent_expectations: Option<Vec<ExpectationInput>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branching_mode: Option<BranchingMode>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<OffScriptPolicy>, nullable)]
    pub off_script_policy: Option<Option<OffScriptPolicy>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_adherence: Option<ScriptAdherence>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for FlowUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_flow_members(c, at, &FlowMembers::of_update(self));
    }
}

/// The members a new flow and a flow's update share, borrowed for their common checks.
struct FlowMembers<'a> {
    title: Option<&'a str>,
    description: Option<&'a str>,
    agent_ids: Option<&'a [Uuid]>,
    agent_expectations: Option<&'a [ExpectationInput]>,
    branching_mode: Option<&'a BranchingMode>,
    off_script_policy: Option<&'a OffScriptPolicy>,
    script_adherence: Option<&'a ScriptAdherence>,
}

impl<'a> FlowMembers<'a> {
    fn of_input(i: &'a FlowInput) -> Self {
        FlowMembers {
            title: i.title.as_deref(),
            description: i.description.as_deref(),
            agent_ids: i.agent_ids.as_deref(),
            agent_expectations: i.agent_expectations.as_deref(),
            branching_mode: i.branching_mode.as_ref(),
            off_script_policy: i.off_script_policy.as_ref(),
            script_adherence: i.script_adherence.as_ref(),
        }
    }

    fn of_update(u: &'a FlowUpdate) -> Self {
        FlowMembers {
            title: u.title.as_deref(),
            description: u.description.as_ref().and_then(|d| d.as_deref()),
            agent_ids: u.agent_ids.as_deref(),
            agent_expectations: u.agent_expectations.as_deref(),
            branching_mode: u.branching_mode.as_ref(),
            off_script_policy: u.off_script_policy.as_ref().and_then(Option::as_ref),
            script_adherence: u.script_adherence.as_ref(),
        }
    }
}

fn check_flow_members(c: &mut Checks, at: &str, m: &FlowMembers) {
    c.length(at, "title", m.title, 1, Some(flow_limits::TITLE_MAX));
    if m.title.is_some_and(|t| !t.is_empty() && t.trim().is_empty()) {
        c.invalid(join(at, "title"), format!("{} must not be blank", join(at, "title")));
    }
    c.length(at, "description", m.description, 0, Some(flow_limits::DESCRIPTION_MAX));
    c.items(at, "agentIds", m.agent_ids, 0, Some(50));
    c.items(at, "agentExpectations", m.agent_expectations, 0, Some(flow_limits::EXPECTATIONS_MAX));
    c.each(at, "agentExpectations", m.agent_expectations);
    c.known(at, "branchingMode", m.branching_mode);
    c.known(at, "scriptAdherence", m.script_adherence);
    if let Some(policy) = m.off_script_policy {
        check_off_script(c, &join(at, "offScriptPolicy"), policy);
    }
}

/// Body of `PUT /v1/customer-flow/{id}/graph`: the whole graph, replacing the old one.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GraphInput {
    #[schema(value_type = Vec<FlowStepInput>, required = true, max_items = 100)]
    pub graph: Option<Vec<FlowStepInput>>,
    /// Confirms a graph that drops merges the flow had.
    pub allow_unmerge: Option<bool>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for GraphInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "graph", &self.graph);
        c.items(at, "graph", self.graph.as_deref(), 0, Some(flow_limits::STEPS_MAX));
        c.each(at, "graph", self.graph.as_deref());
    }
}

/// Answer of `PUT /v1/customer-flow/{id}/graph`: the graph and variants after the write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GraphReplaced {
    pub edge_cases: Vec<super::flow::FlowVariant>,
    pub graph: Vec<super::flow::FlowStep>,
    pub happy_path: Option<super::flow::FlowVariant>,
    /// Whether the variants were made again; the local service keeps them across graph writes.
    pub variants_reshaped: bool,
    pub warnings: Vec<String>,
}
