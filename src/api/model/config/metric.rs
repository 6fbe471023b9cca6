//! The bundle's metrics (LLM-judged, `name` their slug) and collectors (metric policies).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::config_limits::*;
use super::{check_name, check_texts};
use crate::api::model::common::UnknownFields;
use crate::api::model::metric_limits;
use crate::api::model::{
    ConditionOperator, ConditionType, MetricContext, MetricScope, MetricType, Modality, ParticipantRole, PolicyStatus,
    policy_limits,
};
use crate::api::validate::{Checks, Validate, index, join};

/// `kind: metric`: an LLM-judged metric; its `name` is its slug.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricConfig {
    pub name: Option<String>,
    /// The metric's name as people see it; `name` when omitted.
    pub display_name: Option<String>,
    pub prompt: Option<String>,
    #[serde(rename = "type")]
    pub metric_type: Option<MetricType>,
    pub contexts: Option<Vec<MetricContext>>,
    pub false_label: Option<String>,
    pub true_label: Option<String>,
    pub max_selections: Option<i64>,
    pub options: Option<Vec<MetricOptionConfig>>,
    pub participant_role: Option<ParticipantRole>,
    pub scale_labels: Option<Vec<ScaleLabelConfig>>,
    pub scale_max: Option<i64>,
    pub scale_min: Option<i64>,
    pub scope: Option<MetricScope>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// The value types a bundle metric may have.
pub const CONFIG_METRIC_TYPES: &[MetricType] =
    &[MetricType::Boolean, MetricType::Scale, MetricType::Numeric, MetricType::Text, MetricType::Classification];

impl Validate for MetricConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use metric_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, METRIC_NAME_MAX);
        if let Some(name) = &self.name
            && !name.chars().all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'))
        {
            c.invalid(join(at, "name"), "a metric's name is its slug: letters, digits, _ - and . only");
        }
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "prompt", &self.prompt);
        c.length(at, "prompt", self.prompt.as_deref(), 1, Some(PROMPT_MAX));
        c.required(at, "type", &self.metric_type);
        c.one_of(at, "type", self.metric_type.as_ref(), CONFIG_METRIC_TYPES);
        let contexts = [MetricContext::Call, MetricContext::Segment, MetricContext::Turn];
        c.items(at, "contexts", self.contexts.as_deref(), 1, Some(contexts.len()));
        for (i, context) in self.contexts.iter().flatten().enumerate() {
            c.one_of(at, &index("contexts", i), Some(context), &contexts);
        }
        c.length(at, "falseLabel", self.false_label.as_deref(), 0, Some(LABEL_MAX));
        c.length(at, "trueLabel", self.true_label.as_deref(), 0, Some(LABEL_MAX));
        c.range(at, "maxSelections", self.max_selections, Some(1), Some(MAX_CLASSIFICATIONS_MAX));
        c.items(at, "options", self.options.as_deref(), 0, Some(CLASSIFICATION_OPTIONS_MAX));
        c.each(at, "options", self.options.as_deref());
        c.one_of(
            at,
            "participantRole",
            self.participant_role.as_ref(),
            &[ParticipantRole::Agent, ParticipantRole::Customer],
        );
        c.items(at, "scaleLabels", self.scale_labels.as_deref(), 0, Some(SCALE_LABELS_MAX));
        c.each(at, "scaleLabels", self.scale_labels.as_deref());
        c.range(at, "scaleMax", self.scale_max, Some(-SCALE_BOUND), Some(SCALE_BOUND));
        c.range(at, "scaleMin", self.scale_min, Some(-SCALE_BOUND), Some(SCALE_BOUND));
        if let (Some(min), Some(max)) = (self.scale_min, self.scale_max)
            && min >= max
        {
            c.invalid(join(at, "scaleMax"), format!("scaleMax ({max}) must be greater than scaleMin ({min})"));
        }
        c.known(at, "scope", self.scope.as_ref());
        match self.metric_type {
            Some(MetricType::Scale) => {
                c.required(at, "scaleMin", &self.scale_min);
                c.required(at, "scaleMax", &self.scale_max);
            }
            Some(MetricType::Classification) => {
                c.required(at, "options", &self.options);
                c.items(at, "options", self.options.as_deref(), 2, None);
            }
            _ => {}
        }
    }
}

/// One option of a classification metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricOptionConfig {
    pub display_order: Option<i64>,
    pub label: Option<String>,
    pub description: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for MetricOptionConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use metric_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "displayOrder", &self.display_order);
        c.range(at, "displayOrder", self.display_order, Some(0), Some(DISPLAY_ORDER_MAX));
        c.required(at, "label", &self.label);
        c.length(at, "label", self.label.as_deref(), 1, Some(LABEL_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(metric_limits::DESCRIPTION_MAX));
    }
}

/// One label of a scale metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScaleLabelConfig {
    pub display_order: Option<i64>,
    pub label: Option<String>,
    pub range_max: Option<f64>,
    pub range_min: Option<f64>,
    pub color_hex: Option<String>,
    pub description: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ScaleLabelConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use metric_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "displayOrder", &self.display_order);
        c.range(at, "displayOrder", self.display_order, Some(0), Some(DISPLAY_ORDER_MAX));
        c.required(at, "label", &self.label);
        c.length(at, "label", self.label.as_deref(), 1, Some(LABEL_MAX));
        let bound = SCALE_BOUND as f64;
        c.required(at, "rangeMax", &self.range_max);
        c.range_f64(at, "rangeMax", self.range_max, -bound, bound);
        c.required(at, "rangeMin", &self.range_min);
        c.range_f64(at, "rangeMin", self.range_min, -bound, bound);
        if let Some(hex) = &self.color_hex
            && !(hex.len() == 7 && hex.starts_with('#') && hex[1..].chars().all(|ch| ch.is_ascii_hexdigit()))
        {
            c.invalid(join(at, "colorHex"), "colorHex must look like #1a2b3c");
        }
        c.length(at, "description", self.description.as_deref(), 0, Some(metric_limits::DESCRIPTION_MAX));
    }
}

/// `kind: collector`: which metrics are collected for which calls or chats (a metric policy).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectorConfig {
    pub name: Option<String>,
    /// The policy's name as people see it; `name` when omitted.
    pub display_name: Option<String>,
    #[schema(value_type = Option<Vec<Object>>)]
    pub metrics: Option<Vec<CollectorMetric>>,
    pub modality: Option<Modality>,
    pub filters: Option<Vec<CollectorFilterConfig>>,
    pub status: Option<PolicyStatus>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CollectorConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(policy_limits::NAME_MAX));
        c.required(at, "metrics", &self.metrics);
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(policy_limits::METRICS_MAX));
        for (i, metric) in self.metrics.iter().flatten().enumerate() {
            let path = index(&join(at, "metrics"), i);
            match metric {
                CollectorMetric::Name(name) => c.length(&path, "", Some(name), 1, Some(METRIC_NAME_MAX)),
                CollectorMetric::Detail(detail) => detail.check(c, &path),
            }
        }
        c.required(at, "modality", &self.modality);
        c.known(at, "modality", self.modality.as_ref());
        c.items(at, "filters", self.filters.as_deref(), 0, Some(policy_limits::GROUPS_MAX));
        c.each(at, "filters", self.filters.as_deref());
        c.known(at, "status", self.status.as_ref());
    }
}

/// A collector's metric: its `name`, or the name with per-collector settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CollectorMetric {
    Name(String),
    Detail(CollectorMetricConfig),
}

impl CollectorMetric {
    pub fn metric(&self) -> Option<&str> {
        match self {
            CollectorMetric::Name(name) => Some(name),
            CollectorMetric::Detail(detail) => detail.metric.as_deref(),
        }
    }
}

/// A metric a collector collects, with the settings it takes there.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectorMetricConfig {
    pub metric: Option<String>,
    pub excluded_phrases: Option<Vec<String>>,
    pub screening_brief: Option<String>,
    pub verified_properties: Option<Vec<String>>,
    pub voicemail_script: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CollectorMetricConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "metric", &self.metric);
        c.length(at, "metric", self.metric.as_deref(), 1, Some(METRIC_NAME_MAX));
        check_texts(c, at, "excludedPhrases", self.excluded_phrases.as_deref(), TEXT_MAX);
        c.length(at, "screeningBrief", self.screening_brief.as_deref(), 0, Some(PROMPT_MAX));
        check_texts(c, at, "verifiedProperties", self.verified_properties.as_deref(), NAME_MAX);
        c.length(at, "voicemailScript", self.voicemail_script.as_deref(), 0, Some(PROMPT_MAX));
    }
}

/// A group of conditions that must all hold.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectorFilterConfig {
    pub conditions: Option<Vec<CollectorConditionConfig>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CollectorFilterConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "conditions", &self.conditions);
        c.items(at, "conditions", self.conditions.as_deref(), 1, Some(policy_limits::CONDITIONS_MAX));
        c.each(at, "conditions", self.conditions.as_deref());
    }
}

/// One condition of a collector's filter.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectorConditionConfig {
    pub key: Option<String>,
    #[serde(rename = "type")]
    pub condition_type: Option<ConditionType>,
    pub operator: Option<ConditionOperator>,
    pub value: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CollectorConditionConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        use policy_limits::CONDITION_TEXT_MAX;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "key", &self.key);
        c.length(at, "key", self.key.as_deref(), 1, Some(CONDITION_TEXT_MAX));
        c.required(at, "type", &self.condition_type);
        c.one_of(at, "type", self.condition_type.as_ref(), &[ConditionType::Agent, ConditionType::CallProperty]);
        c.known(at, "operator", self.operator.as_ref());
        c.length(at, "value", self.value.as_deref(), 1, Some(CONDITION_TEXT_MAX));
    }
}
