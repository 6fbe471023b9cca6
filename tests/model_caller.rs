//! The simulated caller played by a language model (`[caller]`), against a deterministic
//! chat-completions server written here and a "natural" HTTP agent that answers in words of its
//! own: the model holds an improv call to its end, CUSTOMER_VERBATIM_TURN lines are said as
//! written, a model that fails fails its simulation saying why, an improv variant with no steps
//! is refused without a model, and the service the CLI embeds reads `[caller]` from config.toml.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use serde_json::{Value, json};
use support::chat_model::{Answer, ChatModel, agent_said, direction, message, turn};
use support::{Service, eventually, seeded};
use switchboard::api::model::*;
use switchboard::service::sim::conversation::CallerConfig;

/// The seeded improv flow, copied and changed by each test.
const IMPROV_FLOW: &str = "0cdd0f88-437e-5249-bb4a-ad0b3be34c45";
const ORDER: &str = "PX-4417";

/// What the agent heard, call by call.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<String>>>);

/// A parcel desk in its own words, never those of a flow's steps: it asks for the reference,
/// offers Thursday, and confirms.
async fn parcel_desk(State(heard): State<Heard>, body: String) -> axum::Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap();
    let text = body["text"].as_str().unwrap_or_default().to_lowercase();
    heard.0.lock().unwrap().push(text.clone());
    let reply = if text.is_empty() {
        "Parcel Point, Jo speaking. What can I do for you?"
    } else if text.contains(&ORDER.to_lowercase()) {
        "Found it, due Tuesday. I could bring it round Thursday morning instead. Shall I?"
    } else if text.contains("parcel") || text.contains("delivery") {
        "Happy to sort that. Which reference is on your slip?"
    } else if text.contains("yes") {
        "All set: it now comes Thursday morning, and a text is on its way."
    } else {
        "Sorry, I didn't catch that."
    };
    axum::Json(json!({"text": reply}))
}

async fn agent() -> (String, Heard) {
    let heard = Heard::default();
    let app = axum::Router::new().route("/turn", axum::routing::post(parcel_desk)).with_state(heard.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, heard)
}

/// A caller who wants a parcel delivery moved, answering from the request: the reference comes
/// from what the system prompt says the caller knows, and it hangs up once the agent confirms.
fn parcel_caller(body: &Value) -> Answer {
    let known = message(body, "system").lines().find(|l| l.starts_with("- What you know")).unwrap_or_default();
    let order = known.split("orderNumber: ").nth(1).and_then(|r| r.split(';').next()).unwrap_or("no idea");
    let agent = agent_said(body);
    if agent.contains("all set") {
        turn("Brilliant, that's all I needed. Thanks, bye!", true)
    } else if agent.contains("reference") {
        Answer::Content(json!({"say": format!("Oh, it's {order}."), "stepDone": false}).to_string())
    } else if agent.contains("shall i") {
        turn("Yes please, Thursday morning is perfect.", false)
    } else {
        turn("Hi! I'd like to move my parcel delivery from Tuesday to Thursday, please.", false)
    }
}

fn caller_config(model: &ChatModel, key_env: &str, timeout_seconds: Option<u64>) -> CallerConfig {
    CallerConfig {
        base_url: model.base_url.clone(),
        model: "caller-test".into(),
        api_key_env: Some(key_env.into()),
        timeout_seconds,
        max_tokens: Some(120),
    }
}

async fn service_with(caller: Option<CallerConfig>) -> Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { caller, ..support::options(dir.path(), true) };
    support::start_with(options, dir).await
}

fn persona() -> Value {
    json!({
        "id": "5a0c9e1b-2d3f-4e4a-8b5c-6d7e8f9a0b1c",
        "name": "maria-lopez",
        "displayName": "Maria Lopez",
        "backstoryPrompt": "You work day shifts and are only home on Thursdays.",
        "hasDisfluencies": true,
        "baseEmotion": "ANXIOUS",
        "properties": {"postcode": "N1 9GU"}
    })
}

/// A copy of the seeded improv flow with `happy` over its happy path (and the persona above), no
/// edge cases and `graph` as its own steps, written to the store as the hosted interface would
/// have it (the local service makes flows only by duplicating).
async fn flow_with(service: &Service, kind: &str, adherence: &str, happy: Value, graph: Value) -> CustomerFlow {
    let copy = service.client.duplicate_flow(IMPROV_FLOW.parse().unwrap()).await.unwrap();
    let mut body = serde_json::to_value(&copy).unwrap();
    body["type"] = json!(kind);
    body["scriptAdherence"] = json!(adherence);
    body["title"] = json!("Move a parcel delivery");
    body["description"] = json!("Callers whose parcel is due on a day they are out.");
    body["graph"] = graph;
    body["edgeCases"] = json!([]);
    body["happyPath"]["type"] = json!(kind);
    body["happyPath"]["personaOverride"] = persona();
    for (member, value) in happy.as_object().unwrap() {
        body["happyPath"][member] = value.clone();
    }
    let text = body.to_string().replace('\'', "''");
    let update = format!("UPDATE docs SET body = '{text}' WHERE kind = 'customer_flow' AND id = '{}'", copy.id);
    assert_eq!(support::tamper(service.dir.path(), &update, &update), 1);
    serde_json::from_value(body).unwrap()
}

/// An improv happy path with a brief and no steps.
async fn improv_flow(service: &Service) -> CustomerFlow {
    let happy = json!({
        "title": "Out on Tuesday, home on Thursday",
        "prompt": "Your parcel {{orderNumber}} is due on Tuesday, when you are at work. Get it moved to Thursday.",
        "steps": []
    });
    flow_with(service, "IMPROV", "LOOSE", happy, json!([])).await
}

/// An endpoint that dials the agent at `url` through an HTTP request definition.
async fn endpoint(service: &Service, url: &str) -> uuid::Uuid {
    let definition: HttpRequestDefinitionInput =
        serde_json::from_value(json!({"scope": "AGENT_OUTBOUND_DIAL", "url": url, "method": "POST"})).unwrap();
    let definition = service.client.create_http_request_definition(&definition).await.unwrap();
    let agent = support::id_of(&seeded("agents", |_| true)[0]);
    let input = AgentEndpointInput {
        agent_id: Some(agent),
        direction: Some(EndpointDirection::IncomingAndOutgoing),
        value: Some("+15550100000".into()),
        outbound_dial_type: Some(OutboundDialType::HttpRequest),
        outbound_dial_http_request_definition_id: Some(definition.id),
        ..Default::default()
    };
    service.client.create_agent_endpoint(&input).await.unwrap().id
}

fn plan(flow: &CustomerFlow, endpoint: uuid::Uuid) -> RunPlanInput {
    serde_json::from_value(json!({
        "name": "Model caller",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "endCallPhrases": ["goodbye"],
        "flows": [{"id": flow.id, "happyPath": true, "variables": {"orderNumber": ORDER}}],
        "agentEndpoints": [{"id": endpoint}],
        "metrics": [{"slug": "call_duration"}],
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false
    }))
    .unwrap()
}

/// Runs the plan to its end; its one simulation.
async fn run_one(service: &Service, input: RunPlanInput) -> SimulationJob {
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    let job = eventually(Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    assert_eq!(job.simulation_jobs.len(), 1);
    job.simulation_jobs[0].clone()
}

fn lines(transcript: &Transcript, role: ParticipantType) -> Vec<String> {
    transcript.entries.iter().filter(|e| e.role == Some(role.clone())).map(|e| e.text.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caller_model_holds_an_improv_call_with_a_natural_agent_and_ends_it() {
    let said = Arc::new(Mutex::new(Vec::<String>::new()));
    let saying = said.clone();
    let model = ChatModel::start(move |body| {
        let answer = parcel_caller(body);
        if let Answer::Content(content) = &answer {
            let turn: Value = serde_json::from_str(content).unwrap();
            saying.lock().unwrap().push(turn["say"].as_str().unwrap().to_owned());
        }
        answer
    })
    .await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_CALLER_KEY_1", "sk-caller-111") };
    let service = service_with(Some(caller_config(&model, "SWITCHBOARD_TEST_CALLER_KEY_1", None))).await;
    let flow = improv_flow(&service).await;
    let (url, heard) = agent().await;
    let endpoint = endpoint(&service, &url).await;

    let simulation = run_one(&service, plan(&flow, endpoint)).await;
    assert_eq!(simulation.status, Some(SimulationJobStatus::Completed), "{:?}", simulation.error_message);
    let call_id = simulation.call_id.unwrap();
    let transcript = service.client.call_transcript(call_id).await.unwrap();
    let caller = lines(&transcript, ParticipantType::Customer);
    let said = said.lock().unwrap().clone();
    assert_eq!(caller, said, "every caller line is the model's, word for word, in order");
    assert!(caller.iter().any(|l| l.contains(ORDER)), "the model gave what the prompt says it knows: {caller:#?}");
    let agent = lines(&transcript, ParticipantType::Agent);
    assert!(
        agent.iter().any(|l| l.starts_with("Found it")) && agent.iter().any(|l| l.starts_with("All set")),
        "{agent:#?}"
    );
    assert_eq!(
        heard.0.lock().unwrap().len(),
        agent.len(),
        "the agent answered each of the caller's lines but the last"
    );

    let call = service.client.get_call(call_id).await.unwrap();
    assert_eq!(call.ended_status, Some(EndedStatus::CustomerEndedCall));
    assert_eq!(call.end_reason.as_deref(), Some("the caller model ended the call"));
    assert_eq!(transcript.entries.last().unwrap().text, "Brilliant, that's all I needed. Thanks, bye!");

    let seen = model.seen.lock().unwrap().clone();
    let (headers, first) = &seen[0];
    assert_eq!(headers["authorization"], "Bearer sk-caller-111", "the key from the variable the config names");
    assert_eq!((first["model"].as_str(), first["max_tokens"].as_u64()), (Some("caller-test"), Some(120)));
    assert_eq!(first["response_format"], json!({"type": "json_object"}));
    let system = message(first, "system");
    assert!(system.contains(&format!("- Your brief: Your parcel {ORDER} is due on Tuesday")), "{system}");
    assert!(system.contains("- Name: Maria Lopez") && system.contains("only home on Thursdays"), "{system}");
    assert!(system.contains("You have no script"), "{system}");
    assert!(seen.iter().all(|(_, body)| direction(body).starts_with("Now: carry on the call")), "an improv call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verbatim_lines_are_said_word_for_word_with_a_caller_model() {
    let model = ChatModel::start(parcel_caller).await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_CALLER_KEY_2", "sk-caller-222") };
    let service = service_with(Some(caller_config(&model, "SWITCHBOARD_TEST_CALLER_KEY_2", None))).await;
    let verbatim = "My reference is {{orderNumber}}, exactly as printed on the slip.";
    let graph = json!([
        {"type": "CUSTOMER_TURN", "content": "Say you need your parcel delivery moved"},
        {"type": "AGENT_TURN", "content": "Agent asks for the reference"},
        {"type": "CUSTOMER_VERBATIM_TURN", "content": verbatim},
        {"type": "AGENT_TURN", "content": "Agent offers another day"}
    ]);
    let flow = flow_with(&service, "SCRIPTED", "LOOSE", json!({"steps": [], "prompt": null}), graph).await;
    let (url, _) = agent().await;
    let endpoint = endpoint(&service, &url).await;

    let simulation = run_one(&service, plan(&flow, endpoint)).await;
    assert_eq!(simulation.status, Some(SimulationJobStatus::Completed), "{:?}", simulation.error_message);
    let transcript = service.client.call_transcript(simulation.call_id.unwrap()).await.unwrap();
    let caller = lines(&transcript, ParticipantType::Customer);
    let filled = verbatim.replace("{{orderNumber}}", ORDER);
    // The persona hesitates, yet the verbatim line has no "Um," in front of it.
    assert_eq!(caller[1], filled, "{caller:#?}");
    assert_eq!(caller[0], "Hi! I'd like to move my parcel delivery from Tuesday to Thursday, please.", "the model's");
    let bodies = model.bodies();
    assert_eq!(
        direction(&bodies[0]),
        "Now: your next step, in your own words as this person: Say you need your parcel delivery moved"
    );
    assert!(bodies.iter().all(|b| !direction(b).contains("printed on the slip")), "never sent as a step");
    assert!(message(&bodies[0], "system").contains(&format!("You, word for word: \"{filled}\"")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_model_that_fails_fails_its_simulation_saying_why() {
    let failing = Arc::new(Mutex::new("late"));
    let how = failing.clone();
    let model = ChatModel::start(move |_| match *how.lock().unwrap() {
        "late" => Answer::Late(Duration::from_secs(3), json!({"say": "Too late."}).to_string()),
        "garbage" => Answer::Content("Sure! I'd be happy to play the caller.".into()),
        "empty" => Answer::Content(json!({"say": " ", "hangUp": false}).to_string()),
        _ => Answer::Raw(503, json!({"error": {"message": "model overloaded"}}).to_string()),
    })
    .await;
    unsafe { std::env::set_var("SWITCHBOARD_TEST_CALLER_KEY_3", "sk-caller-333") };
    let service = service_with(Some(caller_config(&model, "SWITCHBOARD_TEST_CALLER_KEY_3", Some(1)))).await;
    let flow = improv_flow(&service).await;
    let (url, _) = agent().await;
    let endpoint = endpoint(&service, &url).await;

    for (mode, says) in [
        ("late", "caller model did not answer within 1 s"),
        ("garbage", "caller model reply is not the asked JSON"),
        ("empty", "caller model gave an empty line without hanging up"),
        ("overloaded", "caller model answered 503 Service Unavailable: model overloaded"),
    ] {
        *failing.lock().unwrap() = mode;
        let simulation = run_one(&service, plan(&flow, endpoint)).await;
        assert_eq!(simulation.status, Some(SimulationJobStatus::Failed), "{mode}");
        assert_eq!(simulation.outcome, Some(SimulationOutcome::Error), "{mode}: never a pass");
        let message = simulation.error_message.unwrap_or_default();
        assert!(message.contains(says), "{mode}: {message}");
        assert!(!message.contains("sk-caller-333"), "{message}");
        assert_eq!(simulation.failure_owner, Some(FailureOwner::Roark), "{mode}: the service's side, not the agent's");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_improv_variant_with_no_steps_is_refused_without_a_caller_model() {
    let service = service_with(None).await;
    let flow = improv_flow(&service).await;
    let variant = flow.happy_path.clone().unwrap();
    let endpoint = endpoint(&service, "http://127.0.0.1:9/turn").await;

    let refused = service.client.run(&RunRequest { plan: Some(plan(&flow, endpoint)), ..Default::default() }).await;
    let error = refused.unwrap_err();
    assert_eq!(error.status(), Some(400));
    assert_eq!(error.param(), Some("plan.flows[0].happyPath"));
    let message = error.to_string();
    for part in ["Out on Tuesday, home on Thursday", &variant.id.to_string(), "[caller]", "--caller-model"] {
        assert!(message.contains(part), "names {part}: {message}");
    }
    let key = format!("Bearer {}", service.running.api_key.expose());
    let (status, jobs, _) =
        support::raw(&service.base_url(), reqwest::Method::GET, "/v1/simulation/plan/jobs", Some(&key), None).await;
    assert_eq!((status, jobs["data"].as_array().map(Vec::len)), (200, Some(0)), "nothing started: {jobs}");

    // The CLI exits 2 for it, before anything runs.
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("plan.yaml");
    let yaml = format!(
        "name: Improv\ndirection: INBOUND\nmaxSimulationDurationSeconds: 120\nflows:\n  - id: {}\n    happyPath: true\n    variables:\n      orderNumber: {ORDER}\nagentEndpoints:\n  - id: {endpoint}\nmetrics:\n  - slug: call_duration\n",
        flow.id
    );
    std::fs::write(&file, yaml).unwrap();
    let output =
        cli::run(cli::against(home.path(), &service).args(["gate", "-o", "json", "-f", file.to_str().unwrap()])).await;
    cli::assert_exit(&output, 2);
    assert!(cli::stderr(&output).contains("Out on Tuesday, home on Thursday"), "{}", cli::stderr(&output));
}

/// The service the CLI starts in-process (`--embedded`, and the `local` profile) plays its callers
/// with the `[caller]` of config.toml, and `serve` refuses a model with no endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_service_reads_caller_from_config_toml() {
    let model = ChatModel::start(|body| {
        if direction(body).starts_with("Now: your next step") {
            turn("I need a new flight today, please.", false)
        } else {
            turn("Thanks, that's all. Bye!", true)
        }
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[caller]\nbase_url = \"{}\"\nmodel = \"caller-test\"\napi_key_env = \"CALLER_TEST_KEY\"\ntimeout_seconds = 20\n",
            model.base_url
        ),
    )
    .unwrap();
    let endpoint = seeded("agent_endpoints", |e| e["agentId"] == "52aaa28f-f142-5aad-8266-a9ff23d7c633")
        .into_iter()
        .find(|e| e["outboundDialType"] != "HTTP_REQUEST")
        .unwrap();
    let file = home.path().join("plan.yaml");
    let yaml = format!(
        "name: Seeded improv\ndirection: INBOUND\nmaxSimulationDurationSeconds: 300\nflows:\n  - id: {IMPROV_FLOW}\n    happyPath: true\nagentEndpoints:\n  - id: {}\nmetrics:\n  - slug: call_duration\nincludeFlowMetrics: false\nincludeAutomaticMetrics: false\n",
        endpoint["id"].as_str().unwrap()
    );
    std::fs::write(&file, yaml).unwrap();
    for embedded in [&["--embedded"][..], &[][..]] {
        let before = model.seen.lock().unwrap().len();
        let output = cli::run(
            cli::switchboard(home.path())
                .env("CALLER_TEST_KEY", "sk-caller-embedded")
                .args(["--config", config.to_str().unwrap(), "gate", "-o", "json", "-f", file.to_str().unwrap()])
                .args(embedded),
        )
        .await;
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", cli::stderr(&output));
        let report = cli::json(&output);
        assert_eq!(report["simulations"][0]["status"], "COMPLETED", "{embedded:?}: {report}");
        let seen = model.seen.lock().unwrap();
        assert!(seen.len() > before, "{embedded:?}: the caller model played the call");
        assert_eq!(seen[before].0["authorization"], "Bearer sk-caller-embedded");
        assert!(message(&seen[before].1, "system").contains("Priya Raman"), "the seeded variant's persona");
    }

    let output =
        cli::run(cli::switchboard(home.path()).args(["serve", "--addr", "127.0.0.1:0", "--caller-model", "m"])).await;
    cli::assert_exit(&output, 2);
    assert!(cli::stderr(&output).contains("--caller-base-url"), "{}", cli::stderr(&output));
}
