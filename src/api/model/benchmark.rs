//! Benchmarks: published suites, their targets, and the scorer's reasoning per sample.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::common::{OffsetPagination, Timestamp};
use crate::api::validate::{Checks, Validate};

/// Limits of the score sample listing.
pub mod benchmark_limits {
    pub const LIMIT_MIN: i64 = 1;
    pub const LIMIT_MAX: i64 = 100;
    pub const LIMIT_DEFAULT: i64 = 20;
    pub const OFFSET_MIN: i64 = 0;
}

/// A suite with published results.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteEntry {
    pub suite: String,
    pub latest_suite_version: Option<String>,
    pub latest_published_at: Option<Timestamp>,
    pub target_count: Option<u64>,
}

/// A scored agent product in one version of a suite.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub target_key: String,
    pub target_name: Option<String>,
    pub suite: Option<String>,
    pub suite_version: Option<String>,
    pub publication_id: Option<Uuid>,
    pub iterations: Option<u64>,
    pub sample_call_count: Option<u64>,
    pub published_at: Option<Timestamp>,
    #[serialize_always]
    pub superseded_at: Option<Timestamp>,
    pub is_current: Option<bool>,
    /// Mean numeric score over the target's samples (local service).
    pub score: Option<f64>,
}

/// The scorer's rationale for one sampled call.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreSample {
    pub condition_key: Option<String>,
    pub metric_key: Option<String>,
    pub source_call_id: Option<String>,
    #[serialize_always]
    pub numeric_value: Option<f64>,
    #[serialize_always]
    pub boolean_value: Option<bool>,
    pub reasoning: Option<String>,
}

/// Response of `GET /v1/benchmark/target/{targetKey}/score-sample`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScoreSamplePage {
    pub data: Vec<ScoreSample>,
    pub target: Option<Target>,
    #[serde(default)]
    pub pagination: OffsetPagination,
}

/// Query of the score sample listing.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ScoreSampleQuery {
    /// The suite; list them with `GET /v1/benchmark/suite`.
    #[param(value_type = String, required = true, min_length = 1)]
    pub suite: Option<String>,
    /// Narrows the result to one condition.
    #[param(min_length = 1)]
    pub condition_key: Option<String>,
    /// Narrows the result to one metric.
    #[param(min_length = 1)]
    pub metric_key: Option<String>,
    /// Page size.
    #[param(minimum = 1, maximum = 100, default = 20)]
    pub limit: Option<i64>,
    /// How many samples to skip.
    #[param(minimum = 0, default = 0)]
    pub offset: Option<i64>,
    /// The suite version to read; the latest when omitted.
    #[param(min_length = 1)]
    pub suite_version: Option<String>,
}

impl Validate for ScoreSampleQuery {
    fn check(&self, c: &mut Checks, at: &str) {
        use benchmark_limits::*;
        c.required(at, "suite", &self.suite);
        c.length(at, "suite", self.suite.as_deref(), 1, None);
        c.length(at, "conditionKey", self.condition_key.as_deref(), 1, None);
        c.length(at, "metricKey", self.metric_key.as_deref(), 1, None);
        c.length(at, "suiteVersion", self.suite_version.as_deref(), 1, None);
        c.range(at, "limit", self.limit, Some(LIMIT_MIN), Some(LIMIT_MAX));
        c.range(at, "offset", self.offset, Some(OFFSET_MIN), None);
    }
}
