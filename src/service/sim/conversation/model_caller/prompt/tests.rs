//! The prompts are what docs/caller.md says they are: every fixed text is quoted there, and
//! the example request it shows is the one these functions write.

use std::collections::BTreeMap;

use super::*;

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/caller.md")).unwrap_or_default()
}

fn example_flow() -> CustomerFlow {
    serde_json::from_value(serde_json::json!({
        "id": "7d1f8c2e-41aa-4c55-9a3e-0b6f2d9c1e11",
        "title": "Move a parcel delivery",
        "description": "Callers whose parcel is due on a day they are out.",
        "type": "IMPROV",
        "scriptAdherence": "LOOSE",
        "happyPath": {
            "id": "c3e0d7a4-5b9f-4f0e-8c21-6a4d3b2f1e00",
            "title": "Out on Tuesday, home on Thursday",
            "type": "IMPROV",
            "prompt": "Your parcel {{orderNumber}} is due on Tuesday, when you are at work. Get it moved to Thursday.",
            "environment": {"name": "Kitchen", "description": "A radio plays quietly.", "backgroundNoise": "HOME"},
            "steps": []
        }
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn example_persona() -> Persona {
    serde_json::from_value(serde_json::json!({
        "id": "5a0c9e1b-2d3f-4e4a-8b5c-6d7e8f9a0b1c",
        "name": "maria-lopez",
        "displayName": "Maria Lopez",
        "description": "Nurse on day shifts; plans her week around them.",
        "backstoryPrompt": "You work day shifts at the hospital and are home on Thursdays.",
        "language": "EN",
        "understoodLanguages": ["EN", "ES"],
        "accent": "US",
        "age": "ADULT",
        "gender": "FEMALE",
        "baseEmotion": "CHEERFUL",
        "speechPace": "FAST",
        "speechClarity": "CLEAR",
        "intentClarity": "CLEAR",
        "confirmationStyle": "EXPLICIT",
        "memoryReliability": "HIGH",
        "interruption": "OFF",
        "hasDisfluencies": false,
        "idleMessages": ["Hello? Are you still there?"],
        "idleTimeoutSeconds": 8,
        "idleMessageMaxSpokenCount": 2,
        "properties": {"postcode": "N1 9GU"}
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn entry(role: ParticipantType, text: &str) -> TranscriptEntry {
    TranscriptEntry { start_offset_ms: 0, end_offset_ms: 1, text: text.into(), role: Some(role), participant_id: None }
}

fn example_setup<'a>(
    flow: &'a CustomerFlow,
    persona: &'a Persona,
    variables: &'a BTreeMap<String, String>,
) -> Setup<'a> {
    Setup {
        call_id: "example-0".into(),
        flow,
        variant: flow.happy_path.as_ref(),
        persona: Some(persona),
        variables,
        end_call_phrases: vec!["goodbye".into()],
        end_call_reasons: Vec::new(),
        silence_timeout_ms: 30_000,
        max_duration_ms: 600_000,
        agent_name: "Parcel Point".into(),
        caller: None,
    }
}

#[test]
fn the_doc_quotes_every_fixed_text() {
    let doc = doc();
    for (name, text) in [
        ("SYSTEM_TEMPLATE", SYSTEM_TEMPLATE),
        ("LOOSE_ADHERENCE", LOOSE_ADHERENCE),
        ("STRICT_ADHERENCE", STRICT_ADHERENCE),
        ("NO_SCRIPT", NO_SCRIPT),
        ("STEP_DIRECTION", STEP_DIRECTION),
        ("FREE_DIRECTION", FREE_DIRECTION),
        ("CLOSE_DIRECTION", CLOSE_DIRECTION),
        ("CALL_SO_FAR", CALL_SO_FAR),
    ] {
        assert!(doc.contains(text), "docs/caller.md quotes {name} as written:\n{text}");
    }
}

#[test]
fn the_docs_example_request_is_the_one_written() {
    let (flow, persona) = (example_flow(), example_persona());
    let variables = BTreeMap::from([("orderNumber".to_owned(), "PX-4417".to_owned())]);
    let setup = example_setup(&flow, &persona, &variables);
    let system = system(&setup, &[]);
    let entries = [entry(ParticipantType::Agent, "Parcel Point, this is Jo. What can I do for you?")];
    let user = user(&entries, FREE_DIRECTION);
    let doc = doc();
    assert!(doc.contains(&system), "docs/caller.md shows the example system prompt as written:\n{system}");
    assert!(doc.contains(&user), "docs/caller.md shows the example user message as written:\n{user}");
}

#[test]
fn a_scripted_flow_lists_its_steps_and_says_how_strictly_to_keep_them() {
    let mut flow = example_flow();
    flow.script_adherence = Some(ScriptAdherence::Strict);
    let variables = BTreeMap::from([("orderNumber".to_owned(), "PX-4417".to_owned())]);
    let persona = example_persona();
    let mut setup = example_setup(&flow, &persona, &variables);
    setup.persona = None;
    let plan = [
        Action::Expect {
            expected: "Agent greets the caller".into(),
            policy: None,
            presses_next: false,
            step: "step \"greet\" (AGENT_TURN)".into(),
        },
        Action::Instruction("Ask to move parcel {{orderNumber}}".into()),
        Action::Say("It's {{orderNumber}}.".into()),
        Action::Press("1".into()),
        Action::Silence(3),
    ];
    let system = system(&setup, &plan);
    for line in [
        "1. The agent is expected to: Agent greets the caller",
        "2. You, in your own words: Ask to move parcel PX-4417",
        "3. You, word for word: \"It's PX-4417.\"",
        "4. You press 1 on the keypad.",
        "5. You stay silent for 3 s.",
        STRICT_ADHERENCE,
        "- A customer of Parcel Point.",
    ] {
        assert!(system.contains(line), "{line}\n---\n{system}");
    }
    assert!(!system.contains(LOOSE_ADHERENCE));
}

#[test]
fn each_turn_carries_the_latest_lines_each_cut_to_a_bound() {
    let long = "x".repeat(LINE_CHARS_MAX + 500);
    let mut entries: Vec<TranscriptEntry> = (0..HISTORY_LINES_MAX + 5)
        .map(|n| {
            entry(if n % 2 == 0 { ParticipantType::Agent } else { ParticipantType::Customer }, &format!("line {n}"))
        })
        .collect();
    entries.push(entry(ParticipantType::Agent, &long));
    entries.push(entry(ParticipantType::Agent, " "));
    let message = user(&entries, "Now: go on.");
    assert!(message.starts_with("The call so far:\n(7 earlier lines left out)\n"), "{message}");
    assert!(!message.contains("line 6\n") && message.contains("YOU: line 7\n"), "{message}");
    assert!(message.contains(&format!("AGENT: {}\n", "x".repeat(LINE_CHARS_MAX))));
    assert!(!message.contains(&"x".repeat(LINE_CHARS_MAX + 1)));
    assert!(message.ends_with("AGENT: (says nothing)\n\nNow: go on."), "{message}");
}

#[test]
fn a_personas_text_is_put_in_once_and_never_read_as_a_section() {
    let rendered = render("{a} and {b} and {c}", &[("a", "{b}".into()), ("b", "B".into())]);
    assert_eq!(rendered, "{b} and B and {c}");
}
