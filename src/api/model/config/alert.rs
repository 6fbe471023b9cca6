//! The bundle's alerts: a trigger (a metric crossing a threshold, an event, a simulation's
//! outcome) and where to say so. The local service keeps them; what they do is the Alerts issue's.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::check_name;
use super::config_limits::*;
use super::skipped::SlackChannelConfig;
use crate::api::model::common::UnknownFields;
use crate::api::model::issue::Severity;
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

wire_enum! { pub enum AlertTriggerType { Threshold = "threshold", Event = "event", Simulation = "simulation" } }
wire_enum! { pub enum AlertAggregation { Count = "COUNT", RatePerMinute = "RATE_PER_MINUTE", Mean = "MEAN" } }
wire_enum! { pub enum AlertOperator { Gt = "GT", Gte = "GTE", Lt = "LT", Lte = "LTE" } }
wire_enum! { pub enum AlertGrouping { None = "NONE", ByAgent = "BY_AGENT" } }
wire_enum! {
    /// The events an event trigger listens for.
    pub enum AlertEvent {
        CallAnalysisCompleted = "CALL_ANALYSIS_COMPLETED",
        CallAnalysisFailed = "CALL_ANALYSIS_FAILED",
        CallAnalysisCancelled = "CALL_ANALYSIS_CANCELLED",
        SimulationRunPlanJobStarted = "SIMULATION_RUN_PLAN_JOB_STARTED",
        SimulationRunPlanJobCompleted = "SIMULATION_RUN_PLAN_JOB_COMPLETED",
        SimulationRunPlanJobFailed = "SIMULATION_RUN_PLAN_JOB_FAILED",
        SimulationRunPlanJobCancelled = "SIMULATION_RUN_PLAN_JOB_CANCELLED",
        SimulationJobStarted = "SIMULATION_JOB_STARTED",
        SimulationJobCompleted = "SIMULATION_JOB_COMPLETED",
        SimulationJobFailed = "SIMULATION_JOB_FAILED",
        SimulationJobCancelled = "SIMULATION_JOB_CANCELLED",
        MetricCollectionJobCompleted = "METRIC_COLLECTION_JOB_COMPLETED",
        MetricCollectionJobFailed = "METRIC_COLLECTION_JOB_FAILED",
        ChatAnalysisCompleted = "CHAT_ANALYSIS_COMPLETED",
        ChatAnalysisFailed = "CHAT_ANALYSIS_FAILED",
        IssueOpened = "ISSUE_OPENED",
        IssueResolved = "ISSUE_RESOLVED",
    }
}
wire_enum! { pub enum SimulationCondition { Success = "SUCCESS", Failure = "FAILURE", ThresholdFailed = "THRESHOLD_FAILED" } }
wire_enum! { pub enum DeliveryFormat { Message = "MESSAGE", Pdf = "PDF" } }

/// `kind: alert`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertConfig {
    pub name: Option<String>,
    pub display_name: Option<String>,
    pub trigger: Option<AlertTriggerConfig>,
    pub actions: Option<AlertActionsConfig>,
    /// True when omitted.
    pub enabled: Option<bool>,
    /// The severity of the issues it opens (local extension); MEDIUM when omitted.
    pub severity: Option<Severity>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AlertConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.known(at, "severity", self.severity.as_ref());
        c.required(at, "trigger", &self.trigger);
        if let Some(trigger) = &self.trigger {
            trigger.check(c, &join(at, "trigger"));
        }
        if let Some(actions) = &self.actions {
            actions.check(c, &join(at, "actions"));
        }
    }
}

/// An alert's trigger, every member of every shape allowed through decoding so that
/// `validate()` names each one the shape does not take.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertTriggerConfig {
    #[serde(rename = "type")]
    pub trigger_type: Option<AlertTriggerType>,
    // threshold
    pub aggregation: Option<AlertAggregation>,
    /// The `name` (slug) of the metric watched.
    pub metric: Option<String>,
    pub operator: Option<AlertOperator>,
    pub threshold_value: Option<f64>,
    pub window_minutes: Option<i64>,
    pub consecutive_open: Option<i64>,
    pub consecutive_resolve: Option<i64>,
    pub grouping: Option<AlertGrouping>,
    pub metric_variant: Option<String>,
    pub min_sample_size: Option<i64>,
    // event
    pub events: Option<Vec<AlertEvent>>,
    // simulation
    pub conditions: Option<Vec<SimulationCondition>>,
    pub delivery_format: Option<DeliveryFormat>,
    /// The `name` of the simulation plan watched.
    pub plan: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AlertTriggerConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "type", &self.trigger_type);
        c.known(at, "type", self.trigger_type.as_ref());
        let threshold = [
            ("aggregation", self.aggregation.is_some()),
            ("metric", self.metric.is_some()),
            ("operator", self.operator.is_some()),
            ("thresholdValue", self.threshold_value.is_some()),
            ("windowMinutes", self.window_minutes.is_some()),
            ("consecutiveOpen", self.consecutive_open.is_some()),
            ("consecutiveResolve", self.consecutive_resolve.is_some()),
            ("grouping", self.grouping.is_some()),
            ("metricVariant", self.metric_variant.is_some()),
            ("minSampleSize", self.min_sample_size.is_some()),
        ];
        let event = [("events", self.events.is_some())];
        let simulation = [
            ("conditions", self.conditions.is_some()),
            ("deliveryFormat", self.delivery_format.is_some()),
            ("plan", self.plan.is_some()),
        ];
        let (own, needs): (&[(&str, bool)], &[&str]) = match self.trigger_type {
            Some(AlertTriggerType::Threshold) => {
                (&threshold, &["aggregation", "metric", "operator", "thresholdValue", "windowMinutes"])
            }
            Some(AlertTriggerType::Event) => (&event, &["events"]),
            Some(AlertTriggerType::Simulation) => (&simulation, &["conditions"]),
            _ => return,
        };
        let kind = self.trigger_type.as_ref().map(|t| t.as_str().to_owned()).unwrap_or_default();
        for (member, present) in threshold.iter().chain(&event).chain(&simulation) {
            if *present && !own.iter().any(|(m, _)| m == member) {
                let param = join(at, member);
                c.invalid(&param, format!("{param}: a {kind} trigger does not take {member}"));
            }
        }
        for member in needs {
            if !own.iter().any(|(m, present)| m == member && *present) {
                c.missing(join(at, member));
            }
        }
        c.known(at, "aggregation", self.aggregation.as_ref());
        c.length(at, "metric", self.metric.as_deref(), 1, Some(METRIC_NAME_MAX));
        c.known(at, "operator", self.operator.as_ref());
        c.range_f64(at, "thresholdValue", self.threshold_value, -1e12, 1e12);
        c.range(at, "windowMinutes", self.window_minutes, Some(1), Some(10_080));
        c.range(at, "consecutiveOpen", self.consecutive_open, Some(1), Some(1_000));
        c.range(at, "consecutiveResolve", self.consecutive_resolve, Some(1), Some(1_000));
        c.known(at, "grouping", self.grouping.as_ref());
        c.length(at, "metricVariant", self.metric_variant.as_deref(), 1, Some(NAME_MAX));
        c.range(at, "minSampleSize", self.min_sample_size, Some(0), Some(1_000_000));
        c.items(at, "events", self.events.as_deref(), 1, Some(AlertEvent::KNOWN.len()));
        c.known_each(at, "events", self.events.as_deref());
        c.items(at, "conditions", self.conditions.as_deref(), 1, Some(SimulationCondition::KNOWN.len()));
        c.known_each(at, "conditions", self.conditions.as_deref());
        c.known(at, "deliveryFormat", self.delivery_format.as_ref());
        c.length(at, "plan", self.plan.as_deref(), 1, Some(NAME_MAX));
    }
}

/// Where an alert says it fired.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertActionsConfig {
    pub slack: Option<Vec<SlackChannelConfig>>,
    /// Webhook URLs.
    pub webhooks: Option<Vec<String>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AlertActionsConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.items(at, "slack", self.slack.as_deref(), 0, Some(LIST_MAX));
        c.each(at, "slack", self.slack.as_deref());
        super::check_texts(c, at, "webhooks", self.webhooks.as_deref(), super::agent::URL_MAX);
    }
}
