//! Conversations with the reference agent on hand-made flows: each way a call can end.

use super::off_script::asks_for_keys;
use super::script::fill;
use super::*;
use crate::service::metrics::judge::{Answer, Question};

fn flow(steps: serde_json::Value) -> CustomerFlow {
    serde_json::from_value(
        serde_json::json!({"id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "type": "SCRIPTED", "graph": steps}),
    )
    .unwrap()
}

/// The offline caller never matches the agent's wording against a step's: an expectation in
/// plain words that the agent's reply shares no word with keeps the caller on script, on a
/// LOOSE flow and a STRICT one alike.
#[tokio::test]
async fn the_caller_speaks_its_lines_in_order_whatever_the_agents_wording() {
    for adherence in [None, Some(ScriptAdherence::Strict)] {
        let mut f = flow(serde_json::json!([
            {"type": "AGENT_TURN", "content": "Agent quotes the xylophone warranty clause",
             "offScriptPolicy": {"reaction": "REPEAT", "maxAttempts": 2, "then": "HANG_UP"}},
            {"type": "CUSTOMER_TURN", "content": "Hi, I need to reschedule my cleaning."},
            {"type": "CUSTOMER_TURN", "content": "Great, thanks."}
        ]));
        f.script_adherence = adherence.clone();
        let vars = BTreeMap::new();
        let outcome = talk(&setup(&f, &vars, "call-w")).await;
        let caller = caller_lines(&outcome);
        assert!(caller.len() >= 2, "{caller:?}");
        assert_eq!(&caller[..2], ["Hi, I need to reschedule my cleaning.", "Great, thanks."], "{adherence:?}");
        assert!(!outcome.end_reason.contains("off-script"), "{}", outcome.end_reason);
    }
}

/// An agent asking for keys where the script presses none is off script, for certain.
#[test]
fn an_agent_asking_for_keys_the_script_does_not_press_is_off_script() {
    assert!(asks_for_keys("To confirm, press 1. To change it, press 2."));
    assert!(asks_for_keys("Please enter your PIN using your keypad."));
    assert!(!asks_for_keys("I can press on with the booking; please enter the waiting room at nine."));
}

fn dental_flow() -> CustomerFlow {
    flow(serde_json::json!([
        {"type": "CUSTOMER_TURN", "content": "Hi, I need to reschedule my cleaning for {{patientName}}."},
        {"type": "AGENT_TURN", "content": "Agent asks for the date of birth"},
        {"type": "CUSTOMER_TURN", "content": "It's March 12, 1984."},
        {"type": "CUSTOMER_TURN", "content": "Tuesday works."},
        {"type": "CUSTOMER_DTMF", "content": "Press 1"}
    ]))
}

fn setup<'a>(flow: &'a CustomerFlow, variables: &'a BTreeMap<String, String>, call_id: &str) -> Setup<'a> {
    Setup {
        call_id: call_id.into(),
        flow,
        variant: None,
        persona: None,
        variables,
        end_call_phrases: vec!["goodbye".into()],
        end_call_reasons: Vec::new(),
        silence_timeout_ms: 30_000,
        max_duration_ms: 600_000,
        agent_name: "Brightsmile Dental — Front Desk".into(),
        caller: None,
    }
}

/// What the caller said, in order.
fn caller_lines(outcome: &Outcome) -> Vec<&str> {
    let said = outcome.transcript.entries.iter().filter(|e| e.role == Some(ParticipantType::Customer));
    said.map(|e| e.text.as_str()).collect()
}

async fn talk(setup: &Setup<'_>) -> Outcome {
    converse(setup, &AgentLink::Reference, &Judge::Rubric).await.unwrap()
}

#[tokio::test]
async fn the_customer_walks_the_flow_and_says_goodbye() {
    let f = dental_flow();
    let vars = BTreeMap::from([("patientName".to_owned(), "Dana Whitfield".to_owned())]);
    let outcome = talk(&setup(&f, &vars, "call-a")).await;
    let texts: Vec<&str> = outcome.transcript.entries.iter().map(|e| e.text.as_str()).collect();
    assert!(texts[0].contains("Brightsmile"), "the agent answers first: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("Dana Whitfield")), "variables are filled: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("[DTMF 1]")));
    assert!(
        matches!(outcome.ended_status, EndedStatus::CustomerEndedCall | EndedStatus::AgentEndedCall),
        "{outcome:?}"
    );
    assert!(outcome.end_reason.contains("goodbye"), "{}", outcome.end_reason);
    let starts: Vec<i64> = outcome.transcript.entries.iter().map(|e| e.start_offset_ms).collect();
    assert!(outcome.duration_ms >= *starts.last().unwrap());
}

#[tokio::test]
async fn without_end_phrases_the_call_ends_with_the_flow() {
    let f = dental_flow();
    let vars = BTreeMap::new();
    let mut s = setup(&f, &vars, "call-b");
    s.end_call_phrases = Vec::new();
    let outcome = talk(&s).await;
    assert_eq!(outcome.ended_status, EndedStatus::CustomerEndedCall);
    assert_eq!(outcome.end_reason, "the flow was completed");
}

#[tokio::test]
async fn silence_longer_than_the_timeout_ends_the_call() {
    let f = dental_flow();
    let vars = BTreeMap::new();
    let mut s = setup(&f, &vars, "call-c");
    s.silence_timeout_ms = 100; // every reply takes longer than this
    let outcome = talk(&s).await;
    assert_eq!(outcome.ended_status, EndedStatus::SilenceTimeOut);
}

#[tokio::test]
async fn the_maximum_duration_is_a_hard_cap() {
    let f = dental_flow();
    let vars = BTreeMap::new();
    // 1 s ends before the agent finishes its greeting; the others cut a line short.
    for (cap, call) in [(1_000, "call-d1"), (5_000, "call-d5"), (9_000, "call-d9")] {
        let mut s = setup(&f, &vars, call);
        s.max_duration_ms = cap;
        let outcome = talk(&s).await;
        assert_eq!(outcome.ended_status, EndedStatus::MaxDurationReached, "{cap} ms: {outcome:?}");
        assert_eq!(outcome.duration_ms, cap, "the call lasts exactly up to the cap");
        for entry in &outcome.transcript.entries {
            assert!(entry.end_offset_ms <= cap, "{cap} ms: an entry ends after the cap: {entry:?}");
        }
    }
}

#[tokio::test]
async fn the_maximum_duration_caps_a_voicemail_too() {
    let mut f = flow(serde_json::json!([
        {"type": "CUSTOMER_TURN", "content": "Hi, this is a long message about rescheduling my appointment next week."}
    ]));
    f.flow_type = Some(FlowType::Voicemail);
    let vars = BTreeMap::new();
    let mut s = setup(&f, &vars, "call-v");
    s.max_duration_ms = 3_000;
    let outcome = talk(&s).await;
    assert!(outcome.transcript.entries.iter().all(|e| e.end_offset_ms <= 3_000), "{outcome:?}");
    assert!(outcome.duration_ms <= 3_000, "{outcome:?}");
}

#[tokio::test]
async fn an_end_call_reason_judged_true_ends_the_call() {
    let f = dental_flow();
    let vars = BTreeMap::new();
    let mut s = setup(&f, &vars, "call-e");
    s.end_call_phrases = Vec::new();
    // Met by the greeting: no flaw of the agent's can land before it.
    s.end_call_reasons = vec!["The agent asks how it can help".into()];
    let outcome = talk(&s).await;
    // The reason is judged on the agent's turns: the agent ended the call, and the reason says why.
    assert_eq!(outcome.ended_status, EndedStatus::AgentEndedCall, "{outcome:?}");
    assert!(outcome.end_reason.starts_with("end-call reason met:"), "{outcome:?}");
}

#[tokio::test]
async fn voicemail_flows_reach_voicemail() {
    let mut f =
        flow(serde_json::json!([{"type": "CUSTOMER_TURN", "content": "Hi, this is Dana calling back about Tuesday."}]));
    f.flow_type = Some(FlowType::Voicemail);
    let vars = BTreeMap::new();
    let outcome = talk(&setup(&f, &vars, "call-f")).await;
    assert_eq!(outcome.ended_status, EndedStatus::VoiceMailReached);
    assert_eq!(outcome.transcript.entries.len(), 2);
}

#[tokio::test]
async fn the_same_call_id_gives_the_same_conversation() {
    let f = dental_flow();
    let vars = BTreeMap::new();
    let a = talk(&setup(&f, &vars, "call-g")).await;
    let b = talk(&setup(&f, &vars, "call-g")).await;
    assert_eq!(a.transcript, b.transcript);
}

#[test]
fn placeholders_fill_from_variables_then_persona_properties() {
    let persona: Persona = serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "properties": {"dateOfBirth": "1984-03-12"}
    }))
    .unwrap();
    let vars = BTreeMap::from([("name".to_owned(), "Dana".to_owned())]);
    assert_eq!(
        fill("{{name}} born {{dateOfBirth}} ({{unknown}})", &vars, Some(&persona)),
        "Dana born 1984-03-12 ({{unknown}})"
    );
}

/// A STRICT flow holds the agent to what an expectation quotes.
#[tokio::test]
async fn an_agent_off_script_meets_the_policy_and_the_customer_hangs_up() {
    let mut f = flow(serde_json::json!([
        {"type": "CUSTOMER_TURN", "content": "Hi, I need to reschedule my cleaning."},
        {"type": "AGENT_TURN", "content": "Agent quotes the \"xylophone warranty\" clause",
         "offScriptPolicy": {"reaction": "SAY", "sayLine": "Can you tell me about the warranty?", "maxAttempts": 2, "then": "HANG_UP"}},
        {"type": "CUSTOMER_TURN", "content": "Great, thanks."}
    ]));
    f.script_adherence = Some(ScriptAdherence::Strict);
    let vars = BTreeMap::new();
    let outcome = talk(&setup(&f, &vars, "call-h")).await;
    assert_eq!(outcome.ended_status, EndedStatus::CustomerEndedCall);
    assert!(outcome.end_reason.contains("off-script"), "{}", outcome.end_reason);
    let redirects = outcome.transcript.entries.iter().filter(|e| e.text.contains("warranty?")).count();
    assert_eq!(redirects, 2, "the redirect line is said maxAttempts times");
    assert!(
        !outcome.transcript.entries.iter().any(|e| e.text == "Great, thanks."),
        "the call ended before the rest of the flow"
    );
}

/// The seeded dental flow and its "presses 2" edge case, with the seeded plan's variables.
fn seeded_press_2() -> (CustomerFlow, BTreeMap<String, String>) {
    let flows: Vec<CustomerFlow> =
        serde_json::from_str(include_str!("../../../../assets/seed/customer_flows.json")).unwrap();
    let flow =
        flows.into_iter().find(|f| f.title.as_deref() == Some("Reschedule a cleaning with identity check")).unwrap();
    let vars = BTreeMap::from([
        ("patientName".to_owned(), "Dana Whitfield".to_owned()),
        ("dateOfBirth".to_owned(), "March 12, 1984".to_owned()),
    ]);
    (flow, vars)
}

async fn completed(build: crate::service::sim::reference_agent::ReferenceBuild, iteration: u32) -> (bool, String) {
    let (flow, vars) = seeded_press_2();
    let variant = flow.edge_cases.iter().find(|v| v.title.as_deref().is_some_and(|t| t.contains("presses 2"))).unwrap();
    let mut s = setup(&flow, &vars, &format!("job-{iteration}-{iteration}"));
    s.variant = Some(variant);
    s.persona = variant.persona_override.as_ref();
    let outcome = converse(&s, &AgentLink::ReferenceBuild(build), &Judge::Rubric).await.unwrap();
    assert!(outcome.transcript.entries.iter().any(|e| e.text == "[DTMF 2]"), "the caller presses 2: {outcome:?}");
    let question = Question {
        prompt: "Read the transcript. Identify what the caller wanted from the call. Answer true if, by the end of the call, that request was completed.",
        answer: Answer::Boolean,
        transcript: &outcome.transcript,
        agent_only: false,
        knowledge: None,
    };
    let verdict = Judge::Rubric.judge(&question).await.unwrap();
    (verdict.holds(), verdict.reasoning)
}

#[tokio::test]
async fn the_regression_build_fails_the_press_2_edge_case_and_the_current_build_does_not() {
    use crate::service::sim::reference_agent::ReferenceBuild;
    for iteration in 0..6 {
        let (done, why) = completed(ReferenceBuild::Current, iteration).await;
        assert!(done, "iteration {iteration}, current build: {why}");
        let (done, why) = completed(ReferenceBuild::IgnoresKeypadChoice, iteration).await;
        assert!(!done, "iteration {iteration}, regressed build: {why}");
        assert!(why.contains("can't change it"), "the reasoning names the regression: {why}");
    }
}

#[tokio::test]
async fn asked_for_a_name_the_script_never_says_the_caller_gives_it_and_the_agent_remembers() {
    let (flow, vars) = seeded_press_2();
    let unsure = flow.edge_cases.iter().find(|v| v.title.as_deref().is_some_and(|t| t.contains("unsure"))).unwrap();
    let mut asked = 0;
    for iteration in 0..12 {
        let mut s = setup(&flow, &vars, &format!("job-{iteration}-{iteration}"));
        s.variant = Some(unsure);
        s.persona = unsure.persona_override.as_ref();
        let outcome = talk(&s).await;
        let lines: Vec<(bool, &str)> = outcome
            .transcript
            .entries
            .iter()
            .map(|e| (e.role == Some(ParticipantType::Agent), e.text.as_str()))
            .collect();
        let Some(at) = lines.iter().position(|(agent, text)| *agent && text.contains("could I have your full name"))
        else {
            continue; // the agent took the date of birth alone, or missed it (designed flaws)
        };
        asked += 1;
        assert!(lines[at + 1].1.ends_with("name is Dana Whitfield."), "the caller answers: {lines:?}");
        assert!(lines[at + 2].1.contains("matches our records"), "the agent now has both: {lines:?}");
        assert!(lines.iter().filter(|(agent, _)| !agent).all(|(_, t)| !t.contains("It's March 12, 1984.")), "once");
    }
    assert!(asked >= 4, "most calls ask for the name: {asked} of 12");
}

/// The keys a step presses and what an agent step expects are filled from the variables like
/// the lines, and each step the caller reaches is noted, filled, for judging after the call.
#[tokio::test]
async fn keys_and_expectations_are_filled_and_the_steps_reached_are_noted() {
    let mut f = flow(serde_json::json!([
        {"type": "AGENT_TURN", "ref": "greet", "content": "Agent says \"{{clinic}}\"",
         "offScriptPolicy": {"reaction": "STAY_SILENT", "maxAttempts": 1, "then": "HANG_UP"}},
        {"type": "CUSTOMER_TURN", "content": "Hi, I need to reschedule my cleaning."},
        {"type": "CUSTOMER_DTMF", "dtmfDigits": "{{pin}}#"}
    ]));
    // STRICT: a quoted phrase is checked; filled, it is the agent's own greeting.
    f.script_adherence = Some(ScriptAdherence::Strict);
    let vars =
        BTreeMap::from([("clinic".to_owned(), "Brightsmile Dental".to_owned()), ("pin".to_owned(), "4821".to_owned())]);
    let outcome = talk(&setup(&f, &vars, "call-k")).await;
    let caller = caller_lines(&outcome);
    assert_eq!(&caller[..2], ["Hi, I need to reschedule my cleaning.", "[DTMF 4821#]"], "on script: {caller:?}");
    assert_eq!(
        outcome.walked,
        [WalkedStep {
            label: "step \"greet\" (AGENT_TURN)".into(),
            expectation: "Agent says \"Brightsmile Dental\"".into()
        }]
    );
}

/// A cheerful caller whose script opens with its own greeting greets once: the persona's
/// "Hi there!" takes the greeting's place (issue 28: "Hi there! hello, it's …").
#[tokio::test]
async fn a_cheerful_caller_greets_once() {
    let persona: Persona = serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "baseEmotion": "CHEERFUL"
    }))
    .unwrap();
    let f = flow(serde_json::json!([
        {"type": "CUSTOMER_TURN", "content": "Hello, it's {{name}}. I'd like to move my cleaning."},
        {"type": "CUSTOMER_TURN", "content": "Thanks, goodbye."}
    ]));
    let vars = BTreeMap::from([("name".to_owned(), "Dana Whitfield".to_owned())]);
    let mut s = setup(&f, &vars, "call-cheerful");
    s.persona = Some(&persona);
    let outcome = talk(&s).await;
    let first = caller_lines(&outcome)[0].to_owned();
    assert!(first.ends_with("Hi there! It's Dana Whitfield. I'd like to move my cleaning."), "{first}");
    assert!(!first.to_lowercase().contains("hello"), "one greeting: {first}");
}
