//! The body of `PUT /v1/simulation/plan/{id}`: the members given replace the plan's, the rest
//! stay (the hosted SDK's `SimulationRunPlanUpdateParams`).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

use super::common::{IdRef, UnknownFields};
use super::run_plan::{Direction, ExecutionMode, FlowSelection, MetricReference, RunPlanInput, ScenarioSelection};
use super::schedule::Schedule;
use crate::api::validate::{Checks, Validate, join};

/// A run plan's changes. `flows`, `scenarios` and `personas` replace the whole list (an empty
/// array detaches them all); `schedule: null` takes the schedule off. The sweep members
/// (`comparisonProperty`, `comparisonBaseline`, `comparisonValues`) and `isHidden` are accepted
/// only as what the local service has: no sweep (null, or an empty list) and not hidden.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanUpdate {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    pub direction: Option<Direction>,
    #[schema(minimum = 1, maximum = 10000)]
    pub iteration_count: Option<i64>,
    #[schema(minimum = 1, maximum = 1000)]
    pub max_concurrent_jobs: Option<i64>,
    #[schema(minimum = 1, maximum = 7200)]
    pub max_simulation_duration_seconds: Option<i64>,
    #[schema(minimum = 1, maximum = 600)]
    pub silence_timeout_seconds: Option<i64>,
    #[schema(max_items = 20)]
    pub end_call_phrases: Option<Vec<String>>,
    #[schema(max_items = 20)]
    pub end_call_reasons: Option<Vec<String>>,
    pub execution_mode: Option<ExecutionMode>,
    /// Deprecated in favour of `flows`.
    #[schema(deprecated, max_items = 100)]
    pub scenarios: Option<Vec<ScenarioSelection>>,
    #[schema(max_items = 100)]
    pub flows: Option<Vec<FlowSelection>>,
    #[schema(max_items = 100)]
    pub personas: Option<Vec<IdRef>>,
    #[schema(min_items = 1, max_items = 20)]
    pub agent_endpoints: Option<Vec<IdRef>>,
    #[schema(min_items = 1, max_items = 50)]
    pub metrics: Option<Vec<MetricReference>>,
    pub include_flow_metrics: Option<bool>,
    pub include_automatic_metrics: Option<bool>,
    pub enrich_with_live_conversation: Option<bool>,
    #[schema(minimum = 0, maximum = 10)]
    pub max_no_response_retries: Option<i64>,
    #[schema(minimum = 30, maximum = 600)]
    pub no_response_retry_backoff_seconds: Option<i64>,
    /// The plan's schedule (local service extension); null takes it off.
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Schedule>)]
    pub schedule: Option<Option<Schedule>>,
    /// Null only: the local service runs no sweeps.
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub comparison_property: Option<Option<String>>,
    /// Null only: the local service runs no sweeps.
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub comparison_baseline: Option<Option<String>>,
    /// Empty only: the local service runs no sweeps.
    #[schema(value_type = Option<Vec<Object>>, max_items = 0)]
    pub comparison_values: Option<Vec<serde_json::Value>>,
    /// False only: the local service keeps no hidden plans.
    pub is_hidden: Option<bool>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for RunPlanUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        const NO_SWEEPS: &str = "the local service runs no sweeps: send null (or leave it out)";
        if matches!(self.comparison_property, Some(Some(_))) {
            c.invalid(join(at, "comparisonProperty"), format!("comparisonProperty: {NO_SWEEPS}"));
        }
        if matches!(self.comparison_baseline, Some(Some(_))) {
            c.invalid(join(at, "comparisonBaseline"), format!("comparisonBaseline: {NO_SWEEPS}"));
        }
        if self.comparison_values.as_ref().is_some_and(|values| !values.is_empty()) {
            c.invalid(join(at, "comparisonValues"), "comparisonValues: the local service runs no sweeps: send []");
        }
        if self.is_hidden == Some(true) {
            c.invalid(join(at, "isHidden"), "isHidden: the local service keeps no hidden plans");
        }
        // Each member given, by the rules of the plan input (the plan they make is checked whole
        // once it is read); lists that detach with [] are left to that check.
        self.clone().apply_to(RunPlanInput::default()).check_members(c, at);
    }
}

impl RunPlanUpdate {
    /// The plan input these changes make of `input` (check it with `validate()`).
    pub fn apply_to(self, mut input: RunPlanInput) -> RunPlanInput {
        macro_rules! replace {
            ($($member:ident),+) => {$( if self.$member.is_some() { input.$member = self.$member; } )+};
        }
        replace!(name, description, direction, iteration_count, max_concurrent_jobs);
        replace!(max_simulation_duration_seconds, silence_timeout_seconds, end_call_phrases, end_call_reasons);
        replace!(execution_mode, agent_endpoints, metrics, include_flow_metrics, include_automatic_metrics);
        replace!(enrich_with_live_conversation, max_no_response_retries, no_response_retry_backoff_seconds);
        // An empty list detaches: the plan then has none.
        if let Some(flows) = self.flows {
            input.flows = Some(flows).filter(|list| !list.is_empty());
        }
        if let Some(scenarios) = self.scenarios {
            input.scenarios = Some(scenarios).filter(|list| !list.is_empty());
        }
        if let Some(personas) = self.personas {
            input.personas = Some(personas).filter(|list| !list.is_empty());
        }
        if let Some(schedule) = self.schedule {
            input.schedule = schedule;
        }
        // The deprecated autoRun acts on create only.
        input.auto_run = None;
        input
    }
}
