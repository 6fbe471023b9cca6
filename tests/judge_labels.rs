//! People's labels on judged values, against a real local service: labelling a value right or
//! wrong (again replaces), what cannot be labelled (no such value, a value the judge did not
//! give), and `switchboard judge agreement` per metric definition and version (a new judge
//! prompt starts a new row), with Cohen's κ.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::time::Duration;

use cli::*;
use support::{Service, eventually};
use switchboard::api::model::*;
use uuid::Uuid;

async fn judged_check(service: &Service) -> MetricDefinition {
    service
        .client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Agent says thanks".into()),
            metric_type: Some(MetricType::Boolean),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: Some("The agent thanks the caller for calling.".into()),
            ..Default::default()
        })
        .await
        .unwrap()
}

/// Runs a plan to its end; its simulations' calls.
async fn calls_of_a_run(service: &Service, plan: Uuid) -> Vec<Uuid> {
    let started = service.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.has_ended().then_some(job)
    })
    .await;
    job.simulation_jobs.iter().filter_map(|s| s.call_id).collect()
}

fn input(call: Uuid, metric: Uuid, label: AnnotationLabel) -> AnnotationInput {
    AnnotationInput {
        call_id: Some(call),
        metric_definition_id: Some(metric),
        label: Some(label),
        ..Default::default()
    }
}

async fn agreement(home: &std::path::Path, service: &Service, metric: &str) -> serde_json::Value {
    let output = run(against(home, service).args(["judge", "agreement", "--metric", metric, "--output", "json"])).await;
    assert_exit(&output, 0);
    json(&output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn labels_are_kept_per_value_and_agreement_is_counted_per_version() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let client = &service.client;
    let check = judged_check(&service).await;
    let plan = serde_json::from_value(serde_json::json!({
        "name": "Labelled",
        "direction": "INBOUND",
        "iterationCount": 3,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": RESCHEDULE_FLOW, "happyPath": true}],
        "agentEndpoints": [{"id": BRIGHTSMILE_ENDPOINT}],
        "metrics": [{"id": check.id}, {"slug": "call_duration"}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap();
    let plan = create_plan(client, &plan).await;
    let calls = calls_of_a_run(&service, plan).await;
    assert_eq!(calls.len(), 3);

    let none = run(against(home.path(), &service).args(["judge", "agreement", "--output", "table"])).await;
    assert_exit(&none, 4);
    assert!(stderr(&none).contains("no labelled values yet"), "{}", stderr(&none));

    // One label per value: a second label on the same value replaces the first.
    let first = client.annotate(&input(calls[0], check.id, AnnotationLabel::Wrong)).await.unwrap();
    assert_eq!(first.judge_value, Some(1.0), "the label keeps what the judge said");
    assert!(first.boolean);
    assert_eq!(first.version_id, check.version_id, "and which version said it");
    let again = client.annotate(&input(calls[0], check.id, AnnotationLabel::Right)).await.unwrap();
    assert_eq!((again.id, again.label.clone()), (first.id, AnnotationLabel::Right));
    for (call, word) in [(calls[1], "wrong"), (calls[2], "right")] {
        let output = run(against(home.path(), &service).args([
            "judge",
            "label",
            &call.to_string(),
            &check.id.to_string(),
            word,
            "--output",
            "table",
        ]))
        .await;
        assert_exit(&output, 0);
        assert!(stdout(&output).contains("the judge said yes"), "{}", stdout(&output));
    }

    // What is not a value the judge gave cannot be labelled.
    let err = client
        .annotate(&AnnotationInput { value_index: Some(3), ..input(calls[0], check.id, AnnotationLabel::Right) })
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert_eq!(err.api().unwrap().param.as_deref(), Some("valueIndex"));
    let err = client.annotate(&input(Uuid::new_v4(), check.id, AnnotationLabel::Right)).await.unwrap_err();
    assert_eq!(err.api().unwrap().param.as_deref(), Some("callId"));
    let unknown: AnnotationInput = serde_json::from_value(
        serde_json::json!({"callId": calls[0], "metricDefinitionId": check.id, "label": "RIGHT", "mood": 1}),
    )
    .unwrap();
    assert_eq!(client.annotate(&unknown).await.unwrap_err().status(), Some(400), "unknown members are refused");

    // Three labels, two right: the judge said yes each time, so κ is 0 (it agrees only as
    // often as a judge that always says yes would).
    let report = agreement(home.path(), &service, &check.id.to_string()).await;
    let rows = report["judges"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report:#}");
    assert_eq!((rows[0]["labelled"].as_u64(), rows[0]["agreed"].as_u64()), (Some(3), Some(2)));
    assert_eq!(rows[0]["kappa"], 0.0);
    assert_eq!(rows[0]["versionId"], serde_json::json!(check.version_id));

    // A new prompt is a new judge: its labels start a new row.
    let update = MetricDefinitionUpdate {
        llm_prompt: Some("The agent offers the caller a free helicopter ride.".into()),
        ..Default::default()
    };
    let bumped = client.update_metric_definition(&check.id.to_string(), &update).await.unwrap();
    let later = calls_of_a_run(&service, plan).await;
    let relabel = client.annotate(&input(later[0], check.id, AnnotationLabel::Right)).await.unwrap();
    assert_eq!(relabel.judge_value, Some(0.0), "the new judge says no");
    client.annotate(&input(later[1], check.id, AnnotationLabel::Wrong)).await.unwrap();
    let report = agreement(home.path(), &service, check.slug.as_deref().unwrap_or(&check.id.to_string())).await;
    let rows = report["judges"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{report:#}");
    assert_eq!(rows[1]["versionId"], serde_json::json!(bumped.version_id));
    assert_eq!((rows[1]["labelled"].as_u64(), rows[1]["agreed"].as_u64()), (Some(2), Some(1)));
    assert_eq!(rows[0]["labelled"], 3, "the old version's row is kept as it was");

    // The table says the same in words; labels on another metric are not counted here.
    let duration = client.get_metric_definition("call_duration").await.unwrap();
    let numeric = client.annotate(&input(calls[0], duration.id, AnnotationLabel::Right)).await.unwrap();
    assert!(!numeric.boolean && numeric.answers().is_none(), "a duration is not yes/no: {numeric:?}");
    let table = run(against(home.path(), &service).args(["judge", "agreement", "--output", "table"])).await;
    assert_exit(&table, 0);
    let text = stdout(&table);
    assert!(
        text.contains("Agent says thanks") && text.contains("66.7 % (2/3)") && text.contains("50 % (1/2)"),
        "{text}"
    );
    assert!(text.contains("— (not yes/no)"), "a duration has agreement but no κ: {text}");
    assert_eq!(agreement(home.path(), &service, &check.id.to_string()).await["judges"].as_array().unwrap().len(), 2);
}

/// The console's cache file of profile `local` for the service at `base`, as `switchboard`
/// run with `home` finds it.
async fn console_cache(home: &std::path::Path, base: &str) -> switchboard::cache::Cache {
    let paths = run(switchboard(home).args(["config", "path"])).await;
    assert_exit(&paths, 0);
    let text = stdout(&paths);
    let dir = text.lines().find_map(|l| l.strip_prefix("cache")).unwrap().trim().to_owned();
    let identity = switchboard::cache::Cache::service_identity(base);
    let (cache, warning) = switchboard::cache::Cache::load(std::path::Path::new(&dir), "local", &identity);
    assert!(warning.is_none(), "{warning:?}");
    cache
}

/// A label as the console keeps it where the service has no labels route: no version known.
fn kept_locally(call: Uuid, metric: Uuid, judge_said_yes: bool, label: AnnotationLabel) -> Annotation {
    Annotation {
        id: Uuid::new_v5(&call, format!("{metric}/0").as_bytes()),
        call_id: call,
        metric_definition_id: metric,
        value_index: 0,
        label,
        note: None,
        judge_value: Some(if judge_said_yes { 1.0 } else { 0.0 }),
        judge_label: None,
        boolean: true,
        version_id: None,
        version: None,
        created_at: None,
        updated_at: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agreement_counts_the_console_cache_labels_and_says_which_they_are() {
    let service = support::start(true).await;
    let client = &service.client;
    let check = judged_check(&service).await;
    let plan = serde_json::from_value(serde_json::json!({
        "name": "Cached labels",
        "direction": "INBOUND",
        "iterationCount": 3,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": RESCHEDULE_FLOW, "happyPath": true}],
        "agentEndpoints": [{"id": BRIGHTSMILE_ENDPOINT}],
        "metrics": [{"id": check.id}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap();
    let plan = create_plan(client, &plan).await;
    let calls = calls_of_a_run(&service, plan).await;
    assert_eq!(calls.len(), 3);
    let metric = check.id.to_string();

    // Against a service without the labels route: only the console's cache has labels, and
    // agreement is counted from them (two right, one wrong), said to be the cache's.
    let hosted = support::proxy::without(&service.base_url(), |path| path.starts_with("/v1/metric/annotations")).await;
    let home = tempfile::tempdir().unwrap();
    let mut cache = console_cache(home.path(), &hosted).await;
    let labels = vec![
        kept_locally(calls[0], check.id, true, AnnotationLabel::Right),
        kept_locally(calls[1], check.id, true, AnnotationLabel::Right),
        kept_locally(calls[2], check.id, true, AnnotationLabel::Wrong),
    ];
    cache.set_mark(switchboard::compare::agreement::LOCAL_LABELS, &labels);
    cache.save().unwrap();
    let with_key =
        |command: &mut tokio::process::Command, base: &str| {
            command
                .env("SWITCHBOARD_BASE_URL", base)
                .env("SWITCHBOARD_API_KEY", service.running.api_key.expose())
                .args(["judge", "agreement", "--metric", &metric]);
        };
    let mut command = switchboard(home.path());
    with_key(&mut command, &hosted);
    let output = run(command.args(["--output", "json"])).await;
    assert_exit(&output, 0);
    let report = json(&output);
    assert_eq!(report["serviceLabels"], false);
    assert_eq!(report["localCache"]["labels"], 3, "{report:#}");
    assert!(report["localCache"]["path"].as_str().unwrap().contains(home.path().to_str().unwrap()));
    let rows = report["judges"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report:#}");
    assert_eq!((rows[0]["labelled"].as_u64(), rows[0]["agreed"].as_u64()), (Some(3), Some(2)));
    assert_eq!(rows[0]["localLabels"], 3);
    let mut command = switchboard(home.path());
    with_key(&mut command, &hosted);
    let table = run(command.args(["--output", "table"])).await;
    assert_exit(&table, 0);
    let text = stdout(&table);
    assert!(text.contains("3 (3 local)") && text.contains("66.7 % (2/3)"), "{text}");
    assert!(text.contains("came from the console's local cache") && text.contains("keeps no labels"), "{text}");

    // Against the service itself, which has the route: its label on a value wins over the
    // cache's on the same value, and the cache's other labels still count.
    let mut cache = console_cache(home.path(), &service.base_url()).await;
    cache.set_mark(switchboard::compare::agreement::LOCAL_LABELS, &labels);
    cache.save().unwrap();
    client.annotate(&input(calls[2], check.id, AnnotationLabel::Right)).await.unwrap();
    let report = agreement(home.path(), &service, &metric).await;
    assert_eq!(report["serviceLabels"], true);
    let rows = report["judges"].as_array().unwrap();
    let labelled: u64 = rows.iter().map(|r| r["labelled"].as_u64().unwrap()).sum();
    let local: u64 = rows.iter().map(|r| r["localLabels"].as_u64().unwrap()).sum();
    let agreed: u64 = rows.iter().map(|r| r["agreed"].as_u64().unwrap()).sum();
    assert_eq!((labelled, local, agreed), (3, 2, 3), "the service's right replaces the cache's wrong: {report:#}");
    assert_eq!(report["localCache"]["labels"], 2);

    // No cache and no route: said in words, not an empty table.
    let bare = tempfile::tempdir().unwrap();
    let mut command = switchboard(bare.path());
    with_key(&mut command, &hosted);
    let output = run(&mut command).await;
    assert_ne!(output.status.code(), Some(0));
    assert!(stderr(&output).contains("keeps no labels"), "{}", stderr(&output));
}

/// A judged metric the offline judge abstains on ("the parcel was delivered": no dental call
/// speaks of delivering anything) has no value to label; `judge agreement` counts no
/// judgement for it, and says how many such values the labelled calls hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_the_judge_abstained_on_are_no_judgements_and_are_counted_apart() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let client = &service.client;
    let check = judged_check(&service).await;
    let abstained = client
        .create_metric_definition(&MetricDefinitionInput {
            name: Some("Parcel delivered".into()),
            metric_type: Some(MetricType::Boolean),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: Some("The parcel was delivered to the caller's door.".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let plan = serde_json::from_value(serde_json::json!({
        "name": "Abstained",
        "direction": "INBOUND",
        "iterationCount": 2,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": RESCHEDULE_FLOW, "happyPath": true}],
        "agentEndpoints": [{"id": BRIGHTSMILE_ENDPOINT}],
        "metrics": [{"id": check.id}, {"id": abstained.id}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap();
    let plan = create_plan(client, &plan).await;
    let calls = calls_of_a_run(&service, plan).await;
    assert_eq!(calls.len(), 2);

    // The abstained value is not a judgement: it cannot be labelled right or wrong.
    let err = client.annotate(&input(calls[0], abstained.id, AnnotationLabel::Wrong)).await.unwrap_err();
    assert_eq!(err.status(), Some(400));
    let api = err.api().unwrap();
    assert_eq!(api.param.as_deref(), Some("valueIndex"));
    assert!(api.message.contains("DATA_MISSING"), "{}", api.message);
    for call in &calls {
        client.annotate(&input(*call, check.id, AnnotationLabel::Right)).await.unwrap();
    }

    let output = run(against(home.path(), &service).args(["judge", "agreement", "--output", "json"])).await;
    assert_exit(&output, 0);
    let report = json(&output);
    let rows = report["judges"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "only the judged values are rows: {report:#}");
    assert_eq!((rows[0]["name"].as_str(), rows[0]["labelled"].as_u64()), (Some("Agent says thanks"), Some(2)));
    assert_eq!(
        report["withoutJudgement"],
        serde_json::json!([{"metricDefinitionId": abstained.id, "name": "Parcel delivered", "values": 2}]),
        "{report:#}"
    );
    let table = run(against(home.path(), &service).args(["judge", "agreement", "--output", "table"])).await;
    assert_exit(&table, 0);
    let text = stdout(&table);
    assert!(text.contains("100 % (2/2)"), "{text}");
    assert!(text.contains("Parcel delivered: 2 value(s) on the labelled calls have no judgement"), "{text}");
    // Asked about one metric, the report counts only that metric's.
    let only = agreement(home.path(), &service, &check.id.to_string()).await;
    assert_eq!(only["withoutJudgement"], serde_json::json!([]), "{only:#}");
}
