//! Customer flows made and changed over the routes: create (scripted and improv), update,
//! delete (and the refusals: a flow an unfinished run needs, the service's own flows), the
//! graph replaced, the happy path, edge cases added, changed, promoted and removed; every rule
//! of a graph named at once; and a flow made here runs in a plan.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use support::{Service, dental, eventually, raw, seeded, start, start_with};
use switchboard::service::SimSpeed;

async fn call(service: &Service, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let key = format!("Bearer {}", service.running.api_key.expose());
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let (status, value, _) = raw(&service.base_url(), method, path, Some(&key), body).await;
    (status, value)
}

/// The params a 400 names, the first and every violation.
fn params(body: &Value) -> Vec<String> {
    let mut found: Vec<String> = body["details"]["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v["param"].as_str().unwrap_or_default().to_owned())
        .collect();
    found.push(body["param"].as_str().unwrap_or_default().to_owned());
    found
}

fn agent_id() -> String {
    dental().0["agents"][0]["id"].as_str().unwrap().to_owned()
}

fn seeded_id(kind: &str, name: &str) -> String {
    seeded(kind, |v| v["name"] == name).remove(0)["id"].as_str().unwrap().to_owned()
}

fn scripted_body(title: &str) -> Value {
    json!({
        "type": "SCRIPTED",
        "title": title,
        "agentIds": [agent_id()],
        "agentExpectations": [{"prompt": "The agent confirms the new time."}],
        "graph": [
            {"type": "AGENT_TURN", "ref": "greet", "content": "Agent greets the caller and asks how it can help."},
            {"type": "CUSTOMER_TURN", "ref": "ask", "content": "I'd like to move my cleaning to Friday.", "steps": [
                {"type": "AGENT_TURN", "ref": "offer", "content": "Agent offers a time on Friday."},
                {"type": "AGENT_TURN", "ref": "none", "content": "Agent says Friday is full and offers Monday.",
                 "mergeIntoNodeIds": ["bye"]}
            ]},
            {"type": "CUSTOMER_VERBATIM_TURN", "ref": "bye", "content": "That works, thank you. Bye."}
        ]
    })
}

fn improv_body() -> Value {
    json!({
        "type": "IMPROV",
        "title": "Improvised rebooking",
        "agentIds": [agent_id()],
        "happyPath": {
            "title": "Calm caller",
            "personaOverrideId": seeded_id("personas", "neutral-caller"),
            "environmentId": seeded_id("simulation_environments", "Open-plan office"),
            "prompt": "You want to move your cleaning to Friday.",
            "additionalExpectations": [{"prompt": "The agent offers a Friday slot."}]
        },
        "edgeCases": [{"title": "In a hurry", "personaOverrideId": seeded_id("personas", "hurried-caller")}]
    })
}

async fn create(service: &Service, body: Value) -> Value {
    let (status, created) = call(service, Method::POST, "/v1/customer-flow", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created["data"].clone()
}

#[tokio::test]
async fn a_scripted_flow_is_made_read_changed_and_deleted() {
    let service = start(true).await;
    let flow = create(&service, scripted_body("Move a cleaning")).await;
    assert_eq!((flow["type"].as_str(), flow["source"].as_str()), (Some("SCRIPTED"), Some("CUSTOM")));
    assert_eq!(flow["agents"][0]["id"].as_str(), Some(agent_id().as_str()));
    assert_eq!(flow["scriptAdherence"], "LOOSE");
    let bye = flow["graph"][2]["nodeId"].as_str().unwrap().to_owned();
    assert_eq!(flow["graph"][1]["steps"][1]["mergeIntoNodeIds"], json!([bye]), "a ref is resolved to its node id");
    let id = flow["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/customer-flow/{id}");
    let (status, read) = call(&service, Method::GET, &path, None).await;
    assert_eq!(status, 200);
    assert_eq!(read["data"], flow);

    // Update in part; null clears the description.
    let changes = json!({"title": "Move a cleaning (v2)", "description": "edited", "scriptAdherence": "STRICT",
        "offScriptPolicy": {"reaction": "REPEAT", "maxAttempts": 2, "then": "HANG_UP"}});
    let (status, updated) = call(&service, Method::PUT, &path, Some(changes)).await;
    assert_eq!(status, 200, "{updated}");
    let updated = &updated["data"];
    assert_eq!(
        (updated["title"].as_str(), updated["description"].as_str()),
        (Some("Move a cleaning (v2)"), Some("edited"))
    );
    assert_eq!(updated["offScriptPolicy"]["reaction"], "REPEAT");
    assert_eq!(updated["graph"], flow["graph"], "members not given stay");
    let (_, cleared) = call(&service, Method::PUT, &path, Some(json!({"description": null, "agentIds": []}))).await;
    assert!(cleared["data"]["description"].is_null() && cleared["data"]["agents"] == json!([]), "{cleared}");
    for (body, param) in [
        (json!({"title": ""}), "title"),
        (json!({"branchingMode": "SIDEWAYS"}), "branchingMode"),
        (json!({"agentIds": [uuid::Uuid::new_v4()]}), "agentIds[0]"),
        (json!({"offScriptPolicy": {"reaction": "SAY"}}), "offScriptPolicy.maxAttempts"),
        (json!({"graph": []}), "graph"),
    ] {
        let (status, refused) = call(&service, Method::PUT, &path, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(params(&refused).iter().any(|p| p == param), "{body} should name {param}: {refused}");
    }

    // Delete: gone from reads and lists; a second delete is a 404.
    let (status, deleted) = call(&service, Method::DELETE, &path, None).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["data"], json!({"id": id, "deleted": true}));
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 404);
    assert_eq!(call(&service, Method::DELETE, &path, None).await.0, 404);
    assert_eq!(call(&service, Method::PUT, &path, Some(json!({"title": "x"}))).await.0, 404);
    let (_, list) = call(&service, Method::GET, "/v1/customer-flow?limit=50", None).await;
    assert!(list["data"].as_array().unwrap().iter().all(|f| f["id"] != id.as_str()));
}

#[tokio::test]
async fn every_problem_of_a_new_flow_is_named_at_once_and_nothing_is_written() {
    let service = start(true).await;
    let (_, before) = call(&service, Method::GET, "/v1/customer-flow?limit=50", None).await;
    let body = json!({
        "type": "SCRIPTED",
        "title": "Broken",
        "agentIds": [uuid::Uuid::new_v4()],
        "happyPath": {"title": "x"},
        "colour": "blue",
        "graph": [
            {"type": "VOICEMAIL", "ref": "vm"},
            {"type": "CUSTOMER_SILENCE", "ref": "quiet", "content": "shh", "silenceDurationSeconds": 3},
            {"type": "AGENT_TURN", "ref": "a", "content": "Agent asks.", "mergeIntoNodeIds": ["nowhere"], "steps": [
                {"type": "CUSTOMER_TURN", "ref": "b", "content": "Caller answers.", "mergeIntoNodeIds": ["a"]}
            ]},
            {"type": "CUSTOMER_TURN", "ref": "a", "content": "Twice.", "handoffPersonaId": uuid::Uuid::new_v4()},
            {"type": "WHISPER"}
        ]
    });
    let (status, refused) = call(&service, Method::POST, "/v1/customer-flow", Some(body)).await;
    assert_eq!(status, 400, "{refused}");
    let named = params(&refused);
    for param in [
        "colour",
        "happyPath",
        "agentIds[0]",
        "graph[0].type",
        "graph[1].content",
        "graph[2].mergeIntoNodeIds[0]",
        "graph[3].ref",
        "graph[3].handoffPersonaId",
        "graph[4].type",
        "graph",
    ] {
        assert!(named.iter().any(|p| p == param), "{param} should be named: {refused}");
    }
    let messages = refused["details"]["violations"].to_string();
    assert!(messages.contains("loop for ever"), "the merge back into \"a\" is a loop: {refused}");

    // Limits: more than 100 steps, more than 25 paths.
    let long: Vec<Value> = (0..101).map(|i| json!({"type": "CUSTOMER_TURN", "content": format!("line {i}")})).collect();
    let forks: Vec<Value> = (0..3)
        .map(|_| {
            let alternatives: Vec<Value> =
                (0..3).map(|i| json!({"type": "AGENT_TURN", "content": format!("option {i}")})).collect();
            json!({"type": "CUSTOMER_TURN", "content": "Which?", "steps": alternatives})
        })
        .collect();
    for (graph, why) in [(long, "at most 100 steps"), (forks, "at most 25 paths")] {
        let body = json!({"type": "SCRIPTED", "title": "Too big", "graph": graph});
        let (status, refused) = call(&service, Method::POST, "/v1/customer-flow", Some(body)).await;
        assert_eq!(status, 400);
        assert!(refused["details"]["violations"].to_string().contains(why), "{why}: {refused}");
    }

    // Improv: its agents, happy path persona and environment; scripted members refused.
    let body = json!({"type": "IMPROV", "title": "Loose", "happyPath": {"title": "x"}, "graph": []});
    let (status, refused) = call(&service, Method::POST, "/v1/customer-flow", Some(body)).await;
    assert_eq!(status, 400);
    let named = params(&refused);
    for param in ["agentIds", "happyPath.personaOverrideId", "happyPath.environmentId", "graph"] {
        assert!(named.iter().any(|p| p == param), "{param} should be named: {refused}");
    }
    let mut improv = improv_body();
    improv["happyPath"]["environmentId"] = json!(uuid::Uuid::new_v4());
    let (status, refused) = call(&service, Method::POST, "/v1/customer-flow", Some(improv)).await;
    assert_eq!(status, 400);
    assert!(params(&refused).iter().any(|p| p == "happyPath.environmentId"), "{refused}");
    let voicemail = json!({"type": "VOICEMAIL", "title": "Mine", "graph": []});
    assert_eq!(call(&service, Method::POST, "/v1/customer-flow", Some(voicemail)).await.0, 400);

    let (_, after) = call(&service, Method::GET, "/v1/customer-flow?limit=50", None).await;
    assert_eq!(before["data"], after["data"], "a refused create writes nothing");
}

#[tokio::test]
async fn a_graph_is_replaced_whole_and_dropping_a_merge_needs_allow_unmerge() {
    let service = start(true).await;
    let flow = create(&service, scripted_body("Graph edits")).await;
    let path = format!("/v1/customer-flow/{}/graph", flow["id"].as_str().unwrap());
    // The graph as read goes back unchanged.
    let (status, same) = call(&service, Method::PUT, &path, Some(json!({"graph": flow["graph"]}))).await;
    assert_eq!(status, 200, "{same}");
    assert_eq!(same["data"]["graph"], flow["graph"]);
    assert_eq!(
        (same["data"]["variantsReshaped"].as_bool(), same["data"]["warnings"].clone()),
        (Some(false), json!([]))
    );
    assert_eq!(same["data"]["happyPath"]["id"], flow["happyPath"]["id"]);

    // The same steps without the merge: refused until confirmed.
    let mut graph = flow["graph"].clone();
    graph[1]["steps"][1]["mergeIntoNodeIds"] = json!([]);
    let (status, refused) = call(&service, Method::PUT, &path, Some(json!({"graph": graph}))).await;
    assert_eq!(status, 400, "{refused}");
    assert!(params(&refused).iter().any(|p| p == "allowUnmerge"), "{refused}");
    let (status, replaced) =
        call(&service, Method::PUT, &path, Some(json!({"graph": graph, "allowUnmerge": true}))).await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["data"]["warnings"].as_array().unwrap().len(), 1);
    let (_, read) = call(&service, Method::GET, &path.replace("/graph", ""), None).await;
    assert_eq!(read["data"]["graph"], replaced["data"]["graph"]);

    // A new step gets a node id; a loop and a bad step are refused together.
    let (status, grown) = call(
        &service,
        Method::PUT,
        &path,
        Some(json!({"graph": [{"type": "CUSTOMER_FIRST_MESSAGE", "content": "Hi"}, {"type": "AGENT_TURN", "content": "Hello"}]})),
    )
    .await;
    assert_eq!(status, 200, "{grown}");
    assert!(grown["data"]["graph"][0]["nodeId"].is_string());
    let looping = json!({"graph": [
        {"type": "AGENT_TURN", "ref": "x", "content": "A"},
        {"type": "CUSTOMER_DTMF", "ref": "y", "dtmfDigits": "1", "mergeIntoNodeIds": ["x"], "content": "press"}
    ]});
    let (status, refused) = call(&service, Method::PUT, &path, Some(looping)).await;
    assert_eq!(status, 400);
    assert!(refused["details"]["violations"].to_string().contains("loop for ever"), "{refused}");
    assert!(params(&refused).iter().any(|p| p == "graph[1].content"), "{refused}");
    assert_eq!(call(&service, Method::PUT, &path, Some(json!({}))).await.0, 400);

    // An improv flow has no graph.
    let improv = create(&service, improv_body()).await;
    let path = format!("/v1/customer-flow/{}/graph", improv["id"].as_str().unwrap());
    let (status, refused) = call(&service, Method::PUT, &path, Some(json!({"graph": flow["graph"]}))).await;
    assert_eq!(status, 400);
    assert_eq!(refused["param"], "graph");
    let missing = format!("/v1/customer-flow/{}/graph", uuid::Uuid::new_v4());
    assert_eq!(call(&service, Method::PUT, &missing, Some(json!({"graph": flow["graph"]}))).await.0, 404);
}

#[tokio::test]
async fn an_improv_flows_happy_path_and_edge_cases_are_changed_promoted_and_removed() {
    let service = start(true).await;
    let flow = create(&service, improv_body()).await;
    let id = flow["id"].as_str().unwrap().to_owned();
    let hurried = seeded_id("personas", "hurried-caller");
    let office = seeded_id("simulation_environments", "Open-plan office");
    let cafe = seeded_id("simulation_environments", "Airport café");
    let case = &flow["edgeCases"][0];
    assert_eq!(case["personaOverride"]["id"].as_str(), Some(hurried.as_str()));
    assert_eq!(case["environment"]["id"].as_str(), Some(office.as_str()), "inherited from the happy path");

    // Happy path.
    let happy_path = format!("/v1/customer-flow/{id}/happy-path");
    let (status, happy) = call(
        &service,
        Method::PUT,
        &happy_path,
        Some(json!({"title": "Calm", "environmentId": cafe, "additionalExpectations": []})),
    )
    .await;
    assert_eq!(status, 200, "{happy}");
    assert_eq!(
        (happy["data"]["title"].as_str(), happy["data"]["environment"]["id"].as_str()),
        (Some("Calm"), Some(cafe.as_str()))
    );
    assert_eq!(happy["data"]["additionalExpectations"], json!([]));
    assert_eq!(happy["data"]["prompt"], flow["happyPath"]["prompt"], "members not given stay");
    for (body, param) in [
        (json!({"personaOverrideId": null}), "personaOverrideId"),
        (json!({"environmentId": uuid::Uuid::new_v4()}), "environmentId"),
        (json!({"title": ""}), "title"),
        (json!({"mood": "sunny"}), "mood"),
    ] {
        let (status, refused) = call(&service, Method::PUT, &happy_path, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(params(&refused).iter().any(|p| p == param), "{body} should name {param}: {refused}");
    }

    // Edge cases: add, update, promote, remove.
    let cases = format!("/v1/customer-flow/{id}/edge-case");
    let (status, added) = call(
        &service,
        Method::POST,
        &cases,
        Some(json!({"title": "Angry", "prompt": "You are cross.", "includeFlowExpectations": false})),
    )
    .await;
    assert_eq!(status, 201, "{added}");
    let added = added["data"].clone();
    assert_eq!(added["environment"]["id"].as_str(), Some(cafe.as_str()), "the happy path's as it is now");
    assert_eq!(added["includeFlowExpectations"], false);
    let (status, refused) = call(&service, Method::POST, &cases, Some(json!({"prompt": "no title"}))).await;
    assert_eq!(status, 400);
    assert!(params(&refused).iter().any(|p| p == "title"), "{refused}");

    let one = format!("{cases}/{}", added["id"].as_str().unwrap());
    let (status, changed) =
        call(&service, Method::PUT, &one, Some(json!({"title": "Furious", "personaOverrideId": hurried}))).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (changed["data"]["title"].as_str(), changed["data"]["personaOverride"]["id"].as_str()),
        (Some("Furious"), Some(hurried.as_str()))
    );
    assert_eq!(changed["data"]["prompt"], "You are cross.");

    let (status, promoted) = call(&service, Method::POST, &format!("{one}/promote"), None).await;
    assert_eq!(status, 200, "{promoted}");
    let (_, read) = call(&service, Method::GET, &format!("/v1/customer-flow/{id}"), None).await;
    assert_eq!(read["data"]["happyPath"]["id"], added["id"]);
    assert!(
        read["data"]["edgeCases"].as_array().unwrap().iter().any(|e| e["id"] == flow["happyPath"]["id"]),
        "the old happy path is an edge case"
    );

    let old = format!("{cases}/{}", flow["happyPath"]["id"].as_str().unwrap());
    let (status, removed) = call(&service, Method::DELETE, &old, None).await;
    assert_eq!(status, 200, "{removed}");
    assert_eq!(removed["data"]["deleted"], true);
    assert_eq!(call(&service, Method::DELETE, &old, None).await.0, 404);
    assert_eq!(call(&service, Method::PUT, &old, Some(json!({"title": "x"}))).await.0, 404);
    assert_eq!(call(&service, Method::POST, &format!("{old}/promote"), None).await.0, 404);
    let (status, body) = call(&service, Method::DELETE, &format!("{cases}/not-a-uuid"), None).await;
    assert_eq!(status, 400, "{body}");
    let (_, read) = call(&service, Method::GET, &format!("/v1/customer-flow/{id}"), None).await;
    assert_eq!(read["data"]["edgeCases"].as_array().unwrap().len(), 1);

    // A scripted flow's variants take no prompt or expectations of their own.
    let scripted = create(&service, scripted_body("Scripted variants")).await;
    let path = format!("/v1/customer-flow/{}/edge-case", scripted["id"].as_str().unwrap());
    let (status, refused) = call(&service, Method::POST, &path, Some(json!({"title": "x", "prompt": "p"}))).await;
    assert_eq!(status, 400);
    assert!(params(&refused).iter().any(|p| p == "prompt"), "{refused}");
    let (status, added) =
        call(&service, Method::POST, &path, Some(json!({"title": "Hurried", "personaOverrideId": hurried}))).await;
    assert_eq!(status, 201, "{added}");
    assert_eq!(added["data"]["type"], "SCRIPTED");
}

#[tokio::test]
async fn the_services_own_flows_are_refused_with_the_reason() {
    let service = start(true).await;
    let voicemail = seeded("customer_flows", |f| f["type"] == "VOICEMAIL").remove(0);
    let system = seeded("customer_flows", |f| f["source"] == "SYSTEM" && f["type"] == "SCRIPTED").remove(0);
    for (flow, why) in [(&voicemail, "voicemail"), (&system, "system flow")] {
        let id = flow["id"].as_str().unwrap();
        let base = format!("/v1/customer-flow/{id}");
        let (_, before) = call(&service, Method::GET, &base, None).await;
        let case = format!("{base}/edge-case/{}", uuid::Uuid::new_v4());
        for (method, path, body) in [
            (Method::DELETE, base.clone(), None),
            (Method::PUT, base.clone(), Some(json!({"title": "Mine"}))),
            (Method::PUT, format!("{base}/graph"), Some(json!({"graph": flow["graph"]}))),
            (Method::PUT, format!("{base}/happy-path"), Some(json!({"title": "Mine"}))),
            (Method::POST, format!("{base}/edge-case"), Some(json!({"title": "Mine"}))),
            (Method::PUT, case.clone(), Some(json!({"title": "Mine"}))),
            (Method::DELETE, case.clone(), None),
            (Method::POST, format!("{case}/promote"), None),
        ] {
            let (status, refused) = call(&service, method.clone(), &path, body).await;
            assert_eq!(status, 400, "{method} {path}: {refused}");
            assert_eq!(refused["param"], "flowId");
            assert!(refused["message"].as_str().unwrap().contains(why), "{refused}");
        }
        let (_, read) = call(&service, Method::GET, &base, None).await;
        assert_eq!(read["data"], before["data"], "nothing changed");
    }
}

async fn run_plan(service: &Service, flow: &Value, iterations: i64) -> (String, String) {
    let endpoint = dental().1;
    let plan = json!({
        "name": format!("Runs {}", flow["title"].as_str().unwrap()),
        "direction": "INBOUND",
        "iterationCount": iterations,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": flow["id"], "happyPath": true, "edgeCases": "ALL"}],
        "agentEndpoints": [{"id": endpoint["id"]}],
        "metrics": [{"slug": "call_duration"}],
    });
    let (status, created) = call(service, Method::POST, "/v1/simulation/plan", Some(plan)).await;
    assert_eq!(status, 201, "{created}");
    let plan = created["data"]["runPlan"]["id"].as_str().unwrap().to_owned();
    let (status, started) = call(service, Method::POST, "/v1/simulation/run", Some(json!({"planId": plan}))).await;
    assert_eq!(status, 201, "{started}");
    (plan, started["data"]["simulationRunPlanJobId"].as_str().unwrap().to_owned())
}

async fn ended(service: &Service, job: &str) -> Value {
    eventually(Duration::from_secs(120), || async {
        let (_, read) = call(service, Method::GET, &format!("/v1/simulation/plan/job/{job}"), None).await;
        let status = read["data"]["status"].as_str().unwrap_or_default().to_owned();
        ["COMPLETED", "FAILED", "TIMED_OUT", "CANCELLED"].contains(&status.as_str()).then_some(read["data"].clone())
    })
    .await
}

#[tokio::test]
async fn flows_made_and_changed_here_run_in_a_plan() {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { sim_speed: SimSpeed::Max, ..support::options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let scripted = create(&service, scripted_body("Runs scripted")).await;
    let path = format!("/v1/customer-flow/{}", scripted["id"].as_str().unwrap());
    let (status, _) =
        call(&service, Method::PUT, &format!("{path}/graph"), Some(json!({"graph": scripted["graph"]}))).await;
    assert_eq!(status, 200);
    let hurried = seeded_id("personas", "hurried-caller");
    let case = json!({"title": "Hurried", "personaOverrideId": hurried});
    let (status, _) = call(&service, Method::POST, &format!("{path}/edge-case"), Some(case)).await;
    assert_eq!(status, 201);
    let (_, scripted) = call(&service, Method::GET, &path, None).await;
    // Improv variants need a caller model to improvise them, which this service has none of.
    for flow in [&scripted["data"]] {
        let (_, job) = run_plan(&service, flow, 1).await;
        let job = ended(&service, &job).await;
        assert_eq!(job["status"], "COMPLETED", "{job}");
        let simulations = job["simulationJobs"].as_array().unwrap();
        let variants = 1 + flow["edgeCases"].as_array().unwrap().len();
        assert_eq!(simulations.len(), variants, "{job}");
        assert!(simulations.iter().all(|s| s["status"] == "COMPLETED"), "{job}");
    }
}

#[tokio::test]
async fn a_flow_an_unfinished_run_needs_is_not_deleted() {
    let service = start(true).await;
    let flow = create(&service, scripted_body("Busy flow")).await;
    let path = format!("/v1/customer-flow/{}", flow["id"].as_str().unwrap());
    let (plan, job) = run_plan(&service, &flow, 200).await;
    let (status, refused) = call(&service, Method::DELETE, &path, None).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(
        (refused["type"].as_str(), refused["code"].as_str(), refused["param"].as_str()),
        (Some("conflict"), Some("flow_in_use"), Some("flowId"))
    );
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains(&job) && message.contains(&plan), "{refused}");
    assert_eq!(call(&service, Method::GET, &path, None).await.0, 200, "nothing was deleted");
    call(&service, Method::POST, &format!("/v1/simulation/plan/job/{job}/cancel"), None).await;
    let deleted = eventually(Duration::from_secs(30), || async {
        let (status, body) = call(&service, Method::DELETE, &path, None).await;
        (status == 200).then_some(body)
    })
    .await;
    assert_eq!(deleted["data"]["deleted"], true);
}

#[tokio::test]
async fn the_client_makes_changes_and_deletes_a_flow() {
    use switchboard::api::model::*;
    let service = start(true).await;
    let input: FlowInput = serde_json::from_value(scripted_body("Through the client")).unwrap();
    let flow = service.client.create_flow(&input).await.unwrap();
    let update = FlowUpdate { title: Some("Renamed".into()), ..Default::default() };
    assert_eq!(service.client.update_flow(flow.id, &update).await.unwrap().title.as_deref(), Some("Renamed"));
    let graph = GraphInput {
        graph: Some(vec![FlowStepInput {
            step_type: Some(StepType::CustomerFirstMessage),
            content: Some("Hello".into()),
            ..Default::default()
        }]),
        allow_unmerge: Some(true),
        ..Default::default()
    };
    assert_eq!(service.client.replace_flow_graph(flow.id, &graph).await.unwrap().graph.len(), 1);
    let case = EdgeCaseInput(VariantInput { title: Some("Other".into()), ..Default::default() });
    let case = service.client.add_flow_edge_case(flow.id, &case).await.unwrap();
    let renamed = VariantInput { title: Some("Another".into()), ..Default::default() };
    assert_eq!(
        service.client.update_flow_edge_case(flow.id, case.id, &renamed).await.unwrap().title.as_deref(),
        Some("Another")
    );
    assert_eq!(service.client.promote_flow_edge_case(flow.id, case.id).await.unwrap().id, case.id);
    let old = flow.happy_path.unwrap().id;
    assert!(service.client.remove_flow_edge_case(flow.id, old).await.unwrap().deleted);
    assert!(service.client.update_flow_happy_path(flow.id, &renamed).await.is_ok());
    assert!(service.client.delete_flow(flow.id).await.unwrap().deleted);
    assert!(service.client.get_flow(flow.id).await.is_err());
}
