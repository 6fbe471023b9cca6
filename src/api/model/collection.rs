//! Metric collection jobs and the values they produce.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::common::{IdRef, Timestamp, Unit, UnknownFields};
use super::metric::{MetricScope, MetricType};
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

wire_enum! {
    /// Status of a collection job (spelled CANCELED, as the spec does).
    pub enum CollectionJobStatus {
        Pending = "PENDING", Processing = "PROCESSING", Completed = "COMPLETED", Failed = "FAILED", Canceled = "CANCELED",
    }
}

impl CollectionJobStatus {
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Canceled)
    }
}

wire_enum! {
    /// What started a collection job.
    pub enum TriggeredBy {
        UserManual = "USER_MANUAL", UserApi = "USER_API", MetricPolicy = "METRIC_POLICY", Simulation = "SIMULATION",
    }
}

wire_enum! {
    /// Whether a value was captured, and if not, why.
    pub enum CaptureStatus {
        Success = "SUCCESS", NotApplicable = "NOT_APPLICABLE", DataMissing = "DATA_MISSING", Error = "ERROR",
    }
}

wire_enum! {
    /// Which values a job's value listing returns.
    pub enum ValueStatusFilter { Success = "success", All = "all" }
}

/// A metric collection job.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionJob {
    pub id: Uuid,
    pub status: Option<CollectionJobStatus>,
    pub triggered_by: Option<TriggeredBy>,
    pub total_items: Option<u64>,
    pub completed_items: Option<u64>,
    pub failed_items: Option<u64>,
    #[serialize_always]
    pub started_at: Option<Timestamp>,
    #[serialize_always]
    pub completed_at: Option<Timestamp>,
    #[serialize_always]
    pub error_message: Option<String>,
    #[serde(default)]
    pub policy_ids: Vec<Uuid>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// Limits of a collection job request.
pub mod collection_limits {
    pub const METRICS_MAX: usize = 20;
    pub const IDS_MAX: usize = 500;
    pub const LIST_LIMIT_MIN: i64 = 1;
    pub const LIST_LIMIT_MAX: i64 = 50;
    /// The page size of the lists the hosted service lets go further: calls (its SDK says 100)
    /// and agents.
    pub const WIDE_LIST_LIMIT_MAX: i64 = 100;
    pub const LIST_LIMIT_DEFAULT: i64 = 20;
}

/// Body of `POST /v1/metric/collection-jobs`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionJobInput {
    #[schema(min_items = 1, max_items = 20)]
    pub metrics: Option<Vec<IdRef>>,
    #[schema(min_items = 1, max_items = 500)]
    pub policy_ids: Option<Vec<Uuid>>,
    /// The hosted interface's single policy: its metrics are the job's when `metrics` is
    /// omitted, scored on the calls and chats named (its conditions are not applied).
    pub policy_id: Option<Uuid>,
    #[schema(min_items = 1, max_items = 500)]
    pub call_ids: Option<Vec<Uuid>>,
    #[schema(min_items = 1, max_items = 500)]
    pub chat_ids: Option<Vec<Uuid>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CollectionJobInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use collection_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(METRICS_MAX));
        c.items(at, "policyIds", self.policy_ids.as_deref(), 1, Some(IDS_MAX));
        c.items(at, "callIds", self.call_ids.as_deref(), 1, Some(IDS_MAX));
        c.items(at, "chatIds", self.chat_ids.as_deref(), 1, Some(IDS_MAX));
        if self.metrics.is_none() && self.policy_ids.is_none() && self.policy_id.is_none() {
            c.invalid(join(at, "metrics"), "give metrics or policyIds: the job would compute nothing");
        }
        if (self.metrics.is_some() || self.policy_id.is_some()) && self.call_ids.is_none() && self.chat_ids.is_none() {
            c.invalid(join(at, "callIds"), "give callIds or chatIds to compute the metrics on");
        }
        if self.policy_id.is_some() && self.policy_ids.is_some() {
            c.invalid(join(at, "policyId"), "give policyId or policyIds, not both");
        }
    }
}

/// Query of `GET /v1/metric/collection-jobs`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CollectionJobQuery {
    /// Page size.
    #[param(minimum = 1, maximum = 50, default = 20)]
    pub limit: Option<i64>,
    /// The `nextCursor` of a previous response.
    pub cursor: Option<String>,
    /// Alias of `cursor` (the hosted SDK's name).
    pub after: Option<String>,
    pub status: Option<CollectionJobStatus>,
}

impl Validate for CollectionJobQuery {
    fn check(&self, c: &mut Checks, at: &str) {
        c.range(
            at,
            "limit",
            self.limit,
            Some(collection_limits::LIST_LIMIT_MIN),
            Some(collection_limits::LIST_LIMIT_MAX),
        );
        c.known(at, "status", self.status.as_ref());
    }
}

/// The values of one metric definition: an element of a job's (or call's) metric values.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueGroup {
    pub metric_definition_id: Uuid,
    pub slug: Option<String>,
    pub metric_id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "type")]
    pub metric_type: Option<MetricType>,
    pub scope: Option<MetricScope>,
    pub unit: Option<Unit>,
    #[serde(default)]
    pub values: Vec<MetricValue>,
}

/// One computed (or honestly not computed) value.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricValue {
    pub capture_status: Option<CaptureStatus>,
    pub context: Option<super::metric::MetricContext>,
    pub computed_at: Option<Timestamp>,
    /// Omitted on rows that are not SUCCESS.
    pub value: Option<f64>,
    pub call_id: Option<Uuid>,
    pub chat_id: Option<Uuid>,
    pub error_message: Option<String>,
    pub participant_role: Option<String>,
    pub value_reasoning: Option<String>,
    pub confidence: Option<f64>,
    #[serde(default)]
    pub policy_ids: Vec<Uuid>,
    pub segment: Option<Segment>,
    pub from_segment: Option<Segment>,
    pub to_segment: Option<Segment>,
    /// The text of a classification or text value, beside its numeric `value` (local service).
    pub label: Option<String>,
}

impl MetricValue {
    /// The expectation of the script step a value judged, where its reasoning (or error) opens
    /// by naming the step, as the local service's `step_expectations` values do (`step "greet"
    /// (AGENT_TURN) "Agent greets the caller": Met: …`); None for any other value.
    pub fn step_expectation(&self) -> Option<&str> {
        self.step().map(|(_, expectation)| expectation)
    }

    /// The step a value judged, as its reasoning names it (`"greet"` or `7`; empty for a step
    /// with neither), and the step's expectation.
    pub fn step(&self) -> Option<(&str, &str)> {
        let text = self.value_reasoning.as_deref().or(self.error_message.as_deref())?;
        let (reference, rest) = match text.strip_prefix("step ") {
            Some(rest) => (rest.split_once(" (").map_or("", |(reference, _)| reference), rest),
            None => ("", text.strip_prefix("a ")?),
        };
        let (_, after) = rest.split_once(") \"")?;
        let (expectation, _) = after.split_once("\": ")?;
        Some((reference, expectation))
    }
}

/// A stretch of a transcript that a value points at.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    pub id: Option<Uuid>,
    pub text: Option<String>,
    pub start_offset_ms: Option<i64>,
    pub end_offset_ms: Option<i64>,
}
