//! Every limit in the spec's Limits table and every rule of the run plan, metric reference,
//! threshold and issue sections, checked through the shared `validate()` functions.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use serde_json::json;
use switchboard::api::model::*;
use switchboard::api::validate::{Validate, Violation, ViolationCode};

fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("decodes")
}

/// `(param, code)` of every violation.
fn faults(violations: &[Violation]) -> Vec<(String, &'static str)> {
    violations.iter().map(|v| (v.param.clone(), v.code.as_str())).collect()
}

fn has(violations: &[Violation], param: &str, code: ViolationCode) -> bool {
    violations.iter().any(|v| v.param == param && v.code == code)
}

fn plan() -> serde_json::Value {
    json!({
        "name": "Nightly dental regression",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true}],
        "agentEndpoints": [{"id": "0b7a6c52-93d4-4f1e-8c2a-5e9d1f3b7a20"}],
        "metrics": [{"slug": "call_duration"}]
    })
}

fn plan_with(patch: serde_json::Value) -> Vec<Violation> {
    let mut value = plan();
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            value.as_object_mut().unwrap().remove(k);
        } else {
            value[k] = v.clone();
        }
    }
    decode::<RunPlanInput>(value).validate()
}

#[test]
fn a_minimal_plan_is_valid() {
    assert_eq!(faults(&plan_with(json!({}))), vec![]);
}

#[test]
fn required_plan_fields_are_reported_missing_each_with_its_path() {
    let v =
        decode::<RunPlanInput>(json!({"flows": [{"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true}]}))
            .validate();
    for param in ["name", "direction", "maxSimulationDurationSeconds", "agentEndpoints", "metrics"] {
        assert!(has(&v, param, ViolationCode::MissingRequiredField), "{param} in {:?}", faults(&v));
    }
}

#[test]
fn name_must_not_be_empty() {
    assert!(has(&plan_with(json!({"name": ""})), "name", ViolationCode::InvalidParameter));
}

#[test]
fn iteration_count_is_1_to_10000() {
    assert!(has(&plan_with(json!({"iterationCount": 0})), "iterationCount", ViolationCode::InvalidParameter));
    assert!(has(&plan_with(json!({"iterationCount": 10001})), "iterationCount", ViolationCode::InvalidParameter));
    assert!(plan_with(json!({"iterationCount": 1})).is_empty());
    assert!(plan_with(json!({"iterationCount": 10000})).is_empty());
}

#[test]
fn minimums_of_concurrency_duration_and_silence() {
    assert!(has(&plan_with(json!({"maxConcurrentJobs": 0})), "maxConcurrentJobs", ViolationCode::InvalidParameter));
    let v = plan_with(json!({"maxSimulationDurationSeconds": 0}));
    assert!(has(&v, "maxSimulationDurationSeconds", ViolationCode::InvalidParameter));
    assert!(has(
        &plan_with(json!({"silenceTimeoutSeconds": 0})),
        "silenceTimeoutSeconds",
        ViolationCode::InvalidParameter
    ));
    assert!(
        plan_with(json!({"maxConcurrentJobs": 1, "silenceTimeoutSeconds": 1, "maxSimulationDurationSeconds": 1}))
            .is_empty()
    );
}

#[test]
fn defaults_are_the_specs() {
    let input: RunPlanInput = decode(plan());
    assert_eq!(input.iteration_count_or_default(), 1);
    assert_eq!(input.max_concurrent_jobs_or_default(), 5);
    assert_eq!(input.silence_timeout_seconds_or_default(), 30);
    assert_eq!(input.end_call_phrases_or_default(), vec!["goodbye".to_owned()]);
    assert_eq!(input.execution_mode_or_default(), ExecutionMode::Parallel);
    assert!(input.include_flow_metrics_or_default());
    assert!(input.include_automatic_metrics_or_default());
}

#[test]
fn an_empty_end_call_phrase_list_is_allowed_but_a_blank_phrase_is_not() {
    assert!(plan_with(json!({"endCallPhrases": [], "endCallReasons": []})).is_empty());
    assert!(has(
        &plan_with(json!({"endCallPhrases": ["bye", " "]})),
        "endCallPhrases[1]",
        ViolationCode::InvalidParameter
    ));
}

#[test]
fn lists_need_at_least_one_item_when_supplied() {
    for member in ["flows", "agentEndpoints", "metrics", "scenarios", "personas"] {
        let v = plan_with(json!({ member: [] }));
        assert!(has(&v, member, ViolationCode::InvalidParameter), "{member}: {:?}", faults(&v));
    }
}

#[test]
fn personas_are_required_together_with_scenarios() {
    let scenarios = json!([{"id": "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", "variables": {"a": "b"}}]);
    let v = plan_with(json!({"flows": null, "scenarios": scenarios}));
    assert!(has(&v, "personas", ViolationCode::MissingRequiredField), "{:?}", faults(&v));
    let persona = json!([{"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}]);
    assert!(plan_with(json!({"flows": null, "scenarios": scenarios, "personas": persona})).is_empty());
}

#[test]
fn personas_alone_are_refused_but_are_ignored_beside_flows() {
    let persona = json!([{"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}]);
    assert!(plan_with(json!({"personas": persona})).is_empty());
    assert!(has(&plan_with(json!({"flows": null, "personas": persona})), "personas", ViolationCode::InvalidParameter));
}

#[test]
fn a_plan_must_select_something_to_run() {
    assert!(has(&plan_with(json!({"flows": null})), "flows", ViolationCode::InvalidParameter));
}

#[test]
fn unknown_plan_fields_are_rejected_by_name() {
    let v = plan_with(json!({"iterations": 3}));
    assert_eq!(faults(&v), vec![("iterations".to_owned(), "invalid_parameter")]);
    assert!(v[0].message.contains("iterations"));
}

#[test]
fn unknown_fields_inside_flows_and_metrics_are_named_by_path() {
    let v = plan_with(json!({
        "flows": [{"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true, "happy_path": true}],
        "metrics": [{"slug": "call_duration", "source": "LIVE"}]
    }));
    assert!(has(&v, "flows[0].happy_path", ViolationCode::InvalidParameter), "{:?}", faults(&v));
    assert!(has(&v, "metrics[0].source", ViolationCode::InvalidParameter), "{:?}", faults(&v));
}

#[test]
fn edge_cases_are_all_or_a_list() {
    let all: FlowSelection = decode(json!({"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "edgeCases": "ALL"}));
    assert_eq!(all.edge_cases, Some(EdgeCases::All));
    assert!(all.validate().is_empty());
    assert_eq!(serde_json::to_value(&all).unwrap()["edgeCases"], json!("ALL"));
    let list: FlowSelection = decode(json!({
        "id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11",
        "edgeCases": [{"id": "2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d", "variables": {"x": "y"}}]
    }));
    assert!(matches!(list.edge_cases, Some(EdgeCases::List(ref l)) if l.len() == 1));
    let bad = serde_json::from_value::<FlowSelection>(
        json!({"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "edgeCases": "SOME"}),
    );
    assert!(bad.is_err());
}

#[test]
fn flow_selection_names_a_flow_by_id_or_slug_and_selects_a_variant() {
    let id = "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11";
    let v = decode::<FlowSelection>(json!({"happyPath": true})).validate();
    assert!(has(&v, "id", ViolationCode::MissingRequiredField));
    let v = decode::<FlowSelection>(json!({"id": id, "slug": "x", "happyPath": true})).validate();
    assert!(has(&v, "slug", ViolationCode::InvalidParameter));
    let v = decode::<FlowSelection>(json!({"slug": "", "happyPath": true})).validate();
    assert!(has(&v, "slug", ViolationCode::InvalidParameter));
    let v = decode::<FlowSelection>(json!({"id": id})).validate();
    assert!(has(&v, "happyPath", ViolationCode::InvalidParameter), "selects nothing: {:?}", faults(&v));
    let v = decode::<FlowSelection>(json!({"id": id, "edgeCases": []})).validate();
    assert!(has(&v, "edgeCases", ViolationCode::InvalidParameter));
    let v = decode::<FlowSelection>(json!({"id": id, "edgeCases": [{"variables": {}}]})).validate();
    assert!(has(&v, "edgeCases[0].id", ViolationCode::MissingRequiredField));
    assert!(
        decode::<FlowSelection>(json!({"slug": "appointment-reschedule-basic", "happyPath": true}))
            .validate()
            .is_empty()
    );
}

#[test]
fn persona_override_may_be_null() {
    let f: FlowSelection =
        decode(json!({"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true, "personaOverrideId": null}));
    assert_eq!(f.persona_override_id, None);
    assert!(f.validate().is_empty());
}

#[test]
fn metric_reference_takes_id_or_slug_not_both() {
    let id = "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d";
    assert!(decode::<MetricReference>(json!({"id": id})).validate().is_empty());
    assert!(decode::<MetricReference>(json!({"slug": "call_duration"})).validate().is_empty());
    assert!(decode::<MetricReference>(json!({"metricId": "call_duration"})).validate().is_empty());
    let v = decode::<MetricReference>(json!({"id": id, "slug": "call_duration"})).validate();
    assert!(has(&v, "slug", ViolationCode::InvalidParameter));
    let v = decode::<MetricReference>(json!({"id": id, "metricId": "call_duration"})).validate();
    assert!(has(&v, "slug", ViolationCode::InvalidParameter));
    let v = decode::<MetricReference>(json!({})).validate();
    assert!(has(&v, "id", ViolationCode::MissingRequiredField));
    let v = decode::<MetricReference>(json!({"slug": ""})).validate();
    assert!(has(&v, "slug", ViolationCode::InvalidParameter));
    let v = decode::<MetricReference>(json!({"metricId": ""})).validate();
    assert!(has(&v, "metricId", ViolationCode::InvalidParameter));
    let v = decode::<MetricReference>(json!({"slug": "a", "metricId": "b"})).validate();
    assert!(has(&v, "metricId", ViolationCode::InvalidParameter));
}

#[test]
fn metric_reference_paths_carry_the_index() {
    let v = plan_with(json!({"metrics": [{"slug": "call_duration"}, {"slug": ""}]}));
    assert_eq!(faults(&v), vec![("metrics[1].slug".to_owned(), "invalid_parameter")]);
}

#[test]
fn conversation_source_null_equals_omitted() {
    let m: MetricReference = decode(json!({"slug": "call_duration", "conversationSource": null}));
    assert_eq!(m.conversation_source, None);
    assert_eq!(m.conversation_source_or_default(), ConversationSource::Simulated);
    let live: MetricReference = decode(json!({"slug": "call_duration", "conversationSource": "LIVE"}));
    assert_eq!(live.conversation_source_or_default(), ConversationSource::Live);
}

fn threshold(value: serde_json::Value) -> Vec<Violation> {
    decode::<ThresholdInput>(value).validate()
}

#[test]
fn threshold_needs_operator_and_value() {
    let v = threshold(json!({"name": "Slow replies"}));
    assert!(has(&v, "operator", ViolationCode::MissingRequiredField));
    assert!(has(&v, "value", ViolationCode::MissingRequiredField));
    let empty = threshold(json!({"name": "n", "operator": "GREATER_THAN", "value": ""}));
    assert!(has(&empty, "value", ViolationCode::InvalidParameter));
    assert!(threshold(json!({"name": "n", "operator": "GREATER_THAN", "value": "800"})).is_empty());
}

#[test]
fn threshold_slug_and_alias_are_1_to_50() {
    let base = |k: &str, s: String| json!({"operator": "LESS_THAN", "value": "3", k: s});
    for key in ["slug", "metricId"] {
        assert!(has(&threshold(base(key, String::new())), key, ViolationCode::InvalidParameter));
        assert!(has(&threshold(base(key, "a".repeat(51))), key, ViolationCode::InvalidParameter));
        assert!(threshold(base(key, "a".repeat(50))).is_empty(), "{key} at 50");
    }
}

#[test]
fn count_threshold_is_required_for_count_and_never_negative() {
    let v = threshold(json!({"name": "n", "operator": "GREATER_THAN", "value": "1", "aggregationMode": "COUNT"}));
    assert!(has(&v, "countThreshold", ViolationCode::MissingRequiredField));
    let v = threshold(json!({"name": "n", "operator": "GREATER_THAN", "value": "1", "countThreshold": -1}));
    assert!(has(&v, "countThreshold", ViolationCode::InvalidParameter));
    let ok =
        json!({"name": "n", "operator": "GREATER_THAN", "value": "1", "aggregationMode": "COUNT", "countThreshold": 0});
    assert!(threshold(ok).is_empty());
}

#[test]
fn threshold_defaults_to_each_and_slugs_come_from_the_name() {
    let t: ThresholdInput = decode(json!({"name": "Slow agent replies!", "operator": "GREATER_THAN", "value": "800"}));
    assert_eq!(t.aggregation_mode_or_default(), AggregationMode::Each);
    assert_eq!(slug_from_name("Slow agent replies!"), "slow_agent_replies");
    assert!(slug_from_name(&"word ".repeat(30)).len() <= 50);
}

fn definition(contexts: serde_json::Value, metric_type: &str) -> MetricDefinition {
    decode(json!({"id": "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d", "name": "Latency", "type": metric_type,
        "supportedContexts": contexts}))
}

#[test]
fn participant_role_only_for_turn_or_segment_sources() {
    let t: ThresholdInput =
        decode(json!({"name": "n", "operator": "GREATER_THAN", "value": "800", "sourceParticipantRole": "AGENT"}));
    assert!(t.validate_against(&definition(json!(["CALL", "TURN"]), "NUMERIC")).is_empty());
    assert!(t.validate_against(&definition(json!(["SEGMENT"]), "NUMERIC")).is_empty());
    let v = t.validate_against(&definition(json!(["CALL"]), "NUMERIC"));
    assert!(has(&v, "sourceParticipantRole", ViolationCode::InvalidParameter));
}

#[test]
fn threshold_value_must_fit_the_source_type() {
    let t: ThresholdInput = decode(json!({"name": "n", "operator": "GREATER_THAN", "value": "fast"}));
    assert!(has(
        &t.validate_against(&definition(json!(["CALL"]), "NUMERIC")),
        "value",
        ViolationCode::InvalidParameter
    ));
    let t: ThresholdInput = decode(json!({"name": "n", "operator": "EQUALS", "value": "true"}));
    assert!(t.validate_against(&definition(json!(["CALL"]), "BOOLEAN")).is_empty());
}

fn issue(value: serde_json::Value) -> Vec<Violation> {
    decode::<IssueInput>(value).validate()
}

#[test]
fn issue_title_is_1_to_280_characters() {
    assert!(has(&issue(json!({})), "title", ViolationCode::MissingRequiredField));
    assert!(has(&issue(json!({"title": ""})), "title", ViolationCode::InvalidParameter));
    assert!(has(&issue(json!({"title": "t".repeat(281)})), "title", ViolationCode::InvalidParameter));
    assert!(issue(json!({"title": "é".repeat(280)})).is_empty(), "characters, not bytes");
}

#[test]
fn issue_summary_is_1_to_2000_characters() {
    assert!(has(&issue(json!({"title": "t", "summary": ""})), "summary", ViolationCode::InvalidParameter));
    assert!(has(
        &issue(json!({"title": "t", "summary": "s".repeat(2001)})),
        "summary",
        ViolationCode::InvalidParameter
    ));
    assert!(issue(json!({"title": "t", "summary": "s".repeat(2000)})).is_empty());
}

#[test]
fn issue_evidence_is_at_most_50_calls_or_chats() {
    let call = json!({"callId": "4d5e6f70-8192-4a3b-8c4d-5e6f7a8b9c0d"});
    assert!(issue(json!({"title": "t", "evidence": vec![call.clone(); 50]})).is_empty());
    let v = issue(json!({"title": "t", "evidence": vec![call.clone(); 51]}));
    assert!(has(&v, "evidence", ViolationCode::InvalidParameter));
    let v = issue(json!({"title": "t", "evidence": [call, {}]}));
    assert!(has(&v, "evidence[1].callId", ViolationCode::MissingRequiredField));
}

#[test]
fn issue_severity_may_be_null_but_not_unknown_on_input() {
    let input: IssueInput = decode(json!({"title": "t", "severity": null}));
    assert_eq!(input.severity, None);
    assert!(input.validate().is_empty());
    assert!(has(&issue(json!({"title": "t", "severity": "URGENT"})), "severity", ViolationCode::InvalidParameter));
}

#[test]
fn collection_job_list_limit_is_1_to_50() {
    let q = |limit| CollectionJobQuery { limit: Some(limit), ..Default::default() }.validate();
    assert!(has(&q(0), "limit", ViolationCode::InvalidParameter));
    assert!(has(&q(51), "limit", ViolationCode::InvalidParameter));
    assert!(q(1).is_empty() && q(50).is_empty());
}

#[test]
fn score_sample_query_needs_a_suite_and_bounds_limit_and_offset() {
    let q = |v: serde_json::Value| decode::<ScoreSampleQuery>(v).validate();
    assert!(has(&q(json!({})), "suite", ViolationCode::MissingRequiredField));
    assert!(has(&q(json!({"suite": ""})), "suite", ViolationCode::InvalidParameter));
    assert!(has(&q(json!({"suite": "s", "limit": 0})), "limit", ViolationCode::InvalidParameter));
    assert!(has(&q(json!({"suite": "s", "limit": 101})), "limit", ViolationCode::InvalidParameter));
    assert!(has(&q(json!({"suite": "s", "offset": -1})), "offset", ViolationCode::InvalidParameter));
    assert!(has(&q(json!({"suite": "s", "conditionKey": ""})), "conditionKey", ViolationCode::InvalidParameter));
    assert!(has(&q(json!({"suite": "s", "metricKey": ""})), "metricKey", ViolationCode::InvalidParameter));
    let ok = q(json!({"suite": "s", "limit": 100, "offset": 0, "conditionKey": "quiet-room", "metricKey": "empathy"}));
    assert!(ok.is_empty());
}

#[test]
fn policy_needs_name_modality_and_a_metric() {
    let v = decode::<PolicyInput>(json!({"metrics": []})).validate();
    assert!(has(&v, "name", ViolationCode::MissingRequiredField));
    assert!(has(&v, "modality", ViolationCode::MissingRequiredField));
    assert!(has(&v, "metrics", ViolationCode::InvalidParameter));
    let v = decode::<PolicyInput>(json!({"name": "p", "modality": "voice",
        "metrics": [{"id": "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d"}],
        "conditions": [{"conditions": [{"conditionKey": "agentId"}]}]}))
    .validate();
    assert!(has(&v, "modality", ViolationCode::InvalidParameter));
    let path = "conditions[0].conditions[0].conditionValue";
    assert!(has(&v, path, ViolationCode::MissingRequiredField), "{:?}", faults(&v));
}

#[test]
fn collection_job_request_limits() {
    let id = "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d";
    let v = decode::<CollectionJobInput>(json!({"metrics": vec![json!({"id": id}); 21], "callIds": [id]})).validate();
    assert!(has(&v, "metrics", ViolationCode::InvalidParameter));
    let v = decode::<CollectionJobInput>(json!({"policyIds": [id], "callIds": vec![id; 501]})).validate();
    assert!(has(&v, "callIds", ViolationCode::InvalidParameter));
    assert!(decode::<CollectionJobInput>(json!({"policyIds": [id], "callIds": vec![id; 500]})).validate().is_empty());
}

#[test]
fn definition_update_rejects_immutable_fields_by_name() {
    let v = decode::<MetricDefinitionUpdate>(json!({"name": "New", "slug": "x", "scope": "GLOBAL", "colour": 1}))
        .validate();
    assert!(v.iter().any(|v| v.param == "slug" && v.message.contains("immutable")));
    assert!(v.iter().any(|v| v.param == "scope" && v.message.contains("immutable")));
    assert!(v.iter().any(|v| v.param == "colour" && v.message.contains("unknown")));
}

#[test]
fn derived_metrics_allow_only_a_new_name() {
    let derived: MetricDefinition =
        decode(json!({"id": "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d", "calculationType": "THRESHOLD"}));
    let rename: MetricDefinitionUpdate = decode(json!({"name": "Renamed", "changeReason": "clearer"}));
    assert!(rename.validate_against(&derived).is_empty());
    let prompt: MetricDefinitionUpdate = decode(json!({"llmPrompt": "Judge it"}));
    assert!(has(&prompt.validate_against(&derived), "llmPrompt", ViolationCode::InvalidParameter));
}

#[test]
fn run_request_takes_a_plan_id_or_an_inline_plan() {
    let v = decode::<RunRequest>(json!({})).validate();
    assert!(has(&v, "planId", ViolationCode::MissingRequiredField));
    let v = decode::<RunRequest>(json!({"plan": {"name": ""}})).validate();
    assert!(has(&v, "plan.name", ViolationCode::InvalidParameter), "{:?}", faults(&v));
    assert!(has(&v, "plan.direction", ViolationCode::MissingRequiredField));
    let flat: RunRequest =
        decode(json!({"planId": "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d", "variables": {"patientName": "Dana"}}));
    assert!(matches!(flat.variables, Some(RunVariables::Flat(_))));
    let per_flow: RunRequest = decode(json!({"planId": "3c4d5e6f-7081-4a9b-8c0d-1e2f3a4b5c6d",
        "variables": [{"flowId": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", "happyPath": true, "variables": {"a": "b"}}]}));
    assert!(matches!(per_flow.variables, Some(RunVariables::PerFlow(ref l)) if l.len() == 1));
    assert!(per_flow.validate().is_empty());
}
