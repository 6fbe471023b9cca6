//! The seeded world is what the issue asks for, decodes with the interface's own types, and
//! every id it references exists.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::HashSet;

use serde::de::DeserializeOwned;
use support::seed;
use switchboard::api::model::*;

fn typed<T: DeserializeOwned>(name: &str) -> Vec<T> {
    serde_json::from_value(seed(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn count_steps(steps: &[FlowStep]) -> usize {
    steps.iter().map(|s| 1 + count_steps(&s.steps)).sum()
}

fn depth(steps: &[FlowStep]) -> usize {
    steps.iter().map(|s| 1 + depth(&s.steps)).max().unwrap_or(0)
}

fn any_step(steps: &[FlowStep], f: &dyn Fn(&FlowStep) -> bool) -> bool {
    steps.iter().any(|s| f(s) || any_step(&s.steps, f))
}

fn node_ids(steps: &[FlowStep], out: &mut HashSet<String>) {
    for s in steps {
        out.extend(s.node_id.map(|n| n.to_string()));
        node_ids(&s.steps, out);
    }
}

#[test]
fn agents_endpoints_and_the_dialling_definition() {
    let agents: Vec<Agent> = typed("agents");
    let endpoints: Vec<AgentEndpoint> = typed("agent_endpoints");
    let definitions: Vec<HttpRequestDefinition> = typed("http_request_definitions");
    assert!(agents.len() >= 2);
    assert_eq!(definitions.len(), 1);
    let agent_ids: HashSet<_> = agents.iter().map(|a| a.id).collect();
    assert!(endpoints.iter().all(|e| e.agent_id.is_some_and(|a| agent_ids.contains(&a))));
    assert!(
        agents.iter().all(|a| endpoints
            .iter()
            .any(|e| e.agent_id == Some(a.id) && e.endpoint_type == Some(EndpointType::Phone)))
    );
    let dialling: Vec<_> =
        endpoints.iter().filter(|e| e.outbound_dial_type == Some(OutboundDialType::HttpRequest)).collect();
    assert_eq!(dialling.len(), 1);
    assert_eq!(dialling[0].outbound_dial_http_request_definition_id, Some(definitions[0].id));
    assert!(definitions[0].url.as_deref().unwrap().ends_with("/demo/agent"));
}

#[test]
fn six_personas_two_of_them_system() {
    let personas: Vec<Persona> = typed("personas");
    assert_eq!(personas.len(), 6);
    assert_eq!(personas.iter().filter(|p| p.is_system == Some(true)).count(), 2);
    assert!(
        personas
            .iter()
            .all(|p| p.fields.name.is_some() && p.fields.base_emotion.is_some() && p.fields.speech_pace.is_some())
    );
}

#[test]
fn flows_cover_scripted_improv_voicemail_and_curated() {
    let flows: Vec<CustomerFlow> = typed("customer_flows");
    let agents: HashSet<_> = typed::<Agent>("agents").into_iter().map(|a| a.id).collect();
    let scripted: Vec<_> =
        flows.iter().filter(|f| f.flow_type == Some(FlowType::Scripted) && f.slug.is_none()).collect();
    assert_eq!(scripted.len(), 2);
    for flow in &scripted {
        assert!(count_steps(&flow.graph) >= 8, "{:?} has {} steps", flow.title, count_steps(&flow.graph));
        assert!(depth(&flow.graph) >= 3);
        assert!(any_step(&flow.graph, &|s| s.step_type == Some(StepType::AgentTurn)));
        // A branch is a step with several alternatives following it.
        assert!(any_step(&flow.graph, &|s| s.steps.len() >= 2));
        assert!(any_step(&flow.graph, &|s| s.off_script_policy.is_some()));
        assert!(flow.off_script_policy.is_some());
        let mut ids = HashSet::new();
        node_ids(&flow.graph, &mut ids);
        let mut links = Vec::new();
        fn merges(steps: &[FlowStep], out: &mut Vec<String>) {
            for s in steps {
                out.extend(s.merge_into_node_ids.iter().cloned());
                merges(&s.steps, out);
            }
        }
        merges(&flow.graph, &mut links);
        assert!(!links.is_empty());
        assert!(links.iter().all(|l| ids.contains(l)), "merge links name steps of the flow");
        assert!(flow.agents.iter().all(|a| agents.contains(&a.id)));
        assert!(!flow.agent_expectations.is_empty());
    }
    let improv: Vec<_> = flows.iter().filter(|f| f.flow_type == Some(FlowType::Improv)).collect();
    assert_eq!(improv.len(), 1);
    assert!(improv[0].happy_path.is_some());
    assert_eq!(improv[0].edge_cases.len(), 3);
    assert!(improv[0].edge_cases.iter().all(|e| e.persona_override.is_some()));
    assert_eq!(flows.iter().filter(|f| f.is_voicemail()).count(), 1);
    assert!(flows.iter().any(|f| f.source == Some(FlowSource::System) && f.slug.is_some()));
}

#[test]
fn metrics_policies_and_knowledge_bases() {
    let definitions: Vec<MetricDefinition> = typed("metric_definitions");
    let slugs: HashSet<_> = definitions.iter().filter_map(|d| d.slug.clone()).collect();
    for slug in [
        "call_duration",
        "agent_turn_count",
        "customer_turn_count",
        "agent_response_latency",
        "interruption_count",
        "longest_silence",
        "words_per_minute",
        "end_call_reason",
        "agent_expectations",
        "keypad_entry",
        "task_completion",
    ] {
        assert!(slugs.contains(slug), "{slug}");
    }
    let custom: Vec<_> = definitions.iter().filter(|d| d.source == Some(DefinitionSource::Custom)).collect();
    assert!(custom.iter().all(|d| d.calculation_type == Some(CalculationType::LlmJudge) && d.llm_prompt.is_some()));
    let types: HashSet<_> = custom.iter().filter_map(|d| d.metric_type.clone()).collect();
    assert!(types.is_superset(&[MetricType::Boolean, MetricType::Scale, MetricType::Classification].into()));
    assert!(custom.iter().any(|d| d.scale_labels.as_ref().is_some_and(|l| !l.is_empty())));
    let bases: Vec<KnowledgeBase> = typed("knowledge_bases");
    assert_eq!(bases.len(), 2);
    let base_ids: HashSet<_> = bases.iter().map(|b| b.id).collect();
    assert!(custom.iter().flat_map(|d| d.knowledge_base_ids.iter().flatten()).all(|id| base_ids.contains(id)));
    let definition_ids: HashSet<_> = definitions.iter().map(|d| d.id).collect();
    let policies: Vec<MetricPolicy> = typed("metric_policies");
    assert_eq!(policies.len(), 2);
    assert!(policies.iter().flat_map(|p| &p.metrics).all(|m| definition_ids.contains(&m.id)));
}

#[test]
fn calls_jobs_and_issues_hang_together() {
    let calls: Vec<Call> = typed("calls");
    assert_eq!(calls.len(), 40);
    let call_ids: HashSet<_> = calls.iter().map(|c| c.id).collect();
    for call in seed("calls").as_array().unwrap() {
        let transcript: Transcript = serde_json::from_value(call["transcript"].clone()).unwrap();
        assert!(!transcript.entries.is_empty());
    }
    let definitions: HashSet<_> = typed::<MetricDefinition>("metric_definitions").into_iter().map(|d| d.id).collect();
    let jobs = seed("metric_collection_jobs");
    let jobs = jobs.as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    let mut statuses = HashSet::new();
    for job in jobs {
        let typed_job: CollectionJob = serde_json::from_value(job.clone()).unwrap();
        assert_eq!(typed_job.status, Some(CollectionJobStatus::Completed));
        let groups: Vec<MetricValueGroup> = serde_json::from_value(job["values"].clone()).unwrap();
        for group in groups {
            assert!(definitions.contains(&group.metric_definition_id));
            for value in group.values {
                assert!(value.call_id.is_some_and(|c| call_ids.contains(&c)));
                let success = value.capture_status == Some(CaptureStatus::Success);
                assert_eq!(value.value.is_some(), success, "value only on SUCCESS rows");
                statuses.insert(value.capture_status.unwrap());
            }
        }
    }
    assert_eq!(statuses.len(), 4, "every capture status: {statuses:?}");
    let issues: Vec<Issue> = typed("issues");
    assert_eq!(issues.len(), 5);
    let severities: HashSet<_> = issues.iter().map(|i| i.severity.clone()).collect();
    assert!(severities.len() >= 4);
    assert!(issues.iter().all(|i| !i.evidence.is_empty()));
    assert!(issues.iter().flat_map(|i| &i.evidence).all(|e| e.call_id.is_some_and(|c| call_ids.contains(&c))));
}

#[test]
fn benchmarks_have_suites_targets_a_superseded_version_and_samples() {
    let benchmarks = seed("benchmarks");
    let suites: Vec<SuiteEntry> = serde_json::from_value(benchmarks["suites"].clone()).unwrap();
    let targets: Vec<Target> = serde_json::from_value(benchmarks["targets"].clone()).unwrap();
    assert_eq!(suites.len(), 2);
    for suite in &suites {
        let current =
            targets.iter().filter(|t| t.suite.as_ref() == Some(&suite.suite) && t.is_current == Some(true)).count();
        assert!(current >= 3, "{} has {current} current targets", suite.suite);
    }
    assert!(targets.iter().any(|t| t.is_current == Some(false) && t.superseded_at.is_some()));
    let samples = benchmarks["scoreSamples"].as_array().unwrap();
    let mut per_target = std::collections::HashMap::<String, usize>::new();
    for sample in samples {
        let key = sample["targetKey"].as_str().unwrap();
        assert!(targets.iter().any(|t| t.target_key == key));
        assert!(sample["reasoning"].as_str().is_some_and(|r| r.len() > 40));
        *per_target.entry(key.to_owned()).or_default() += 1;
    }
    assert!(per_target.values().any(|n| *n >= 60));
}

#[test]
fn the_saved_run_plan_is_a_valid_input() {
    use switchboard::api::validate::Validate;
    let plans: Vec<RunPlan> = typed("run_plans");
    assert_eq!(plans.len(), 1);
    let input = plans[0].plan.clone().as_input();
    assert!(input.validate().is_empty(), "{:?}", input.validate());
}
