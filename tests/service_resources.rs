//! Every operation the spec describes, on the seeded local service, with its rules.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::HashSet;

use futures_util::TryStreamExt;
use serde_json::json;
use support::{id_of, seed, seeded, seeded_production_calls, start};
use switchboard::api::ListQuery;
use switchboard::api::model::*;

fn api_status(err: &switchboard::api::Error) -> (u16, String, Option<String>) {
    let api = err.api().unwrap_or_else(|| panic!("not an API error: {err}"));
    (api.status, api.code.clone(), api.param.clone())
}

#[tokio::test]
async fn personas_page_without_duplicates_and_soft_delete_hides_them() {
    let service = start(true).await;
    let client = &service.client;
    for n in 0..23 {
        let fields = PersonaFields { name: Some(format!("Load persona {n}")), ..Default::default() };
        client.create_persona(&fields).await.unwrap();
    }
    let expected = 23 + seed("personas").as_array().unwrap().len() as u64;
    let first = client.list_personas(&ListQuery::default().limit(7)).await.unwrap();
    assert_eq!(first.pagination.total, expected);
    let walked: Vec<Persona> =
        client.list_all("/v1/persona", ListQuery::default().limit(7)).try_collect().await.unwrap();
    let ids: HashSet<_> = walked.iter().map(|p| p.id).collect();
    assert_eq!((walked.len() as u64, ids.len() as u64), (expected, expected));

    let victim = walked.iter().find(|p| p.is_system != Some(true)).unwrap().id;
    let deleted = client.delete_persona(victim).await.unwrap();
    assert_eq!((deleted.id, deleted.deleted), (victim, true));
    assert_eq!(api_status(&client.get_persona(victim).await.unwrap_err()).0, 404);
    let after: Vec<Persona> =
        client.list_all("/v1/persona", ListQuery::default().limit(50)).try_collect().await.unwrap();
    assert!(after.iter().all(|p| p.id != victim));
    assert_eq!(after.len() as u64, expected - 1);
    assert_eq!(api_status(&client.delete_persona(victim).await.unwrap_err()).0, 404);
}

#[tokio::test]
async fn system_personas_cannot_be_deleted() {
    let service = start(true).await;
    let system = seeded("personas", |p| p["isSystem"] == true);
    assert_eq!(system.len(), 2);
    for persona in system {
        let err = service.client.delete_persona(id_of(&persona)).await.unwrap_err();
        assert_eq!(api_status(&err).0, 400);
        assert!(service.client.get_persona(id_of(&persona)).await.is_ok());
    }
}

#[tokio::test]
async fn persona_input_is_validated() {
    let service = start(false).await;
    let err = service.client.create_persona(&PersonaFields::default()).await.unwrap_err();
    assert_eq!(api_status(&err), (400, "missing_required_field".into(), Some("name".into())));
}

#[tokio::test]
async fn issues_are_created_open_from_the_api_with_their_evidence() {
    let service = start(true).await;
    let calls = seed("calls");
    let call_ids: Vec<uuid::Uuid> = calls.as_array().unwrap().iter().take(2).map(id_of).collect();
    let input = IssueInput {
        title: Some("Agent double-books the 9am slot".into()),
        summary: Some("Two calls this morning".into()),
        severity: Some(Severity::High),
        evidence: Some(call_ids.iter().map(|id| EvidenceInput::call(*id)).collect()),
        ..Default::default()
    };
    let issue = service.client.create_issue(&input).await.unwrap();
    assert_eq!(issue.source, Some(IssueSource::Api));
    assert_eq!(issue.status, Some(IssueStatus::Open));
    let evidence: Vec<_> = issue.evidence.iter().filter_map(|e| e.call_id).collect();
    assert_eq!(evidence, call_ids);
    assert!(issue.evidence.iter().all(|e| e.id.is_some() && e.observed_at.is_some()));
    assert_eq!(service.client.get_issue(issue.id).await.unwrap(), issue);
}

#[tokio::test]
async fn one_bad_evidence_reference_creates_nothing() {
    let service = start(true).await;
    let before = service.client.list_page::<Issue>("/v1/issue", &ListQuery::default()).await.unwrap().pagination.total;
    let good = id_of(&seed("calls")[0]);
    let input = IssueInput {
        title: Some("Should not exist".into()),
        evidence: Some(vec![EvidenceInput::call(good), EvidenceInput::call(uuid::Uuid::new_v4())]),
        ..Default::default()
    };
    let err = service.client.create_issue(&input).await.unwrap_err();
    assert_eq!(api_status(&err), (400, "invalid_parameter".into(), Some("evidence[1].callId".into())));
    let after = service.client.list_page::<Issue>("/v1/issue", &ListQuery::default()).await.unwrap().pagination.total;
    assert_eq!(before, after);
}

#[tokio::test]
async fn issues_filter_by_status_and_severity_and_resolve() {
    let service = start(true).await;
    let client = &service.client;
    let open_high: Vec<Issue> = client
        .list_all("/v1/issue", ListQuery::default().filter("status", "OPEN").filter("severity", "HIGH"))
        .try_collect()
        .await
        .unwrap();
    assert!(!open_high.is_empty());
    assert!(open_high.iter().all(|i| i.status == Some(IssueStatus::Open) && i.severity == Some(Severity::High)));
    let issue = &open_high[0];
    let resolved = client
        .update_issue(issue.id, &IssueUpdate { status: Some(IssueStatus::Resolved), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(resolved.status, Some(IssueStatus::Resolved));
    assert!(resolved.resolved_at.is_some());
    let unset =
        client.update_issue(issue.id, &IssueUpdate { severity: Some(None), ..Default::default() }).await.unwrap();
    assert_eq!(unset.severity, None);
    let err =
        client.list_page::<Issue>("/v1/issue", &ListQuery::default().filter("severity", "URGENT")).await.unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("severity"));
}

fn custom_metric(kind: &str) -> serde_json::Value {
    seeded("metric_definitions", |d| d["source"] == "CUSTOM" && d["type"] == kind).remove(0)
}

fn system_metric(slug: &str) -> serde_json::Value {
    seeded("metric_definitions", |d| d["slug"] == slug).remove(0)
}

#[tokio::test]
async fn updating_a_custom_metric_makes_a_new_version() {
    let service = start(true).await;
    let metric = custom_metric("BOOLEAN");
    let slug = metric["slug"].as_str().unwrap();
    let before = service.client.get_metric_definition(slug).await.unwrap();
    let update = MetricDefinitionUpdate {
        name: Some("Identity verified first".into()),
        change_reason: Some("clearer name".into()),
        ..Default::default()
    };
    let after = service.client.update_metric_definition(slug, &update).await.unwrap();
    assert_eq!(after.id, before.id);
    assert_eq!(after.name.as_deref(), Some("Identity verified first"));
    assert_ne!(after.version_id, before.version_id);
    assert_eq!(after.version, Some(before.version.unwrap_or(1) + 1));
    let by_id = service.client.get_metric_definition(&after.id.to_string()).await.unwrap();
    assert_eq!(by_id.version_id, after.version_id);
    let versions = service.client.metric_definition_versions(slug).await.unwrap();
    let names: Vec<_> = versions.iter().map(|v| (v.version, v.name.clone())).collect();
    assert_eq!(names[0], (after.version, after.name.clone()), "newest first");
    assert_eq!(names[1], (before.version.or(Some(1)), before.name.clone()), "the old version is kept as it was");
}

#[tokio::test]
async fn immutable_fields_and_service_owned_metrics_are_rejected() {
    let service = start(true).await;
    let slug = custom_metric("SCALE")["slug"].as_str().unwrap().to_owned();
    let mut update = MetricDefinitionUpdate::default();
    update.unknown_fields.insert("slug".into(), json!("renamed"));
    let err = service.client.update_metric_definition(&slug, &update).await.unwrap_err();
    assert_eq!(api_status(&err), (400, "invalid_parameter".into(), Some("slug".into())));
    let err = service
        .client
        .update_metric_definition(
            "call_duration",
            &MetricDefinitionUpdate { name: Some("x".into()), ..Default::default() },
        )
        .await
        .unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.status, 400);
    assert!(api.message.contains("variants"), "{}", api.message);
    // A new name forks it for this workspace; `name` in the body names the variant (the hosted
    // interface's rename), the metric keeping its own.
    let variant = service
        .client
        .update_metric_variant(
            "call_duration",
            "ours",
            &MetricDefinitionUpdate { name: Some("Our duration".into()), ..Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(variant.name, "Our duration");
    let fork = variant.definition.unwrap();
    assert_eq!(fork.name.as_deref(), Some("Call duration"));
    assert_ne!(fork.id.to_string(), system_metric("call_duration")["id"].as_str().unwrap());
    let original = service.client.get_metric_definition("call_duration").await.unwrap();
    assert_ne!(original.name.as_deref(), Some("Our duration"), "other workspaces keep the original");
}

#[tokio::test]
async fn thresholds_make_boolean_metrics_that_inherit_scope_and_contexts() {
    let service = start(true).await;
    let source = service.client.get_metric_definition("agent_response_latency").await.unwrap();
    let input = ThresholdInput {
        name: Some("Slow agent replies".into()),
        operator: Some(ThresholdOperator::GreaterThan),
        value: Some("1500".into()),
        aggregation_mode: Some(AggregationMode::P95),
        source_participant_role: Some(ParticipantRole::Agent),
        ..Default::default()
    };
    let threshold = service.client.create_threshold("agent_response_latency", &input).await.unwrap();
    assert_eq!(threshold.calculation_type, Some(CalculationType::Threshold));
    assert_eq!(threshold.metric_type, Some(MetricType::Boolean));
    assert_eq!(threshold.slug.as_deref(), Some("slow_agent_replies"));
    assert_eq!(threshold.scope, source.scope);
    assert_eq!(threshold.supported_contexts, source.supported_contexts);
    let t = threshold.threshold.unwrap();
    assert_eq!(t.source_metric_definition_id, Some(source.id));
    assert_eq!(t.aggregation_mode, Some(AggregationMode::P95));

    let count =
        ThresholdInput { aggregation_mode: Some(AggregationMode::Count), name: Some("Many".into()), ..input.clone() };
    let err = service.client.create_threshold("agent_response_latency", &count).await.unwrap_err();
    assert_eq!(api_status(&err), (400, "missing_required_field".into(), Some("countThreshold".into())));
    let call_only = ThresholdInput { name: Some("Long calls".into()), value: Some("600".into()), ..input };
    let err = service.client.create_threshold("call_duration", &call_only).await.unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("sourceParticipantRole"));
}

#[tokio::test]
async fn a_policy_may_only_reference_metrics_of_its_modality() {
    let service = start(true).await;
    let call_only = service
        .client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Hold music detected".into()),
            metric_type: Some(MetricType::Boolean),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: Some("Was the caller put on hold?".into()),
            supported_modalities: Some(vec![Modality::Call]),
            ..Default::default()
        })
        .await
        .unwrap();
    let policy = |modality: Modality| PolicyInput {
        name: Some("Hold checks".into()),
        modality: Some(modality),
        metrics: Some(vec![PolicyMetric::from(call_only.id)]),
        ..Default::default()
    };
    let err = service.client.create_policy(&policy(Modality::Chat)).await.unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("metrics[0].id"));
    let created = service.client.create_policy(&policy(Modality::Call)).await.unwrap();
    assert_eq!(created.status, Some(PolicyStatus::Active));
    let paused = service
        .client
        .update_policy(created.id, &PolicyUpdate { status: Some(PolicyStatus::Inactive), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(paused.status, Some(PolicyStatus::Inactive));
}

#[tokio::test]
async fn collection_jobs_page_by_cursor_and_filter_by_status() {
    let service = start(true).await;
    let seeded_jobs = seed("metric_collection_jobs").as_array().unwrap().len();
    let all: Vec<CollectionJob> = service.client.collection_jobs(None, Some(1)).try_collect().await.unwrap();
    assert_eq!(all.len(), seeded_jobs);
    assert_eq!(all.iter().map(|j| j.id).collect::<HashSet<_>>().len(), seeded_jobs);
    let failed: Vec<CollectionJob> =
        service.client.collection_jobs(Some(CollectionJobStatus::Failed), None).try_collect().await.unwrap();
    assert!(failed.is_empty());
    let completed: Vec<CollectionJob> =
        service.client.collection_jobs(Some(CollectionJobStatus::Completed), None).try_collect().await.unwrap();
    assert_eq!(completed.len(), seeded_jobs);
    let err = service
        .client
        .list_collection_jobs(&CollectionJobQuery { limit: Some(51), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("limit"));
    let err = service
        .client
        .list_page::<CollectionJob>(
            "/v1/metric/collection-jobs",
            &ListQuery { cursor: Some("zzz".into()), ..Default::default() },
        )
        .await
        .unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("cursor"));
}

#[tokio::test]
async fn a_jobs_values_are_exactly_its_own_with_value_omitted_off_success() {
    let service = start(true).await;
    for job in seed("metric_collection_jobs").as_array().unwrap() {
        let id = id_of(job);
        let seeded_values: usize =
            job["values"].as_array().unwrap().iter().map(|g| g["values"].as_array().unwrap().len()).sum();
        let seeded_success: usize = job["values"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["values"].as_array().unwrap())
            .filter(|v| v["captureStatus"] == "SUCCESS")
            .count();
        let all = service.client.collection_job_values(id, ValueStatusFilter::All).await.unwrap();
        let success = service.client.collection_job_values(id, ValueStatusFilter::Success).await.unwrap();
        let count = |groups: &[MetricValueGroup]| groups.iter().map(|g| g.values.len()).sum::<usize>();
        assert_eq!(count(&all), seeded_values);
        assert_eq!(count(&success), seeded_success);
        for value in all.iter().flat_map(|g| &g.values) {
            let ok = value.capture_status == Some(CaptureStatus::Success);
            assert_eq!(value.value.is_some(), ok, "{value:?}");
        }
        assert!(success.iter().flat_map(|g| &g.values).all(|v| v.capture_status == Some(CaptureStatus::Success)));
    }
    let statuses: HashSet<String> = seed("metric_collection_jobs")
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|j| j["values"].as_array().unwrap().clone())
        .flat_map(|g| g["values"].as_array().unwrap().clone())
        .map(|v| v["captureStatus"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(statuses.len(), 4, "the seed has every capture status: {statuses:?}");
}

#[tokio::test]
async fn only_environment_and_dial_type_of_an_endpoint_change() {
    let service = start(true).await;
    let endpoint = seeded("agent_endpoints", |e| e["outboundDialType"] == "NONE").remove(0);
    let id = id_of(&endpoint);
    let updated = service
        .client
        .update_agent_endpoint(id, &AgentEndpointUpdate { environment: Some("qa".into()), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(updated.environment.as_deref(), Some("qa"));
    assert_eq!(updated.value.as_deref(), endpoint["value"].as_str());
    let definition = id_of(&seed("http_request_definitions")[0]);
    let change =
        AgentEndpointUpdate { outbound_dial_http_request_definition_id: Some(definition), ..Default::default() };
    let err = service.client.update_agent_endpoint(id, &change).await.unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("outboundDialHttpRequestDefinitionId"));
    let read = service.client.get_http_request_definition(definition).await.unwrap();
    assert_eq!(read.id, definition);
}

#[tokio::test]
async fn flows_duplicate_deeply_but_voicemail_flows_do_not() {
    let service = start(true).await;
    let scripted = seeded("customer_flows", |f| f["type"] == "SCRIPTED" && f["source"] != "SERVICE").remove(0);
    let original = service.client.get_flow(id_of(&scripted)).await.unwrap();
    let copy = service.client.duplicate_flow(original.id).await.unwrap();
    assert_ne!(copy.id, original.id);
    assert_eq!(copy.source, Some(FlowSource::Custom));
    assert_eq!(copy.description, original.description);
    assert_eq!(copy.agents, original.agents);
    assert_eq!(copy.agent_expectations.len(), original.agent_expectations.len());
    fn node_ids(steps: &[FlowStep], out: &mut Vec<String>) {
        for step in steps {
            out.extend(step.node_id.map(|n| n.to_string()));
            node_ids(&step.steps, out);
        }
    }
    let (mut before, mut after) = (Vec::new(), Vec::new());
    node_ids(&original.graph, &mut before);
    node_ids(&copy.graph, &mut after);
    assert_eq!(before.len(), after.len());
    assert!(before.iter().all(|id| !after.contains(id)), "node ids are fresh");
    fn merges(steps: &[FlowStep], out: &mut Vec<String>) {
        for step in steps {
            out.extend(step.merge_into_node_ids.iter().cloned());
            merges(&step.steps, out);
        }
    }
    let mut links = Vec::new();
    merges(&copy.graph, &mut links);
    assert!(links.iter().all(|l| after.contains(l)), "merge links point into the copy");
    assert_eq!(service.client.get_flow(copy.id).await.unwrap(), copy);

    let voicemail = seeded("customer_flows", |f| f["type"] == "VOICEMAIL").remove(0);
    let err = service.client.duplicate_flow(id_of(&voicemail)).await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.status, 400);
    assert!(api.message.contains("voicemail"));
}

#[tokio::test]
async fn knowledge_bases_return_metadata_never_content() {
    let service = start(true).await;
    for base in seed("knowledge_bases").as_array().unwrap() {
        let id = id_of(base);
        let read = service.client.get_knowledge_base(id).await.unwrap();
        assert_eq!(read.byte_size, base["byteSize"].as_i64());
        let listed =
            service.client.list_page::<serde_json::Value>("/v1/knowledge-base", &ListQuery::default()).await.unwrap();
        assert!(listed.data.iter().all(|kb| kb.get("content").is_none()));
        let text = serde_json::to_string(&listed.data).unwrap() + &serde_json::to_string(&read).unwrap();
        let content = base["content"].as_str().unwrap();
        assert!(!text.contains(&content[..40]), "content leaked");
    }
}

#[tokio::test]
async fn score_samples_page_by_offset_and_narrow_to_one_cell() {
    let service = start(true).await;
    let suites = service.client.list_benchmark_suites().await.unwrap();
    assert_eq!(suites.len(), 2);
    let samples = seed("benchmarks")["scoreSamples"].as_array().unwrap().clone();
    let mut per_target: std::collections::HashMap<(String, String), usize> = Default::default();
    for s in &samples {
        *per_target
            .entry((s["suite"].as_str().unwrap().into(), s["targetKey"].as_str().unwrap().into()))
            .or_default() += 1;
    }
    let ((suite, target), count) = per_target.into_iter().max_by_key(|(_, n)| *n).unwrap();
    assert!(count >= 60);
    let query = ScoreSampleQuery { suite: Some(suite.clone()), limit: Some(25), ..Default::default() };
    let walked: Vec<ScoreSample> = service.client.score_samples(&target, query.clone()).try_collect().await.unwrap();
    let page = service.client.list_score_samples(&target, &query).await.unwrap();
    assert_eq!(walked.len() as u64, page.pagination.total);
    assert!(walked.iter().all(|s| s.reasoning.as_deref().is_some_and(|r| !r.is_empty())));
    assert_eq!(page.target.unwrap().target_key, target);
    let cell = (walked[0].condition_key.clone().unwrap(), walked[0].metric_key.clone().unwrap());
    let narrowed = ScoreSampleQuery { condition_key: Some(cell.0.clone()), metric_key: Some(cell.1.clone()), ..query };
    let one_cell: Vec<ScoreSample> = service.client.score_samples(&target, narrowed).try_collect().await.unwrap();
    assert!(!one_cell.is_empty() && one_cell.len() < walked.len());
    assert!(
        one_cell.iter().all(|s| s.condition_key.as_ref() == Some(&cell.0) && s.metric_key.as_ref() == Some(&cell.1))
    );
    let err = service.client.list_score_samples(&target, &ScoreSampleQuery::default()).await.unwrap_err();
    assert_eq!(api_status(&err), (400, "missing_required_field".into(), Some("suite".into())));
    let bad = ScoreSampleQuery { suite: Some(suite), ..Default::default() };
    assert_eq!(api_status(&service.client.list_score_samples("no-such-target", &bad).await.unwrap_err()).0, 404);
}

fn dental_plan(auto_run: Option<bool>) -> RunPlanInput {
    let flow = seeded("customer_flows", |f| f["type"] == "SCRIPTED" && f["source"] != "SERVICE").remove(0);
    let agent = flow["agents"][0]["id"].as_str().unwrap().to_owned();
    let endpoint = seeded("agent_endpoints", |e| e["agentId"] == agent.as_str()).remove(0);
    RunPlanInput {
        name: Some("Dental regression".into()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(3),
        max_simulation_duration_seconds: Some(300),
        flows: Some(vec![FlowSelection {
            id: Some(id_of(&flow)),
            happy_path: Some(true),
            edge_cases: Some(EdgeCases::All),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: id_of(&endpoint) }]),
        metrics: Some(vec![MetricReference::by_slug("call_duration")]),
        auto_run,
        ..Default::default()
    }
}

#[tokio::test]
async fn run_plans_are_created_with_a_job_only_when_auto_run() {
    let service = start(true).await;
    let created = service.client.create_run_plan(&dental_plan(None)).await.unwrap();
    assert!(created.run_plan_job.is_none());
    assert_eq!(created.run_plan.name(), "Dental regression");
    assert_eq!(service.client.get_run_plan(created.run_plan.id).await.unwrap(), created.run_plan);

    let auto = service.client.create_run_plan(&dental_plan(Some(true))).await.unwrap();
    let job = auto.run_plan_job.expect("autoRun starts a job");
    let flow = seeded("customer_flows", |f| f["type"] == "SCRIPTED" && f["source"] != "SERVICE").remove(0);
    let variants = 1 + flow["edgeCases"].as_array().unwrap().len();
    // The creation answers the job's head in the hosted shape; its simulations are read from it.
    assert!(job.simulation_jobs.is_empty());
    assert_eq!(job.simulation_job_count, Some(variants as u64 * 3), "endpoints × variants × iterations");
    let read = service.client.get_run_plan_job(job.simulation_run_plan_job_id).await.unwrap();
    assert_eq!(read.simulation_jobs.len(), variants * 3);
    assert_eq!(read.simulation_run_plan_id, Some(auto.run_plan.id));
    // The hosted interface sends each simulation's whole persona, traits included.
    assert!(read.simulation_jobs.iter().all(|s| s.persona.as_ref().is_some_and(|p| p.fields.age.is_some())));
}

#[tokio::test]
async fn run_plan_references_are_checked_by_path() {
    let service = start(true).await;
    let mut plan = dental_plan(None);
    plan.metrics = Some(vec![MetricReference::by_slug("call_duration"), MetricReference::by_slug("no_such_metric")]);
    let err = service.client.create_run_plan(&plan).await.unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("metrics[1].slug"));
    let mut plan = dental_plan(None);
    plan.agent_endpoints = Some(vec![IdRef { id: uuid::Uuid::new_v4() }]);
    assert_eq!(
        api_status(&service.client.create_run_plan(&plan).await.unwrap_err()).2.as_deref(),
        Some("agentEndpoints[0].id")
    );
    let mut plan = dental_plan(None);
    plan.flows.as_mut().unwrap()[0].edge_cases =
        Some(EdgeCases::List(vec![EdgeCaseSelection { id: Some(uuid::Uuid::new_v4()), ..Default::default() }]));
    assert_eq!(
        api_status(&service.client.create_run_plan(&plan).await.unwrap_err()).2.as_deref(),
        Some("flows[0].edgeCases[0].id")
    );
}

#[tokio::test]
async fn the_run_operation_starts_a_saved_or_inline_plan() {
    let service = start(true).await;
    let saved = service.client.create_run_plan(&dental_plan(None)).await.unwrap().run_plan;
    let started = service
        .client
        .run(&RunRequest {
            plan_id: Some(saved.id),
            variables: Some(RunVariables::Flat([("patientName".to_owned(), "Dana".to_owned())].into())),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(started.simulation_run_plan_id, Some(saved.id));
    assert!(started.simulation_job_count > 0);
    let inline = service
        .client
        .run(&RunRequest { plan: Some(dental_plan(None)), save_as_plan: Some(true), ..Default::default() })
        .await
        .unwrap();
    assert!(inline.saved_as_plan);
    let jobs: Vec<RunPlanJob> = service
        .client
        .list_all("/v1/simulation/plan/jobs", ListQuery::default().filter("planId", saved.id))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(jobs.len(), 1);
    let raw =
        service.client.list_page::<serde_json::Value>("/v1/simulation/plan/jobs", &ListQuery::default()).await.unwrap();
    assert!(
        raw.data.iter().all(|j| j.get("plan").is_none() && j.get("variables").is_none()),
        "engine members stay inside"
    );
    let collections = service
        .client
        .list_page::<serde_json::Value>("/v1/metric/collection-jobs", &ListQuery::default())
        .await
        .unwrap();
    assert!(collections.data.iter().all(|j| j.get("request").is_none()));
    let cancelled = service.client.cancel_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
    assert!(
        matches!(cancelled.status, Some(RunPlanJobStatus::Cancelling | RunPlanJobStatus::Cancelled)),
        "{:?}",
        cancelled.status
    );
    // The answer counts the simulations: none waits any longer, some were cancelled.
    let counts = cancelled.counts.clone().expect("the answer counts the simulations");
    assert!(!counts.by_status.contains_key("PENDING") && !counts.by_status.contains_key("QUEUED"), "{counts:?}");
    assert!(counts.by_status.get("CANCELLED").is_some_and(|n| *n > 0), "{counts:?}");
    let id = started.simulation_run_plan_job_id;
    let ended = support::eventually(std::time::Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        (job.status == Some(RunPlanJobStatus::Cancelled)).then_some(job)
    })
    .await;
    assert!(ended.ended_at.is_some());
}

#[tokio::test]
async fn calls_are_ingested_and_read_with_transcripts_and_metrics() {
    let service = start(true).await;
    let seeded_call = &seed("calls")[0];
    let id = id_of(seeded_call);
    let call = service.client.get_call(id).await.unwrap();
    assert_eq!(call.duration_ms, seeded_call["durationMs"].as_i64());
    let transcript = service.client.call_transcript(id).await.unwrap();
    assert_eq!(transcript.entries.len(), seeded_call["transcript"]["entries"].as_array().unwrap().len());
    let _ = service.client.call_metrics(id, ValueStatusFilter::All).await.unwrap();
    let input = CallInput {
        started_at: Some(Timestamp("2026-11-02T10:00:00Z".into())),
        transcript: Some(
            Transcript {
                entries: vec![TranscriptEntry {
                    start_offset_ms: 0,
                    end_offset_ms: 1200,
                    text: "Hello".into(),
                    role: Some(ParticipantType::Agent),
                    participant_id: Some("a".into()),
                }],
                participants: vec![Participant::new("a", ParticipantType::Agent)],
                transcription_source: None,
            }
            .into(),
        ),
        ..Default::default()
    };
    let created = service.client.create_call(&input).await.unwrap();
    assert_eq!(created.duration_ms, Some(1200));
    assert_eq!(service.client.call_transcript(created.id).await.unwrap().entries[0].text, "Hello");
}

#[tokio::test]
async fn calls_filter_by_agent_and_time_window() {
    let service = start(true).await;
    let calls = seed("calls");
    let calls = calls.as_array().unwrap();
    let agent = calls[0]["agentId"].as_str().unwrap();
    let expected = calls.iter().filter(|c| c["agentId"] == agent).count() + seeded_production_calls(agent);
    let listed: Vec<Call> =
        service.client.list_all("/v1/call", ListQuery::default().filter("agentId", agent)).try_collect().await.unwrap();
    assert_eq!(listed.len(), expected);
    assert!(listed.iter().all(|c| c.agent_id.map(|a| a.to_string()).as_deref() == Some(agent)));
    let mut starts: Vec<&str> = calls.iter().map(|c| c["startedAt"].as_str().unwrap()).collect();
    starts.sort();
    let (from, to) = (starts[5], starts[15]);
    let window: Vec<Call> = service
        .client
        .list_all("/v1/call", ListQuery::default().limit(3).filter("startedAfter", from).filter("startedBefore", to))
        .try_collect()
        .await
        .unwrap();
    let want = starts.iter().filter(|s| **s >= from && **s < to).count();
    assert_eq!(window.len(), want);
    let err = service
        .client
        .list_page::<Call>("/v1/call", &ListQuery::default().filter("startedAfter", "yesterday"))
        .await
        .unwrap_err();
    assert_eq!(api_status(&err).2.as_deref(), Some("startedAfter"));
}
