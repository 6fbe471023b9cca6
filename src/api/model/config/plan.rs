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
use crate::api::model::schedule::{Schedule, ScheduleLimits, Weekday};
use crate::api::model::{Direction, EndpointDirection, ExecutionMode};
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

/// The members both plan templates share, checked alike.
macro_rules! plan_members {
    ($c:ident, $at:ident, $p:ident) => {{
        $c.unknown($at, &$p.unknown_fields);
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QaQuestionConfig {
    pub ask: Option<String>,
    pub expect: Option<String>,
    pub name: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    pub unknown_fields: UnknownFields,
}

impl Validate for QaQuestionConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        c.required(at, "ask", &self.ask);
        c.length(at, "ask", self.ask.as_deref(), 1, Some(TEXT_MAX));
        c.length(at, "expect", self.expect.as_deref(), 0, Some(TEXT_MAX));
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
    }
}

/// Which of an agent's endpoints a plan calls: the agent's `name`, and the endpoint's value
/// or direction when the agent has more than one.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanAgentEndpointConfig {
    pub agent: Option<String>,
    pub direction: Option<EndpointDirection>,
    pub value: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    pub unknown_fields: UnknownFields,
}

impl Validate for PlanAgentEndpointConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        c.required(at, "agent", &self.agent);
        c.length(at, "agent", self.agent.as_deref(), 1, Some(NAME_MAX));
        c.known(at, "direction", self.direction.as_ref());
        c.length(at, "value", self.value.as_deref(), 1, Some(super::agent::URL_MAX));
    }
}

/// One flow a plan runs: a bundle or workspace flow by `name`, or a curated one by `system`
/// (its slug), with which of its variants and as whom.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanFlowConfig {
    pub flow: Option<String>,
    pub system: Option<String>,
    pub happy_path: Option<bool>,
    /// The `name`s of the flow's edge cases.
    pub edge_cases: Option<Vec<String>>,
    pub persona_override: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    pub unknown_fields: UnknownFields,
}

impl Validate for PlanFlowConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
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

wire_enum! {
    /// The shape of a schedule.
    pub enum ScheduleType {
        Hourly = "hourly", Interval = "interval", Daily = "daily", Weekly = "weekly", Monthly = "monthly", Once = "once",
    }
}

/// A schedule as a bundle writes it, every member of every shape allowed through decoding so
/// that `validate()` can name each one a shape does not take.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleConfig {
    #[serde(rename = "type")]
    pub schedule_type: Option<ScheduleType>,
    pub minute: Option<i64>,
    pub every_minutes: Option<i64>,
    pub time: Option<String>,
    pub days: Option<Vec<Weekday>>,
    pub day_of_month: Option<i64>,
    pub at: Option<String>,
    pub enabled: Option<bool>,
    pub timezone: Option<String>,
    pub end_date: Option<String>,
    pub max_runs: Option<i64>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    pub unknown_fields: UnknownFields,
}

/// Limits of a schedule.
pub mod schedule_limits {
    /// One week, in minutes.
    pub const EVERY_MINUTES_MAX: i64 = 10_080;
    pub const MAX_RUNS_MAX: i64 = 1_000_000;
    pub const TIMEZONE_MAX: usize = 64;
}

impl Validate for ScheduleConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use schedule_limits::*;
        c.unknown(at, &self.unknown_fields);
        c.required(at, "type", &self.schedule_type);
        c.known(at, "type", self.schedule_type.as_ref());
        let Some(kind) = self.schedule_type.as_ref().filter(|k| k.is_known()) else { return };
        // Which members each shape takes, and which of them it needs.
        let (takes, needs): (&[&str], &[&str]) = match kind {
            ScheduleType::Hourly => (&["minute"], &[]),
            ScheduleType::Interval => (&["everyMinutes"], &["everyMinutes"]),
            ScheduleType::Daily => (&["time"], &["time"]),
            ScheduleType::Weekly => (&["days", "time"], &["days", "time"]),
            ScheduleType::Monthly => (&["dayOfMonth", "time"], &["dayOfMonth", "time"]),
            ScheduleType::Once | ScheduleType::Unknown(_) => (&["at"], &["at"]),
        };
        let once = *kind == ScheduleType::Once;
        let given = [
            ("minute", self.minute.is_some()),
            ("everyMinutes", self.every_minutes.is_some()),
            ("time", self.time.is_some()),
            ("days", self.days.is_some()),
            ("dayOfMonth", self.day_of_month.is_some()),
            ("at", self.at.is_some()),
            ("endDate", self.end_date.is_some() && once),
            ("maxRuns", self.max_runs.is_some() && once),
        ];
        for (member, present) in given {
            let shape_member = takes.contains(&member) || (!once && matches!(member, "endDate" | "maxRuns"));
            if present && !shape_member {
                let param = join(at, member);
                c.invalid(&param, format!("{param}: a {kind} schedule does not take {member}"));
            }
        }
        for member in needs {
            let present = given.iter().any(|(m, p)| m == member && *p);
            if !present {
                c.missing(join(at, member));
            }
        }
        c.range(at, "minute", self.minute, Some(0), Some(59));
        c.range(at, "everyMinutes", self.every_minutes, Some(1), Some(EVERY_MINUTES_MAX));
        if let Some(time) = &self.time
            && !is_clock_time(time)
        {
            c.invalid(join(at, "time"), format!("{}: a time of day is HH:MM (09:30)", join(at, "time")));
        }
        c.items(at, "days", self.days.as_deref(), 1, Some(7));
        c.known_each(at, "days", self.days.as_deref());
        c.range(at, "dayOfMonth", self.day_of_month, Some(1), Some(31));
        if let Some(when) = &self.at
            && !is_local_or_instant(when)
        {
            let param = join(at, "at");
            c.invalid(&param, format!("{param}: a date-time is YYYY-MM-DDTHH:MM, or an RFC 3339 instant"));
        }
        c.length(at, "timezone", self.timezone.as_deref(), 1, Some(TIMEZONE_MAX));
        if let Some(zone) = &self.timezone
            && jiff::tz::TimeZone::get(zone).is_err()
        {
            c.invalid(join(at, "timezone"), format!("{}: not an IANA time zone (Europe/Berlin)", join(at, "timezone")));
        }
        if let Some(end) = &self.end_date
            && !(is_date(end) || is_local_or_instant(end))
        {
            let param = join(at, "endDate");
            c.invalid(&param, format!("{param}: a date is YYYY-MM-DD, or an RFC 3339 instant"));
        }
        c.range(at, "maxRuns", self.max_runs, Some(1), Some(MAX_RUNS_MAX));
    }
}

fn is_clock_time(text: &str) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    parts.len() == 2
        && parts.iter().all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
        && parts[0].parse::<u8>().is_ok_and(|h| h < 24)
        && parts[1].parse::<u8>().is_ok_and(|m| m < 60)
}

fn is_date(text: &str) -> bool {
    text.parse::<jiff::civil::Date>().is_ok() && text.len() == 10
}

fn is_local_or_instant(text: &str) -> bool {
    text.parse::<jiff::Timestamp>().is_ok() || text.parse::<jiff::civil::DateTime>().is_ok()
}

impl ScheduleConfig {
    /// The schedule as a plan keeps it; `None` while it breaks a rule (`validate()` says which).
    pub fn to_schedule(&self) -> Option<Schedule> {
        let limits = ScheduleLimits {
            enabled: self.enabled,
            timezone: self.timezone.clone(),
            end_date: self.end_date.clone(),
            max_runs: self.max_runs,
        };
        Some(match self.schedule_type.as_ref()? {
            ScheduleType::Hourly => Schedule::Hourly { minute: self.minute, limits },
            ScheduleType::Interval => Schedule::Interval { every_minutes: self.every_minutes?, limits },
            ScheduleType::Daily => Schedule::Daily { time: self.time.clone()?, limits },
            ScheduleType::Weekly => Schedule::Weekly { days: self.days.clone()?, time: self.time.clone()?, limits },
            ScheduleType::Monthly => {
                Schedule::Monthly { day_of_month: self.day_of_month?, time: self.time.clone()?, limits }
            }
            ScheduleType::Once => Schedule::Once { at: self.at.clone()?, limits },
            ScheduleType::Unknown(_) => return None,
        })
    }

    /// A kept schedule as a bundle writes it.
    pub fn of(schedule: &Schedule) -> ScheduleConfig {
        let limits = schedule.limits();
        let mut config = ScheduleConfig {
            enabled: limits.enabled,
            timezone: limits.timezone.clone(),
            end_date: limits.end_date.clone(),
            max_runs: limits.max_runs,
            ..Default::default()
        };
        match schedule {
            Schedule::Hourly { minute, .. } => {
                config.schedule_type = Some(ScheduleType::Hourly);
                config.minute = *minute;
            }
            Schedule::Interval { every_minutes, .. } => {
                config.schedule_type = Some(ScheduleType::Interval);
                config.every_minutes = Some(*every_minutes);
            }
            Schedule::Daily { time, .. } => {
                config.schedule_type = Some(ScheduleType::Daily);
                config.time = Some(time.clone());
            }
            Schedule::Weekly { days, time, .. } => {
                config.schedule_type = Some(ScheduleType::Weekly);
                config.days = Some(days.clone());
                config.time = Some(time.clone());
            }
            Schedule::Monthly { day_of_month, time, .. } => {
                config.schedule_type = Some(ScheduleType::Monthly);
                config.day_of_month = Some(*day_of_month);
                config.time = Some(time.clone());
            }
            Schedule::Once { at, .. } => {
                config.schedule_type = Some(ScheduleType::Once);
                config.at = Some(at.clone());
            }
        }
        config
    }
}
