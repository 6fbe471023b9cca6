//! Metric definitions, their updates, and thresholds derived from them.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, Unit, UnknownFields};
use super::run_plan::ConversationSource;
use crate::api::validate::{Checks, Validate, Violation, join};
use crate::wire_enum;

wire_enum! {
    /// What kind of value a metric produces.
    pub enum MetricType {
        Count = "COUNT", Numeric = "NUMERIC", Boolean = "BOOLEAN", Scale = "SCALE",
        Text = "TEXT", Classification = "CLASSIFICATION", Offset = "OFFSET",
    }
}
wire_enum! {
    /// How a metric's value is produced.
    pub enum CalculationType {
        Provider = "PROVIDER", LlmJudge = "LLM_JUDGE", Threshold = "THRESHOLD", Pattern = "PATTERN", Formula = "FORMULA",
    }
}
wire_enum! {
    /// Whether a metric yields one value per conversation or per participant.
    pub enum MetricScope { Global = "GLOBAL", PerParticipant = "PER_PARTICIPANT" }
}
wire_enum! {
    /// What part of a conversation a value describes.
    pub enum MetricContext { Call = "CALL", Turn = "TURN", Segment = "SEGMENT", SegmentRange = "SEGMENT_RANGE" }
}
wire_enum! {
    /// Who owns a definition: the service (shared) or the caller's workspace.
    pub enum DefinitionSource { System = "SYSTEM", Custom = "CUSTOM" }
}
wire_enum! {
    /// Comparison a threshold applies.
    pub enum ThresholdOperator {
        GreaterThan = "GREATER_THAN",
        GreaterThanOrEquals = "GREATER_THAN_OR_EQUALS",
        LessThan = "LESS_THAN",
        LessThanOrEquals = "LESS_THAN_OR_EQUALS",
        Equals = "EQUALS",
        NotEquals = "NOT_EQUALS",
    }
}
impl ThresholdOperator {
    /// A short form for generated slugs: `gt`, `gte`, `lt`, `lte`, `eq`, `ne`.
    pub fn short(&self) -> &str {
        match self {
            ThresholdOperator::GreaterThan => "gt",
            ThresholdOperator::GreaterThanOrEquals => "gte",
            ThresholdOperator::LessThan => "lt",
            ThresholdOperator::LessThanOrEquals => "lte",
            ThresholdOperator::Equals => "eq",
            ThresholdOperator::NotEquals => "ne",
            ThresholdOperator::Unknown(text) => text,
        }
    }
}

wire_enum! {
    /// How a threshold aggregates its source's values before comparing.
    pub enum AggregationMode {
        Each = "EACH", Count = "COUNT", Average = "AVERAGE", Min = "MIN", Max = "MAX",
        Median = "MEDIAN", P95 = "P95", P99 = "P99", Sum = "SUM",
    }
}
wire_enum! {
    /// A participant's role in a conversation.
    pub enum ParticipantRole {
        Agent = "AGENT", Customer = "CUSTOMER", SimulatedCustomer = "SIMULATED_CUSTOMER", BackgroundSpeaker = "BACKGROUND_SPEAKER",
    }
}
wire_enum! {
    /// Calls or chats.
    pub enum Modality { Call = "call", Chat = "chat" }
}

/// A metric definition (also the response of threshold creation).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricDefinition {
    pub id: Uuid,
    pub slug: Option<String>,
    /// Alias of `slug`.
    pub metric_id: Option<String>,
    pub variant_id: Option<Uuid>,
    /// Advances on every update.
    pub version_id: Option<Uuid>,
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "type")]
    pub metric_type: Option<MetricType>,
    pub scope: Option<MetricScope>,
    /// Whose side of the conversation the metric judges (AGENT or CUSTOMER), when it says.
    pub participant_role: Option<ParticipantRole>,
    #[serde(default)]
    pub supported_contexts: Vec<MetricContext>,
    #[serde(default)]
    pub supported_conversation_sources: Vec<ConversationSource>,
    pub requires_live_conversation: Option<bool>,
    pub supports_variants: Option<bool>,
    pub calculation_type: Option<CalculationType>,
    #[serialize_always]
    pub llm_prompt: Option<String>,
    #[serialize_always]
    pub boolean_true_label: Option<String>,
    #[serialize_always]
    pub boolean_false_label: Option<String>,
    pub unit: Option<Unit>,
    pub threshold: Option<Threshold>,
    /// For a count summed from a sibling metric's per-turn verdicts, where the evidence lives;
    /// null for a metric that is its own evidence (every metric here).
    #[serialize_always]
    pub evidence_source: Option<EvidenceSource>,
    // Members the spec references without describing; the local service sends them.
    pub source: Option<DefinitionSource>,
    /// The value type, as the hosted create input names it (the same as `type`).
    pub output_type: Option<MetricType>,
    pub version: Option<u64>,
    pub supported_modalities: Option<Vec<Modality>>,
    pub scale_min: Option<i64>,
    pub scale_max: Option<i64>,
    pub scale_labels: Option<Vec<ScaleLabel>>,
    pub classification_options: Option<Vec<ClassificationOption>>,
    pub max_classifications: Option<i64>,
    /// A FORMULA metric's expression with its sources (the hosted shape), or the bare
    /// expression older local services sent.
    pub formula: Option<Formula>,
    pub sources: Option<Vec<MetricSourceRef>>,
    pub knowledge_base_ids: Option<Vec<Uuid>>,
    pub change_reason: Option<String>,
    /// For a workspace fork made through a variant: the definition it forks, and the variant's name.
    pub forked_from: Option<Uuid>,
    pub variant_name: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// A variant of a metric definition: its default (the definition itself) or a workspace fork
/// made by `PUT …/variants/{name}`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricVariant {
    pub id: Uuid,
    pub name: String,
    pub is_default: bool,
    /// Whether the service provides the variant (the default of a service-owned metric).
    pub is_system: bool,
    /// The definition it is a variant of.
    pub metric_definition_id: Uuid,
    #[serialize_always]
    pub version_id: Option<Uuid>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    /// The definition as this variant configures it (local service extension).
    pub definition: Option<Box<MetricDefinition>>,
}

/// Body of `POST /v1/metric/definitions/{idOrSlug}/variants`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricVariantInput {
    /// Unique among the metric's variants, and not `Default`.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 64)]
    pub name: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for MetricVariantInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        if let Some(name) = c.required(at, "name", &self.name)
            && let Some(problem) = variant_name_problem(name)
        {
            c.invalid(join(at, "name"), problem);
        }
    }
}

/// Where the evidence of a count summed from a sibling metric lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceSource {
    pub counts_when: bool,
    pub metric_id: String,
}

/// A FORMULA metric's formula: `{expression, sources}`, or an expression alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Formula {
    Expression(String),
    Object {
        expression: String,
        #[serde(default)]
        sources: Vec<MetricSourceRef>,
    },
}

impl Formula {
    pub fn expression(&self) -> &str {
        match self {
            Formula::Expression(text) | Formula::Object { expression: text, .. } => text,
        }
    }
}

impl MetricDefinition {
    /// The slug, read from `slug` or its alias `metricId`.
    pub fn slug_or_alias(&self) -> Option<&str> {
        self.slug.as_deref().or(self.metric_id.as_deref())
    }

    pub fn is_service_owned(&self) -> bool {
        self.source == Some(DefinitionSource::System)
    }

    /// Whether the metric is a check, one that yields pass/fail and so judges a run: a
    /// threshold, a yes/no metric someone authored (LLM-judged, formula, pattern), or the
    /// automatic agent-expectations and keypad-entry metrics. Provider readings (durations,
    /// counts, latencies, provider yes/no fields) are observations: put a threshold on one.
    pub fn is_check(&self) -> bool {
        const AUTOMATIC_CHECKS: &[&str] = &["agent_expectations", "keypad_entry"];
        // Shown for information beside the checks, never one of them.
        const INFORMATION: &[&str] = &["step_expectations"];
        if self.is_service_owned() && self.slug.as_deref().is_some_and(|slug| INFORMATION.contains(&slug)) {
            return false;
        }
        let automatic =
            self.is_service_owned() && self.slug.as_deref().is_some_and(|slug| AUTOMATIC_CHECKS.contains(&slug));
        match self.calculation_type {
            Some(CalculationType::Threshold) => true,
            Some(CalculationType::Provider) | None => automatic,
            Some(_) => self.metric_type == Some(MetricType::Boolean) || automatic,
        }
    }

    /// Derived metrics (thresholds and formulas) take only a new name.
    pub fn is_derived(&self) -> bool {
        matches!(self.calculation_type, Some(CalculationType::Threshold | CalculationType::Formula))
    }

    /// Whether values of this metric can name a participant role (TURN or SEGMENT contexts).
    pub fn has_participant_contexts(&self) -> bool {
        self.supported_contexts.iter().any(|c| matches!(c, MetricContext::Turn | MetricContext::Segment))
    }

    /// Whether this metric applies to calls or to chats.
    pub fn supports_modality(&self, modality: &Modality) -> bool {
        self.supported_modalities.as_ref().is_none_or(|m| m.contains(modality))
    }
}

/// The threshold object of a THRESHOLD metric.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Threshold {
    pub source_metric_definition_id: Option<Uuid>,
    pub operator: Option<ThresholdOperator>,
    pub threshold_value: Option<String>,
    pub aggregation_mode: Option<AggregationMode>,
    #[serialize_always]
    pub count_threshold: Option<i64>,
    #[serialize_always]
    pub source_participant_role: Option<ParticipantRole>,
    #[serialize_always]
    pub source_variant_id: Option<Uuid>,
}

/// One label of a scale metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScaleLabel {
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub range_min: Option<f64>,
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub range_max: Option<f64>,
    #[schema(min_length = 1, max_length = 200)]
    pub label: Option<String>,
    #[schema(minimum = 0, maximum = 1000)]
    pub display_order: Option<i64>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    #[schema(pattern = "^#[0-9a-fA-F]{6}$", max_length = 7)]
    pub color_hex: Option<String>,
}

/// One option of a classification metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClassificationOption {
    #[schema(min_length = 1, max_length = 200)]
    pub label: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    #[schema(minimum = 0, maximum = 1000)]
    pub display_order: Option<i64>,
}

/// A source of a derived metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricSourceRef {
    pub source_metric_definition_id: Option<Uuid>,
    #[serialize_always]
    pub source_variant_id: Option<Uuid>,
}

/// Fields that can never be changed through an update.
pub const IMMUTABLE_FIELDS: &[&str] = &[
    "slug",
    "metricId",
    "source",
    "organizationId",
    "projectId",
    "outputType",
    "scope",
    "participantRole",
    "calcType",
    "supportsMultipleVariants",
    "analysisPackageId",
];

/// Body of `PUT /v1/metric/definitions/{idOrSlug}`: only supplied fields change.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricDefinitionUpdate {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 10000)]
    pub llm_prompt: Option<String>,
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub scale_min: Option<i64>,
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub scale_max: Option<i64>,
    #[schema(max_items = 20)]
    pub scale_labels: Option<Vec<ScaleLabel>>,
    #[schema(max_length = 200)]
    pub boolean_true_label: Option<String>,
    #[schema(max_length = 200)]
    pub boolean_false_label: Option<String>,
    #[schema(max_items = 50)]
    pub classification_options: Option<Vec<ClassificationOption>>,
    #[schema(minimum = 1, maximum = 50)]
    pub max_classifications: Option<i64>,
    #[schema(max_items = 50)]
    pub tool_definition_ids: Option<Vec<Uuid>>,
    #[schema(min_items = 1, max_items = 20)]
    pub supported_contexts: Option<Vec<MetricContext>>,
    #[schema(min_length = 1, max_length = 1000)]
    pub formula: Option<String>,
    #[schema(max_items = 20)]
    pub sources: Option<Vec<MetricSourceRef>>,
    #[schema(max_length = 2000)]
    pub change_reason: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl MetricDefinitionUpdate {
    /// The wire names of the members this update supplies.
    pub fn supplied_fields(&self) -> Vec<String> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Rules that depend on the definition being edited: derived metrics take only `name`.
    pub fn validate_against(&self, definition: &MetricDefinition) -> Vec<Violation> {
        let mut c = Checks::default();
        if definition.is_derived() {
            for field in self.supplied_fields() {
                if field != "name" && field != "changeReason" && !self.unknown_fields.contains_key(&field) {
                    c.invalid(&field, format!("{field} cannot be changed on a derived metric; only name can"));
                }
            }
        }
        let min = self.scale_min.or(definition.scale_min);
        let max = self.scale_max.or(definition.scale_max);
        if let (Some(min), Some(max)) = (min, max)
            && min >= max
        {
            c.invalid("scaleMax", format!("scaleMax ({max}) must be greater than scaleMin ({min})"));
        }
        c.into_violations()
    }
}

impl Validate for MetricDefinitionUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        for name in self.unknown_fields.keys() {
            let param = join(at, name);
            if IMMUTABLE_FIELDS.contains(&name.as_str()) {
                c.invalid(&param, format!("{param} is immutable and cannot be updated"));
            } else {
                c.invalid(&param, format!("unknown field {param}"));
            }
        }
        use metric_limits::*;
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "llmPrompt", self.llm_prompt.as_deref(), 1, Some(PROMPT_MAX));
        c.length(at, "changeReason", self.change_reason.as_deref(), 0, Some(DESCRIPTION_MAX));
        check_shape(
            c,
            at,
            &Shape {
                scale_min: self.scale_min,
                scale_max: self.scale_max,
                scale_labels: self.scale_labels.as_deref(),
                boolean_labels: [self.boolean_true_label.as_deref(), self.boolean_false_label.as_deref()],
                classification_options: self.classification_options.as_deref(),
                max_classifications: self.max_classifications,
                supported_contexts: self.supported_contexts.as_deref(),
                formula: self.formula.as_deref(),
                sources: self.sources.as_deref(),
            },
        );
        c.items(at, "toolDefinitionIds", self.tool_definition_ids.as_deref(), 0, Some(IDS_MAX));
    }
}

/// Why a name cannot name a new variant (`PUT …/variants/{name}`): a name is 1 to
/// `VARIANT_NAME_MAX` letters, digits, spaces, `-`, `_` or `.`, and not `.` or `..` alone, so
/// that it never reads as a path (`../../etc/passwd`) wherever it is shown or kept.
pub fn variant_name_problem(name: &str) -> Option<String> {
    use metric_limits::VARIANT_NAME_MAX;
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.');
    if name.trim().is_empty() || name.chars().count() > VARIANT_NAME_MAX {
        return Some(format!("variant must be 1 to {VARIANT_NAME_MAX} characters"));
    }
    if !name.chars().all(allowed) || name.trim_matches('.').is_empty() {
        return Some(format!(
            "variant {} may hold letters, digits, spaces, - _ and . only",
            crate::api::validate::quote(name)
        ));
    }
    None
}

/// Limits of metric definition inputs (create, update, variants).
pub mod metric_limits {
    /// A variant's name (the last segment of `…/variants/{name}`).
    pub const VARIANT_NAME_MAX: usize = 64;
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const PROMPT_MAX: usize = 10_000;
    pub const LABEL_MAX: usize = 200;
    pub const FORMULA_MAX: usize = 1_000;
    /// Bounds of `scaleMin`, `scaleMax` and a scale label's range.
    pub const SCALE_BOUND: i64 = 1_000_000;
    pub const DISPLAY_ORDER_MAX: i64 = 1_000;
    pub const SCALE_LABELS_MAX: usize = 20;
    pub const CLASSIFICATION_OPTIONS_MAX: usize = 50;
    pub const MAX_CLASSIFICATIONS_MAX: i64 = 50;
    pub const CONTEXTS_MAX: usize = 20;
    pub const MODALITIES_MAX: usize = 10;
    pub const SOURCES_MAX: usize = 20;
    /// Knowledge base and tool definition ids.
    pub const IDS_MAX: usize = 50;
    pub const UNIT_TEXT_MAX: usize = 50;
}

/// The members that create and update share, checked the same way.
struct Shape<'a> {
    scale_min: Option<i64>,
    scale_max: Option<i64>,
    scale_labels: Option<&'a [ScaleLabel]>,
    boolean_labels: [Option<&'a str>; 2],
    classification_options: Option<&'a [ClassificationOption]>,
    max_classifications: Option<i64>,
    supported_contexts: Option<&'a [MetricContext]>,
    formula: Option<&'a str>,
    sources: Option<&'a [MetricSourceRef]>,
}

fn check_shape(c: &mut Checks, at: &str, shape: &Shape) {
    use metric_limits::*;
    let bound = (Some(-SCALE_BOUND), Some(SCALE_BOUND));
    c.range(at, "scaleMin", shape.scale_min, bound.0, bound.1);
    c.range(at, "scaleMax", shape.scale_max, bound.0, bound.1);
    if let (Some(min), Some(max)) = (shape.scale_min, shape.scale_max)
        && min >= max
    {
        c.invalid(join(at, "scaleMax"), format!("scaleMax ({max}) must be greater than scaleMin ({min})"));
    }
    c.items(at, "scaleLabels", shape.scale_labels, 0, Some(SCALE_LABELS_MAX));
    for (i, label) in shape.scale_labels.unwrap_or_default().iter().enumerate() {
        let path = format!("{}[{i}]", join(at, "scaleLabels"));
        c.required(&path, "label", &label.label);
        c.length(&path, "label", label.label.as_deref(), 1, Some(LABEL_MAX));
        c.length(&path, "description", label.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        let bound = (-SCALE_BOUND as f64, SCALE_BOUND as f64);
        c.range_f64(&path, "rangeMin", label.range_min, bound.0, bound.1);
        c.range_f64(&path, "rangeMax", label.range_max, bound.0, bound.1);
        c.range(&path, "displayOrder", label.display_order, Some(0), Some(DISPLAY_ORDER_MAX));
        if let (Some(lo), Some(hi)) = (label.range_min, label.range_max)
            && lo > hi
        {
            c.invalid(join(&path, "rangeMax"), "rangeMax must not be below rangeMin");
        }
        if let Some(hex) = &label.color_hex
            && !is_color_hex(hex)
        {
            c.invalid(join(&path, "colorHex"), "colorHex must look like #1a2b3c");
        }
    }
    c.length(at, "booleanTrueLabel", shape.boolean_labels[0], 0, Some(LABEL_MAX));
    c.length(at, "booleanFalseLabel", shape.boolean_labels[1], 0, Some(LABEL_MAX));
    c.items(at, "classificationOptions", shape.classification_options, 0, Some(CLASSIFICATION_OPTIONS_MAX));
    for (i, option) in shape.classification_options.unwrap_or_default().iter().enumerate() {
        let path = format!("{}[{i}]", join(at, "classificationOptions"));
        c.required(&path, "label", &option.label);
        c.length(&path, "label", option.label.as_deref(), 1, Some(LABEL_MAX));
        c.length(&path, "description", option.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.range(&path, "displayOrder", option.display_order, Some(0), Some(DISPLAY_ORDER_MAX));
    }
    c.range(at, "maxClassifications", shape.max_classifications, Some(1), Some(MAX_CLASSIFICATIONS_MAX));
    c.items(at, "supportedContexts", shape.supported_contexts, 1, Some(CONTEXTS_MAX));
    c.known_each(at, "supportedContexts", shape.supported_contexts);
    c.length(at, "formula", shape.formula, 1, Some(FORMULA_MAX));
    c.items(at, "sources", shape.sources, 0, Some(SOURCES_MAX));
}

fn is_color_hex(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].chars().all(|c| c.is_ascii_hexdigit())
}

/// Limits of the threshold create input.
pub mod threshold_limits {
    pub const SLUG_MIN: usize = 1;
    pub const SLUG_MAX: usize = 50;
    pub const COUNT_THRESHOLD_MIN: i64 = 0;
    pub const COUNT_THRESHOLD_MAX: i64 = 1_000_000;
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const VALUE_MAX: usize = 100;
}

/// Body of `POST /v1/metric/definitions/{idOrSlug}/thresholds`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdInput {
    /// Name of the new boolean metric; the source's name with the comparison when omitted.
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    #[schema(value_type = ThresholdOperator, required = true)]
    pub operator: Option<ThresholdOperator>,
    /// The value compared against, given as a string.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100)]
    pub value: Option<String>,
    /// Generated when omitted: from the name when given, else from the source's slug, the
    /// operator and the value (`call_duration_gt_60`).
    #[schema(min_length = 1, max_length = 50)]
    pub slug: Option<String>,
    /// Alias of `slug`.
    #[schema(deprecated, min_length = 1, max_length = 50)]
    pub metric_id: Option<String>,
    /// How the source metric is aggregated before comparing.
    #[schema(default = "EACH")]
    pub aggregation_mode: Option<AggregationMode>,
    /// Required when aggregationMode is COUNT.
    #[schema(minimum = 0, maximum = 1000000)]
    pub count_threshold: Option<i64>,
    pub source_participant_role: Option<ParticipantRole>,
    pub source_variant_id: Option<Uuid>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl ThresholdInput {
    pub fn aggregation_mode_or_default(&self) -> AggregationMode {
        self.aggregation_mode.clone().unwrap_or(AggregationMode::Each)
    }

    /// Rules that depend on the source metric.
    pub fn validate_against(&self, source: &MetricDefinition) -> Vec<Violation> {
        let mut c = Checks::default();
        if self.source_participant_role.is_some() && !source.has_participant_contexts() {
            c.invalid(
                "sourceParticipantRole",
                "sourceParticipantRole applies only to sources with TURN or SEGMENT contexts",
            );
        }
        if let Some(value) = &self.value {
            let numeric = matches!(
                source.metric_type,
                Some(MetricType::Count | MetricType::Numeric | MetricType::Scale | MetricType::Offset)
            );
            if numeric && value.trim().parse::<f64>().is_err() {
                c.invalid(
                    "value",
                    format!(
                        "value must be a number to compare with {}",
                        source.name.as_deref().unwrap_or("this metric")
                    ),
                );
            }
            if source.metric_type == Some(MetricType::Boolean) && !matches!(value.trim(), "true" | "false") {
                c.invalid("value", "value must be true or false for a boolean metric");
            }
        }
        c.into_violations()
    }
}

impl Validate for ThresholdInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use threshold_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "operator", &self.operator);
        c.known(at, "operator", self.operator.as_ref());
        c.known(at, "aggregationMode", self.aggregation_mode.as_ref());
        c.known(at, "sourceParticipantRole", self.source_participant_role.as_ref());
        c.required(at, "value", &self.value);
        c.length(at, "value", self.value.as_deref(), 1, Some(VALUE_MAX));
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "slug", self.slug.as_deref(), SLUG_MIN, Some(SLUG_MAX));
        c.length(at, "metricId", self.metric_id.as_deref(), SLUG_MIN, Some(SLUG_MAX));
        if let (Some(slug), Some(alias)) = (&self.slug, &self.metric_id)
            && slug != alias
        {
            c.invalid(join(at, "metricId"), "metricId is an alias of slug; give one of them");
        }
        let count = (Some(COUNT_THRESHOLD_MIN), Some(COUNT_THRESHOLD_MAX));
        c.range(at, "countThreshold", self.count_threshold, count.0, count.1);
        if self.aggregation_mode == Some(AggregationMode::Count) && self.count_threshold.is_none() {
            c.missing(join(at, "countThreshold"));
        }
    }
}

/// A slug made from a name: lower case, words joined by `_`, at most 50 characters.
pub fn slug_from_name(name: &str) -> String {
    let mut slug = String::new();
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        if !slug.is_empty() {
            slug.push('_');
        }
        slug.push_str(&word.to_ascii_lowercase());
    }
    slug.truncate(threshold_limits::SLUG_MAX);
    slug.trim_end_matches('_').to_owned()
}

/// Body of `POST /v1/metric/definitions`: a caller-owned custom metric.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricDefinitionInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 50)]
    pub slug: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// The value type; give this or `outputType`.
    #[serde(rename = "type")]
    pub metric_type: Option<MetricType>,
    /// The hosted interface's name for `type`.
    pub output_type: Option<MetricType>,
    /// LLM_JUDGE or FORMULA: thresholds have their own operation, and provider and pattern
    /// metrics are not created here.
    #[schema(value_type = CalculationType, required = true)]
    pub calculation_type: Option<CalculationType>,
    pub scope: Option<MetricScope>,
    #[schema(min_items = 1, max_items = 20)]
    pub supported_contexts: Option<Vec<MetricContext>>,
    #[schema(max_items = 10)]
    pub supported_modalities: Option<Vec<Modality>>,
    /// Required for LLM_JUDGE metrics.
    #[schema(min_length = 1, max_length = 10000)]
    pub llm_prompt: Option<String>,
    #[schema(max_length = 200)]
    pub boolean_true_label: Option<String>,
    #[schema(max_length = 200)]
    pub boolean_false_label: Option<String>,
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub scale_min: Option<i64>,
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub scale_max: Option<i64>,
    #[schema(max_items = 20)]
    pub scale_labels: Option<Vec<ScaleLabel>>,
    /// At least two options for CLASSIFICATION metrics.
    #[schema(max_items = 50)]
    pub classification_options: Option<Vec<ClassificationOption>>,
    #[schema(minimum = 1, maximum = 50)]
    pub max_classifications: Option<i64>,
    #[schema(min_length = 1, max_length = 1000)]
    pub formula: Option<String>,
    #[schema(max_items = 20)]
    pub sources: Option<Vec<MetricSourceRef>>,
    #[schema(max_items = 50)]
    pub knowledge_base_ids: Option<Vec<Uuid>>,
    pub unit: Option<Unit>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl MetricDefinitionInput {
    /// The value type, by either name.
    pub fn value_type(&self) -> Option<&MetricType> {
        self.metric_type.as_ref().or(self.output_type.as_ref())
    }
}

impl Validate for MetricDefinitionInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use metric_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "slug", self.slug.as_deref(), threshold_limits::SLUG_MIN, Some(threshold_limits::SLUG_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        match (&self.metric_type, &self.output_type) {
            (None, None) => c.missing(join(at, "outputType")),
            (Some(a), Some(b)) if a != b => {
                c.invalid(join(at, "outputType"), "outputType is the hosted name of type; give one of them")
            }
            _ => {}
        }
        c.known(at, "type", self.metric_type.as_ref());
        c.known(at, "outputType", self.output_type.as_ref());
        c.required(at, "calculationType", &self.calculation_type);
        c.known(at, "calculationType", self.calculation_type.as_ref());
        if let Some(kind @ (CalculationType::Provider | CalculationType::Threshold | CalculationType::Pattern)) =
            &self.calculation_type
        {
            let why = match kind {
                CalculationType::Threshold => {
                    "thresholds are made with POST /v1/metric/definitions/{idOrSlug}/thresholds"
                }
                _ => "only LLM_JUDGE and FORMULA metrics can be created here",
            };
            c.invalid(join(at, "calculationType"), format!("calculationType {kind}: {why}"));
        }
        if let Some(unit) = &self.unit {
            c.required(&join(at, "unit"), "name", &unit.name);
        }
        c.known(at, "scope", self.scope.as_ref());
        c.items(at, "supportedModalities", self.supported_modalities.as_deref(), 0, Some(MODALITIES_MAX));
        c.known_each(at, "supportedModalities", self.supported_modalities.as_deref());
        c.items(at, "knowledgeBaseIds", self.knowledge_base_ids.as_deref(), 0, Some(IDS_MAX));
        if let Some(unit) = &self.unit {
            let path = join(at, "unit");
            c.length(&path, "name", unit.name.as_deref(), 0, Some(UNIT_TEXT_MAX));
            c.length(&path, "symbol", unit.symbol.as_deref(), 0, Some(UNIT_TEXT_MAX));
        }
        check_shape(
            c,
            at,
            &Shape {
                scale_min: self.scale_min,
                scale_max: self.scale_max,
                scale_labels: self.scale_labels.as_deref(),
                boolean_labels: [self.boolean_true_label.as_deref(), self.boolean_false_label.as_deref()],
                classification_options: self.classification_options.as_deref(),
                max_classifications: self.max_classifications,
                supported_contexts: self.supported_contexts.as_deref(),
                formula: self.formula.as_deref(),
                sources: self.sources.as_deref(),
            },
        );
        match self.calculation_type {
            Some(CalculationType::LlmJudge) => {
                c.required(at, "llmPrompt", &self.llm_prompt);
            }
            Some(CalculationType::Formula) => {
                c.required(at, "formula", &self.formula);
                c.required(at, "sources", &self.sources);
            }
            _ => {}
        }
        c.length(at, "llmPrompt", self.llm_prompt.as_deref(), 1, Some(PROMPT_MAX));
        if self.value_type() == Some(&MetricType::Scale) {
            c.required(at, "scaleMin", &self.scale_min);
            c.required(at, "scaleMax", &self.scale_max);
        }
        if self.value_type() == Some(&MetricType::Classification) {
            c.required(at, "classificationOptions", &self.classification_options);
            c.items(at, "classificationOptions", self.classification_options.as_deref(), 2, None);
        }
    }
}
