//! The routes that change and delete what the catalogue holds: run plans (update, delete, and
//! the refusal to delete one a job still runs), agents, HTTP request definitions, metric
//! policies, metric variants, and knowledge bases made from text or a file.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, dental, eventually, id_of, raw, seeded, start};

/// A request with the service's key: its status and body.
async fn call(service: &Service, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), body).await;
    (status, value)
}

/// The `param` of an error body, and its code.
fn refusal(body: &Value) -> (String, String) {
    (body["param"].as_str().unwrap_or_default().to_owned(), body["code"].as_str().unwrap_or_default().to_owned())
}

/// Whether a 400's violations name `param`.
fn names(body: &Value, param: &str) -> bool {
    body["param"] == param
        || body["details"]["violations"].as_array().is_some_and(|v| v.iter().any(|v| v["param"] == param))
}

fn plan_body(name: &str, iterations: i64) -> Value {
    let (flow, endpoint) = dental();
    json!({
        "name": name,
        "direction": "INBOUND",
        "iterationCount": iterations,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": flow["id"], "happyPath": true}],
        "agentEndpoints": [{"id": endpoint["id"]}],
        "metrics": [{"slug": "call_duration"}],
    })
}

async fn create_plan(service: &Service, body: Value) -> String {
    let (status, created) = call(service, Method::POST, "/v1/simulation/plan", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created["data"]["runPlan"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_plan_is_updated_in_part_and_checked_as_a_new_one() {
    let service = start(true).await;
    let id = create_plan(&service, plan_body("Before", 2)).await;
    let path = format!("/v1/simulation/plan/{id}");
    let (status, updated) = call(
        &service,
        Method::PUT,
        &path,
        Some(json!({"name": "After", "description": "edited", "comparisonProperty": null})),
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    let plan = &updated["data"];
    assert_eq!((plan["id"].as_str(), plan["name"].as_str()), (Some(id.as_str()), Some("After")));
    assert_eq!(plan["iterationCount"], 2, "members not given stay");
    assert!(plan["nextRunAt"].is_null());
    let (_, read) = call(&service, Method::GET, &path, None).await;
    assert_eq!(read["data"], *plan);

    // Each broken rule is named by its member.
    for (body, param) in [
        (json!({"iterationCount": 0}), "iterationCount"),
        (json!({"metrics": []}), "metrics"),
        (json!({"flows": [{"id": uuid::Uuid::new_v4(), "happyPath": true}]}), "flows[0].id"),
        (json!({"flows": []}), "flows"),
        (json!({"comparisonProperty": "ACCENT"}), "comparisonProperty"),
        (json!({"isHidden": true}), "isHidden"),
        (json!({"autoRun": true}), "autoRun"),
        (json!({"schedule": {"type": "daily"}}), "schedule.time"),
    ] {
        let (status, refused) = call(&service, Method::PUT, &path, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(names(&refused, param), "{body} should name {param}: {refused}");
    }
    let (_, unchanged) = call(&service, Method::GET, &path, None).await;
    assert_eq!(unchanged["data"], *plan, "a refused update writes nothing");
    let missing = format!("/v1/simulation/plan/{}", uuid::Uuid::new_v4());
    assert_eq!(call(&service, Method::PUT, &missing, Some(json!({"name": "x"}))).await.0, 404);

    // A schedule shows the next run; null takes it off.
    let schedule = json!({"type": "daily", "time": "09:00", "timezone": "Europe/Berlin"});
    let (status, scheduled) = call(&service, Method::PUT, &path, Some(json!({"schedule": schedule}))).await;
    assert_eq!(status, 200, "{scheduled}");
    assert_eq!(scheduled["data"]["schedule"], schedule);
    let next: jiff::Timestamp = scheduled["data"]["nextRunAt"].as_str().unwrap().parse().unwrap();
    let local = next.to_zoned(jiff::tz::TimeZone::get("Europe/Berlin").unwrap());
    assert_eq!((local.hour(), local.minute()), (9, 0));
    assert!(next > jiff::Timestamp::now());
    let (_, off) = call(&service, Method::PUT, &path, Some(json!({"schedule": null}))).await;
    assert!(off["data"]["nextRunAt"].is_null() && off["data"].get("schedule").is_none(), "{off}");
}

#[tokio::test]
async fn a_plan_a_job_still_runs_is_not_deleted() {
    let service = start(true).await;
    let id = create_plan(&service, plan_body("Busy", 200)).await;
    let (status, started) = call(&service, Method::POST, "/v1/simulation/run", Some(json!({"planId": id}))).await;
    assert_eq!(status, 201, "{started}");
    let job = started["data"]["simulationRunPlanJobId"].as_str().unwrap().to_owned();
    let path = format!("/v1/simulation/plan/{id}");
    let (status, refused) = call(&service, Method::DELETE, &path, None).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refusal(&refused), ("planId".into(), "plan_in_use".into()));
    assert_eq!(refused["type"], "conflict");
    assert!(refused["message"].as_str().unwrap().contains(&job), "the refusal names the job: {refused}");
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 200, "nothing was deleted");

    call(&service, Method::POST, &format!("/v1/simulation/plan/job/{job}/cancel"), None).await;
    let deleted = eventually(Duration::from_secs(30), || async {
        let (status, body) = call(&service, Method::DELETE, &path, None).await;
        (status == 200).then_some(body)
    })
    .await;
    assert_eq!(deleted["data"], json!({"id": id, "deleted": true}));
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 404);
    assert_eq!(call(&service, Method::DELETE, &path, None).await.0, 404);
    let (_, list) = call(&service, Method::GET, "/v1/simulation/plan?limit=50", None).await;
    assert!(list["data"].as_array().unwrap().iter().all(|p| p["id"] != id.as_str()));
    // Its jobs are kept.
    assert_eq!(call(&service, Method::GET, &format!("/v1/simulation/plan/job/{job}"), None).await.0, 200);
}

#[tokio::test]
async fn an_agent_changes_its_name_and_description() {
    let service = start(true).await;
    let agent = seeded("agents", |_| true).remove(0);
    let path = format!("/v1/agent/{}", agent["id"].as_str().unwrap());
    let (status, updated) = call(&service, Method::PUT, &path, Some(json!({"name": "Renamed desk"}))).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["data"]["name"], "Renamed desk");
    assert_eq!(updated["data"]["description"], agent["description"], "members not given stay");
    assert_eq!(updated["data"]["customId"], agent["customId"]);
    let (_, cleared) = call(&service, Method::PUT, &path, Some(json!({"description": null}))).await;
    assert!(cleared["data"]["description"].is_null());
    assert_eq!(call(&service, Method::GET, &path, None).await.1["data"], cleared["data"]);
    for (body, param) in [(json!({"name": ""}), "name"), (json!({"customId": "x"}), "customId")] {
        let (status, refused) = call(&service, Method::PUT, &path, Some(body)).await;
        assert_eq!(status, 400);
        assert!(names(&refused, param), "{refused}");
    }
    let missing = format!("/v1/agent/{}", uuid::Uuid::new_v4());
    assert_eq!(call(&service, Method::PUT, &missing, Some(json!({"name": "x"}))).await.0, 404);
}

#[tokio::test]
async fn an_http_request_definition_is_updated() {
    let service = start(true).await;
    let definition = seeded("http_request_definitions", |_| true).remove(0);
    let path = format!("/v1/http-request-definition/{}", definition["id"].as_str().unwrap());
    let body = json!({"url": "https://agent.example.com/v2/turn", "method": "PUT", "body": {"say": "{{text}}"}});
    let (status, updated) = call(&service, Method::PUT, &path, Some(body)).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["data"]["url"], "https://agent.example.com/v2/turn");
    assert_eq!(updated["data"]["parsedBody"], json!({"say": "{{text}}"}));
    let (status, refused) = call(&service, Method::PUT, &path, Some(json!({"method": "TRACE"}))).await;
    assert_eq!(status, 400);
    assert!(names(&refused, "method"), "{refused}");
    let missing = format!("/v1/http-request-definition/{}", uuid::Uuid::new_v4());
    assert_eq!(call(&service, Method::PUT, &missing, Some(json!({"url": "https://a.example"}))).await.0, 404);
}

#[tokio::test]
async fn a_users_policy_is_deleted_and_a_system_one_is_not() {
    let service = start(true).await;
    let metric = seeded("metric_definitions", |d| d["slug"] == "call_duration").remove(0);
    let body = json!({"name": "Short-lived", "modality": "call", "metrics": [{"id": metric["id"]}]});
    let (_, created) = call(&service, Method::POST, "/v1/metric/policies", Some(body)).await;
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/metric/policies/{id}");
    let (status, deleted) = call(&service, Method::DELETE, &path, None).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["data"], json!({"id": id, "deleted": true}));
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 404);
    assert_eq!(call(&service, Method::DELETE, &path, None).await.0, 404);

    let system = seeded("metric_policies", |p| p["type"] == "SYSTEM").remove(0);
    let path = format!("/v1/metric/policies/{}", system["id"].as_str().unwrap());
    let (status, refused) = call(&service, Method::DELETE, &path, None).await;
    assert_eq!(status, 400);
    assert_eq!(refusal(&refused).0, "policyId");
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 200);
}

#[tokio::test]
async fn a_metrics_variants_are_made_listed_renamed_and_deleted() {
    let service = start(true).await;
    let base = "/v1/metric/definitions/task_completion/variants";
    let (status, listed) = call(&service, Method::GET, base, None).await;
    assert_eq!(status, 200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "the Default alone: {listed}");
    assert_eq!(
        (listed["data"][0]["name"].as_str(), listed["data"][0]["isDefault"].as_bool()),
        (Some("Default"), Some(true))
    );

    let (status, created) = call(&service, Method::POST, base, Some(json!({"name": "Strict"}))).await;
    assert_eq!(status, 201, "{created}");
    let variant = created["data"].clone();
    assert_eq!((variant["isDefault"].as_bool(), variant["isSystem"].as_bool()), (Some(false), Some(false)));
    assert!(variant["versionId"].is_string());
    let id = variant["id"].as_str().unwrap().to_owned();
    for (body, param) in
        [(json!({"name": "Strict"}), "name"), (json!({"name": "default"}), "name"), (json!({}), "name")]
    {
        let (status, refused) = call(&service, Method::POST, base, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(names(&refused, param), "{refused}");
    }
    let unknown = "/v1/metric/definitions/no_such_metric/variants";
    assert_eq!(call(&service, Method::POST, unknown, Some(json!({"name": "x"}))).await.0, 404);

    // A rename keeps the configuration and its version; an edit makes a new one.
    let one = format!("{base}/{id}");
    let (status, renamed) = call(&service, Method::PUT, &one, Some(json!({"name": "Stricter"}))).await;
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(
        (renamed["data"]["name"].as_str(), &renamed["data"]["versionId"]),
        (Some("Stricter"), &variant["versionId"])
    );
    let (_, edited) =
        call(&service, Method::PUT, &one, Some(json!({"llmPrompt": "Was the task done, strictly?"}))).await;
    assert_ne!(edited["data"]["versionId"], variant["versionId"]);
    assert_eq!(call(&service, Method::GET, &format!("{base}/Stricter"), None).await.1["data"]["id"], id.as_str());
    let (_, listed) = call(&service, Method::GET, base, None).await;
    let names_listed: Vec<&str> =
        listed["data"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names_listed, ["Default", "Stricter"]);

    // The service's Default is neither edited nor deleted; a threshold metric has no variants.
    let (status, refused) =
        call(&service, Method::PUT, &format!("{base}/default"), Some(json!({"llmPrompt": "x"}))).await;
    assert_eq!((status, refusal(&refused).0.as_str()), (400, "variantId"));
    let (status, refused) = call(&service, Method::DELETE, &format!("{base}/default"), None).await;
    assert_eq!((status, refusal(&refused).0.as_str()), (400, "variantId"));
    let threshold = json!({"name": "Long call", "operator": "GREATER_THAN", "value": "60"});
    let (_, made) =
        call(&service, Method::POST, "/v1/metric/definitions/call_duration/thresholds", Some(threshold)).await;
    let slug = made["data"]["slug"].as_str().unwrap();
    let (status, refused) =
        call(&service, Method::POST, &format!("/v1/metric/definitions/{slug}/variants"), Some(json!({"name": "x"})))
            .await;
    assert_eq!((status, refusal(&refused).0.as_str()), (400, "idOrSlug"));

    let (status, deleted) = call(&service, Method::DELETE, &one, None).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["data"], json!({"id": id, "deleted": true}));
    assert_eq!(call(&service, Method::GET, &one, None).await.0, 404);
    assert_eq!(call(&service, Method::DELETE, &one, None).await.0, 404);
    assert_eq!(call(&service, Method::GET, base, None).await.1["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn knowledge_bases_are_made_from_text_or_a_file_and_never_show_it() {
    use base64::Engine;
    let service = start(true).await;
    let text = "Refunds: a cancelled flight is refunded in full within seven days, on request.";
    let (status, made) =
        call(&service, Method::POST, "/v1/knowledge-base", Some(json!({"name": "Refunds", "content": text}))).await;
    assert_eq!(status, 201, "{made}");
    let base = &made["data"];
    assert_eq!((base["sourceType"].as_str(), base["status"].as_str()), (Some("TEXT"), Some("READY")));
    assert_eq!(base["byteSize"], text.len());
    let file_text = "# Hours\nOpen 8 to 6, Monday to Friday.\n";
    let file = json!({
        "filename": "hours.md",
        "mimeType": "text/markdown",
        "data": base64::engine::general_purpose::STANDARD.encode(file_text),
    });
    let (status, uploaded) =
        call(&service, Method::POST, "/v1/knowledge-base", Some(json!({"name": "Hours", "file": file}))).await;
    assert_eq!(status, 201, "{uploaded}");
    assert_eq!(uploaded["data"]["sourceType"], "FILE");
    assert_eq!(uploaded["data"]["originalFilename"], "hours.md");
    assert_eq!(uploaded["data"]["byteSize"], file_text.len());

    let mut seen = made.to_string() + &uploaded.to_string();
    for id in [base["id"].as_str().unwrap(), uploaded["data"]["id"].as_str().unwrap()] {
        let (status, read) = call(&service, Method::GET, &format!("/v1/knowledge-base/{id}"), None).await;
        assert_eq!(status, 200);
        seen += &read.to_string();
    }
    seen += &call(&service, Method::GET, "/v1/knowledge-base?limit=50", None).await.1.to_string();
    assert!(!seen.contains("seven days") && !seen.contains("Monday to Friday"), "content leaked");

    for (body, param) in [
        (json!({"name": "Neither"}), "content"),
        (json!({"name": "Both", "content": "a", "file": file}), "file"),
        (json!({"content": "a"}), "name"),
        (json!({"name": "Blank", "content": "  "}), "content"),
        (
            json!({"name": "Pdf", "file": {"filename": "a.pdf", "mimeType": "application/pdf", "data": "JVBERi0="}}),
            "file.mimeType",
        ),
        (
            json!({"name": "Garbled", "file": {"filename": "a.txt", "mimeType": "text/plain", "data": "@@@"}}),
            "file.data",
        ),
    ] {
        let (status, refused) = call(&service, Method::POST, "/v1/knowledge-base", Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(names(&refused, param), "{body} should name {param}: {refused}");
    }
    let (_, list) = call(&service, Method::GET, "/v1/knowledge-base?limit=50", None).await;
    let seeded_count = seeded("knowledge_bases", |_| true).len();
    assert_eq!(list["data"].as_array().unwrap().len(), seeded_count + 2, "refusals wrote nothing");
    // A metric may ground on a knowledge base made here.
    let metric = json!({
        "name": "Refund rule followed",
        "type": "BOOLEAN",
        "calculationType": "LLM_JUDGE",
        "llmPrompt": "Did the agent state the refund rule?",
        "knowledgeBaseIds": [base["id"]],
    });
    let (status, made_metric) = call(&service, Method::POST, "/v1/metric/definitions", Some(metric)).await;
    assert_eq!(status, 201, "{made_metric}");
    let _ = id_of(&made_metric["data"]);
}

/// A metric's slug names it across the workspace: a second metric with the same slug is a
/// 409 `conflict` naming `slug`, and a metric made without a description reads back with
/// `description: ""`, the string the hosted SDK requires.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_metric_slug_conflicts_and_an_omitted_description_is_a_string() {
    let service = start(false).await;
    let body = json!({"name": "Polite close", "slug": "polite_close", "outputType": "BOOLEAN",
        "calculationType": "LLM_JUDGE", "llmPrompt": "Did the agent close politely?"});
    let (status, created) = call(&service, Method::POST, "/v1/metric/definitions", Some(body.clone())).await;
    assert_eq!(status, 201, "{created}");
    // The hosted SDK types `description` as a required string (its client refuses null), so
    // an omitted one reads back "" (docs/interface-decisions.md).
    assert_eq!(created["data"]["description"], "", "{created}");
    let (status, read) = call(&service, Method::GET, "/v1/metric/definitions/polite_close", None).await;
    assert_eq!((status, &read["data"]["description"]), (200, &json!("")), "{read}");

    let (status, refused) = call(&service, Method::POST, "/v1/metric/definitions", Some(body)).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["type"], "conflict", "{refused}");
    assert_eq!(refusal(&refused), ("slug".to_owned(), "slug_taken".to_owned()));
}

/// A persona's update changes what it is given and refuses `name: null` (the schema types the
/// name non-nullable) naming it, rather than keeping the old name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persona_update_refuses_a_null_name() {
    let service = start(false).await;
    let (status, created) = call(&service, Method::POST, "/v1/persona", Some(json!({"name": "Ada"}))).await;
    assert_eq!(status, 201, "{created}");
    let path = format!("/v1/persona/{}", created["data"]["id"].as_str().unwrap());
    let (status, refused) = call(&service, Method::PUT, &path, Some(json!({"name": null, "accent": "GB"}))).await;
    assert_eq!(status, 400, "{refused}");
    assert!(names(&refused, "name"), "{refused}");
    let (_, read) = call(&service, Method::GET, &path, None).await;
    assert_eq!(
        (read["data"]["name"].as_str(), read["data"]["accent"].as_str()),
        (Some("Ada"), Some("US")),
        "unchanged"
    );
    let (status, changed) = call(&service, Method::PUT, &path, Some(json!({"accent": "GB"}))).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!((changed["data"]["name"].as_str(), changed["data"]["accent"].as_str()), (Some("Ada"), Some("GB")));
}
