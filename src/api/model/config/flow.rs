//! The bundle's flows: scripted (a graph of steps) or improv (a happy path and edge cases, each
//! a persona in an environment with a brief).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::agent::check_names;
use super::check_name;
use super::config_limits::*;
use crate::api::model::common::UnknownFields;
use crate::api::model::{BranchingMode, OffScriptReaction, OffScriptThen, ScriptAdherence, StepType};
use crate::api::validate::{Checks, Validate, index, join};

/// `kind: flow, type: scripted`: a conversation the caller follows step by step.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScriptedFlowConfig {
    pub name: Option<String>,
    /// The flow's title; `name` when omitted.
    pub title: Option<String>,
    pub description: Option<String>,
    pub graph: Option<Vec<ConfigFlowStep>>,
    pub adherence: Option<ScriptAdherence>,
    /// The `name`s of the agents the flow is for.
    pub agents: Option<Vec<String>>,
    pub branching_mode: Option<BranchingMode>,
    pub expectations: Option<Vec<String>>,
    pub off_script: Option<OffScriptConfig>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ScriptedFlowConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "title", self.title.as_deref(), 1, Some(TITLE_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.required(at, "graph", &self.graph);
        c.items(at, "graph", self.graph.as_deref(), 1, Some(STEPS_MAX));
        if self.graph.as_deref().is_some_and(|g| count_steps(g) > STEPS_MAX) {
            c.invalid(join(at, "graph"), format!("a graph holds at most {STEPS_MAX} steps, nested ones counted"));
        }
        for (i, step) in self.graph.iter().flatten().enumerate() {
            step.check_at(c, &index(&join(at, "graph"), i), 1);
        }
        c.known(at, "adherence", self.adherence.as_ref());
        check_names(c, at, "agents", self.agents.as_deref());
        c.known(at, "branchingMode", self.branching_mode.as_ref());
        check_expectations(c, at, self.expectations.as_deref());
        if let Some(policy) = &self.off_script {
            policy.check(c, &join(at, "offScript"));
        }
    }
}

/// Every step of a graph, nested ones counted.
pub fn count_steps(steps: &[ConfigFlowStep]) -> usize {
    steps.iter().map(|s| 1 + s.steps.as_deref().map_or(0, count_steps)).sum()
}

pub(crate) fn check_expectations(c: &mut Checks, at: &str, expectations: Option<&[String]>) {
    super::check_texts(c, at, "expectations", expectations, TEXT_MAX);
}

/// What the caller does when the agent goes off script.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OffScriptConfig {
    pub max_attempts: Option<i64>,
    pub reaction: Option<OffScriptReaction>,
    pub say_line: Option<String>,
    pub then: Option<OffScriptThen>,
    pub wait_seconds: Option<i64>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for OffScriptConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.range(at, "maxAttempts", self.max_attempts, Some(0), Some(10));
        c.known(at, "reaction", self.reaction.as_ref());
        c.length(at, "sayLine", self.say_line.as_deref(), 0, Some(TEXT_MAX));
        c.known(at, "then", self.then.as_ref());
        c.range(at, "waitSeconds", self.wait_seconds, Some(0), Some(600));
        if self.reaction == Some(OffScriptReaction::Say) && self.say_line.is_none() {
            c.missing(join(at, "sayLine"));
        }
    }
}

/// One step of a scripted flow's graph. `steps` follow it (several: alternatives);
/// `mergeInto` names the `ref`s of the steps its branch joins again.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigFlowStep {
    #[serde(rename = "type")]
    pub step_type: Option<StepType>,
    pub content: Option<String>,
    pub dtmf_digits: Option<String>,
    /// SCENARIO_LINK: the `name` of the flow it continues in.
    pub flow: Option<String>,
    /// CUSTOMER_HANDOFF: the `name` of the persona the call is handed to.
    pub handoff_persona: Option<String>,
    pub merge_into: Option<Vec<String>>,
    pub off_script: Option<OffScriptConfig>,
    #[serde(rename = "ref")]
    pub step_ref: Option<String>,
    /// Removed by the hosted interface: `stage` with `required: true` says it.
    pub required_for_valid_run: Option<bool>,
    pub silence_duration_seconds: Option<i64>,
    #[schema(value_type = Option<Object>)]
    pub stage: Option<StageConfig>,
    pub steps: Option<Vec<ConfigFlowStep>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl ConfigFlowStep {
    fn check_at(&self, c: &mut Checks, at: &str, depth: usize) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "type", &self.step_type);
        c.known(at, "type", self.step_type.as_ref());
        c.length(at, "content", self.content.as_deref(), 0, Some(TEXT_MAX));
        c.length(at, "dtmfDigits", self.dtmf_digits.as_deref(), 1, Some(32));
        if let Some(digits) = &self.dtmf_digits
            && !digits.chars().all(|ch| ch.is_ascii_digit() || matches!(ch, '*' | '#' | 'w' | 'W'))
        {
            c.invalid(join(at, "dtmfDigits"), "dtmfDigits holds the digits 0-9, * and #");
        }
        c.length(at, "flow", self.flow.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "handoffPersona", self.handoff_persona.as_deref(), 1, Some(NAME_MAX));
        check_names(c, at, "mergeInto", self.merge_into.as_deref());
        if let Some(policy) = &self.off_script {
            policy.check(c, &join(at, "offScript"));
        }
        c.length(at, "ref", self.step_ref.as_deref(), 1, Some(NAME_MAX));
        if self.required_for_valid_run.is_some() {
            c.invalid(
                join(at, "requiredForValidRun"),
                "requiredForValidRun was removed: give the step a stage with required: true",
            );
        }
        c.range(at, "silenceDurationSeconds", self.silence_duration_seconds, Some(1), Some(600));
        if let Some(stage) = &self.stage {
            stage.check(c, &join(at, "stage"));
        }
        match self.step_type {
            Some(StepType::ScenarioLink) if self.flow.is_none() => c.missing(join(at, "flow")),
            Some(StepType::CustomerHandoff) if self.handoff_persona.is_none() => c.missing(join(at, "handoffPersona")),
            _ => {}
        }
        if depth >= STEP_DEPTH_MAX && self.steps.as_ref().is_some_and(|s| !s.is_empty()) {
            c.invalid(join(at, "steps"), format!("steps nest at most {STEP_DEPTH_MAX} deep"));
            return;
        }
        c.items(at, "steps", self.steps.as_deref(), 0, Some(STEPS_MAX));
        for (i, step) in self.steps.iter().flatten().enumerate() {
            step.check_at(c, &index(&join(at, "steps"), i), depth + 1);
        }
    }
}

/// A step's stage: its name, or `{name, analyze, required}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StageConfig {
    Name(String),
    Detail(StageDetail),
}

impl StageConfig {
    pub fn name(&self) -> &str {
        match self {
            StageConfig::Name(name) => name,
            StageConfig::Detail(detail) => detail.name.as_deref().unwrap_or_default(),
        }
    }
}

impl Validate for StageConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        match self {
            StageConfig::Name(name) => {
                if name.trim().is_empty() || name.chars().count() > TITLE_MAX {
                    c.invalid(at, format!("{at} is a name of 1 to {TITLE_MAX} characters"));
                }
            }
            StageConfig::Detail(detail) => {
                c.unknown_of::<StageDetail>(at, &detail.unknown_fields);
                c.required(at, "name", &detail.name);
                c.length(at, "name", detail.name.as_deref(), 1, Some(TITLE_MAX));
            }
        }
    }
}

/// A stage with its settings.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StageDetail {
    pub name: Option<String>,
    pub analyze: Option<bool>,
    pub required: Option<bool>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// `kind: flow, type: improv`: a caller who improvises from a brief.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImprovFlowConfig {
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The `name`s of the agents the flow is for.
    pub agents: Option<Vec<String>>,
    pub happy_path: Option<HappyPathConfig>,
    pub edge_cases: Option<Vec<EdgeCaseConfig>>,
    pub expectations: Option<Vec<String>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ImprovFlowConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "title", self.title.as_deref(), 1, Some(TITLE_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.required(at, "agents", &self.agents);
        check_names(c, at, "agents", self.agents.as_deref());
        c.required(at, "happyPath", &self.happy_path);
        if let Some(happy) = &self.happy_path {
            happy.check(c, &join(at, "happyPath"));
        }
        c.items(
            at,
            "edgeCases",
            self.edge_cases.as_deref(),
            0,
            Some(crate::api::model::run_plan_limits::EDGE_CASES_MAX),
        );
        c.each(at, "edgeCases", self.edge_cases.as_deref());
        let mut seen = std::collections::HashSet::new();
        for (i, case) in self.edge_cases.iter().flatten().enumerate() {
            if let Some(name) = &case.name
                && !seen.insert(name.as_str())
            {
                let param = join(&index(&join(at, "edgeCases"), i), "name");
                c.invalid(&param, format!("{param}: another edge case of this flow is named {name}"));
            }
        }
        check_expectations(c, at, self.expectations.as_deref());
    }
}

/// An improv flow's happy path: who calls, from where, with what brief.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HappyPathConfig {
    /// The `name` of a simulation environment.
    pub environment: Option<String>,
    /// The `name` of a persona.
    pub persona: Option<String>,
    pub expectations: Option<Vec<String>>,
    pub prompt: Option<String>,
    pub title: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for HappyPathConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "environment", &self.environment);
        c.length(at, "environment", self.environment.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "persona", &self.persona);
        c.length(at, "persona", self.persona.as_deref(), 1, Some(NAME_MAX));
        check_expectations(c, at, self.expectations.as_deref());
        c.length(at, "prompt", self.prompt.as_deref(), 0, Some(PROMPT_MAX));
        c.length(at, "title", self.title.as_deref(), 1, Some(TITLE_MAX));
    }
}

/// An improv flow's edge case: the happy path's persona and environment unless it names its own.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeCaseConfig {
    pub name: Option<String>,
    pub environment: Option<String>,
    pub expectations: Option<Vec<String>>,
    pub include_flow_expectations: Option<bool>,
    pub persona: Option<String>,
    pub prompt: Option<String>,
    pub title: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for EdgeCaseConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "environment", self.environment.as_deref(), 1, Some(NAME_MAX));
        check_expectations(c, at, self.expectations.as_deref());
        c.length(at, "persona", self.persona.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "prompt", self.prompt.as_deref(), 0, Some(PROMPT_MAX));
        c.length(at, "title", self.title.as_deref(), 1, Some(TITLE_MAX));
    }
}
