//! The local service accepts nothing its interface forbids. These tests read the served
//! OpenAPI document and probe every input it describes: each enum refuses values it does not
//! list, each number, text and list has a stated ceiling that the service enforces, every
//! query parameter refuses an empty value, and `additionalProperties: false` is stated
//! exactly where the service refuses unknown members.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly on the first surprise")]

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::{raw, start};

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];
const NOT_A_VALUE: &str = "NOT_A_KNOWN_VALUE";

/// A seeded metric, for the routes whose path must name one before the body is read.
const SEEDED_METRIC: &str = "call_duration";

struct Doc(Value);

impl Doc {
    /// Follows `$ref`s to the schema they name.
    fn resolve<'d>(&'d self, schema: &'d Value) -> &'d Value {
        let mut schema = schema;
        while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.rsplit('/').next().unwrap();
            schema = &self.0["components"]["schemas"][name];
            assert!(schema.is_object(), "dangling {reference}");
        }
        schema
    }

    /// Every operation that takes a JSON body: (method, path, body schema).
    fn bodies(&self) -> Vec<(String, String, &Value)> {
        let mut out = Vec::new();
        for (path, item) in self.0["paths"].as_object().unwrap() {
            for method in METHODS {
                let schema = &item[method]["requestBody"]["content"]["application/json"]["schema"];
                if schema.is_object() {
                    out.push((method.to_owned(), path.clone(), schema));
                }
            }
        }
        out
    }
}

/// Where a probe sits: members and array positions from the body's root.
#[derive(Clone, Debug)]
enum Step {
    Member(String),
    Index,
}

fn param(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Member(name) if out.is_empty() => out.push_str(name),
            Step::Member(name) => {
                out.push('.');
                out.push_str(name);
            }
            Step::Index => out.push_str("[0]"),
        }
    }
    out
}

/// What a probe sends, and what it checks.
#[derive(Debug)]
enum Probe {
    /// A value outside the enum.
    Enum,
    /// One character past `maxLength`.
    TooLong(usize),
    /// One past `maximum`.
    TooBig(f64),
    /// One item past `maxItems`.
    TooMany(usize, Value),
    /// A member no schema defines, in an object with `additionalProperties: false` (or not).
    Unknown { strict: bool },
}

/// A minimal value of a schema: enough for its object to decode.
fn minimal(doc: &Doc, schema: &Value, depth: usize) -> Value {
    let schema = doc.resolve(schema);
    if let Some(values) = schema["enum"].as_array() {
        return values[0].clone();
    }
    if let Some(first) =
        schema["oneOf"].as_array().filter(|_| schema.get("properties").is_none()).and_then(|o| o.first())
    {
        return minimal(doc, first, depth);
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec!["object"],
    };
    match types.iter().find(|t| **t != "null").copied().unwrap_or("null") {
        "string" => match schema["format"].as_str() {
            Some("uuid") => json!("4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"),
            Some("date-time") => json!("2024-05-01T09:30:00Z"),
            _ => json!("x"),
        },
        "integer" | "number" => json!(schema["minimum"].as_f64().unwrap_or(0.0).max(0.0) as i64),
        "boolean" => json!(true),
        "array" => json!([]),
        "object" if depth < 4 => {
            let mut object = serde_json::Map::new();
            for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                object.insert(name.to_owned(), minimal(doc, &schema["properties"][name], depth + 1));
            }
            Value::Object(object)
        }
        "object" => json!({}),
        _ => Value::Null,
    }
}

/// Every probe a body schema calls for, with its path.
fn probes(doc: &Doc, schema: &Value, path: Vec<Step>, seen: &mut Vec<String>, out: &mut Vec<(Vec<Step>, Probe)>) {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        // A schema reached again under the same path prefix would recurse forever.
        let key = format!("{}@{}", reference, param(&path));
        if seen.contains(&key) || path.len() > 8 {
            return;
        }
        seen.push(key);
    }
    let schema = doc.resolve(schema);
    // A `oneOf` beside `properties` is a rule between members (`id` or `slug`), not variants.
    if let Some(options) = schema["oneOf"].as_array().filter(|_| schema.get("properties").is_none()) {
        for option in options {
            let option = doc.resolve(option);
            // `edgeCases: "ALL" | [...]` and nullable members: probe the array or the value.
            if option["type"] != "null" && !(option["type"] == "string" && option["enum"].is_array()) {
                probes(doc, option, path.clone(), seen, out);
            }
        }
        if options.iter().any(|o| doc.resolve(o)["enum"].is_array()) && !path.is_empty() {
            out.push((path, Probe::Enum));
        }
        return;
    }
    if schema["enum"].is_array() {
        out.push((path, Probe::Enum));
        return;
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let in_map = path.iter().any(|s| matches!(s, Step::Member(m) if m == "*"));
    if types.contains(&"string") && !in_map {
        let free_text = !matches!(schema["format"].as_str(), Some("uuid" | "date-time"));
        if free_text {
            let max = schema["maxLength"].as_u64();
            assert!(max.is_some(), "{} is free text without maxLength: {schema}", param(&path));
            out.push((path.clone(), Probe::TooLong(max.unwrap() as usize)));
        }
    }
    if (types.contains(&"integer") || types.contains(&"number")) && !in_map {
        let max = schema["maximum"].as_f64();
        assert!(max.is_some(), "{} is a number without maximum: {schema}", param(&path));
        out.push((path.clone(), Probe::TooBig(max.unwrap())));
    }
    if types.contains(&"array") {
        let max = schema["maxItems"].as_u64();
        assert!(max.is_some(), "{} is a list without maxItems: {schema}", param(&path));
        let item = minimal(doc, &schema["items"], 0);
        out.push((path.clone(), Probe::TooMany(max.unwrap() as usize, item)));
        let mut inner = path.clone();
        inner.push(Step::Index);
        probes(doc, &schema["items"], inner, seen, out);
    }
    if let Some(properties) = schema["properties"].as_object() {
        out.push((path.clone(), Probe::Unknown { strict: schema["additionalProperties"] == json!(false) }));
        for (name, member) in properties {
            let mut inner = path.clone();
            inner.push(Step::Member(name.clone()));
            probes(doc, member, inner, seen, out);
        }
    }
}

/// Of a `oneOf` (an array or an object, as a transcript is), the option the next step enters.
fn option_for<'d>(doc: &'d Doc, schema: &'d Value, step: &Step) -> &'d Value {
    let resolved = doc.resolve(schema);
    let fits = |o: &Value| match step {
        Step::Member(name) => o["properties"].get(name).is_some(),
        Step::Index => o["type"] == "array",
    };
    match resolved["oneOf"].as_array() {
        // An option may itself be a `oneOf` (a nullable `edgeCases: "ALL" | [...]`): look inside.
        Some(options) => options.iter().map(|o| option_for(doc, o, step)).find(|o| fits(o)).unwrap_or(resolved),
        None => resolved,
    }
}

/// The schema of the member at the end of `path` (to step through `oneOf`s on the way).
fn unwrap_nullable<'d>(doc: &'d Doc, schema: &'d Value) -> &'d Value {
    let schema = doc.resolve(schema);
    match schema["oneOf"].as_array() {
        Some(options) => options.iter().map(|o| doc.resolve(o)).find(|o| o["type"] != "null").unwrap_or(schema),
        None => schema,
    }
}

fn body_at(doc: &Doc, schema: &Value, path: &[Step], value: Value) -> Value {
    let Some((step, rest)) = path.split_first() else { return value };
    let schema = option_for(doc, schema, step);
    match step {
        Step::Member(name) => {
            let mut object = minimal(doc, schema, 0);
            if !object.is_object() {
                object = json!({});
            }
            object[name] = body_at(doc, &schema["properties"][name], rest, value);
            object
        }
        Step::Index => {
            let array = if schema["type"] == "array" || schema["items"].is_object() {
                schema
            } else {
                schema["oneOf"]
                    .as_array()
                    .unwrap_or_else(|| panic!("no array at {}: {schema}", param(path)))
                    .iter()
                    .map(|o| doc.resolve(o))
                    .find(|o| o["type"] == "array")
                    .unwrap_or_else(|| panic!("no array option at {}: {schema}", param(path)))
            };
            json!([body_at(doc, &array["items"], rest, value)])
        }
    }
}

/// The concrete path of an operation, with ids the body check comes before.
fn concrete(path: &str) -> String {
    let id = if path.contains("/thresholds") { SEEDED_METRIC } else { "4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11" };
    path.replace("{id}", id)
        .replace("{edgeCaseId}", id)
        .replace("{variant}", "default")
        .replace("{key}", "no-such-target")
}

/// Every `param` the 400 names: the top-level one and each violation's.
fn named(body: &Value) -> Vec<String> {
    let mut out: Vec<String> = body["param"].as_str().map(str::to_owned).into_iter().collect();
    for violation in body["details"]["violations"].as_array().into_iter().flatten() {
        out.extend(violation["param"].as_str().map(str::to_owned));
    }
    out
}

struct Sent {
    status: u16,
    body: Value,
}

async fn send(base: &str, key: &str, method: &str, path: &str, body: &Value) -> Sent {
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let bytes = serde_json::to_vec(body).unwrap();
    let (status, body, _) = raw(base, method, &concrete(path), Some(key), Some(bytes)).await;
    Sent { status, body }
}

#[tokio::test]
async fn every_input_refuses_what_its_schema_forbids_and_names_the_field() {
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (_, document, _) = raw(&base, Method::GET, "/openapi.json", None, None).await;
    let doc = Doc(document);
    let mut failures = Vec::new();
    let mut counts = [0usize; 5];
    for (method, path, schema) in doc.bodies() {
        // The reference agent's stand-in is a demo, not part of the interface.
        if path == "/demo/agent" {
            continue;
        }
        let mut found = Vec::new();
        probes(&doc, schema, Vec::new(), &mut Vec::new(), &mut found);
        for (at, probe) in found {
            let (value, kind) = match &probe {
                Probe::Enum => (json!(NOT_A_VALUE), 0),
                Probe::TooLong(max) => (json!("é".repeat(max + 1)), 1),
                Probe::TooBig(max) => (json!(max + 1.0), 2),
                Probe::TooMany(max, item) => (Value::Array(vec![item.clone(); max + 1]), 3),
                Probe::Unknown { .. } => (json!({"zzUnknownMember": 1}), 4),
            };
            let (body, expected) = match &probe {
                Probe::Unknown { .. } => {
                    let mut object = body_at(&doc, schema, &at, json!({}));
                    let target = at.iter().fold(&mut object, |v, step| match step {
                        Step::Member(name) => &mut v[name],
                        Step::Index => &mut v[0],
                    });
                    if !target.is_object() {
                        *target = json!({});
                    }
                    target["zzUnknownMember"] = json!(1);
                    let mut expected = at.clone();
                    expected.push(Step::Member("zzUnknownMember".into()));
                    (object, param(&expected))
                }
                _ => (body_at(&doc, schema, &at, value), param(&at)),
            };
            counts[kind] += 1;
            let sent = send(&base, &key, &method, &path, &body).await;
            let names = named(&sent.body);
            let refused = sent.status == 400 && names.contains(&expected);
            let ok = match probe {
                Probe::Unknown { strict } => refused == strict,
                _ => refused,
            };
            if !ok {
                failures.push(format!(
                    "{method} {path} {expected} ({probe:?}): {} {}\n    sent {}",
                    sent.status,
                    sent.body,
                    serde_json::to_string(&body).unwrap().chars().take(300).collect::<String>()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} inputs let through what the schema forbids:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The walk reached the inputs the issue names, and every kind of probe ran.
    eprintln!("probes per kind (enum, text, number, list, unknown): {counts:?}");
    assert!(counts.iter().all(|n| *n > 5), "probes per kind (enum, text, number, list, unknown): {counts:?}");
}

#[tokio::test]
async fn every_query_parameter_refuses_an_empty_value_and_values_outside_its_schema() {
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (_, document, _) = raw(&base, Method::GET, "/openapi.json", None, None).await;
    let doc = Doc(document);
    let mut failures = Vec::new();
    let mut probed = 0;
    for (path, item) in doc.0["paths"].as_object().unwrap() {
        for parameter in item["get"]["parameters"].as_array().into_iter().flatten() {
            if parameter["in"] != "query" {
                continue;
            }
            let name = parameter["name"].as_str().unwrap();
            let schema = unwrap_nullable(&doc, &parameter["schema"]);
            let mut values = vec![String::new()];
            if schema["enum"].is_array() {
                values.push(NOT_A_VALUE.into());
            }
            if let Some(max) = schema["maximum"].as_i64() {
                values.push((max + 1).to_string());
            }
            if schema["format"] == "uuid" || schema["format"] == "date-time" {
                values.push("2024-05-01".into());
            }
            for value in values {
                probed += 1;
                let required: String = item["get"]["parameters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|p| p["required"] == true && p["in"] == "query" && p["name"] != name)
                    .map(|p| format!("&{}=x", p["name"].as_str().unwrap()))
                    .collect();
                let url = format!("{}?{name}={value}{required}", concrete(path));
                let (status, body, _) = raw(&base, Method::GET, &url, Some(&key), None).await;
                if status != 400 || body["param"] != name {
                    failures.push(format!("GET {url}: {status} {body}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "query parameters accepted what they should not:\n{}", failures.join("\n"));
    assert!(probed > 30, "only {probed} probes");
}

#[tokio::test]
async fn a_run_that_would_create_too_many_simulations_is_refused_before_anything_is_written() {
    use switchboard::api::model::run_plan_limits::{ITERATION_COUNT_MAX, SIMULATIONS_PER_RUN_MAX};
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let endpoints: Vec<Value> = support::seed("agent_endpoints").as_array().unwrap().iter().take(2).cloned().collect();
    let flows = support::seeded("customer_flows", |f| f["type"] != "VOICEMAIL" && f["happyPath"].is_object());
    // Every test case of the flows on two endpoints at the most iterations: more than the cap.
    let test_cases: i64 = flows.iter().map(|f| 1 + f["edgeCases"].as_array().map_or(0, Vec::len) as i64).sum();
    assert!(2 * test_cases * ITERATION_COUNT_MAX > SIMULATIONS_PER_RUN_MAX, "{test_cases} test cases");
    let plan = json!({
        "name": "too big",
        "direction": "INBOUND",
        "iterationCount": ITERATION_COUNT_MAX,
        "maxSimulationDurationSeconds": 60,
        "flows": flows.iter().map(|f| json!({"id": f["id"], "happyPath": true, "edgeCases": "ALL"})).collect::<Vec<_>>(),
        "agentEndpoints": endpoints.iter().map(|e| json!({"id": e["id"]})).collect::<Vec<_>>(),
        "metrics": [{"slug": "call_duration"}],
    });
    let jobs_before =
        raw(&base, Method::GET, "/v1/simulation/plan/jobs", Some(&key), None).await.1["pagination"]["total"].clone();
    let plans_before =
        raw(&base, Method::GET, "/v1/simulation/plan", Some(&key), None).await.1["pagination"]["total"].clone();
    let body = serde_json::to_vec(&json!({"plan": plan, "saveAsPlan": true})).unwrap();
    let (status, answer, _) = raw(&base, Method::POST, "/v1/simulation/run", Some(&key), Some(body)).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["param"], "plan.iterationCount", "{answer}");
    assert!(answer["message"].as_str().unwrap().contains(&SIMULATIONS_PER_RUN_MAX.to_string()), "{answer}");
    // The same plan created with autoRun.
    let mut auto = plan.clone();
    auto["autoRun"] = json!(true);
    let body = serde_json::to_vec(&auto).unwrap();
    let (status, answer, _) = raw(&base, Method::POST, "/v1/simulation/plan", Some(&key), Some(body)).await;
    assert_eq!((status, answer["param"].as_str()), (400, Some("iterationCount")), "{answer}");
    // Nothing was written: no plan saved, no job started.
    let jobs_after =
        raw(&base, Method::GET, "/v1/simulation/plan/jobs", Some(&key), None).await.1["pagination"]["total"].clone();
    let plans_after =
        raw(&base, Method::GET, "/v1/simulation/plan", Some(&key), None).await.1["pagination"]["total"].clone();
    assert_eq!((jobs_before, plans_before), (jobs_after, plans_after));
}

#[tokio::test]
async fn every_rfc_3339_date_time_is_accepted_and_nothing_else() {
    let service = start(false).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let call = |started: &str| {
        serde_json::to_vec(&json!({
            "startedAt": started,
            "transcript": {"entries": [{"startOffsetMs": 0, "endOffsetMs": 500, "text": "hi", "role": "AGENT"}]},
        }))
        .unwrap()
    };
    for ok in ["9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2024-02-29T12:00:00.5+14:00", "2016-12-31T23:59:60Z"] {
        let (status, body, _) = raw(&base, Method::POST, "/v1/call", Some(&key), Some(call(ok))).await;
        assert_eq!(status, 201, "{ok}: {body}");
        assert_eq!(body["data"]["startedAt"], ok);
    }
    for bad in ["2024-05-01", "2024-05-01T09:30:00", "2023-02-29T00:00:00Z", "yesterday"] {
        let (status, body, _) = raw(&base, Method::POST, "/v1/call", Some(&key), Some(call(bad))).await;
        assert_eq!((status, body["param"].as_str()), (400, Some("startedAt")), "{bad}: {body}");
    }
    let (status, body, _) =
        raw(&base, Method::GET, "/v1/call?startedAfter=9999-12-31T23:59:59Z", Some(&key), None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pagination"]["total"], 1, "only the call at the end of time starts at or after it: {body}");
    assert_eq!(body["data"][0]["startedAt"], "9999-12-31T23:59:59Z");
    let (status, body, _) =
        raw(&base, Method::GET, "/v1/call?startedBefore=2017-01-01T00:00:00Z", Some(&key), None).await;
    assert_eq!(
        (status, body["pagination"]["total"].as_u64()),
        (200, Some(2)),
        "year 0 and the 2016 leap second: {body}"
    );
}

#[tokio::test]
async fn a_cursor_the_service_did_not_issue_is_refused() {
    let service = start(true).await;
    let key = format!("Bearer {}", service.running.api_key.expose());
    for cursor in ["c-1", "nonsense", "c99999999999999999999999"] {
        let path = format!("/v1/persona?cursor={cursor}");
        let (status, body, _) = raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
        assert_eq!((status, body["param"].as_str()), (400, Some("cursor")), "{cursor}: {body}");
    }
}

#[tokio::test]
async fn after_pages_as_cursor_does_and_the_two_may_not_disagree() {
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (_, first, _) = raw(&base, Method::GET, "/v1/persona?limit=2", Some(&key), None).await;
    let next = first["pagination"]["nextCursor"].as_str().expect("a second page").to_owned();
    let (_, by_cursor, _) =
        raw(&base, Method::GET, &format!("/v1/persona?limit=2&cursor={next}"), Some(&key), None).await;
    let (status, by_after, _) =
        raw(&base, Method::GET, &format!("/v1/persona?limit=2&after={next}"), Some(&key), None).await;
    assert_eq!(status, 200, "{by_after}");
    assert_eq!(by_after["data"], by_cursor["data"], "after is the same page as cursor");
    assert_ne!(by_after["data"], first["data"], "after moves on from the first page");
    let path = format!("/v1/persona?limit=2&cursor={next}&after=c-1");
    let (status, body, _) = raw(&base, Method::GET, &path, Some(&key), None).await;
    assert_eq!((status, body["param"].as_str()), (400, Some("after")), "{body}");
}

#[tokio::test]
async fn a_threshold_without_slug_or_name_gets_a_slug_from_its_source() {
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    let path = format!("/v1/metric/definitions/{SEEDED_METRIC}/thresholds");
    let body = serde_json::to_vec(&json!({"operator": "GREATER_THAN", "value": "60"})).unwrap();
    let (status, first, _) = raw(&base, Method::POST, &path, Some(&key), Some(body.clone())).await;
    assert_eq!(status, 201, "{first}");
    assert_eq!(first["data"]["slug"], "call_duration_gt_60");
    let (status, second, _) = raw(&base, Method::POST, &path, Some(&key), Some(body)).await;
    assert_eq!(status, 201, "{second}");
    assert_eq!(second["data"]["slug"], "call_duration_gt_60_2", "a second one gets the next free slug");
    let body = serde_json::to_vec(&json!({"operator": "LESS_THAN_OR_EQUALS", "value": "0.5"})).unwrap();
    let (_, third, _) = raw(&base, Method::POST, &path, Some(&key), Some(body)).await;
    assert_eq!(third["data"]["slug"], "call_duration_lte_0_5");
}

#[tokio::test]
async fn a_threshold_on_an_unknown_metric_is_404_whatever_the_body() {
    let service = start(true).await;
    let base = service.base_url();
    let key = format!("Bearer {}", service.running.api_key.expose());
    for body in [b"{}".to_vec(), b"not json".to_vec(), br#"{"operator":"NOPE","value":""}"#.to_vec(), Vec::new()] {
        for metric in ["no_such_metric", "4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"] {
            let path = format!("/v1/metric/definitions/{metric}/thresholds");
            let (status, answer, _) = raw(&base, Method::POST, &path, Some(&key), Some(body.clone())).await;
            assert_eq!(status, 404, "{metric} {:?}: {answer}", String::from_utf8_lossy(&body));
            assert_eq!(answer["type"], "not_found");
        }
    }
}
