//! Collection jobs run on the local service: values are computed, counted and kept per job.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use support::{eventually, id_of, seed, seeded, seeded_production_calls, start};
use switchboard::api::Client;
use switchboard::api::model::*;

async fn finished(client: &Client, id: uuid::Uuid) -> CollectionJob {
    eventually(Duration::from_secs(30), || async {
        let job = client.get_collection_job(id).await.unwrap();
        job.status.as_ref().is_some_and(CollectionJobStatus::is_terminal).then_some(job)
    })
    .await
}

#[tokio::test]
async fn a_job_computes_every_metric_for_every_call_and_keeps_its_own_values() {
    let service = start(true).await;
    let client = &service.client;
    let calls: Vec<uuid::Uuid> = seeded("calls", |c| c["transcript"]["entries"].as_array().unwrap().len() > 4)
        .iter()
        .take(3)
        .map(id_of)
        .collect();
    let slow = client
        .create_threshold(
            "agent_response_latency",
            &ThresholdInput {
                name: Some("Any slow reply".into()),
                operator: Some(ThresholdOperator::GreaterThan),
                value: Some("1000".into()),
                aggregation_mode: Some(AggregationMode::Max),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let custom = seeded("metric_definitions", |d| d["source"] == "CUSTOM" && d["type"] == "BOOLEAN").remove(0);
    let slugs = ["call_duration", "agent_response_latency", "task_completion"];
    let mut metrics: Vec<IdRef> = Vec::new();
    for slug in slugs {
        metrics.push(IdRef { id: client.get_metric_definition(slug).await.unwrap().id });
    }
    metrics.push(IdRef { id: id_of(&custom) });
    metrics.push(IdRef { id: slow.id });
    let input =
        CollectionJobInput { metrics: Some(metrics.clone()), call_ids: Some(calls.clone()), ..Default::default() };
    let job = client.create_collection_job(&input).await.unwrap();
    assert_eq!(job.status, Some(CollectionJobStatus::Pending));
    let done = finished(client, job.id).await;
    assert_eq!(done.status, Some(CollectionJobStatus::Completed), "{:?}", done.error_message);
    assert_eq!(done.total_items, Some(3));
    assert_eq!(done.completed_items.unwrap() + done.failed_items.unwrap(), 3);
    assert!(done.started_at.is_some() && done.completed_at.is_some());

    let groups = client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap();
    assert_eq!(groups.len(), metrics.len(), "one group per metric");
    for group in &groups {
        let per_call: std::collections::HashSet<_> = group.values.iter().filter_map(|v| v.call_id).collect();
        assert_eq!(per_call.len(), 3, "{:?} has a row for every call", group.slug);
        for value in &group.values {
            assert!(value.capture_status.is_some() && value.computed_at.is_some());
            let success = value.capture_status == Some(CaptureStatus::Success);
            assert_eq!(value.value.is_some(), success);
        }
    }
    let judged = groups.iter().find(|g| g.slug.as_deref() == Some("task_completion")).unwrap();
    // The offline judge says in plain words what decided, quoting the line and its time.
    assert!(judged.values.iter().all(|v| {
        v.value_reasoning
            .as_deref()
            .is_some_and(|r| (r.starts_with("Met:") || r.starts_with("Not met:")) && r.contains("\" at "))
    }));
    let threshold = groups.iter().find(|g| g.metric_definition_id == slow.id).unwrap();
    assert!(threshold.values.iter().all(|v| matches!(v.value, Some(x) if x == 0.0 || x == 1.0)));
    assert!(threshold.values[0].value_reasoning.as_deref().unwrap().contains("MAX"));

    // The call's own metrics now show this job's values as the latest.
    let latest = client.call_metrics(calls[0], ValueStatusFilter::All).await.unwrap();
    let duration = latest.iter().find(|g| g.slug.as_deref() == Some("call_duration")).unwrap();
    let newest = duration.values.iter().filter_map(|v| v.computed_at.clone()).max().unwrap();
    let ours = groups.iter().find(|g| g.slug.as_deref() == Some("call_duration")).unwrap();
    assert!(ours.values.iter().any(|v| v.computed_at.as_ref() == Some(&newest)));

    // The seeded jobs still answer exactly their own values.
    let seeded_job = &seed("metric_collection_jobs")[0];
    let seeded_rows: usize =
        seeded_job["values"].as_array().unwrap().iter().map(|g| g["values"].as_array().unwrap().len()).sum();
    let still = client.collection_job_values(id_of(seeded_job), ValueStatusFilter::All).await.unwrap();
    assert_eq!(still.iter().map(|g| g.values.len()).sum::<usize>(), seeded_rows);
}

#[tokio::test]
async fn a_policy_job_covers_the_calls_its_conditions_select() {
    let service = start(true).await;
    let policy = seeded("metric_policies", |p| p["status"] == "ACTIVE").remove(0);
    let agent = policy["conditions"][0]["conditions"][0]["conditionValue"].as_str().unwrap().to_owned();
    let expected = (seeded("calls", |c| c["agentId"] == agent.as_str()).len() + seeded_production_calls(&agent)) as u64;
    let job = service
        .client
        .create_collection_job(&CollectionJobInput { policy_ids: Some(vec![id_of(&policy)]), ..Default::default() })
        .await
        .unwrap();
    let done = finished(&service.client, job.id).await;
    assert_eq!(done.total_items, Some(expected));
    assert_eq!(done.policy_ids, vec![id_of(&policy)]);
    let groups = service.client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap();
    assert_eq!(groups.len(), policy["metrics"].as_array().unwrap().len());
    assert!(groups.iter().flat_map(|g| &g.values).all(|v| v.policy_ids == vec![id_of(&policy)]));
}

#[tokio::test]
async fn derived_metrics_compute_from_their_sources() {
    let service = start(true).await;
    let client = &service.client;
    let agent_turns = client.get_metric_definition("agent_turn_count").await.unwrap();
    let customer_turns = client.get_metric_definition("customer_turn_count").await.unwrap();
    let ratio = client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Agent share of turns".into()),
            metric_type: Some(MetricType::Numeric),
            calculation_type: Some(CalculationType::Formula),
            formula: Some("agent_turn_count / (agent_turn_count + customer_turn_count)".into()),
            sources: Some(vec![
                MetricSourceRef { source_metric_definition_id: Some(agent_turns.id), source_variant_id: None },
                MetricSourceRef { source_metric_definition_id: Some(customer_turns.id), source_variant_id: None },
            ]),
            ..Default::default()
        })
        .await
        .unwrap();
    let call = seeded("calls", |c| c["transcript"]["entries"].as_array().unwrap().len() > 4).remove(0);
    let entries = call["transcript"]["entries"].as_array().unwrap();
    let agents = entries.iter().filter(|e| e["role"] == "AGENT").count() as f64;
    let customers = entries.iter().filter(|e| e["role"] == "CUSTOMER").count() as f64;
    let job = client
        .create_collection_job(&CollectionJobInput {
            metrics: Some(vec![IdRef { id: ratio.id }]),
            call_ids: Some(vec![id_of(&call)]),
            ..Default::default()
        })
        .await
        .unwrap();
    finished(client, job.id).await;
    let groups = client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap();
    let value = &groups[0].values[0];
    assert_eq!(value.capture_status, Some(CaptureStatus::Success), "{:?}", value.error_message);
    assert!((value.value.unwrap() - agents / (agents + customers)).abs() < 1e-9);
    assert!(value.value_reasoning.as_deref().unwrap().contains("agent_turn_count ="));
    // Derived metrics take only a new name.
    let err = client
        .update_metric_definition(
            &ratio.id.to_string(),
            &MetricDefinitionUpdate { formula: Some("1".into()), ..Default::default() },
        )
        .await
        .unwrap_err();
    assert_eq!(err.api().unwrap().param.as_deref(), Some("formula"));
}

#[tokio::test]
async fn chats_are_ingested_read_and_scored_like_calls() {
    let service = start(true).await;
    let client = &service.client;
    let entry = |start: i64, text: &str, role: ParticipantType| TranscriptEntry {
        start_offset_ms: start,
        end_offset_ms: start + 1000,
        text: text.into(),
        role: Some(role),
        participant_id: None,
    };
    let chat = client
        .create_chat(&CallInput {
            started_at: Some(Timestamp::now()),
            transcript: Some(
                Transcript {
                    entries: vec![
                        entry(0, "Hi, can I move my cleaning?", ParticipantType::Customer),
                        entry(2000, "Of course, it's moved to Tuesday.", ParticipantType::Agent),
                    ],
                    participants: Vec::new(),
                    transcription_source: None,
                }
                .into(),
            ),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(client.get_chat(chat.id).await.unwrap().id, chat.id);
    assert_eq!(client.chat_transcript(chat.id).await.unwrap().entries.len(), 2);
    let turns = client.get_metric_definition("agent_turn_count").await.unwrap();
    let job = client
        .create_collection_job(&CollectionJobInput {
            metrics: Some(vec![IdRef { id: turns.id }]),
            chat_ids: Some(vec![chat.id]),
            ..Default::default()
        })
        .await
        .unwrap();
    let done = finished(client, job.id).await;
    assert_eq!((done.status, done.total_items), (Some(CollectionJobStatus::Completed), Some(1)));
    let values = client.chat_metrics(chat.id, ValueStatusFilter::All).await.unwrap();
    let value = &values[0].values[0];
    assert_eq!((value.chat_id, value.call_id, value.value), (Some(chat.id), None, Some(1.0)));
}

/// An OpenAI-compatible judge that answers only once `gate` has permits: while it is closed,
/// a collection job that needs the judge cannot finish.
async fn gated_judge(gate: std::sync::Arc<tokio::sync::Semaphore>) -> String {
    use axum::routing::post;
    let reply = serde_json::json!({"choices": [{"message": {"role": "assistant",
        "content": serde_json::json!({"value": 1, "label": null, "reasoning": "met", "confidence": 0.9}).to_string()}}]});
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let (gate, reply) = (gate.clone(), reply.clone());
            async move {
                gate.acquire().await.unwrap().forget();
                axum::Json(reply)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test]
async fn a_waiting_job_is_canceled_at_once_and_stays_canceled() {
    // The first job waits on a judge that does not answer, so the second is certainly still
    // waiting behind it (the runner takes jobs oldest first) when it is cancelled.
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let judge = switchboard::service::metrics::judge::JudgeConfig {
        base_url: gated_judge(gate.clone()).await,
        model: "gated".into(),
        api_key_env: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { judge: Some(judge), ..support::options(dir.path(), true) };
    let service = support::start_with(options, dir).await;
    let client = &service.client;
    let calls: Vec<uuid::Uuid> = seed("calls").as_array().unwrap().iter().map(id_of).collect();
    let judged = client.get_metric_definition("task_completion").await.unwrap();
    let input = CollectionJobInput {
        metrics: Some(vec![IdRef { id: judged.id }]),
        call_ids: Some(calls.clone()),
        ..Default::default()
    };
    let busy = client.create_collection_job(&input).await.unwrap();
    let job = client.create_collection_job(&input).await.unwrap();
    let cancelled = client.cancel_collection_job(job.id).await.unwrap();
    assert_eq!(cancelled.status, Some(CollectionJobStatus::Canceled), "a waiting job is canceled at once");
    let after = finished(client, job.id).await;
    assert_eq!(after.status, Some(CollectionJobStatus::Canceled));
    assert_eq!(after.completed_items.unwrap_or(0) + after.failed_items.unwrap_or(0), 0, "it computed nothing");
    let values = client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap();
    assert!(values.iter().all(|g| g.values.is_empty()), "no values: {values:?}");

    // The runner moves on: the first job completes once the judge answers, and the
    // canceled one stays as it was.
    gate.add_permits(10_000);
    let first = finished(client, busy.id).await;
    assert_eq!(first.status, Some(CollectionJobStatus::Completed));
    let later = client.get_collection_job(job.id).await.unwrap();
    assert_eq!(later.status, Some(CollectionJobStatus::Canceled), "a canceled job stays canceled");
    assert_eq!(later.completed_at, after.completed_at);
    let err = client.cancel_collection_job(job.id).await.unwrap_err();
    assert_eq!(err.status(), Some(400), "an ended job cannot be cancelled again");
}

/// A job running when its service stops starts over on the next start (on SQLite at once, on
/// PostgreSQL once the stopped one's lease runs out): the values of its first run are
/// forgotten, so it ends with exactly one value per metric per call.
#[tokio::test]
async fn a_job_interrupted_by_a_stop_starts_over_and_keeps_only_its_last_run() {
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(2));
    let judge = switchboard::service::metrics::judge::JudgeConfig {
        base_url: gated_judge(gate.clone()).await,
        model: "gated".into(),
        api_key_env: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let lease = Duration::from_secs(1);
    let options = switchboard::service::Options { judge: Some(judge.clone()), lease, ..support::options(&path, true) };
    let service = support::start_with(options, dir).await;
    let calls: Vec<uuid::Uuid> = seed("calls").as_array().unwrap().iter().take(5).map(id_of).collect();
    let judged = service.client.get_metric_definition("task_completion").await.unwrap();
    let input = CollectionJobInput {
        metrics: Some(vec![IdRef { id: judged.id }]),
        call_ids: Some(calls.clone()),
        ..Default::default()
    };
    let job = service.client.create_collection_job(&input).await.unwrap();
    // Two calls judged, the third waiting on the closed judge: mid-run.
    eventually(Duration::from_secs(30), || async {
        let job = service.client.get_collection_job(job.id).await.unwrap();
        (job.completed_items.unwrap_or(0) + job.failed_items.unwrap_or(0) == 2).then_some(())
    })
    .await;
    let support::Service { running, dir, .. } = service;
    running.shutdown().await.unwrap();

    gate.add_permits(10_000);
    let options = switchboard::service::Options { judge: Some(judge), lease, ..support::options(&path, true) };
    let again = support::start_with(options, dir).await;
    let done = eventually(Duration::from_secs(60), || async {
        let job = again.client.get_collection_job(job.id).await.unwrap();
        job.status.as_ref().is_some_and(CollectionJobStatus::is_terminal).then_some(job)
    })
    .await;
    assert_eq!(done.status, Some(CollectionJobStatus::Completed), "{:?}", done.error_message);
    assert_eq!((done.total_items, done.completed_items.unwrap_or(0) + done.failed_items.unwrap_or(0)), (Some(5), 5));
    let values = again.client.collection_job_values(job.id, ValueStatusFilter::All).await.unwrap();
    let mut scored: Vec<_> = values.iter().flat_map(|g| g.values.iter().filter_map(|v| v.call_id)).collect();
    scored.sort();
    let mut expected = calls.clone();
    expected.sort();
    assert_eq!(scored, expected, "one value per call, none left from the interrupted run");
}
