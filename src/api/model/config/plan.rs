//! The bundle's simulation plans (`template: manual`, or the question-and-answer check) and
//! their schedules.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::agent::check_names;
use super::config_limits::*;
use super::{QA_TEMPLATE, check_name, check_texts};
use crate::api::model::common::UnknownFields;
use crate::api::model::run_plan_limits::{
    AGENT_ENDPOINTS_MAX, END_CALL_PHRASE_MAX, END_CALL_PHRASES_MAX, END_CALL_REASON_MAX, END_CALL_REASONS_MAX,
    FLOWS_MAX, ITERATION_COUNT_MAX, ITERATION_COUNT_MIN, MAX_CONCURRENT_JOBS_MAX, MAX_CONCURRENT_JOBS_MIN,
    MAX_NO_RESPONSE_RETRIES_MAX, MAX_NO_RESPONSE_RETRIES_MIN, MAX_SIMULATION_DURATION_SECONDS_MAX,
    MAX_SIMULATION_DURATION_SECONDS_MIN, METRICS_MAX, NO_RESPONSE_RETRY_BACKOFF_SECONDS_MAX,
    NO_RESPONSE_RETRY_BACKOFF_SECONDS_MIN, SILENCE_TIMEOUT_SECONDS_MAX, SILENCE_TIMEOUT_SECONDS_MIN, SLUG_MAX,
};
use crate::api::model::schedule::Schedule;
use crate::api::model::{Direction, EndpointDirection, ExecutionMode};
use crate::api::validate::{Checks, Validate, Violation, ViolationCode, index, join};

/// The members both plan templates share, checked alike.
macro_rules! plan_members {
    ($c:ident, $at:ident, $p:ident) => {{
        $c.unknown_named::<Self>($at, &$p.unknown_fields, &crate::api::suggest::BUNDLE_PLAN);
        check_name($c, $at, &$p.name, NAME_MAX);
        $c.length($at, "description", $p.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        $c.required($at, "agentEndpoints", &$p.agent_endpoints);
        $c.items($at, "agentEndpoints", $p.agent_endpoints.as_deref(), 1, Some(AGENT_ENDPOINTS_MAX));
        $c.each($at, "agentEndpoints", $p.agent_endpoints.as_deref());
        $c.required($at, "direction", &$p.direction);
        $c.known($at, "direction", $p.direction.as_ref());
        $c.required($at, "maxDurationSeconds", &$p.max_duration_seconds);
        let duration = (Some(MAX_SIMULATION_DURATION_SECONDS_MIN), Some(MAX_SIMULATION_DURATION_SECONDS_MAX));
        $c.range($at, "maxDurationSeconds", $p.max_duration_seconds, duration.0, duration.1);
        $c.items($at, "endCallPhrases", $p.end_call_phrases.as_deref(), 0, Some(END_CALL_PHRASES_MAX));
        check_texts($c, $at, "endCallPhrases", $p.end_call_phrases.as_deref(), END_CALL_PHRASE_MAX);
        $c.items($at, "endCallReasons", $p.end_call_reasons.as_deref(), 0, Some(END_CALL_REASONS_MAX));
        check_texts($c, $at, "endCallReasons", $p.end_call_reasons.as_deref(), END_CALL_REASON_MAX);
        $c.known($at, "executionMode", $p.execution_mode.as_ref());
        $c.range($at, "iterations", $p.iterations, Some(ITERATION_COUNT_MIN), Some(ITERATION_COUNT_MAX));
        let concurrent = (Some(MAX_CONCURRENT_JOBS_MIN), Some(MAX_CONCURRENT_JOBS_MAX));
        $c.range($at, "maxConcurrentJobs", $p.max_concurrent_jobs, concurrent.0, concurrent.1);
        let retries = (Some(MAX_NO_RESPONSE_RETRIES_MIN), Some(MAX_NO_RESPONSE_RETRIES_MAX));
        $c.range($at, "maxNoResponseRetries", $p.max_no_response_retries, retries.0, retries.1);
        let backoff = (Some(NO_RESPONSE_RETRY_BACKOFF_SECONDS_MIN), Some(NO_RESPONSE_RETRY_BACKOFF_SECONDS_MAX));
        $c.range($at, "noResponseRetryBackoffSeconds", $p.no_response_retry_backoff_seconds, backoff.0, backoff.1);
        let silence = (Some(SILENCE_TIMEOUT_SECONDS_MIN), Some(SILENCE_TIMEOUT_SECONDS_MAX));
        $c.range($at, "silenceTimeoutSeconds", $p.silence_timeout_seconds, silence.0, silence.1);
        if let Some(schedule) = &$p.schedule {
            schedule.check($c, &join($at, "schedule"));
        }
    }};
}

/// `kind: simulationPlan` (`template: manual` or none): flows run against agents, judged by metrics.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationPlanConfig {
    pub name: Option<String>,
    pub description: Option<String>,
    pub agent_endpoints: Option<Vec<PlanAgentEndpointConfig>>,
    pub direction: Option<Direction>,
    pub flows: Option<Vec<PlanFlowConfig>>,
    pub max_duration_seconds: Option<i64>,
    /// The `name`s (slugs) of the metrics the plan is judged by.
    pub metrics: Option<Vec<String>>,
    pub end_call_phrases: Option<Vec<String>>,
    pub end_call_reasons: Option<Vec<String>>,
    pub enrich_with_live_conversation: Option<bool>,
    pub execution_mode: Option<ExecutionMode>,
    pub include_automatic_metrics: Option<bool>,
    pub include_flow_metrics: Option<bool>,
    pub iterations: Option<i64>,
    pub max_concurrent_jobs: Option<i64>,
    pub max_no_response_retries: Option<i64>,
    pub no_response_retry_backoff_seconds: Option<i64>,
    pub schedule: Option<ScheduleConfig>,
    pub silence_timeout_seconds: Option<i64>,
    /// `manual` (the only value besides the question-and-answer check's).
    pub template: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for SimulationPlanConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        plan_members!(c, at, self);
        c.required(at, "flows", &self.flows);
        c.items(at, "flows", self.flows.as_deref(), 1, Some(FLOWS_MAX));
        c.each(at, "flows", self.flows.as_deref());
        c.required(at, "metrics", &self.metrics);
        c.items(at, "metrics", self.metrics.as_deref(), 0, Some(METRICS_MAX));
        check_names(c, at, "metrics", self.metrics.as_deref());
        if let Some(template) = self.template.as_deref().filter(|t| *t != "manual") {
            let message =
                format!("template {} is not one of manual, {QA_TEMPLATE}", crate::api::validate::quote(template));
            c.invalid(join(at, "template"), message);
        }
    }
}

/// `kind: simulationPlan, template: question-answer-check`: questions put to the agent.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QaSimulationPlanConfig {
    pub name: Option<String>,
    pub description: Option<String>,
    pub agent_endpoints: Option<Vec<PlanAgentEndpointConfig>>,
    pub direction: Option<Direction>,
    pub environment: Option<String>,
    pub max_duration_seconds: Option<i64>,
    pub persona: Option<String>,
    pub questions: Option<Vec<QaQuestionConfig>>,
    pub template: Option<String>,
    pub end_call_phrases: Option<Vec<String>>,
    pub end_call_reasons: Option<Vec<String>>,
    pub enrich_with_live_conversation: Option<bool>,
    pub execution_mode: Option<ExecutionMode>,
    pub grade_with_knowledge_base: Option<bool>,
    pub include_automatic_metrics: Option<bool>,
    pub include_flow_metrics: Option<bool>,
    pub iterations: Option<i64>,
    pub max_concurrent_jobs: Option<i64>,
    pub max_no_response_retries: Option<i64>,
    pub metrics: Option<Vec<String>>,
    pub no_response_retry_backoff_seconds: Option<i64>,
    pub schedule: Option<ScheduleConfig>,
    pub silence_timeout_seconds: Option<i64>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for QaSimulationPlanConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        plan_members!(c, at, self);
        c.required(at, "environment", &self.environment);
        c.length(at, "environment", self.environment.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "persona", &self.persona);
        c.length(at, "persona", self.persona.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "questions", &self.questions);
        c.items(at, "questions", self.questions.as_deref(), 1, Some(LIST_MAX));
        c.each(at, "questions", self.questions.as_deref());
        c.items(at, "metrics", self.metrics.as_deref(), 0, Some(METRICS_MAX));
        check_names(c, at, "metrics", self.metrics.as_deref());
    }
}

/// One question of a question-and-answer check.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QaQuestionConfig {
    pub ask: Option<String>,
    pub expect: Option<String>,
    pub name: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for QaQuestionConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "ask", &self.ask);
        c.length(at, "ask", self.ask.as_deref(), 1, Some(TEXT_MAX));
        c.length(at, "expect", self.expect.as_deref(), 0, Some(TEXT_MAX));
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
    }
}

/// Which of an agent's endpoints a plan calls: the agent's `name`, and the endpoint's value
/// or direction when the agent has more than one.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanAgentEndpointConfig {
    pub agent: Option<String>,
    pub direction: Option<EndpointDirection>,
    pub value: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PlanAgentEndpointConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "agent", &self.agent);
        c.length(at, "agent", self.agent.as_deref(), 1, Some(NAME_MAX));
        c.known(at, "direction", self.direction.as_ref());
        c.length(at, "value", self.value.as_deref(), 1, Some(super::agent::URL_MAX));
    }
}

/// One flow a plan runs: a bundle or workspace flow by `name`, or a curated one by `system`
/// (its slug), with which of its variants and as whom.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanFlowConfig {
    pub flow: Option<String>,
    pub system: Option<String>,
    pub happy_path: Option<bool>,
    /// The `name`s of the flow's edge cases.
    pub edge_cases: Option<Vec<String>>,
    pub persona_override: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PlanFlowConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_named::<Self>(at, &self.unknown_fields, &crate::api::suggest::BUNDLE_FLOW);
        match (&self.flow, &self.system) {
            (None, None) => c.missing(join(at, "flow")),
            (Some(_), Some(_)) => c.invalid(join(at, "system"), "name the flow or a system flow, not both"),
            _ => {}
        }
        c.length(at, "flow", self.flow.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "system", self.system.as_deref(), 1, Some(SLUG_MAX));
        check_names(c, at, "edgeCases", self.edge_cases.as_deref());
        c.length(at, "personaOverride", self.persona_override.as_deref(), 1, Some(NAME_MAX));
        let edge_cases = self.edge_cases.as_ref().is_some_and(|e| !e.is_empty());
        if self.happy_path == Some(false) && !edge_cases {
            c.invalid(join(at, "happyPath"), "select the happy path, edge cases, or both: this flow would run nothing");
        }
    }
}

/// A schedule as a bundle writes it: the plan's own schedule shape, with the same rules.
pub type ScheduleConfig = Schedule;

/// A plan's `metrics` entry written as an object (`{slug, minPassRate}`, as a plan file has
/// them) refused with where a bar goes: the hosted bundle's plan names metrics only
/// (`List[str]`), and its checks keep the 80 % default bar.
pub(super) fn metric_with_a_bar(members: &serde_json::Map<String, serde_json::Value>, at: &str) -> Option<Violation> {
    let metrics = members.get("metrics")?.as_array()?;
    let (i, entry) = metrics.iter().enumerate().find(|(_, m)| m.is_object())?;
    let name = ["name", "slug", "metricId", "metric"]
        .iter()
        .find_map(|member| entry.get(*member).and_then(serde_json::Value::as_str))
        .unwrap_or("METRIC");
    let param = join(at, &index("metrics", i));
    let bar =
        if entry.get("minPassRate").is_some() { "a per-metric bar (minPassRate)" } else { "anything but its name" };
    let message = format!(
        "{param}: a bundle plan's metrics are the metrics' names only (`- {name}`), with no place for {bar}: each \
         check's bar is the 80 % default. A bar goes in a plan file for `run -f` and `gate -f` (`metrics: - slug: \
         {name}` with `minPassRate: 90`), or on every check with `gate --min-pass-rate N`"
    );
    Some(Violation { param, code: ViolationCode::InvalidParameter, message })
}
