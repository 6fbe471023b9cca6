//! Run plans: the input that creates one, how flows and metrics are selected, the saved
//! plan, and the run operation that starts a job from it.

use std::collections::BTreeMap;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{IdRef, Timestamp, UnknownFields};
use super::schedule::Schedule;
use super::simulation::{RunPlanJob, RunPlanJobStatus};
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

wire_enum! {
    /// Which side starts the call.
    pub enum Direction { Inbound = "INBOUND", Outbound = "OUTBOUND" }
}

wire_enum! {
    /// How a run plan's simulations share the service.
    pub enum ExecutionMode {
        Parallel = "PARALLEL",
        SequentialSameRunPlan = "SEQUENTIAL_SAME_RUN_PLAN",
        SequentialProject = "SEQUENTIAL_PROJECT",
    }
}

wire_enum! {
    /// Which conversation a metric is scored on under live enrichment.
    pub enum ConversationSource { Simulated = "SIMULATED", Live = "LIVE" }
}

/// Free-form `{{name}}` values.
pub type Variables = BTreeMap<String, String>;

/// Limits and defaults of the run plan input, as the spec's Limits table gives them.
pub mod run_plan_limits {
    pub const ITERATION_COUNT_MIN: i64 = 1;
    pub const ITERATION_COUNT_MAX: i64 = 10_000;
    pub const ITERATION_COUNT_DEFAULT: i64 = 1;
    pub const MAX_CONCURRENT_JOBS_MIN: i64 = 1;
    /// More than this many simulations at once would only queue inside one process.
    pub const MAX_CONCURRENT_JOBS_MAX: i64 = 1_000;
    pub const MAX_CONCURRENT_JOBS_DEFAULT: i64 = 5;
    pub const MAX_SIMULATION_DURATION_SECONDS_MIN: i64 = 1;
    /// Two hours: a hard cap on each simulated call.
    pub const MAX_SIMULATION_DURATION_SECONDS_MAX: i64 = 7_200;
    pub const SILENCE_TIMEOUT_SECONDS_MIN: i64 = 1;
    pub const SILENCE_TIMEOUT_SECONDS_MAX: i64 = 600;
    pub const SILENCE_TIMEOUT_SECONDS_DEFAULT: i64 = 30;
    /// Simulations one run may create (iterations × test cases × endpoints); refused with a
    /// 400 naming `iterationCount` before anything is written. A run is written, run and read
    /// a page at a time, so its size bounds its time, not the service's memory.
    pub const SIMULATIONS_PER_RUN_MAX: i64 = 100_000;
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const END_CALL_PHRASES_MAX: usize = 20;
    pub const END_CALL_PHRASE_MAX: usize = 200;
    pub const END_CALL_REASONS_MAX: usize = 20;
    pub const END_CALL_REASON_MAX: usize = 500;
    pub const FLOWS_MAX: usize = 100;
    pub const SCENARIOS_MAX: usize = 100;
    pub const PERSONAS_MAX: usize = 100;
    pub const AGENT_ENDPOINTS_MAX: usize = 20;
    pub const METRICS_MAX: usize = 50;
    pub const EDGE_CASES_MAX: usize = 200;
    pub const SLUG_MAX: usize = 100;
    /// `{{name}}` values: entries per map, and characters per name and per value.
    pub const VARIABLES_MAX: usize = 100;
    pub const VARIABLE_NAME_MAX: usize = 100;
    pub const VARIABLE_VALUE_MAX: usize = 2_000;
    /// Entries of the run operation's per-flow `variables`.
    pub const RUN_VARIABLES_MAX: usize = 500;
    pub const END_CALL_PHRASE_DEFAULT: &str = "goodbye";
    /// Live enrichment holds a call open this long waiting for the real recording.
    pub const LIVE_ENRICHMENT_WAIT_SECONDS: i64 = 15 * 60;
    /// Retries of a test case the agent never spoke on (the hosted interface's range).
    pub const MAX_NO_RESPONSE_RETRIES_MIN: i64 = 0;
    pub const MAX_NO_RESPONSE_RETRIES_MAX: i64 = 10;
    pub const MAX_NO_RESPONSE_RETRIES_DEFAULT: i64 = 0;
    /// Simulated seconds a retry waits before it dials.
    pub const NO_RESPONSE_RETRY_BACKOFF_SECONDS_MIN: i64 = 30;
    pub const NO_RESPONSE_RETRY_BACKOFF_SECONDS_MAX: i64 = 600;
    pub const NO_RESPONSE_RETRY_BACKOFF_SECONDS_DEFAULT: i64 = 60;
}

/// Body of `POST /v1/simulation/plan`. Unknown members are kept and reported by `validate()`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    #[schema(value_type = Direction, required = true)]
    pub direction: Option<Direction>,
    /// Iterations per test case. A run creates iterations × test cases × agent endpoints
    /// simulations, at most 100,000; more is refused naming `iterationCount`.
    #[schema(minimum = 1, maximum = 10000, default = 1)]
    pub iteration_count: Option<i64>,
    #[schema(minimum = 1, maximum = 1000, default = 5)]
    pub max_concurrent_jobs: Option<i64>,
    /// Per simulation; a hard cap: no transcript entry ends after it.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 7200)]
    pub max_simulation_duration_seconds: Option<i64>,
    #[schema(minimum = 1, maximum = 600, default = 30)]
    pub silence_timeout_seconds: Option<i64>,
    /// An empty array turns the feature off. Entries up to 200 characters.
    #[schema(default = json!(["goodbye"]), max_items = 20)]
    pub end_call_phrases: Option<Vec<String>>,
    /// Semantic end-of-call conditions judged against the conversation; empty turns the feature
    /// off. Entries up to 500 characters.
    #[schema(default = json!([]), max_items = 20)]
    pub end_call_reasons: Option<Vec<String>>,
    #[schema(default = "PARALLEL")]
    pub execution_mode: Option<ExecutionMode>,
    /// Deprecated in favour of `flows`.
    #[schema(deprecated, min_items = 1, max_items = 100)]
    pub scenarios: Option<Vec<ScenarioSelection>>,
    #[schema(min_items = 1, max_items = 100)]
    pub flows: Option<Vec<FlowSelection>>,
    /// Required together with `scenarios`; ignored with `flows`.
    #[schema(min_items = 1, max_items = 100)]
    pub personas: Option<Vec<IdRef>>,
    #[schema(value_type = Vec<IdRef>, required = true, min_items = 1, max_items = 20)]
    pub agent_endpoints: Option<Vec<IdRef>>,
    #[schema(value_type = Vec<MetricReference>, required = true, min_items = 1, max_items = 50)]
    pub metrics: Option<Vec<MetricReference>>,
    /// Also collects the metrics owned by each attached flow.
    #[schema(default = true)]
    pub include_flow_metrics: Option<bool>,
    /// Lets the run add metrics automatically from attached flows.
    #[schema(default = true)]
    pub include_automatic_metrics: Option<bool>,
    /// Holds each call open for up to 15 minutes waiting for the matching real call.
    #[schema(default = false)]
    pub enrich_with_live_conversation: Option<bool>,
    /// Deprecated in favour of the run operation.
    #[schema(deprecated, default = false)]
    pub auto_run: Option<bool>,
    /// How many more times to run a test case the agent never spoke on (0 turns retries off).
    #[schema(minimum = 0, maximum = 10, default = 0)]
    pub max_no_response_retries: Option<i64>,
    /// Simulated seconds a retry waits before it dials; only used with retries on.
    #[schema(minimum = 30, maximum = 600, default = 60)]
    pub no_response_retry_backoff_seconds: Option<i64>,
    /// When the plan runs by itself (local service extension on create and update; the hosted
    /// service sets it from a config bundle's `simulationPlan`).
    pub schedule: Option<Schedule>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl RunPlanInput {
    pub fn max_no_response_retries_or_default(&self) -> i64 {
        self.max_no_response_retries.unwrap_or(run_plan_limits::MAX_NO_RESPONSE_RETRIES_DEFAULT)
    }
    pub fn no_response_retry_backoff_seconds_or_default(&self) -> i64 {
        self.no_response_retry_backoff_seconds.unwrap_or(run_plan_limits::NO_RESPONSE_RETRY_BACKOFF_SECONDS_DEFAULT)
    }

    /// The plan as a saved plan holds it: every default written out and every list present
    /// (empty when not given), as the hosted interface returns a plan.
    pub fn resolved(mut self) -> RunPlanInput {
        self.iteration_count = Some(self.iteration_count_or_default());
        self.max_concurrent_jobs = Some(self.max_concurrent_jobs_or_default());
        self.silence_timeout_seconds = Some(self.silence_timeout_seconds_or_default());
        self.end_call_phrases = Some(self.end_call_phrases_or_default());
        self.end_call_reasons.get_or_insert_with(Vec::new);
        self.execution_mode = Some(self.execution_mode_or_default());
        self.include_flow_metrics = Some(self.include_flow_metrics_or_default());
        self.include_automatic_metrics = Some(self.include_automatic_metrics_or_default());
        self.enrich_with_live_conversation.get_or_insert(false);
        self.max_no_response_retries = Some(self.max_no_response_retries_or_default());
        self.no_response_retry_backoff_seconds = Some(self.no_response_retry_backoff_seconds_or_default());
        self.flows.get_or_insert_with(Vec::new);
        self.scenarios.get_or_insert_with(Vec::new);
        self.personas.get_or_insert_with(Vec::new);
        self
    }

    /// A saved plan back as an input that creates the same plan: the members the saved form
    /// adds (empty scenario and persona lists, a metric's `id` beside its `slug`) taken out.
    pub fn as_input(mut self) -> RunPlanInput {
        if self.scenarios.as_ref().is_some_and(Vec::is_empty) {
            self.scenarios = None;
        }
        if self.personas.as_ref().is_some_and(Vec::is_empty) {
            self.personas = None;
        }
        if self.flows.as_ref().is_some_and(Vec::is_empty) && self.scenarios.is_some() {
            self.flows = None;
        }
        for metric in self.metrics.iter_mut().flatten() {
            if metric.slug_or_alias().is_some() {
                metric.id = None;
            }
        }
        self
    }

    /// The flow selections, none when the plan runs the deprecated scenarios.
    pub fn flow_selections(&self) -> &[FlowSelection] {
        self.flows.as_deref().unwrap_or_default()
    }

    /// Whether the plan runs flows (rather than the deprecated scenarios × personas).
    pub fn runs_flows(&self) -> bool {
        !self.flow_selections().is_empty()
    }
    pub fn iteration_count_or_default(&self) -> i64 {
        self.iteration_count.unwrap_or(run_plan_limits::ITERATION_COUNT_DEFAULT)
    }
    pub fn max_concurrent_jobs_or_default(&self) -> i64 {
        self.max_concurrent_jobs.unwrap_or(run_plan_limits::MAX_CONCURRENT_JOBS_DEFAULT)
    }
    pub fn silence_timeout_seconds_or_default(&self) -> i64 {
        self.silence_timeout_seconds.unwrap_or(run_plan_limits::SILENCE_TIMEOUT_SECONDS_DEFAULT)
    }
    pub fn end_call_phrases_or_default(&self) -> Vec<String> {
        self.end_call_phrases.clone().unwrap_or_else(|| vec![run_plan_limits::END_CALL_PHRASE_DEFAULT.to_owned()])
    }
    pub fn execution_mode_or_default(&self) -> ExecutionMode {
        self.execution_mode.clone().unwrap_or(ExecutionMode::Parallel)
    }
    pub fn include_flow_metrics_or_default(&self) -> bool {
        self.include_flow_metrics.unwrap_or(true)
    }
    pub fn include_automatic_metrics_or_default(&self) -> bool {
        self.include_automatic_metrics.unwrap_or(true)
    }
}

impl Validate for RunPlanInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.required(at, "name", &self.name);
        c.required(at, "direction", &self.direction);
        c.required(at, "maxSimulationDurationSeconds", &self.max_simulation_duration_seconds);
        self.check_members(c, at);
        if self.flows.is_none() && self.scenarios.is_none() {
            c.invalid(join(at, "flows"), "give flows (or the deprecated scenarios): the plan would run nothing");
        }
        if self.scenarios.is_some() && self.personas.is_none() {
            c.missing(join(at, "personas"));
        }
        if self.personas.is_some() && self.scenarios.is_none() && self.flows.is_none() {
            c.invalid(join(at, "personas"), "personas goes together with scenarios");
        }
        c.required(at, "agentEndpoints", &self.agent_endpoints);
        c.required(at, "metrics", &self.metrics);
    }
}

impl RunPlanInput {
    /// The rules of each member given, alone (an update's members are checked so before the plan
    /// they change is read).
    pub fn check_members(&self, c: &mut Checks, at: &str) {
        use run_plan_limits::*;
        c.unknown_named::<Self>(at, &self.unknown_fields, &crate::api::suggest::PLAN_FILE_PLAN);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.known(at, "direction", self.direction.as_ref());
        c.known(at, "executionMode", self.execution_mode.as_ref());
        c.range(at, "iterationCount", self.iteration_count, Some(ITERATION_COUNT_MIN), Some(ITERATION_COUNT_MAX));
        let concurrent = self.max_concurrent_jobs;
        c.range(at, "maxConcurrentJobs", concurrent, Some(MAX_CONCURRENT_JOBS_MIN), Some(MAX_CONCURRENT_JOBS_MAX));
        let max_duration = self.max_simulation_duration_seconds;
        let duration = (Some(MAX_SIMULATION_DURATION_SECONDS_MIN), Some(MAX_SIMULATION_DURATION_SECONDS_MAX));
        c.range(at, "maxSimulationDurationSeconds", max_duration, duration.0, duration.1);
        let silence = (Some(SILENCE_TIMEOUT_SECONDS_MIN), Some(SILENCE_TIMEOUT_SECONDS_MAX));
        c.range(at, "silenceTimeoutSeconds", self.silence_timeout_seconds, silence.0, silence.1);
        c.items(at, "endCallPhrases", self.end_call_phrases.as_deref(), 0, Some(END_CALL_PHRASES_MAX));
        c.entries_not_blank(at, "endCallPhrases", self.end_call_phrases.as_deref());
        c.each_length(at, "endCallPhrases", self.end_call_phrases.as_deref(), END_CALL_PHRASE_MAX);
        c.items(at, "endCallReasons", self.end_call_reasons.as_deref(), 0, Some(END_CALL_REASONS_MAX));
        c.entries_not_blank(at, "endCallReasons", self.end_call_reasons.as_deref());
        c.each_length(at, "endCallReasons", self.end_call_reasons.as_deref(), END_CALL_REASON_MAX);
        c.items(at, "scenarios", self.scenarios.as_deref(), 1, Some(SCENARIOS_MAX));
        c.each(at, "scenarios", self.scenarios.as_deref());
        c.items(at, "flows", self.flows.as_deref(), 1, Some(FLOWS_MAX));
        c.each(at, "flows", self.flows.as_deref());
        c.items(at, "personas", self.personas.as_deref(), 1, Some(PERSONAS_MAX));
        let retries = (Some(MAX_NO_RESPONSE_RETRIES_MIN), Some(MAX_NO_RESPONSE_RETRIES_MAX));
        c.range(at, "maxNoResponseRetries", self.max_no_response_retries, retries.0, retries.1);
        let backoff = (Some(NO_RESPONSE_RETRY_BACKOFF_SECONDS_MIN), Some(NO_RESPONSE_RETRY_BACKOFF_SECONDS_MAX));
        c.range(at, "noResponseRetryBackoffSeconds", self.no_response_retry_backoff_seconds, backoff.0, backoff.1);
        if let Some(schedule) = &self.schedule {
            schedule.check(c, &join(at, "schedule"));
        }
        c.items(at, "agentEndpoints", self.agent_endpoints.as_deref(), 1, Some(AGENT_ENDPOINTS_MAX));
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(METRICS_MAX));
        c.each(at, "metrics", self.metrics.as_deref());
    }
}

/// A deprecated scenario attachment.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioSelection {
    #[schema(value_type = Uuid, required = true)]
    pub id: Option<Uuid>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub variables: Option<Variables>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ScenarioSelection {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "id", &self.id);
        check_variables(c, at, self.variables.as_ref());
    }
}

/// One element of `flows`: which flow, which of its variants, as whom and with what values.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowSelection {
    pub id: Option<Uuid>,
    /// Selects a service-curated flow by its stable slug.
    #[schema(min_length = 1, max_length = 100)]
    pub slug: Option<String>,
    pub happy_path: Option<bool>,
    pub edge_cases: Option<EdgeCases>,
    pub persona_override_id: Option<Uuid>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub variables: Option<Variables>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for FlowSelection {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_named::<Self>(at, &self.unknown_fields, &crate::api::suggest::PLAN_FILE_FLOW);
        match (&self.id, &self.slug) {
            (None, None) => c.missing(join(at, "id")),
            (Some(_), Some(_)) => c.invalid(join(at, "slug"), "give either id or slug, not both"),
            _ => {}
        }
        c.length(at, "slug", self.slug.as_deref(), 1, Some(run_plan_limits::SLUG_MAX));
        let runs_edge_cases = match &self.edge_cases {
            Some(EdgeCases::All) => true,
            Some(EdgeCases::List(list)) => {
                c.items(at, "edgeCases", Some(list), 1, Some(run_plan_limits::EDGE_CASES_MAX));
                c.each(at, "edgeCases", Some(list));
                !list.is_empty()
            }
            None => false,
        };
        if self.happy_path != Some(true) && !runs_edge_cases {
            c.invalid(join(at, "happyPath"), "select the happy path, edge cases, or both: this flow would run nothing");
        }
        check_variables(c, at, self.variables.as_ref());
    }
}

/// `edgeCases`: the string `ALL`, or the named edge cases.
#[derive(Debug, Clone, PartialEq)]
pub enum EdgeCases {
    /// Every edge case that exists when the run starts.
    All,
    List(Vec<EdgeCaseSelection>),
}

impl Serialize for EdgeCases {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            EdgeCases::All => serializer.serialize_str("ALL"),
            EdgeCases::List(list) => list.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for EdgeCases {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Text(String),
            List(Vec<EdgeCaseSelection>),
        }
        match Wire::deserialize(deserializer)? {
            Wire::Text(text) if text == "ALL" => Ok(EdgeCases::All),
            Wire::Text(text) => {
                Err(de::Error::custom(format!("expected \"ALL\" or an array of edge cases, got \"{text}\"")))
            }
            Wire::List(list) => Ok(EdgeCases::List(list)),
        }
    }
}

impl utoipa::PartialSchema for EdgeCases {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
        let all = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["ALL"]))
            .description(Some("Every edge case that exists when the run starts, including ones added later."));
        let list = ArrayBuilder::new()
            .items(utoipa::openapi::Ref::from_schema_name(EdgeCaseSelection::name()))
            .min_items(Some(1))
            .max_items(Some(run_plan_limits::EDGE_CASES_MAX))
            .description(Some("Only the named edge cases, each with its own persona override and values."));
        OneOfBuilder::new().item(all).item(list).into()
    }
}

impl ToSchema for EdgeCases {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        use utoipa::PartialSchema;
        schemas.push((EdgeCaseSelection::name().into(), EdgeCaseSelection::schema()));
        <EdgeCaseSelection as ToSchema>::schemas(schemas);
    }
}

/// One named edge case. The spec does not show its full field set, so unknown members are
/// accepted here (unlike the rest of the run plan input).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeCaseSelection {
    #[schema(value_type = Uuid, required = true)]
    pub id: Option<Uuid>,
    pub persona_override_id: Option<Uuid>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub variables: Option<Variables>,
}

impl Validate for EdgeCaseSelection {
    fn check(&self, c: &mut Checks, at: &str) {
        c.required(at, "id", &self.id);
        check_variables(c, at, self.variables.as_ref());
    }
}

/// One element of `metrics`: a metric by id, or by its stable slug.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricReference {
    pub id: Option<Uuid>,
    #[schema(min_length = 1, max_length = 100)]
    pub slug: Option<String>,
    /// Alias of `slug`, kept for older integrations.
    #[schema(deprecated, min_length = 1, max_length = 100)]
    pub metric_id: Option<String>,
    /// Null equals omitted, which means SIMULATED. Always sent (null when unset): the hosted
    /// interface requires the member on a saved plan.
    #[serialize_always]
    pub conversation_source: Option<ConversationSource>,
    /// The share of the run's simulations (0–100) that must pass this metric when it is a check;
    /// null or omitted means the 80 % default. Applied to this check alone, never pooled.
    #[schema(minimum = 0, maximum = 100)]
    #[serialize_always]
    pub min_pass_rate: Option<f64>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl MetricReference {
    pub fn by_slug(slug: impl Into<String>) -> Self {
        MetricReference { slug: Some(slug.into()), ..Default::default() }
    }

    /// The slug, read from `slug` or its alias `metricId`.
    pub fn slug_or_alias(&self) -> Option<&str> {
        self.slug.as_deref().or(self.metric_id.as_deref())
    }

    pub fn conversation_source_or_default(&self) -> ConversationSource {
        self.conversation_source.clone().unwrap_or(ConversationSource::Simulated)
    }

    /// The bar this reference sets, and whether it is the inherited default.
    pub fn min_pass_rate_or_default(&self) -> (f64, bool) {
        match self.min_pass_rate {
            Some(rate) => (rate, false),
            None => (super::verdict::DEFAULT_MIN_PASS_RATE, true),
        }
    }
}

impl Validate for MetricReference {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.length(at, "slug", self.slug.as_deref(), 1, Some(run_plan_limits::SLUG_MAX));
        c.length(at, "metricId", self.metric_id.as_deref(), 1, Some(run_plan_limits::SLUG_MAX));
        c.known(at, "conversationSource", self.conversation_source.as_ref());
        c.range_f64(at, "minPassRate", self.min_pass_rate, 0.0, 100.0);
        if let (Some(slug), Some(alias)) = (&self.slug, &self.metric_id)
            && slug != alias
        {
            c.invalid(join(at, "metricId"), "metricId is an alias of slug; give one of them");
        }
        match (self.id.is_some(), self.slug_or_alias().is_some()) {
            (false, false) => c.missing(join(at, "id")),
            (true, true) => c.invalid(join(at, "slug"), "give either id or slug, not both"),
            _ => {}
        }
    }
}

fn check_variables(c: &mut Checks, at: &str, variables: Option<&Variables>) {
    use run_plan_limits::*;
    let Some(variables) = variables else { return };
    let path = join(at, "variables");
    if variables.len() > VARIABLES_MAX {
        c.invalid(&path, format!("{path} must have at most {VARIABLES_MAX} entries (it has {})", variables.len()));
    }
    for (name, value) in variables {
        if name.trim().is_empty() {
            c.invalid(&path, "variable names must not be empty");
        }
        if name.chars().count() > VARIABLE_NAME_MAX {
            c.invalid(&path, format!("variable names must be at most {VARIABLE_NAME_MAX} characters"));
        }
        if value.chars().count() > VARIABLE_VALUE_MAX {
            c.invalid(join(&path, name), format!("{path}.{name} must be at most {VARIABLE_VALUE_MAX} characters"));
        }
    }
}

/// A saved run plan: the input it was created with (every default written out, metrics named
/// by `id` too), its identity, and the members the hosted interface adds.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlan {
    pub id: Uuid,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    /// Test cases one run of the plan places (endpoints × flow variants × iterations), as of
    /// when it was saved (`edgeCases: ALL` follows the flow when it runs).
    pub test_case_count: Option<u64>,
    /// Whether a config bundle manages the plan (`POST /v1/config/apply` made it).
    pub is_config_managed: Option<bool>,
    /// The template the plan was made from; null (plans here are made from inputs).
    #[serialize_always]
    pub template: Option<String>,
    /// The persona or environment property a sweep compares; null (no sweeps here).
    #[serialize_always]
    pub comparison_property: Option<String>,
    #[serialize_always]
    pub comparison_baseline: Option<String>,
    /// Endpoints that evaluate the agent's calls; none here.
    #[serde(default)]
    pub evaluators: Vec<IdRef>,
    /// When its schedule next starts it; null without a schedule, or once it has ended
    /// (local service extension).
    #[serialize_always]
    pub next_run_at: Option<Timestamp>,
    #[serde(flatten)]
    pub plan: RunPlanInput,
}

impl RunPlan {
    pub fn name(&self) -> &str {
        self.plan.name.as_deref().unwrap_or_default()
    }
}

/// `data` of `POST /v1/simulation/plan`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanCreated {
    pub run_plan: RunPlan,
    /// Present only when `autoRun` was true; null otherwise.
    #[serde(default)]
    pub run_plan_job: Option<RunPlanJob>,
}

/// Runtime values of the run operation: one flat map for everything, or per flow variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum RunVariables {
    #[schema(value_type = BTreeMap<String, String>)]
    Flat(Variables),
    PerFlow(Vec<FlowVariables>),
}

/// Values for one flow, or one of its variants.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowVariables {
    pub flow_id: Option<Uuid>,
    pub happy_path: Option<bool>,
    pub edge_case_id: Option<Uuid>,
    #[serde(default)]
    #[schema(value_type = BTreeMap<String, String>)]
    pub variables: Variables,
}

/// Body of `POST /v1/simulation/run`: a saved plan by id, or an inline plan.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    pub plan_id: Option<Uuid>,
    pub plan: Option<RunPlanInput>,
    pub save_as_plan: Option<bool>,
    pub variables: Option<RunVariables>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for RunRequest {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        match (&self.plan_id, &self.plan) {
            (None, None) => c.missing(join(at, "planId")),
            (Some(_), Some(_)) => c.invalid(join(at, "plan"), "give either planId or plan, not both"),
            (None, Some(plan)) => plan.check(c, &join(at, "plan")),
            (Some(_), None) => {}
        }
        if self.save_as_plan.is_some() && self.plan.is_none() {
            c.invalid(join(at, "saveAsPlan"), "saveAsPlan applies only to an inline plan");
        }
        if let Some(RunVariables::Flat(variables)) = &self.variables {
            check_variables(c, at, Some(variables));
        }
        if let Some(RunVariables::PerFlow(list)) = &self.variables {
            c.items(at, "variables", Some(list), 0, Some(run_plan_limits::RUN_VARIABLES_MAX));
            for (i, entry) in list.iter().enumerate() {
                let path = format!("{}[{i}]", join(at, "variables"));
                check_variables(c, &path, Some(&entry.variables));
                c.required(&path, "flowId", &entry.flow_id);
                if entry.happy_path == Some(true) && entry.edge_case_id.is_some() {
                    c.invalid(join(&path, "edgeCaseId"), "name the happy path or one edge case, not both");
                }
            }
        }
    }
}

/// A ready-made run: an element of `data` of `GET /v1/simulation/template`, in the hosted
/// shape (`slug`, `title`, `description`, `category`, `flows`, `metrics`, `thresholds`, …), plus
/// the local service's `id`, `name` and `plan` (a complete input that runs as it is).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlanTemplate {
    /// The local service's id (the hosted interface names a template by `slug` alone).
    pub id: Option<Uuid>,
    pub slug: Option<String>,
    pub title: Option<String>,
    /// The older local name of `title`.
    pub name: Option<String>,
    pub description: Option<String>,
    pub category: Option<String>,
    #[serde(default)]
    pub flows: Vec<TemplateFlow>,
    #[serde(default)]
    pub metrics: Vec<TemplateMetric>,
    /// Metrics the template judges by (its checks).
    #[serde(default)]
    pub thresholds: Vec<TemplateMetric>,
    pub include_flow_metrics: Option<bool>,
    #[serde(default)]
    pub default_end_call_reasons: Vec<String>,
    pub default_max_simulation_duration_seconds: Option<i64>,
    /// A sweep over a persona property; null (no sweeps here).
    #[serialize_always]
    #[schema(value_type = Option<Object>)]
    pub sweep: Option<serde_json::Value>,
    /// A body for `POST /v1/simulation/plan`, or `plan` of `POST /v1/simulation/run`.
    pub plan: Option<RunPlanInput>,
}

/// A flow a template runs, with the variants it covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFlow {
    pub id: Uuid,
    pub slug: Option<String>,
    pub title: String,
    pub happy_path: Option<TemplateVariant>,
    #[serde(default)]
    pub edge_cases: Vec<TemplateVariant>,
}

/// A variant of a template's flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TemplateVariant {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default)]
    pub slug: Option<String>,
    pub title: String,
}

/// A metric of a template, by id and slug.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TemplateMetric {
    pub id: Uuid,
    pub slug: String,
}

/// `data` of `POST /v1/simulation/run`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    pub simulation_run_plan_job_id: Uuid,
    /// The saved plan, or an unsaved inline plan's own id (`savedAsPlan` false; no saved plan has it).
    pub simulation_run_plan_id: Option<Uuid>,
    #[serde(default)]
    pub simulation_job_count: u64,
    #[serde(default)]
    pub saved_as_plan: bool,
    pub status: Option<RunPlanJobStatus>,
    pub created_at: Option<Timestamp>,
}
