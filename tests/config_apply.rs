//! Config as code against the real local service: the documented bundle applies as written,
//! diff answers what apply does, re-applying changes nothing, updates name their members, a
//! partial second bundle prunes the first (and nothing else), every refusal lists every problem
//! and writes nothing, and a bundle of every kind comes back the same through the mappings.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, raw, start};
use switchboard::api::model::config::export::{self, Names};
use switchboard::api::model::config::{ConfigResource, PlanAgentEndpointConfig};
use switchboard::api::model::*;

/// The JSON bundle of docs/config.md, as the file has it.
fn documented_bundle() -> Value {
    let text = std::fs::read_to_string(format!("{}/docs/config.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let block = text.split("```json\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    serde_json::from_str(block).unwrap()
}

async fn call(service: &Service, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), bytes).await;
    (status, value)
}

async fn apply(service: &Service, bundle: &Value) -> (u16, Value) {
    call(service, Method::POST, "/v1/config/apply", Some(bundle)).await
}

async fn diff(service: &Service, bundle: &Value) -> (u16, Value) {
    call(service, Method::POST, "/v1/config/diff", Some(bundle)).await
}

/// Every resource a list route answers, read through all its pages.
async fn all(service: &Service, path: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = match &cursor {
            Some(c) => format!("{path}?limit=50&cursor={c}"),
            None => format!("{path}?limit=50"),
        };
        let (status, body) = call(service, Method::GET, &page, None).await;
        assert_eq!(status, 200, "{page}: {body}");
        out.extend(body["data"].as_array().unwrap().iter().cloned());
        match body["pagination"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return out,
        }
    }
}

/// What the workspace holds, counted, to show a refused bundle wrote nothing.
async fn census(service: &Service) -> Vec<usize> {
    let mut counts = Vec::new();
    for path in ["/v1/agent", "/v1/persona", "/v1/customer-flow", "/v1/metric/definitions", "/v1/simulation/plan"] {
        counts.push(all(service, path).await.len());
    }
    counts
}

fn summary(body: &Value) -> (u64, u64, u64, u64, u64) {
    let s = &body["data"]["summary"];
    let n = |m: &str| s[m].as_u64().unwrap();
    (n("create"), n("update"), n("delete"), n("noop"), n("failed"))
}

fn change<'b>(body: &'b Value, key: &str) -> &'b Value {
    body["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["configKey"] == key)
        .unwrap_or_else(|| panic!("no {key} in {body}"))
}

fn violations(body: &Value) -> Vec<(String, String)> {
    body["details"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["configKey"].as_str().unwrap().to_owned(), v["param"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn the_documented_bundle_applies_as_written_diff_says_so_first_and_a_second_apply_changes_nothing() {
    let service = start(true).await;
    let bundle = documented_bundle();
    let (status, planned) = diff(&service, &bundle).await;
    assert_eq!(status, 200, "{planned}");
    let before = census(&service).await;
    assert_eq!(census(&service).await, before, "a diff writes nothing");
    let (status, applied) = apply(&service, &bundle).await;
    assert_eq!(status, 200, "{applied}");
    // Diff answered what apply did (ids of new resources aside).
    let strip = |body: &Value| {
        body["data"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["configKey"].clone(), c["op"].clone(), c["status"].clone(), c["detail"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&planned), strip(&applied));
    assert_eq!(summary(&applied), (11, 0, 0, 0, 0), "{applied}");
    let skipped = change(&applied, "dashboard/front-desk-overview");
    assert_eq!(skipped["status"], "skipped");
    assert!(skipped["detail"].as_str().unwrap().contains("does not keep"));
    assert!(change(&applied, "httpRequestDefinition/front-desk-dial")["signingSecret"].is_string());
    // The resources are there, in their own routes.
    let plan_id = change(&applied, "simulationPlan/nightly-front-desk")["id"].as_str().unwrap().to_owned();
    let (status, plan) = call(&service, Method::GET, &format!("/v1/simulation/plan/{plan_id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(plan["data"]["schedule"], json!({"type": "daily", "time": "02:00", "timezone": "Europe/Berlin"}));
    assert_eq!(plan["data"]["isConfigManaged"], true);
    let flows = all(&service, "/v1/customer-flow").await;
    let improv = flows.iter().find(|f| f["title"] == "late-for-work").unwrap();
    assert_eq!(improv["edgeCases"][0]["environment"]["name"], "Open-plan office");
    assert_eq!(improv["happyPath"]["personaOverride"]["name"], "busy-parent");
    // Again: nothing to do.
    let (status, again) = apply(&service, &bundle).await;
    assert_eq!(status, 200);
    assert_eq!(summary(&again), (0, 0, 0, 11, 0), "{again}");
    let (_, diffed) = diff(&service, &bundle).await;
    assert_eq!(summary(&diffed), (0, 0, 0, 11, 0));
}

#[tokio::test]
async fn an_update_names_the_members_that_change_old_and_new() {
    let service = start(true).await;
    let mut bundle = documented_bundle();
    assert_eq!(apply(&service, &bundle).await.0, 200);
    let resources = bundle["resources"].as_array_mut().unwrap();
    let metric = resources.iter_mut().find(|r| r["name"] == "confirms_time").unwrap();
    metric["prompt"] = json!("Did the agent say the new time back?");
    let (_, diffed) = diff(&service, &bundle).await;
    let detail = change(&diffed, "metric/confirms_time")["detail"].as_str().unwrap().to_owned();
    assert_eq!(change(&diffed, "metric/confirms_time")["op"], "update");
    assert!(
        detail.contains("prompt") && detail.contains("read back") && detail.contains("say the new time back"),
        "{detail}"
    );
    let (_, applied) = apply(&service, &bundle).await;
    assert_eq!(summary(&applied), (0, 1, 0, 10, 0), "{applied}");
    assert_eq!(change(&applied, "metric/confirms_time")["detail"].as_str().unwrap(), detail);
    let (_, metric) = call(&service, Method::GET, "/v1/metric/definitions/confirms_time", None).await;
    assert_eq!(metric["data"]["llmPrompt"], "Did the agent say the new time back?");
    assert_eq!(metric["data"]["version"], 2);
}

#[tokio::test]
async fn a_second_partial_bundle_prunes_the_first_and_never_what_others_made() {
    let service = start(true).await;
    let seeded_before = census(&service).await;
    // A persona made through its route, with a name the bundle never uses.
    let own = json!({"name": "made-by-hand", "accent": "GB", "gender": "MALE", "language": "EN"});
    assert_eq!(call(&service, Method::POST, "/v1/persona", Some(&own)).await.0, 201);
    assert_eq!(apply(&service, &documented_bundle()).await.0, 200);
    let partial = json!({"resources": [
        {"kind": "persona", "name": "busy-parent", "displayName": "Busy parent", "accent": "US", "gender": "FEMALE",
         "language": "EN", "baseEmotion": "RUSHED"}
    ]});
    let (_, kept) = apply(&service, &json!({"resources": partial["resources"], "prune": false})).await;
    assert_eq!(summary(&kept), (0, 0, 0, 1, 0), "prune false deletes nothing: {kept}");
    let (_, planned) = diff(&service, &partial).await;
    assert_eq!(summary(&planned).2, 10, "the diff shows the deletes first: {planned}");
    let (status, pruned) = apply(&service, &partial).await;
    assert_eq!(status, 200, "{pruned}");
    assert_eq!(summary(&pruned), (0, 0, 10, 1, 0), "{pruned}");
    assert_eq!(change(&pruned, "flow/late-for-work")["op"], "delete");
    // Back to the seeded world plus the persona made by hand and the one the bundle keeps.
    let mut expected = seeded_before.clone();
    expected[1] += 2;
    assert_eq!(census(&service).await, expected);
    let personas = all(&service, "/v1/persona").await;
    assert!(personas.iter().any(|p| p["name"] == "made-by-hand"));
    // An empty bundle prunes the rest, and nothing seeded.
    let (_, emptied) = apply(&service, &json!({"resources": []})).await;
    assert_eq!(summary(&emptied), (0, 0, 1, 0, 0));
    let mut expected = seeded_before;
    expected[1] += 1;
    assert_eq!(census(&service).await, expected);
}

#[tokio::test]
async fn every_problem_is_refused_at_once_and_nothing_is_written() {
    let service = start(true).await;
    let before = census(&service).await;
    let bundle = json!({"resources": [
        {"kind": "gadget", "name": "x"},
        {"kind": "persona", "name": "p", "accent": "MARS", "gender": "FEMALE", "language": "EN", "shoeSize": 9},
        {"kind": "persona", "name": "p", "accent": "US", "gender": "FEMALE", "language": "EN"},
        {"kind": "persona", "name": "q", "accent": "US", "language": "EN"},
        {"kind": "flow", "type": "scripted", "name": "loop", "graph": [
            {"type": "AGENT_TURN", "ref": "a", "content": "hello",
             "steps": [{"type": "CUSTOMER_TURN", "ref": "b", "content": "hi", "mergeInto": ["a"]}]},
            {"type": "VOICEMAIL", "ref": "c"},
            {"type": "CUSTOMER_TURN", "ref": "d", "offScript": {"reaction": "REPEAT"}, "mergeInto": ["nowhere"]}
        ]},
        {"kind": "flow", "type": "improv", "name": "i", "agents": ["nobody"],
         "happyPath": {"persona": "ghost", "environment": "Moon base"}},
        {"kind": "simulationPlan", "name": "plan", "direction": "SIDEWAYS", "maxDurationSeconds": 60,
         "agentEndpoints": [{"agent": "nobody"}], "flows": [{"flow": "missing"}], "metrics": ["no_such_metric"],
         "schedule": {"type": "daily", "minute": 5}}
    ]});
    let (status, refused) = apply(&service, &bundle).await;
    assert_eq!(status, 400, "{refused}");
    let found = violations(&refused);
    let expect = [
        ("gadget/x", "resources[0].kind"),
        ("persona/p", "resources[1].accent"),
        ("persona/p", "resources[1].shoeSize"),
        ("persona/p", "resources[2].name"),
        ("persona/q", "resources[3].gender"),
        ("flow/loop", "resources[4].graph"),
        ("flow/loop", "resources[4].graph[1].type"),
        ("flow/loop", "resources[4].graph[2].offScript"),
        ("flow/loop", "resources[4].graph[2].mergeInto[0]"),
        ("flow/i", "resources[5].agents[0]"),
        ("flow/i", "resources[5].happyPath.persona"),
        ("flow/i", "resources[5].happyPath.environment"),
        ("simulationPlan/plan", "resources[6].direction"),
        ("simulationPlan/plan", "resources[6].agentEndpoints[0].agent"),
        ("simulationPlan/plan", "resources[6].flows[0].flow"),
        ("simulationPlan/plan", "resources[6].metrics[0]"),
        ("simulationPlan/plan", "resources[6].schedule.minute"),
        ("simulationPlan/plan", "resources[6].schedule.time"),
    ];
    for (key, param) in expect {
        assert!(found.contains(&(key.to_owned(), param.to_owned())), "no {key} {param} in {found:?}");
    }
    assert!(
        refused["details"]["violations"].as_array().unwrap().iter().all(|v| !v["message"].as_str().unwrap().is_empty())
    );
    // Diff refuses the same, and nothing was written either way.
    let (status, diffed) = diff(&service, &bundle).await;
    assert_eq!(status, 400);
    assert_eq!(violations(&diffed), found);
    assert_eq!(census(&service).await, before);
}

#[tokio::test]
async fn each_refusal_alone_writes_nothing() {
    let service = start(true).await;
    let persona = json!({"kind": "persona", "name": "ok", "accent": "US", "gender": "MALE", "language": "EN"});
    let cases = [
        (json!({"kind": "gadget", "name": "x"}), "resources[1].kind"),
        (
            json!({"kind": "persona", "name": "ok", "accent": "US", "gender": "MALE", "language": "EN"}),
            "resources[1].name",
        ),
        (
            json!({"kind": "persona", "name": "p2", "accent": "US", "gender": "MALE", "language": "EN", "extra": 1}),
            "resources[1].extra",
        ),
        (
            json!({"kind": "persona", "name": "p3", "accent": "US", "gender": "X", "language": "EN"}),
            "resources[1].gender",
        ),
        (
            json!({"kind": "flow", "type": "improv", "name": "f", "agents": [], "happyPath": {"persona": "nobody", "environment": "Quiet home"}}),
            "resources[1].happyPath.persona",
        ),
        (
            json!({"kind": "flow", "type": "scripted", "name": "v", "graph": [{"type": "VOICEMAIL"}]}),
            "resources[1].graph[0].type",
        ),
        (
            json!({"kind": "flow", "type": "scripted", "name": "c", "graph": [
            {"type": "AGENT_TURN", "ref": "a", "steps": [{"type": "CUSTOMER_TURN", "ref": "b", "mergeInto": ["a"]}]}]}),
            "resources[1].graph",
        ),
    ];
    let before = census(&service).await;
    for (bad, param) in cases {
        let (status, refused) = apply(&service, &json!({"resources": [persona, bad]})).await;
        assert_eq!(status, 400, "{bad}: {refused}");
        assert!(violations(&refused).iter().any(|(_, p)| p == param), "{param} not in {refused}");
        assert_eq!(census(&service).await, before, "{bad} wrote something");
    }
}

#[tokio::test]
async fn a_delete_an_unfinished_job_needs_is_refused_and_reported() {
    let service = start(true).await;
    // The plan runs the scripted flow alone: improv flows need a caller model this service lacks.
    let mut bundle = documented_bundle();
    let resources = bundle["resources"].as_array_mut().unwrap();
    let plan = resources.iter_mut().find(|r| r["kind"] == "simulationPlan").unwrap();
    plan["flows"] = json!([{"flow": "refill-happy-path"}]);
    assert_eq!(apply(&service, &bundle).await.0, 200);
    let plans = all(&service, "/v1/simulation/plan").await;
    let plan = plans.iter().find(|p| p["name"] == "nightly-front-desk").unwrap();
    // A job of the plan, left PENDING: the agent it calls never answers within the test.
    let (status, started) =
        call(&service, Method::POST, "/v1/simulation/run", Some(&json!({"planId": plan["id"]}))).await;
    assert!(status == 200 || status == 201, "{started}");
    let job = started["data"]["simulationRunPlanJobId"].as_str().unwrap().to_owned();
    let (_, read) = call(&service, Method::GET, &format!("/v1/simulation/plan/job/{job}"), None).await;
    let open = !matches!(read["data"]["status"].as_str(), Some("COMPLETED" | "FAILED" | "CANCELLED" | "TIMED_OUT"));
    let (status, pruned) = apply(&service, &json!({"resources": []})).await;
    assert_eq!(status, 200, "{pruned}");
    eprintln!("the job was {} when the prune ran", if open { "open" } else { "done" });
    if open {
        let refused = change(&pruned, "simulationPlan/nightly-front-desk");
        assert_eq!(refused["status"], "failed", "{pruned}");
        assert!(refused["error"].as_str().unwrap().contains("in use"));
        assert!(summary(&pruned).4 >= 1);
        let (status, _) =
            call(&service, Method::GET, &format!("/v1/simulation/plan/{}", plan["id"].as_str().unwrap()), None).await;
        assert_eq!(status, 200, "the plan is kept");
    }
}

/// A bundle of every kind, written as the mappings give it back (every default spelt out).
fn every_kind(environment: &str) -> Value {
    json!({"resources": [
        {"kind": "httpRequestDefinition", "name": "dial", "url": "https://agent.example/dial", "method": "PUT",
         "body": "{\"a\": 1}", "description": "dials", "headers": {"Accept": "application/json"}},
        {"kind": "agent", "name": "desk", "description": "front desk", "customId": "desk-1", "prompt": "You are a desk.",
         "endpoints": [{"value": "+15550108001", "type": "PHONE", "direction": "INCOMING_AND_OUTGOING",
                        "environment": "staging", "outboundDialType": "HTTP_REQUEST",
                        "outboundDialHttpRequestDefinition": "dial"}]},
        {"kind": "persona", "name": "caller", "displayName": "A caller", "description": "calls",
         "accent": "GB", "gender": "MALE", "language": "EN", "age": "ELDERLY", "backgroundNoise": "CITY",
         "backstoryPrompt": "Retired.", "baseEmotion": "ANXIOUS", "confirmationStyle": "VAGUE", "hasDisfluencies": true,
         "idleMessageMaxSpokenCount": 2, "idleMessageResetCountOnUserSpeechEnabled": false, "idleMessages": ["Hello?"],
         "idleTimeoutSeconds": 12, "intentClarity": "INDIRECT", "interruption": "HEAVY", "memoryReliability": "LOW",
         "properties": {"pin": "1234"}, "responseTiming": "RELAXED", "secondaryLanguage": "EN",
         "speechClarity": "RAMBLING", "speechPace": "SLOW", "understoodLanguages": ["EN", "ES"]},
        {"kind": "metric", "name": "kind_words", "displayName": "Kind words", "prompt": "Was the agent kind?",
         "type": "CLASSIFICATION", "contexts": ["TURN"], "maxSelections": 1, "participantRole": "AGENT", "scope": "PER_PARTICIPANT",
         "options": [{"displayOrder": 0, "label": "kind", "description": "warm"}, {"displayOrder": 1, "label": "curt"}]},
        {"kind": "metric", "name": "rating", "prompt": "Rate it.", "type": "SCALE", "contexts": ["CALL"], "scope": "GLOBAL",
         "scaleMin": 1, "scaleMax": 3, "scaleLabels": [{"displayOrder": 0, "label": "bad", "rangeMin": 1.0, "rangeMax": 2.0, "colorHex": "#ff0000"}]},
        {"kind": "metric", "name": "said_bye", "prompt": "Did it say bye?", "type": "BOOLEAN", "contexts": ["CALL"],
         "scope": "GLOBAL", "trueLabel": "yes", "falseLabel": "no"},
        {"kind": "flow", "type": "scripted", "name": "script", "title": "A script", "description": "scripted",
         "agents": ["desk"], "adherence": "STRICT", "branchingMode": "ADAPTIVE", "expectations": ["Be brief."],
         "offScript": {"reaction": "SAY", "sayLine": "Back to it.", "maxAttempts": 1, "then": "HANG_UP", "waitSeconds": 3},
         "graph": [
           {"type": "CUSTOMER_FIRST_MESSAGE", "ref": "open", "content": "Hi", "stage": "opening"},
           {"type": "AGENT_TURN", "ref": "ask", "content": "Agent asks", "stage": {"name": "core", "required": true},
            "offScript": {"reaction": "STAY_SILENT", "maxAttempts": 2, "then": "MOVE_ON"},
            "steps": [
              {"type": "CUSTOMER_SILENCE", "ref": "quiet", "silenceDurationSeconds": 4, "mergeInto": ["end"]},
              {"type": "CUSTOMER_DTMF", "ref": "keys", "dtmfDigits": "12#"},
              {"type": "CUSTOMER_HANDOFF", "ref": "pass", "handoffPersona": "caller"}
            ]},
           {"type": "SCENARIO_LINK", "ref": "more", "flow": "improvised"},
           {"type": "CUSTOMER_VERBATIM_TURN", "ref": "end", "content": "Bye"}
         ]},
        {"kind": "flow", "type": "improv", "name": "improvised", "title": "Improvised", "description": "improv",
         "agents": ["desk"], "expectations": ["Stay calm."],
         "happyPath": {"persona": "caller", "environment": environment, "prompt": "Book a visit.",
                       "expectations": ["Offers a slot."], "title": "Books"},
         "edgeCases": [{"name": "angry", "prompt": "Complain.", "expectations": ["Apologises."],
                        "includeFlowExpectations": false, "title": "An angry caller"}]},
        {"kind": "collector", "name": "calls", "displayName": "All calls", "modality": "call", "status": "INACTIVE",
         "metrics": ["said_bye", {"metric": "kind_words", "excludedPhrases": ["um"]}],
         "filters": [{"conditions": [{"key": "direction", "type": "CALL_PROPERTY", "operator": "EQUALS", "value": "INBOUND"}]},
                     {"conditions": [{"key": "agentId", "type": "AGENT", "operator": "EQUALS", "value": "desk"}]}]},
        {"kind": "simulationPlan", "name": "weekly", "description": "every week", "direction": "OUTBOUND",
         "agentEndpoints": [{"agent": "desk", "direction": "INCOMING_AND_OUTGOING", "value": "+15550108001"}],
         "flows": [{"flow": "improvised", "happyPath": false, "edgeCases": ["angry"], "personaOverride": "caller"},
                   {"flow": "script", "happyPath": true}],
         "maxDurationSeconds": 120, "metrics": ["said_bye"], "endCallPhrases": ["bye"], "endCallReasons": ["done"],
         "enrichWithLiveConversation": false, "executionMode": "SEQUENTIAL_SAME_RUN_PLAN",
         "includeAutomaticMetrics": false, "includeFlowMetrics": false, "iterations": 2, "maxConcurrentJobs": 3,
         "maxNoResponseRetries": 1, "noResponseRetryBackoffSeconds": 45, "silenceTimeoutSeconds": 20,
         "schedule": {"type": "weekly", "days": ["monday", "friday"], "time": "07:30", "timezone": "UTC",
                      "enabled": true, "endDate": "2027-12-31", "maxRuns": 10}},
        {"kind": "tool", "name": "lookup", "agent": "desk", "description": "finds", "expectedResult": "a row",
         "invocationCriteria": "when asked", "handler": {"type": "http", "url": "https://agent.example/t", "method": "POST"},
         "parameters": {"id": "number", "vip": "boolean"}},
        {"kind": "alert", "name": "slow", "displayName": "Too slow", "enabled": false,
         "trigger": {"type": "threshold", "metric": "rating", "aggregation": "MEAN", "operator": "LT",
                     "thresholdValue": 2.0, "windowMinutes": 60, "grouping": "BY_AGENT"},
         "actions": {"webhooks": ["https://hooks.example/a"], "slack": [{"channelId": "C1", "channelName": "alerts"}]}}
    ]})
}

#[tokio::test]
async fn a_bundle_of_every_kind_comes_back_the_same_through_the_mappings() {
    let service = start(false).await;
    let environment = json!({"name": "Quiet lab", "backgroundNoise": "LIBRARY", "backgroundNoiseVolume": 0.2});
    assert_eq!(call(&service, Method::POST, "/v1/simulation/environment", Some(&environment)).await.0, 201);
    let bundle = every_kind("Quiet lab");
    let (status, applied) = apply(&service, &bundle).await;
    assert_eq!(status, 200, "{applied}");
    assert_eq!(summary(&applied).0, 12, "{applied}");
    assert_eq!(summary(&apply(&service, &bundle).await.1), (0, 0, 0, 12, 0), "a second apply changes nothing");

    // Read back through the routes, decoded as the interface's types, mapped to the bundle.
    let decode = |v: &Value| -> Vec<Value> { v.as_array().cloned().unwrap_or_default() };
    let agents: Vec<Agent> =
        all(&service, "/v1/agent").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let endpoints: Vec<AgentEndpoint> =
        all(&service, "/v1/agent/endpoint").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let personas: Vec<Persona> =
        all(&service, "/v1/persona").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let flows: Vec<CustomerFlow> =
        all(&service, "/v1/customer-flow").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let metrics: Vec<MetricDefinition> = all(&service, "/v1/metric/definitions")
        .await
        .iter()
        .map(|a| serde_json::from_value(a.clone()).unwrap())
        .collect();
    let policies: Vec<MetricPolicy> =
        all(&service, "/v1/metric/policies").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let plans: Vec<RunPlan> =
        all(&service, "/v1/simulation/plan").await.iter().map(|a| serde_json::from_value(a.clone()).unwrap()).collect();
    let definitions: Vec<HttpRequestDefinition> = all(&service, "/v1/http-request-definition")
        .await
        .iter()
        .map(|a| serde_json::from_value(a.clone()).unwrap())
        .collect();
    let environments = all(&service, "/v1/simulation/environment").await;
    let _ = decode;

    let mut names = Names::default();
    names.agents.extend(agents.iter().map(|a| (a.id, a.name.clone().unwrap())));
    names.personas.extend(personas.iter().map(|p| (p.id, p.fields.name.clone().unwrap())));
    names.definitions.insert(definitions[0].id, "dial".into());
    let flow_name = |f: &CustomerFlow| if f.title.as_deref() == Some("A script") { "script" } else { "improvised" };
    names.flows.extend(flows.iter().map(|f| (f.id, flow_name(f).to_owned())));
    for f in &flows {
        names.edge_cases.extend(f.edge_cases.iter().map(|e| (e.id, e.name.clone().unwrap())));
    }
    for e in &environments {
        names.environments.insert(e["id"].as_str().unwrap().parse().unwrap(), e["name"].as_str().unwrap().into());
    }
    for e in &endpoints {
        let agent = names.agents[&e.agent_id.unwrap()].clone();
        names.endpoints.insert(
            e.id,
            PlanAgentEndpointConfig {
                agent: Some(agent),
                direction: e.direction.clone(),
                value: e.value.clone(),
                ..Default::default()
            },
        );
    }
    let slugs = metrics.iter().map(|m| (m.id, m.slug.clone().unwrap())).collect();
    let mut exported: Vec<Value> = Vec::new();
    exported.push(
        ConfigResource::HttpRequestDefinition(export::http_request_definition(
            &definitions[0],
            [("Accept".to_owned(), "application/json".to_owned())].into(),
            "dial",
        ))
        .to_value(),
    );
    let desk = &agents[0];
    exported.push(ConfigResource::Agent(export::agent(desk, &endpoints, "desk", &names)).to_value());
    exported.push(ConfigResource::Persona(export::persona(&personas[0])).to_value());
    for slug in ["kind_words", "rating", "said_bye"] {
        let metric = metrics.iter().find(|m| m.slug.as_deref() == Some(slug)).unwrap();
        exported.push(ConfigResource::Metric(export::metric(metric)).to_value());
    }
    for name in ["script", "improvised"] {
        let flow = flows.iter().find(|f| flow_name(f) == name).unwrap();
        exported.push(export::flow(flow, name, &names).to_value());
    }
    // An AGENT condition names its agent in the bundle; the policy keeps the id calls carry.
    let by_agent = &policies[0].conditions[1].conditions[0];
    assert_eq!(by_agent.condition_value.as_deref(), Some(desk.id.to_string().as_str()));
    exported
        .push(ConfigResource::Collector(export::collector(&policies[0], "calls", &slugs, &names.agents)).to_value());
    exported.push(ConfigResource::SimulationPlan(export::plan(&plans[0], &names)).to_value());
    let expected = decode(&bundle["resources"]);
    // Tools have no route, and alerts' read routes answer their state, not their bundle: the
    // apply's own comparison (noop above) covers both.
    for (want, got) in expected.iter().zip(&exported) {
        assert_eq!(want, got, "{} came back otherwise", want["name"]);
    }
    assert_eq!(exported.len(), 10);
}

/// A persona made some other way (here: the seed) is the one its name stands for: an apply
/// changes it in place, never makes a second, and a later prune never deletes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_made_another_way_is_changed_in_place_and_never_pruned() {
    let service = support::start(true).await;
    let personas = all(&service, "/v1/persona").await;
    let dana = personas.iter().find(|p| p["displayName"] == "Dana Whitfield").expect("the seeded persona").clone();
    let name = dana["name"].as_str().unwrap().to_string();
    let bundle = json!({"resources": [{"kind": "persona", "name": name, "displayName": "Dana W. (from a bundle)",
        "accent": "US", "gender": "FEMALE", "language": "EN"}]});
    let (status, body) = apply(&service, &bundle).await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(change(&body, &format!("persona/{name}"))["op"], "update", "{body:#}");
    let after = all(&service, "/v1/persona").await;
    assert_eq!(after.len(), personas.len(), "no second persona");
    let kept = after.iter().find(|p| p["id"] == dana["id"]).expect("the same persona");
    assert_eq!(kept["displayName"], "Dana W. (from a bundle)");

    let (status, body) = apply(&service, &json!({"resources": [], "prune": true})).await;
    assert_eq!(status, 200, "{body:#}");
    assert!(all(&service, "/v1/persona").await.iter().any(|p| p["id"] == dana["id"]), "never pruned");
}

/// An environment's update changes the members given and refuses one sent as `null` (the
/// schema types none of them nullable), naming it, rather than reading it as "keep".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_environment_update_refuses_a_null_member() {
    let service = start(false).await;
    let (status, created) = call(
        &service,
        Method::POST,
        "/v1/simulation/environment",
        Some(&json!({"name": "Lab", "backgroundNoise": "CITY"})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let path = format!("/v1/simulation/environment/{}", created["data"]["id"].as_str().unwrap());
    let (status, refused) = call(&service, Method::PUT, &path, Some(&json!({"name": null, "description": ""}))).await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused.to_string().contains("name may not be null"), "{refused}");
    let (status, changed) = call(&service, Method::PUT, &path, Some(&json!({"description": "quiet"}))).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["data"]["name"], "Lab", "kept");
    assert_eq!(changed["data"]["description"], "quiet");
}

/// An HTTP definition made another way has no name but its id: an agent's endpoint may name it
/// so (the console's `e` on an agent writes it), and the new agent dials through the same one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_definition_made_another_way_is_named_by_its_id() {
    let service = support::start(true).await;
    let definitions = all(&service, "/v1/http-request-definition").await;
    let seeded = definitions.first().expect("a seeded definition")["id"].as_str().unwrap().to_string();
    let bundle = json!({"resources": [{"kind": "agent", "name": "dials-through-the-seed", "endpoints": [{
        "type": "PHONE", "value": "+15550100077", "direction": "OUTGOING",
        "outboundDialType": "HTTP_REQUEST", "outboundDialHttpRequestDefinition": seeded}]}]});
    let (status, body) = apply(&service, &bundle).await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(change(&body, "agent/dials-through-the-seed")["op"], "create", "{body:#}");
    let endpoints = all(&service, "/v1/agent/endpoint").await;
    let made = endpoints.iter().find(|e| e["value"] == "+15550100077").expect("the new endpoint");
    assert_eq!(made["outboundDialHttpRequestDefinitionId"], seeded.as_str());
    assert_eq!(all(&service, "/v1/http-request-definition").await.len(), definitions.len(), "no new definition");
}
