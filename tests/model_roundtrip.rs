//! Every model against JSON written from the spec's field tables (tests/fixtures/model):
//! each decodes and re-encodes to the same document, and each `.future` variant, with enum
//! values this build has never seen and extra members everywhere, decodes and keeps those
//! values verbatim.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard::api::ErrorBody;
use switchboard::api::model::*;
use switchboard::api::validate::Validate;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/model").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Drops null members and the fixtures' extra `futureField` members; numbers compare as f64.
fn normalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| !v.is_null() && k.as_str() != "futureField")
                .map(|(k, v)| (k.clone(), normalize(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
        other => other.clone(),
    }
}

/// The first path where two documents differ, for a readable failure.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                match (x.get(key), y.get(key)) {
                    (Some(l), Some(r)) => {
                        if let Some(d) = first_difference(l, r, &format!("{at}.{key}")) {
                            return Some(d);
                        }
                    }
                    (l, r) => return Some(format!("{at}.{key}: fixture {l:?} vs model {r:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (l, r))| first_difference(l, r, &format!("{at}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: fixture {a} vs model {b}")),
    }
}

fn round_trip<T: DeserializeOwned + Serialize>(name: &str) {
    for variant in [name.to_owned(), format!("{name}.future")] {
        let original = fixture(&variant);
        let decoded: T =
            serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("{variant} does not decode: {e}"));
        let encoded = serde_json::to_value(&decoded).unwrap();
        let (want, got) = (normalize(&original), normalize(&encoded));
        if let Some(difference) = first_difference(&want, &got, &variant) {
            panic!("{variant} does not round-trip: {difference}");
        }
    }
}

macro_rules! round_trips {
    ($($test:ident: $name:literal => $ty:ty),+ $(,)?) => {
        $( #[test] fn $test() { round_trip::<$ty>($name); } )+
    };
}

round_trips! {
    run_plan_input: "run_plan_input" => RunPlanInput,
    metric_reference: "metric_reference" => MetricReference,
    run_plan_create_response: "run_plan_create_response" => RunPlanCreated,
    run_plan_job: "run_plan_job" => RunPlanJob,
    metric_definition: "metric_definition" => MetricDefinition,
    metric_definition_update_input: "metric_definition_update_input" => MetricDefinitionUpdate,
    threshold_create_input: "threshold_create_input" => ThresholdInput,
    metric_policy_input: "metric_policy_input" => PolicyInput,
    metric_policy: "metric_policy" => MetricPolicy,
    metric_collection_job: "metric_collection_job" => CollectionJob,
    metric_value_group: "metric_value_group" => MetricValueGroup,
    persona: "persona" => Persona,
    customer_flow: "customer_flow" => CustomerFlow,
    issue_create_input: "issue_create_input" => IssueInput,
    issue: "issue" => Issue,
    agent_endpoint: "agent_endpoint" => AgentEndpoint,
    agent_endpoint_update_input: "agent_endpoint_update_input" => AgentEndpointUpdate,
    knowledge_base: "knowledge_base" => KnowledgeBase,
    http_request_definition: "http_request_definition" => HttpRequestDefinition,
    benchmark_suite_entry: "benchmark_suite_entry" => SuiteEntry,
    benchmark_target: "benchmark_target" => Target,
    score_sample: "score_sample" => ScoreSample,
    score_sample_page: "score_sample_page" => ScoreSamplePage,
    health: "health" => Health,
    error_body: "error_body" => ErrorBody,
    cursor_page: "cursor_page" => CursorPage<Persona>,
}

#[test]
fn run_plan_job_may_be_null_and_stays_null() {
    let created: RunPlanCreated = serde_json::from_value(fixture("run_plan_create_response_null")).unwrap();
    assert!(created.run_plan_job.is_none());
    assert_eq!(serde_json::to_value(&created).unwrap()["runPlanJob"], Value::Null);
}

#[test]
fn unknown_enum_values_decode_as_unknown_and_display_as_text() {
    let job: RunPlanJob = serde_json::from_value(fixture("run_plan_job.future")).unwrap();
    let status = job.status.unwrap();
    assert!(!status.is_known());
    assert!(status.to_string().starts_with("FUTURE_"));
    let issue: Issue = serde_json::from_value(fixture("issue.future")).unwrap();
    assert!(matches!(issue.severity, Some(Severity::Unknown(_))));
}

#[test]
fn null_severity_and_end_time_are_kept_as_null() {
    let mut value = fixture("issue");
    value["severity"] = Value::Null;
    let issue: Issue = serde_json::from_value(value).unwrap();
    assert_eq!(issue.severity, None);
    assert_eq!(serde_json::to_value(&issue).unwrap()["severity"], Value::Null);
    let mut value = fixture("run_plan_job");
    value["endedAt"] = Value::Null;
    let job: RunPlanJob = serde_json::from_value(value).unwrap();
    assert_eq!(serde_json::to_value(&job).unwrap()["endedAt"], Value::Null);
}

#[test]
fn missing_optional_fields_are_tolerated() {
    let persona: Persona =
        serde_json::from_value(serde_json::json!({"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"})).unwrap();
    assert_eq!(persona.label(), "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
    let flow: CustomerFlow =
        serde_json::from_value(serde_json::json!({"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"})).unwrap();
    assert!(flow.graph.is_empty());
    let page: CursorPage<Persona> = serde_json::from_value(serde_json::json!({"data": []})).unwrap();
    assert!(!page.pagination.has_more);
}

#[test]
fn a_verdict_in_the_hosted_shape_round_trips_and_unknown_failures_decode() {
    let original = fixture("run_plan_job_verdict");
    let job: RunPlanJob = serde_json::from_value(original.clone()).unwrap();
    let verdict = job.verdict.as_ref().unwrap();
    assert_eq!(verdict.failures.len(), 5);
    assert_eq!(verdict.checks[1].pass_rate, None);
    assert_eq!(job.simulation_jobs[0].outcome, Some(SimulationOutcome::Failed));
    assert_eq!(
        job.simulation_jobs[1].invalidation.as_ref().map(|i| &i.reason),
        Some(&InvalidationReason::AgentNeverSpoke)
    );
    let encoded = serde_json::to_value(&job).unwrap();
    if let Some(difference) = first_difference(&normalize(&original), &normalize(&encoded), "job") {
        panic!("does not round-trip: {difference}");
    }
    // A failure kind from a newer service, and a job from a service without verdicts.
    let mut newer = original.clone();
    newer["verdict"]["failures"][0] = serde_json::json!({"type": "SWEEP_VALUE_WORSE", "key": "ACCENT=GB"});
    let job: RunPlanJob = serde_json::from_value(newer).unwrap();
    assert_eq!(job.verdict.unwrap().failures[0], VerdictFailure::Unknown);
    let mut older = original;
    older.as_object_mut().unwrap().remove("verdict");
    let job: RunPlanJob = serde_json::from_value(older).unwrap();
    assert_eq!(job.verdict, None);
}

/// The first member of `fixture` that `encoded` lost or changed: a hosted document must come
/// back whole (nulls kept as null); the model may add members of its own (defaults written out).
fn first_loss(fixture: &Value, encoded: &Value, at: &str) -> Option<String> {
    match (fixture, encoded) {
        (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(key, l)| match y.get(key) {
            Some(r) => first_loss(l, r, &format!("{at}.{key}")),
            None if l.is_null() => None,
            None => Some(format!("{at}.{key}: lost (was {l})")),
        }),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (l, r))| first_loss(l, r, &format!("{at}[{i}]")))
        }
        (Value::Number(l), Value::Number(r)) if l.as_f64() == r.as_f64() => None,
        _ if fixture == encoded => None,
        _ => Some(format!("{at}: fixture {fixture} vs model {encoded}")),
    }
}

/// A fixture in the hosted interface's shape (tests/fixtures/model/hosted, written from the
/// official SDK's types by tests/compat/hosted_fixtures.py, none of this service's extensions):
/// it decodes, and encoding it again keeps every member with its value.
fn hosted_round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let original = fixture(&format!("hosted/{name}"));
    let decoded: T = serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("hosted {name}: {e}"));
    let encoded = serde_json::to_value(&decoded).unwrap();
    if let Some(loss) = first_loss(&original, &encoded, name) {
        panic!("hosted {name} does not round-trip: {loss}");
    }
    decoded
}

macro_rules! hosted_round_trips {
    ($($test:ident: $name:literal => $ty:ty),+ $(,)?) => {
        $( #[test] fn $test() { hosted_round_trip::<$ty>($name); } )+
    };
}

hosted_round_trips! {
    hosted_persona: "persona" => Persona,
    hosted_customer_flow: "customer_flow" => CustomerFlow,
    hosted_run_plan: "run_plan" => RunPlan,
    hosted_run_plan_job: "run_plan_job" => RunPlanJob,
    hosted_simulation_job: "simulation_job" => SimulationJob,
    hosted_metric_definition: "metric_definition" => MetricDefinition,
    hosted_metric_variant: "metric_variant" => MetricVariant,
    hosted_metric_policy: "metric_policy" => MetricPolicy,
    hosted_metric_collection_job: "metric_collection_job" => CollectionJob,
    hosted_call: "call" => Call,
    hosted_transcript: "transcript" => Transcript,
    hosted_call_metrics: "call_metrics" => MetricValueGroup,
    hosted_agent: "agent" => Agent,
    hosted_agent_endpoint: "agent_endpoint" => AgentEndpoint,
    hosted_http_request_definition: "http_request_definition" => HttpRequestDefinition,
    hosted_benchmark_suite_entry: "benchmark_suite_entry" => SuiteEntry,
    hosted_template: "template" => RunPlanTemplate,
    hosted_score_sample_page: "score_sample_page" => ScoreSamplePage,
}

#[test]
fn hosted_shapes_read_as_the_console_shows_them() {
    // What the console draws comes through: the hosted members that have no local twin.
    let job: RunPlanJob = hosted_round_trip("run_plan_job");
    assert!(!job.simulation_jobs.is_empty());
    assert!(job.simulation_jobs.iter().all(|s| s.persona.as_ref().is_some_and(|p| p.fields.age.is_some())));
    let plan: RunPlan = hosted_round_trip("run_plan");
    assert!(plan.plan.clone().as_input().validate().is_empty(), "a hosted plan saves again as it is");
    let call: Call = hosted_round_trip("call");
    assert!(call.direction().is_some(), "callDirection is read");
    let flow: CustomerFlow = hosted_round_trip("customer_flow");
    assert!(flow.title.is_some());
    // The hosted health body has no `authenticated`: it reads, and says nothing it does not know.
    let health: Health = serde_json::from_value(fixture("hosted/health")).unwrap();
    assert_eq!(health.status.as_deref(), Some("healthy"));
}
