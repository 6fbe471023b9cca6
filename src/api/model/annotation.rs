//! People's labels on the judge's values (local service extension): a metric value on a call
//! marked right or wrong, kept with what the judge said and which definition version said it,
//! so that a judge's agreement with people can be measured per version.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use crate::api::validate::{Checks, Validate};
use crate::wire_enum;

wire_enum! {
    /// What a person says of a judged value.
    pub enum AnnotationLabel { Right = "RIGHT", Wrong = "WRONG" }
}

/// Limits of an annotation.
pub mod annotation_limits {
    pub const VALUE_INDEX_MAX: i64 = 10_000;
    pub const NOTE_MIN: usize = 1;
    pub const NOTE_MAX: usize = 2000;
}

/// Body of `POST /v1/metric/annotations`: label one value. Labelling a value again replaces
/// its label.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnnotationInput {
    /// The call the value is on.
    #[schema(value_type = Uuid, required = true)]
    pub call_id: Option<Uuid>,
    #[schema(value_type = Uuid, required = true)]
    pub metric_definition_id: Option<Uuid>,
    /// Which of the metric's values on the call, counted from 0 in the order
    /// `GET /v1/call/{callId}/metrics?status=all` lists them (0 for a metric with one value).
    #[schema(minimum = 0, maximum = 10000)]
    pub value_index: Option<i64>,
    #[schema(value_type = AnnotationLabel, required = true)]
    pub label: Option<AnnotationLabel>,
    /// Why, in a person's words.
    #[schema(min_length = 1, max_length = 2000)]
    pub note: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for AnnotationInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use annotation_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "callId", &self.call_id);
        c.required(at, "metricDefinitionId", &self.metric_definition_id);
        c.required(at, "label", &self.label);
        c.known(at, "label", self.label.as_ref());
        c.range(at, "valueIndex", self.value_index, Some(0), Some(VALUE_INDEX_MAX));
        c.length(at, "note", self.note.as_deref(), NOTE_MIN, Some(NOTE_MAX));
    }
}

/// A label on one judged value, with what the judge said.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Annotation {
    pub id: Uuid,
    pub call_id: Uuid,
    pub metric_definition_id: Uuid,
    #[serde(default)]
    pub value_index: u64,
    pub label: AnnotationLabel,
    pub note: Option<String>,
    /// The judge's value when it was labelled (1/0 for yes/no).
    pub judge_value: Option<f64>,
    /// The judge's label (a classification's option, say), where it gave one.
    pub judge_label: Option<String>,
    /// Whether the metric answers yes/no (so agreement has a κ).
    #[serde(default)]
    pub boolean: bool,
    /// The definition version that produced the value.
    pub version_id: Option<Uuid>,
    pub version: Option<u64>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

impl Annotation {
    /// For a yes/no metric: (the judge said yes, people say yes).
    pub fn answers(&self) -> Option<(bool, bool)> {
        let judge = self.judge_value? != 0.0;
        self.boolean.then_some((judge, judge == (self.label == AnnotationLabel::Right)))
    }
}

/// Query of `GET /v1/metric/annotations`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AnnotationQuery {
    /// Page size.
    #[param(minimum = 1, maximum = 50, default = 20)]
    pub limit: Option<i64>,
    /// The `nextCursor` of a previous response.
    pub cursor: Option<String>,
    /// Only labels on this metric's values.
    pub metric_definition_id: Option<Uuid>,
    /// Only labels on this call's values.
    pub call_id: Option<Uuid>,
}

impl Validate for AnnotationQuery {
    fn check(&self, c: &mut Checks, at: &str) {
        use super::collection::collection_limits::*;
        c.range(at, "limit", self.limit, Some(LIST_LIMIT_MIN), Some(LIST_LIMIT_MAX));
    }
}
