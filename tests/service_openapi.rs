//! The OpenAPI document on the real local service: served without a key at three paths,
//! generated from the handlers (every route, every error), stating every limit and every rule
//! a JSON Schema can say, and a service that refuses what the document's rules refuse.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::{raw, start};
use switchboard::api::model::{
    BYTE_SIZE_MIN, benchmark_limits, collection_limits, header_limits, headers, issue_limits,
    request_definition_limits, run_plan_limits, schema_rules, threshold_limits, webhook_limits,
};

/// The paths that serve the document itself.
const SPEC_PATHS: [&str; 3] = ["/openapi.json", "/.well-known/openapi.json", "/doc"];

/// Every operation the router serves, as (method, path) in the document's spelling.
const ROUTES: &[(&str, &str)] = &[
    ("get", "/v1/webhook"),
    ("post", "/v1/webhook"),
    ("get", "/v1/webhook/{id}"),
    ("delete", "/v1/webhook/{id}"),
    ("get", "/v1/webhook/{id}/deliveries"),
    ("post", "/demo/agent"),
    ("post", "/v1/agent"),
    ("post", "/v1/agent/endpoint"),
    ("post", "/v1/http-request-definition"),
    ("post", "/v1/chat"),
    ("get", "/v1/chat/{id}/transcript"),
    ("get", "/v1/config/records"),
    ("get", "/v1/chat/{id}/metrics"),
    ("get", "/v1/knowledge-base"),
    ("get", "/v1/knowledge-base/{id}"),
    ("get", "/openapi.json"),
    ("get", "/.well-known/openapi.json"),
    ("get", "/doc"),
    ("get", "/health"),
    ("get", "/ready"),
    ("get", "/v1/health"),
    ("get", "/v1/agent"),
    ("get", "/v1/alert"),
    ("get", "/v1/alert/{idOrName}"),
    ("get", "/v1/agent/{id}"),
    ("get", "/v1/agent/endpoint"),
    ("get", "/v1/agent/endpoint/{id}"),
    ("put", "/v1/agent/endpoint/{id}"),
    ("get", "/v1/http-request-definition"),
    ("get", "/v1/http-request-definition/{id}"),
    ("put", "/v1/http-request-definition/{id}"),
    ("get", "/v1/benchmark/suite"),
    ("get", "/v1/benchmark/target"),
    ("get", "/v1/benchmark/target/{key}/score-sample"),
    ("get", "/v1/call"),
    ("post", "/v1/call"),
    ("get", "/v1/call/{id}"),
    ("get", "/v1/call/{id}/transcript"),
    ("get", "/v1/call/{id}/metrics"),
    ("get", "/v1/chat"),
    ("get", "/v1/chat/{id}"),
    ("get", "/v1/metric/collection-jobs"),
    ("post", "/v1/metric/collection-jobs"),
    ("get", "/v1/metric/collection-jobs/{id}"),
    ("get", "/v1/events"),
    ("get", "/v1/metric/annotations"),
    ("post", "/v1/metric/annotations"),
    ("post", "/v1/metric/collection-jobs/{id}/cancel"),
    ("get", "/v1/metric/collection-jobs/{id}/metric-values"),
    ("get", "/v1/customer-flow"),
    ("get", "/v1/customer-flow/{id}"),
    ("post", "/v1/customer-flow/{id}/duplicate"),
    ("post", "/v1/customer-flow"),
    ("put", "/v1/customer-flow/{id}"),
    ("delete", "/v1/customer-flow/{id}"),
    ("put", "/v1/customer-flow/{id}/graph"),
    ("put", "/v1/customer-flow/{id}/happy-path"),
    ("post", "/v1/customer-flow/{id}/edge-case"),
    ("put", "/v1/customer-flow/{id}/edge-case/{edgeCaseId}"),
    ("delete", "/v1/customer-flow/{id}/edge-case/{edgeCaseId}"),
    ("post", "/v1/customer-flow/{id}/edge-case/{edgeCaseId}/promote"),
    ("get", "/v1/issue"),
    ("post", "/v1/issue"),
    ("get", "/v1/issue/{id}"),
    ("patch", "/v1/issue/{id}"),
    ("get", "/v1/metric/definitions"),
    ("post", "/v1/metric/definitions"),
    ("get", "/v1/metric/definitions/{id}"),
    ("put", "/v1/metric/definitions/{id}"),
    ("get", "/v1/metric/definitions/{id}/versions"),
    ("get", "/v1/metric/definitions/{id}/variants/{variant}"),
    ("put", "/v1/metric/definitions/{id}/variants/{variant}"),
    ("post", "/v1/metric/definitions/{id}/thresholds"),
    ("get", "/v1/metric/policies"),
    ("post", "/v1/metric/policies"),
    ("get", "/v1/metric/policies/{id}"),
    ("patch", "/v1/metric/policies/{id}"),
    ("put", "/v1/metric/policies/{id}"),
    ("get", "/v1/persona"),
    ("post", "/v1/persona"),
    ("get", "/v1/persona/{id}"),
    ("put", "/v1/persona/{id}"),
    ("put", "/v1/simulation/plan/{id}"),
    ("delete", "/v1/simulation/plan/{id}"),
    ("put", "/v1/agent/{id}"),
    ("delete", "/v1/metric/policies/{id}"),
    ("get", "/v1/metric/definitions/{id}/variants"),
    ("post", "/v1/metric/definitions/{id}/variants"),
    ("delete", "/v1/metric/definitions/{id}/variants/{variant}"),
    ("post", "/v1/knowledge-base"),
    ("delete", "/v1/persona/{id}"),
    ("post", "/v1/config/apply"),
    ("post", "/v1/config/diff"),
    ("get", "/v1/simulation/environment"),
    ("post", "/v1/simulation/environment"),
    ("get", "/v1/simulation/environment/{id}"),
    ("put", "/v1/simulation/environment/{id}"),
    ("delete", "/v1/simulation/environment/{id}"),
    ("get", "/v1/simulation/plan"),
    ("post", "/v1/simulation/plan"),
    ("get", "/v1/simulation/plan/{id}"),
    ("get", "/v1/simulation/plan/jobs"),
    ("get", "/v1/simulation/plan/job/{id}"),
    ("get", "/v1/simulation/plan/job/{id}/check-results"),
    ("get", "/v1/simulation/plan/job/{id}/simulation-jobs"),
    ("post", "/v1/simulation/plan/job/{id}/cancel"),
    ("post", "/v1/simulation/run"),
    ("get", "/v1/simulation/job/{id}"),
    ("get", "/v1/simulation/template"),
];

/// Operations that create something, and so answer 201.
const CREATIONS: &[(&str, &str)] = &[
    ("post", "/v1/simulation/environment"),
    ("post", "/v1/metric/definitions/{id}/variants"),
    ("post", "/v1/knowledge-base"),
    ("post", "/v1/webhook"),
    ("post", "/v1/agent"),
    ("post", "/v1/agent/endpoint"),
    ("post", "/v1/http-request-definition"),
    ("post", "/v1/chat"),
    ("post", "/v1/call"),
    ("post", "/v1/metric/collection-jobs"),
    ("post", "/v1/customer-flow/{id}/duplicate"),
    ("post", "/v1/customer-flow"),
    ("post", "/v1/customer-flow/{id}/edge-case"),
    ("post", "/v1/issue"),
    ("post", "/v1/metric/definitions"),
    ("post", "/v1/metric/definitions/{id}/thresholds"),
    ("post", "/v1/metric/policies"),
    ("post", "/v1/persona"),
    ("post", "/v1/simulation/plan"),
    ("post", "/v1/simulation/run"),
];

const METHODS: [&str; 7] = ["get", "put", "post", "delete", "patch", "head", "options"];

/// The document, fetched without a key from `/openapi.json`.
async fn document(base: &str) -> Value {
    let (status, body, headers) = raw(base, Method::GET, "/openapi.json", None, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["content-type"], "application/json");
    body
}

/// Every (method, path, operation) in the document.
fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                out.push((method.to_owned(), path.clone(), operation));
            }
        }
    }
    out
}

/// A property of a component schema.
fn property<'d>(doc: &'d Value, schema: &str, name: &str) -> &'d Value {
    let property = &doc["components"]["schemas"][schema]["properties"][name];
    assert!(property.is_object(), "{schema}.{name} is not in the document");
    property
}

/// The schema of a parameter of an operation.
fn parameter<'d>(doc: &'d Value, method: &str, path: &str, name: &str) -> &'d Value {
    let parameters = doc["paths"][path][method]["parameters"].as_array().expect("parameters");
    let found = parameters.iter().find(|p| p["name"] == name);
    &found.unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"))["schema"]
}

fn int(value: &Value, keyword: &str) -> i64 {
    value[keyword].as_f64().unwrap_or_else(|| panic!("no {keyword} in {value}")) as i64
}

fn usize_of(value: &Value, keyword: &str) -> usize {
    int(value, keyword) as usize
}

#[tokio::test]
async fn the_document_is_served_without_a_key_at_three_paths() {
    let service = start(false).await;
    let base = service.base_url();
    let mut bodies = Vec::new();
    for path in SPEC_PATHS {
        let (status, body, headers) = raw(&base, Method::GET, path, None, None).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(headers["content-type"], "application/json", "{path}");
        bodies.push(body);
    }
    assert!(bodies.iter().all(|b| *b == bodies[0]), "the three paths serve different documents");
    let doc = &bodies[0];
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"), "{}", doc["openapi"]);
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["info"]["title"], "switchboard local service");
    assert_eq!(*doc, serde_json::to_value(switchboard::service::openapi_document()).unwrap());
}

#[tokio::test]
async fn every_route_is_documented_and_every_documented_route_is_served() {
    let service = start(false).await;
    let base = service.base_url();
    let doc = document(&base).await;
    let mut documented: Vec<(String, String)> = operations(&doc).into_iter().map(|(m, p, _)| (m, p)).collect();
    let mut expected: Vec<(String, String)> = ROUTES.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    documented.sort();
    expected.sort();
    assert_eq!(documented, expected);

    // Each documented operation reaches a handler: neither "no route" nor "method not allowed".
    let key = format!("Bearer {}", service.running.api_key.expose());
    for (method, path) in ROUTES {
        let concrete = path
            .replace("{id}", "4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11")
            .replace("{variant}", "default")
            .replace("{key}", "no-such-target");
        // The event stream would stay open: a type it does not know answers at once.
        let concrete = if concrete == "/v1/events" { "/v1/events?kind=NO_SUCH_TYPE".to_owned() } else { concrete };
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        // Writes carry an empty body: refused with 400 before anything is stored.
        let (status, body, _) = raw(&base, method.clone(), &concrete, Some(&key), None).await;
        let no_route = status == 404 && body["message"].as_str().is_some_and(|m| m.starts_with("no route"));
        assert!(!no_route && status != 405, "{method} {concrete} is not served: {status} {body}");
    }
}

#[tokio::test]
async fn every_operation_documents_its_errors_with_the_error_body() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    for (method, path, operation) in operations(&doc) {
        let responses = operation["responses"].as_object().unwrap();
        if SPEC_PATHS.contains(&path.as_str()) || path == "/demo/agent" || path == "/ready" {
            assert_eq!(operation["security"], serde_json::json!([]), "{method} {path} needs no key");
            assert!(!responses.contains_key("401"), "{method} {path}");
            continue;
        }
        assert!(responses.contains_key("401"), "{method} {path} has no 401");
        assert!(responses.contains_key("429"), "{method} {path} has no 429");
        if operation.get("requestBody").is_some() {
            assert!(responses.contains_key("400"), "{method} {path} takes a body but has no 400");
            assert!(responses.contains_key("413"), "{method} {path} takes a body but has no 413");
        }
        if method != "get" {
            assert!(responses.contains_key("403"), "{method} {path} writes but has no 403 (read-only key)");
        }
        if path.contains('{') {
            assert!(responses.contains_key("404"), "{method} {path} names a resource but has no 404");
        }
        let success = if CREATIONS.contains(&(method.as_str(), path.as_str())) { "201" } else { "200" };
        assert!(responses.contains_key(success), "{method} {path} should answer {success}");
        for (status, response) in responses.iter().filter(|(s, _)| s.starts_with('4') || s.starts_with('5')) {
            let schema = &response["content"]["application/json"]["schema"]["$ref"];
            assert_eq!(schema, "#/components/schemas/ErrorBody", "{method} {path} {status}");
        }
    }
    let error_body = &doc["components"]["schemas"]["ErrorBody"];
    assert_eq!(error_body["required"], serde_json::json!(["type", "code", "message"]));
    assert!(error_body["properties"]["details"].is_object());
}

#[tokio::test]
async fn bearer_auth_is_declared_and_applies_globally() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let scheme = &doc["components"]["securitySchemes"]["bearer"];
    assert_eq!(scheme["type"], "http");
    assert_eq!(scheme["scheme"], "bearer");
    assert_eq!(doc["security"], serde_json::json!([{"bearer": []}]));
    assert!(doc["paths"]["/v1/persona"]["get"].get("security").is_none(), "the global requirement applies");
}

#[tokio::test]
async fn the_limits_table_is_stated_on_the_fields() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;

    // Issue create.
    let title = property(&doc, "IssueInput", "title");
    assert_eq!(usize_of(title, "minLength"), issue_limits::TITLE_MIN);
    assert_eq!(usize_of(title, "maxLength"), issue_limits::TITLE_MAX);
    let summary = property(&doc, "IssueInput", "summary");
    assert_eq!(usize_of(summary, "minLength"), issue_limits::SUMMARY_MIN);
    assert_eq!(usize_of(summary, "maxLength"), issue_limits::SUMMARY_MAX);
    assert_eq!(usize_of(property(&doc, "IssueInput", "evidence"), "maxItems"), issue_limits::EVIDENCE_MAX);

    // Run plan.
    let iterations = property(&doc, "RunPlanInput", "iterationCount");
    assert_eq!(int(iterations, "minimum"), run_plan_limits::ITERATION_COUNT_MIN);
    assert_eq!(int(iterations, "maximum"), run_plan_limits::ITERATION_COUNT_MAX);
    assert_eq!(int(iterations, "default"), run_plan_limits::ITERATION_COUNT_DEFAULT);
    let concurrent = property(&doc, "RunPlanInput", "maxConcurrentJobs");
    assert_eq!(int(concurrent, "minimum"), run_plan_limits::MAX_CONCURRENT_JOBS_MIN);
    assert_eq!(int(concurrent, "default"), run_plan_limits::MAX_CONCURRENT_JOBS_DEFAULT);
    let duration = property(&doc, "RunPlanInput", "maxSimulationDurationSeconds");
    assert_eq!(int(duration, "minimum"), run_plan_limits::MAX_SIMULATION_DURATION_SECONDS_MIN);
    let silence = property(&doc, "RunPlanInput", "silenceTimeoutSeconds");
    assert_eq!(int(silence, "minimum"), run_plan_limits::SILENCE_TIMEOUT_SECONDS_MIN);
    assert_eq!(int(silence, "default"), run_plan_limits::SILENCE_TIMEOUT_SECONDS_DEFAULT);
    for list in ["flows", "scenarios", "personas", "agentEndpoints", "metrics"] {
        assert_eq!(int(property(&doc, "RunPlanInput", list), "minItems"), 1, "RunPlanInput.{list}");
    }
    let required = doc["components"]["schemas"]["RunPlanInput"]["required"].as_array().unwrap();
    for field in ["name", "direction", "maxSimulationDurationSeconds", "agentEndpoints", "metrics"] {
        assert!(required.iter().any(|r| r == field), "RunPlanInput.{field} is required");
    }

    // Threshold create.
    for field in ["slug", "metricId"] {
        let slug = property(&doc, "ThresholdInput", field);
        assert_eq!(usize_of(slug, "minLength"), threshold_limits::SLUG_MIN, "{field}");
        assert_eq!(usize_of(slug, "maxLength"), threshold_limits::SLUG_MAX, "{field}");
    }
    let count = property(&doc, "ThresholdInput", "countThreshold");
    assert_eq!(int(count, "minimum"), threshold_limits::COUNT_THRESHOLD_MIN);

    // Collection job request.
    let metrics = property(&doc, "CollectionJobInput", "metrics");
    assert_eq!(usize_of(metrics, "maxItems"), collection_limits::METRICS_MAX);
    for field in ["policyIds", "callIds", "chatIds"] {
        assert_eq!(usize_of(property(&doc, "CollectionJobInput", field), "maxItems"), collection_limits::IDS_MAX);
    }

    // Cursor lists: the collection job list and every other list that takes a cursor.
    let mut cursor_lists = 0;
    for (method, path, operation) in operations(&doc) {
        let takes_cursor =
            operation["parameters"].as_array().is_some_and(|ps| ps.iter().any(|p| p["name"] == "cursor"));
        if !takes_cursor {
            continue;
        }
        cursor_lists += 1;
        let limit = parameter(&doc, &method, &path, "limit");
        assert_eq!(int(limit, "minimum"), collection_limits::LIST_LIMIT_MIN, "{path}");
        let wide = ["/v1/call", "/v1/agent"].contains(&path.as_str());
        let max = if wide { collection_limits::WIDE_LIST_LIMIT_MAX } else { collection_limits::LIST_LIMIT_MAX };
        assert_eq!(int(limit, "maximum"), max, "{path}");
        assert_eq!(int(limit, "default"), collection_limits::LIST_LIMIT_DEFAULT, "{path}");
    }
    assert!(cursor_lists >= 12, "only {cursor_lists} cursor lists");
    let limit = parameter(&doc, "get", "/v1/metric/collection-jobs", "limit");
    assert_eq!(int(limit, "maximum"), collection_limits::LIST_LIMIT_MAX);

    // Benchmark score samples: offset paging.
    let samples = "/v1/benchmark/target/{key}/score-sample";
    let limit = parameter(&doc, "get", samples, "limit");
    assert_eq!(int(limit, "minimum"), benchmark_limits::LIMIT_MIN);
    assert_eq!(int(limit, "maximum"), benchmark_limits::LIMIT_MAX);
    assert_eq!(int(parameter(&doc, "get", samples, "offset"), "minimum"), benchmark_limits::OFFSET_MIN);
    let suite = doc["paths"][samples]["get"]["parameters"].as_array().unwrap().iter().find(|p| p["name"] == "suite");
    assert_eq!(suite.unwrap()["required"], true);
    for name in ["suite", "conditionKey", "metricKey"] {
        assert_eq!(int(parameter(&doc, "get", samples, name), "minLength"), 1, "{name}");
    }

    // Knowledge base.
    assert_eq!(int(property(&doc, "KnowledgeBase", "byteSize"), "minimum"), BYTE_SIZE_MIN);

    // Names that must not be empty.
    for schema in ["RunPlanInput", "PolicyInput", "PersonaFields", "MetricDefinitionInput"] {
        assert_eq!(int(property(&doc, schema, "name"), "minLength"), 1, "{schema}.name");
    }
    assert_eq!(int(property(&doc, "PolicyInput", "metrics"), "minItems"), 1);

    // Header maps: webhooks and HTTP request definitions alike.
    for schema in ["WebhookInput", "HttpRequestDefinitionInput", "HttpRequestDefinitionUpdate"] {
        let headers = property(&doc, schema, "headers");
        assert_eq!(usize_of(headers, "maxProperties"), header_limits::HEADERS_MAX, "{schema}");
        assert_eq!(usize_of(&headers["propertyNames"], "maxLength"), header_limits::HEADER_NAME_MAX, "{schema}");
        assert_eq!(headers["propertyNames"]["pattern"], headers::HEADER_NAME_PATTERN, "{schema}");
        let value = &headers["additionalProperties"];
        assert_eq!(usize_of(value, "maxLength"), header_limits::HEADER_VALUE_MAX, "{schema}");
        assert!(value["pattern"].is_string(), "{schema}: {value}");
        let marked = property(&doc, schema, "secretHeaders");
        assert_eq!(usize_of(marked, "maxItems"), header_limits::SECRET_HEADERS_MAX, "{schema}");
        assert_eq!(usize_of(&marked["items"], "maxLength"), header_limits::HEADER_NAME_MAX, "{schema}");
    }
}

#[tokio::test]
async fn schemas_follow_the_wire() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let schemas = &doc["components"]["schemas"];

    // Wire enums list their known values and say others may appear.
    let severity = &schemas["Severity"];
    assert_eq!(severity["type"], "string");
    assert_eq!(severity["enum"], serde_json::json!(["LOW", "MEDIUM", "HIGH", "CRITICAL"]));
    assert!(severity["description"].as_str().unwrap().contains("may send others"), "{severity}");

    // camelCase names; flattened unknown members are not properties.
    for input in ["RunPlanInput", "IssueInput", "ThresholdInput", "CollectionJobInput", "PersonaFields"] {
        let properties = schemas[input]["properties"].as_object().unwrap();
        assert!(!properties.contains_key("unknown_fields") && !properties.contains_key("unknownFields"), "{input}");
        assert!(properties.keys().all(|k| !k.contains('_')), "{input} has a snake_case member");
    }
    assert!(schemas["RunPlanInput"]["properties"]["maxSimulationDurationSeconds"].is_object());

    // Timestamps and ids.
    assert_eq!(schemas["Timestamp"]["type"], "string");
    assert_eq!(schemas["Timestamp"]["format"], "date-time");
    let id = property(&doc, "Issue", "id");
    assert_eq!((id["type"].as_str(), id["format"].as_str()), (Some("string"), Some("uuid")));
}

#[tokio::test]
async fn every_reference_resolves_and_operation_ids_are_unique_names_of_the_operation() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let text = doc.to_string();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let mut dangling: Vec<&str> = text
        .split("\"#/components/schemas/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|name| !schemas.contains_key(*name))
        .collect();
    dangling.dedup();
    assert!(dangling.is_empty(), "references to missing schemas: {dangling:?}");

    let mut ids: Vec<String> = Vec::new();
    for (method, path, operation) in operations(&doc) {
        let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
        assert!(!ids.contains(&id.to_owned()), "{id} is used twice");
        let camel = id.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && id.chars().all(char::is_alphanumeric);
        assert!(camel, "{method} {path}: {id} is not lowerCamelCase");
        ids.push(id.to_owned());
    }
    for (method, path, id) in [
        ("get", "/v1/persona", "listPersonas"),
        ("post", "/v1/persona", "createPersona"),
        ("post", "/v1/issue", "createIssue"),
        ("patch", "/v1/issue/{id}", "updateIssue"),
        ("get", "/v1/call/{id}", "getCall"),
        ("post", "/v1/simulation/run", "runSimulation"),
        ("post", "/v1/metric/definitions/{id}/thresholds", "createThreshold"),
    ] {
        assert_eq!(doc["paths"][path][method]["operationId"], id, "{method} {path}");
    }
}

#[tokio::test]
async fn inputs_that_refuse_unknown_members_say_so_and_responses_stay_open() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let schemas = &doc["components"]["schemas"];
    for name in switchboard::api::model::inputs_refusing_unknown_members() {
        assert_eq!(schemas[name.as_ref()]["additionalProperties"], false, "{name}");
    }
    // A response that carries an input's members is one object, not an allOf that would
    // refuse its own id.
    for name in ["RunPlan", "Persona"] {
        assert!(schemas[name].get("allOf").is_none(), "{name}: {}", schemas[name]);
        assert!(schemas[name]["properties"]["id"].is_object() && schemas[name]["properties"]["name"].is_object());
        assert!(schemas[name].get("additionalProperties").is_none(), "{name}");
    }
}

#[tokio::test]
async fn the_ceilings_are_stated_with_their_constants() {
    use switchboard::api::model::{call_limits, metric_limits, persona_limits, policy_limits};
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let checks: Vec<(&str, &str, &str, i64)> = vec![
        ("RunPlanInput", "maxConcurrentJobs", "maximum", run_plan_limits::MAX_CONCURRENT_JOBS_MAX),
        (
            "RunPlanInput",
            "maxSimulationDurationSeconds",
            "maximum",
            run_plan_limits::MAX_SIMULATION_DURATION_SECONDS_MAX,
        ),
        ("RunPlanInput", "silenceTimeoutSeconds", "maximum", run_plan_limits::SILENCE_TIMEOUT_SECONDS_MAX),
        ("RunPlanInput", "name", "maxLength", run_plan_limits::NAME_MAX as i64),
        ("RunPlanInput", "description", "maxLength", run_plan_limits::DESCRIPTION_MAX as i64),
        ("RunPlanInput", "flows", "maxItems", run_plan_limits::FLOWS_MAX as i64),
        ("RunPlanInput", "agentEndpoints", "maxItems", run_plan_limits::AGENT_ENDPOINTS_MAX as i64),
        ("RunPlanInput", "metrics", "maxItems", run_plan_limits::METRICS_MAX as i64),
        ("RunPlanInput", "endCallPhrases", "maxItems", run_plan_limits::END_CALL_PHRASES_MAX as i64),
        ("RunPlanInput", "endCallReasons", "maxItems", run_plan_limits::END_CALL_REASONS_MAX as i64),
        ("PersonaFields", "name", "maxLength", persona_limits::NAME_MAX as i64),
        ("PersonaFields", "description", "maxLength", persona_limits::DESCRIPTION_MAX as i64),
        ("PersonaFields", "backstoryPrompt", "maxLength", persona_limits::BACKSTORY_PROMPT_MAX as i64),
        ("PersonaFields", "idleTimeoutSeconds", "maximum", persona_limits::IDLE_TIMEOUT_SECONDS_MAX),
        ("PersonaFields", "idleMessageMaxSpokenCount", "maximum", persona_limits::IDLE_MESSAGE_MAX_SPOKEN_COUNT_MAX),
        ("PersonaFields", "idleMessages", "maxItems", persona_limits::IDLE_MESSAGES_MAX as i64),
        ("TranscriptEntry", "startOffsetMs", "maximum", call_limits::OFFSET_MS_MAX),
        ("TranscriptEntry", "endOffsetMs", "maximum", call_limits::OFFSET_MS_MAX),
        ("TranscriptEntry", "text", "maxLength", call_limits::TEXT_MAX as i64),
        ("Transcript", "entries", "maxItems", call_limits::ENTRIES_MAX as i64),
        ("CallInput", "fromNumber", "maxLength", call_limits::PHONE_NUMBER_MAX as i64),
        ("MetricDefinitionInput", "name", "maxLength", metric_limits::NAME_MAX as i64),
        ("MetricDefinitionInput", "llmPrompt", "maxLength", metric_limits::PROMPT_MAX as i64),
        ("MetricDefinitionInput", "formula", "maxLength", metric_limits::FORMULA_MAX as i64),
        ("MetricDefinitionInput", "scaleMax", "maximum", metric_limits::SCALE_BOUND),
        ("MetricDefinitionUpdate", "llmPrompt", "maxLength", metric_limits::PROMPT_MAX as i64),
        ("MetricDefinitionUpdate", "maxClassifications", "maximum", metric_limits::MAX_CLASSIFICATIONS_MAX),
        ("ThresholdInput", "name", "maxLength", threshold_limits::NAME_MAX as i64),
        ("ThresholdInput", "value", "maxLength", threshold_limits::VALUE_MAX as i64),
        ("ThresholdInput", "countThreshold", "maximum", threshold_limits::COUNT_THRESHOLD_MAX),
        ("PolicyInput", "name", "maxLength", policy_limits::NAME_MAX as i64),
        ("PolicyInput", "conditions", "maxItems", policy_limits::GROUPS_MAX as i64),
    ];
    for (schema, member, keyword, constant) in checks {
        assert_eq!(int(property(&doc, schema, member), keyword), constant, "{schema}.{member} {keyword}");
    }
    let entries = &property(&doc, "RunPlanInput", "endCallPhrases")["items"];
    assert_eq!(usize_of(entries, "maxLength"), run_plan_limits::END_CALL_PHRASE_MAX);
    let description = property(&doc, "RunPlanInput", "iterationCount")["description"].as_str().unwrap();
    assert!(description.contains("100,000"), "the simulations-per-run cap is stated: {description}");
    assert_eq!(run_plan_limits::SIMULATIONS_PER_RUN_MAX, 100_000);
}

#[tokio::test]
async fn every_template_runs_to_completion_as_it_is() {
    let service = start(true).await;
    let raw_templates = service.client.get_raw("/v1/simulation/template").await.unwrap();
    let data = raw_templates.get("data").cloned().unwrap_or(raw_templates);
    let templates: Vec<switchboard::api::model::RunPlanTemplate> = serde_json::from_value(data).unwrap();
    assert!(!templates.is_empty());
    let mut jobs = Vec::new();
    for template in &templates {
        let title = template.title.clone().unwrap_or_default();
        let plan = template.plan.clone().unwrap_or_else(|| panic!("{title} has a runnable plan"));
        assert!(plan.agent_endpoints.as_ref().is_some_and(|e| !e.is_empty()), "{title}");
        assert_eq!(template.flows.len(), 1, "{title} names its flow");
        assert!(!template.metrics.is_empty() && !template.slug.clone().unwrap_or_default().is_empty(), "{title}");
        let request = switchboard::api::model::RunRequest { plan: Some(plan), ..Default::default() };
        let started = service.client.run(&request).await.unwrap_or_else(|e| panic!("{title}: {e}"));
        jobs.push((title, started.simulation_run_plan_job_id));
    }
    for (name, id) in jobs {
        let status = support::eventually(std::time::Duration::from_secs(120), || async {
            let job = service.client.get_run_plan_job(id).await.ok()?;
            job.status.filter(|s| s.is_terminal())
        })
        .await;
        assert_eq!(status, switchboard::api::model::RunPlanJobStatus::Completed, "{name}");
    }
}

/// A request with the service's key: its status and body.
async fn keyed(service: &support::Service, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), body).await;
    (status, value)
}

/// Whether an error body's violations name `param`.
fn names(body: &Value, param: &str) -> bool {
    body["param"] == param
        || body["details"]["violations"].as_array().is_some_and(|v| v.iter().any(|v| v["param"] == param))
}

/// The member each alternative of an `anyOf`/`oneOf` requires.
fn alternatives(schema: &Value, keyword: &str) -> Vec<String> {
    let listed = schema[keyword].as_array().unwrap_or_else(|| panic!("no {keyword} in {schema}"));
    listed.iter().map(|a| a["required"][0].as_str().unwrap_or_default().to_owned()).collect()
}

/// Whether the document's pattern (ECMA-262, written in the part Rust's regex shares) matches.
fn matches(pattern: &Value, text: &str) -> bool {
    regex::Regex::new(pattern.as_str().expect("a pattern")).unwrap().is_match(text)
}

/// The rules the inputs enforce are in the schema: texts that may not be blank, URL shapes,
/// either-or members, enum values an input refuses; the few no schema can state are in the
/// operation's description.
#[tokio::test]
async fn the_document_states_the_rules_the_service_enforces() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let schemas = &doc["components"]["schemas"];

    for member in ["recordingUrl", "stereoRecordingUrl", "externalId"] {
        assert_eq!(int(property(&doc, "CallInput", member), "minLength"), 1, "{member}");
    }
    for schema in ["PersonaFields", "PersonaUpdate"] {
        assert_eq!(property(&doc, schema, "idleMessages")["items"]["pattern"], schema_rules::NOT_BLANK_PATTERN);
    }
    assert_eq!(property(&doc, "EdgeCaseInput", "title")["not"], json!({"type": "null"}));

    let webhook_url = property(&doc, "WebhookInput", "url");
    assert_eq!((&webhook_url["pattern"], &webhook_url["format"]), (&json!(webhook_limits::URL_PATTERN), &json!("uri")));
    for schema in ["HttpRequestDefinitionInput", "HttpRequestDefinitionUpdate"] {
        assert_eq!(property(&doc, schema, "url")["pattern"], request_definition_limits::URL_PATTERN, "{schema}");
    }

    assert_eq!(alternatives(&schemas["MetricDefinitionInput"], "anyOf"), ["type", "outputType"]);
    assert_eq!(alternatives(&schemas["IssueUpdate"], "anyOf"), ["status", "severity", "assigneeUserId"]);
    assert_eq!(alternatives(&schemas["ConditionInput"], "anyOf"), ["conditionValue", "conditionType"]);
    assert_eq!(alternatives(&schemas["FlowSelection"], "oneOf"), ["id", "slug"]);
    assert_eq!(alternatives(&schemas["FlowSelection"], "anyOf"), ["happyPath", "edgeCases"]);
    assert_eq!(alternatives(&schemas["KnowledgeBaseInput"], "oneOf"), ["content", "file"]);
    assert_eq!(alternatives(&schemas["PolicyUpdate"], "anyOf"), ["status", "name", "conditions", "metrics"]);
    assert!(schemas["ConditionGroupInput"]["required"].as_array().unwrap().contains(&json!("conditions")));
    for member in ["agents", "customers"] {
        assert_eq!(int(property(&doc, "CallInput", member), "minItems"), 1, "{member}");
    }
    for member in ["mimeType", "data"] {
        assert_eq!(int(property(&doc, "KnowledgeFile", member), "minLength"), 1, "{member}");
    }
    assert_eq!(property(&doc, "MetricDefinitionInput", "calculationType")["enum"], json!(["LLM_JUDGE", "FORMULA"]));
    assert_eq!(property(&doc, "FlowInput", "type")["not"], json!({"const": "VOICEMAIL"}));

    let create = doc["paths"]["/v1/metric/definitions"]["post"]["description"].as_str().unwrap_or_default();
    assert!(create.contains("`scaleMax` is greater than `scaleMin`"), "{create}");
    let after = doc["paths"]["/v1/persona"]["get"]["parameters"].as_array().unwrap();
    let after = after.iter().find(|p| p["name"] == "after").expect("after");
    assert!(after["description"].as_str().unwrap().contains("different `cursor` it is a 400"), "{after}");
}

/// What the document's rules refuse the service refuses, naming the member, and what they
/// allow it takes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_services_refusals_match_the_documents_rules() {
    let service = start(true).await;
    let doc = document(&service.base_url()).await;

    let pattern = &property(&doc, "WebhookInput", "url")["pattern"];
    for url in ["ftp://example.com/x", "http://1.2.3.999/", "http://example.com:70000/", "http://xn--a.example/"] {
        assert!(!matches(pattern, url), "{url}");
        let body = json!({"events": ["ISSUE_OPENED"], "url": url});
        let (status, refused) = keyed(&service, Method::POST, "/v1/webhook", Some(body)).await;
        assert_eq!(status, 400, "{url}: {refused}");
        assert!(names(&refused, "url"), "{refused}");
    }
    for url in ["http://127.0.0.1:9/x", "https://Hooks.example.com:65535/in?a=1"] {
        assert!(matches(pattern, url), "{url}");
        let body = json!({"events": ["ISSUE_OPENED"], "url": url});
        let (status, created) = keyed(&service, Method::POST, "/v1/webhook", Some(body)).await;
        assert_eq!(status, 201, "{url}: {created}");
    }

    let call = json!({"startedAt": "2026-01-01T00:00:00Z", "recordingUrl": "", "externalId": "",
        "transcript": []});
    let (status, refused) = keyed(&service, Method::POST, "/v1/call", Some(call)).await;
    assert_eq!(status, 400, "{refused}");
    assert!(names(&refused, "recordingUrl") && names(&refused, "externalId"), "{refused}");

    let blank = &property(&doc, "PersonaFields", "idleMessages")["items"]["pattern"];
    assert!(!matches(blank, " \t") && matches(blank, " hi "));
    let persona = json!({"name": "Idle", "idleMessages": ["Still there?", " \t"]});
    let (status, refused) = keyed(&service, Method::POST, "/v1/persona", Some(persona)).await;
    assert_eq!(status, 400, "{refused}");
    assert!(names(&refused, "idleMessages[1]"), "{refused}");

    let metric = json!({"name": "No type", "calculationType": "LLM_JUDGE", "llmPrompt": "Judge it"});
    let (status, refused) = keyed(&service, Method::POST, "/v1/metric/definitions", Some(metric)).await;
    assert_eq!(status, 400, "{refused}");
    assert!(names(&refused, "outputType"), "{refused}");

    let (_, issues) = keyed(&service, Method::GET, "/v1/issue?limit=1", None).await;
    let issue = issues["data"][0]["id"].as_str().expect("a seeded issue");
    let (status, refused) = keyed(&service, Method::PATCH, &format!("/v1/issue/{issue}"), Some(json!({}))).await;
    assert_eq!(status, 400, "{refused}");
    assert!(names(&refused, "status"), "{refused}");

    let kinds = &parameter(&doc, "get", "/v1/events", "kind")["pattern"];
    for kind in ["ISSUE_OPENED,NOT_A_TYPE", "ISSUE_OPENED, ISSUE_RESOLVED", "ISSUE_OPENED,"] {
        assert!(!matches(kinds, kind), "{kind}");
        let (status, refused) = keyed(&service, Method::GET, &format!("/v1/events?kind={kind}"), None).await;
        assert_eq!(status, 400, "{kind}: {refused}");
        assert!(names(&refused, "kind"), "{refused}");
    }
    assert!(matches(kinds, "ISSUE_OPENED,ISSUE_RESOLVED"));
    assert_eq!(parameter(&doc, "get", "/v1/events", "children")["enum"], json!(["all", "none"]));
    let resources = &parameter(&doc, "get", "/v1/events", "resourceId")["pattern"];
    let braced = "{67e55044-10b1-426f-9247-bb680e5fe0c8}";
    assert!(!matches(resources, braced));
    let (status, refused) = keyed(&service, Method::GET, &format!("/v1/events?resourceId={braced}"), None).await;
    assert_eq!(status, 400, "{refused}");
}

/// Each Server-Sent Event of `GET /v1/events` is what the document describes: an `id`, an
/// `event` among the types, and `data` holding an `Event` as JSON with its required members.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_sends_what_its_schema_describes() {
    use futures_util::StreamExt;
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let message = &doc["paths"]["/v1/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"];
    assert_eq!(message["required"], json!(["id", "event", "data"]), "{message}");
    assert_eq!(message["properties"]["data"]["contentSchema"]["$ref"], "#/components/schemas/Event");
    let required: Vec<String> =
        serde_json::from_value(doc["components"]["schemas"]["Event"]["required"].clone()).unwrap();

    let issue = json!({"title": "Caller hears silence", "summary": "The agent stops speaking"});
    let (status, created) = keyed(&service, Method::POST, "/v1/issue", Some(issue)).await;
    assert_eq!(status, 201, "{created}");
    let key = format!("Bearer {}", service.running.api_key.expose());
    let response = reqwest::Client::new()
        .get(format!("{}/v1/events?after=0", service.base_url()))
        .header("authorization", key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let read = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while !text.contains("\n\n") {
            text.push_str(&String::from_utf8_lossy(&body.next().await.expect("the stream ended").unwrap()));
        }
    });
    read.await.expect("an event within the deadline");
    let event = text.split("\n\n").next().unwrap();
    let field = |name: &str| {
        event.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).map(str::trim).unwrap_or_default().to_owned()
    };
    assert!(matches(&message["properties"]["id"]["pattern"], &field("id")), "{event}");
    let types = message["properties"]["event"]["enum"].as_array().unwrap();
    assert!(types.iter().any(|t| t == &json!(field("event"))), "{event}");
    let data: Value = serde_json::from_str(&field("data")).unwrap();
    for member in &required {
        assert!(data.get(member).is_some_and(|v| !v.is_null()), "{member} missing from {data}");
    }
    assert_eq!(data["type"], json!(field("event")));
}

/// The rule an `allOf` of a schema holds whose `if` names `member` as `value`: its `then`.
fn then_when<'d>(schema: &'d Value, member: &str, value: &str) -> &'d Value {
    let rules = schema["allOf"].as_array().unwrap_or_else(|| panic!("no allOf in {schema}"));
    let found = rules.iter().find(|r| r["if"]["properties"][member]["const"] == value);
    &found.unwrap_or_else(|| panic!("no rule for {member} {value} in {schema}"))["then"]
}

/// The members a `then` of `given` rules requires, in order.
fn required_in(then: &Value) -> Vec<String> {
    let parts = then["allOf"].as_array().map_or_else(|| vec![then.clone()], Clone::clone);
    parts.iter().filter_map(|p| p["required"][0].as_str().map(str::to_owned)).collect()
}

/// Rules between members and rules one member's value sets: either-or members, members a
/// type asks for, names that may not be blank, values an input refuses; stated on inputs only
/// (a plan read back names its metrics by both `id` and `slug`).
#[tokio::test]
async fn the_document_states_the_rules_between_members() {
    use switchboard::api::model::{ScheduleType, knowledge_limits};
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let schemas = &doc["components"]["schemas"];

    for (schema, member) in [("FlowInput", "title"), ("VariantInput", "title"), ("EnvironmentUpdate", "name")] {
        assert_eq!(property(&doc, schema, member)["pattern"], schema_rules::NOT_BLANK_PATTERN, "{schema}.{member}");
    }
    for member in ["name", "customId"] {
        assert_eq!(int(property(&doc, "AgentIdentification", member), "minLength"), 1, "{member}");
    }
    assert_eq!(alternatives(&schemas["AgentIdentification"], "anyOf"), ["roarkId", "customId", "name"]);
    assert_eq!(alternatives(&schemas["EndpointIdentification"], "anyOf"), ["id", "value"]);
    assert_eq!(alternatives(&schemas["EvidenceInput"], "oneOf"), ["callId", "chatId"]);
    assert_eq!(property(&doc, "EnvironmentUpdate", "description")["not"], json!({"type": "null"}));
    assert_eq!(property(&doc, "HttpRequestDefinitionInput", "method")["not"], json!({"const": "DELETE"}));
    assert_eq!(property(&doc, "RunPlanUpdate", "isHidden")["not"], json!({"const": true}));
    for member in ["endCallPhrases", "endCallReasons"] {
        let items = &property(&doc, "RunPlanInput", member)["items"];
        assert_eq!(items["pattern"], schema_rules::NOT_BLANK_PATTERN, "{member}");
    }
    let role = &schemas["TranscriptInput"]["oneOf"][0]["items"]["properties"]["role"]["anyOf"][1]["enum"];
    assert_eq!(role, &json!(["AGENT", "CUSTOMER"]), "an ingested entry speaks as the agent or the customer");

    let mime = &property(&doc, "KnowledgeFile", "mimeType")["pattern"];
    for accepted in knowledge_limits::FILE_TYPES.iter().copied().chain(["Text/Plain; charset=utf-8", " text/csv "]) {
        assert!(matches(mime, accepted), "{accepted}");
    }
    for refused in ["image/png", "text/plainer", "text/plain/x"] {
        assert!(!matches(mime, refused), "{refused}");
    }

    let by_id_or_slug = &property(&doc, "RunPlanInput", "metrics")["items"]["oneOf"];
    assert_eq!(by_id_or_slug[0]["required"], json!(["id"]), "{by_id_or_slug}");
    assert!(property(&doc, "RunPlan", "metrics")["items"].get("oneOf").is_none(), "a response keeps both names");

    let improv = then_when(&schemas["FlowInput"], "type", "IMPROV");
    assert_eq!(required_in(improv)[..2], ["agentIds", "happyPath"]);
    assert_eq!(required_in(then_when(&schemas["FlowInput"], "type", "SCRIPTED")), ["graph"]);
    let dial = then_when(&schemas["AgentEndpointInput"], "outboundDialType", "HTTP_REQUEST");
    assert_eq!(required_in(dial), ["outboundDialHttpRequestDefinitionId"]);
    let schedule = property(&doc, "RunPlanInput", "schedule");
    for kind in ScheduleType::KNOWN {
        let needs: Vec<&str> = kind.required_members().collect();
        assert_eq!(required_in(then_when(schedule, "type", kind.as_str())), needs, "{kind}");
    }
}

/// What the rules between members refuse, the service refuses, naming the member.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_refuses_what_the_rules_between_members_refuse() {
    let service = start(false).await;
    let refusals = [
        (Method::POST, "/v1/simulation/run", json!({}), "planId"),
        (Method::POST, "/v1/simulation/run", json!({"planId": uuid::Uuid::new_v4(), "saveAsPlan": true}), "saveAsPlan"),
        (Method::POST, "/v1/metric/collection-jobs", json!({}), "metrics"),
        (Method::POST, "/v1/metric/collection-jobs", json!({"policyId": uuid::Uuid::new_v4()}), "callIds"),
        (Method::POST, "/v1/issue", json!({"title": "No call", "evidence": [{}]}), "evidence[0].callId"),
        (Method::POST, "/v1/customer-flow", json!({"type": "IMPROV", "title": "Walk-in"}), "happyPath"),
        (
            Method::POST,
            "/v1/call",
            json!({"startedAt": "2026-01-01T00:00:00Z", "transcript": [{"role":
            "BACKGROUND_SPEAKER", "text": "Hold music", "startOffsetMs": 0, "endOffsetMs": 1}]}),
            "transcript[0].role",
        ),
        (Method::POST, "/v1/customer-flow", json!({"type": "SCRIPTED", "title": " \t"}), "title"),
        (
            Method::POST,
            "/v1/http-request-definition",
            json!({"scope": "AGENT_OUTBOUND_DIAL",
            "url": "https://agent.example/dial", "method": "DELETE"}),
            "method",
        ),
    ];
    for (method, path, body, param) in refusals {
        let (status, refused) = keyed(&service, method, path, Some(body.clone())).await;
        assert_eq!(status, 400, "{path} {body}: {refused}");
        assert!(names(&refused, param), "{path} {body} should name {param}: {refused}");
    }
}

/// Whether `pattern` matches `text` as ECMA-262 (the dialect JSON Schema names) reads it: its
/// `\s` is WhiteSpace and LineTerminator (§22.2.2.9), U+FEFF in and U+0085 out, unlike Rust's.
fn ecma_matches(pattern: &Value, text: &str) -> bool {
    let ecma_space = "\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";
    let pattern = pattern.as_str().expect("a pattern").replace("\\s", ecma_space);
    regex::Regex::new(&pattern).unwrap().is_match(text)
}

/// A name of one invisible or spacing character is blank to the document exactly when the
/// service refuses it as blank: U+00A0 and tab are white space, U+FEFF and U+200B are not.
#[tokio::test]
async fn the_document_and_the_service_agree_on_what_is_blank() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let pattern = &property(&doc, "EnvironmentInput", "name")["pattern"];
    for (text, blank) in [("\u{FEFF}", false), ("\u{200B}", false), ("\u{00A0}", true), ("\t", true)] {
        let body = json!({"name": text, "backgroundNoise": "NONE"});
        let (status, answer) = keyed(&service, Method::POST, "/v1/simulation/environment", Some(body)).await;
        let refused = status == 400 && names(&answer, "name");
        assert_eq!(refused, blank, "the service on {text:?}: {status} {answer}");
        assert_eq!(!ecma_matches(pattern, text), blank, "the document's {pattern} on {text:?}");
    }
}

/// Calls and agents page by up to 100 (the hosted SDK's bound for calls), the other lists by
/// up to 50: each takes its bound and refuses one past it naming `limit`, as its document says.
#[tokio::test]
async fn each_list_takes_the_page_size_its_document_states() {
    let service = start(false).await;
    let doc = document(&service.base_url()).await;
    let wide = collection_limits::WIDE_LIST_LIMIT_MAX;
    let narrow = collection_limits::LIST_LIMIT_MAX;
    for (path, max) in
        [("/v1/call", wide), ("/v1/agent", wide), ("/v1/persona", narrow), ("/v1/agent/endpoint", narrow)]
    {
        assert_eq!(int(parameter(&doc, "get", path, "limit"), "maximum"), max, "{path}");
        let (status, page) = keyed(&service, Method::GET, &format!("{path}?limit={max}"), None).await;
        assert_eq!(status, 200, "{path}?limit={max}: {page}");
        assert_eq!(page["pagination"]["limit"], max, "{path}");
        let (status, refused) = keyed(&service, Method::GET, &format!("{path}?limit={}", max + 1), None).await;
        assert_eq!(status, 400, "{path}?limit={}: {refused}", max + 1);
        assert!(names(&refused, "limit"), "{path}: {refused}");
    }
}
