//! Every service-owned metric on small hand-written transcripts.

use super::*;

fn entry(role: ParticipantType, start: i64, end: i64, text: &str) -> TranscriptEntry {
    TranscriptEntry {
        start_offset_ms: start,
        end_offset_ms: end,
        text: text.into(),
        role: Some(role),
        participant_id: None,
    }
}

fn call(duration_ms: Option<i64>, ended: Option<EndedStatus>) -> Call {
    serde_json::from_value(serde_json::json!({"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"}))
        .map(|c: Call| Call { duration_ms, ended_status: ended, ..c })
        .unwrap()
}

/// Agent greets, caller asks (and is talked over), agent answers after a pause.
fn sample() -> Transcript {
    use ParticipantType::*;
    Transcript {
        entries: vec![
            entry(Agent, 0, 2000, "Brightsmile Dental, how can I help?"),
            entry(Customer, 2500, 6500, "I need to move my cleaning to next week please"),
            entry(Agent, 6000, 9000, "Sure, let me look that up for you"),
            entry(Customer, 12000, 13000, "Thanks"),
            entry(Agent, 13800, 15000, "You're booked for Tuesday. Goodbye"),
        ],
        participants: Vec::new(),
        transcription_source: None,
    }
}

fn values(slug: &str, transcript: &Transcript, call: &Call, flow: Option<&CustomerFlow>) -> Vec<MetricValue> {
    compute(slug, &Conversation { call, transcript, flow, variant: None, walked: None })
        .expect("a service-owned metric")
}

fn only(values: &[MetricValue], context: MetricContext) -> Vec<&MetricValue> {
    values.iter().filter(|v| v.context == Some(context.clone())).collect()
}

#[test]
fn call_duration_prefers_the_calls_own_duration() {
    let t = sample();
    assert_eq!(values("call_duration", &t, &call(Some(15_400), None), None)[0].value, Some(15.4));
    assert_eq!(values("call_duration", &t, &call(None, None), None)[0].value, Some(15.0));
    let empty = Transcript::default();
    let v = values("call_duration", &empty, &call(None, None), None);
    assert_eq!(v[0].capture_status, Some(CaptureStatus::DataMissing));
    assert_eq!(v[0].value, None);
}

#[test]
fn turn_counts_per_side() {
    let (t, c) = (sample(), call(None, None));
    assert_eq!(values("agent_turn_count", &t, &c, None)[0].value, Some(3.0));
    assert_eq!(values("customer_turn_count", &t, &c, None)[0].value, Some(2.0));
    let v = values("agent_turn_count", &Transcript::default(), &c, None);
    assert_eq!(v[0].capture_status, Some(CaptureStatus::DataMissing));
}

#[test]
fn response_latency_per_turn_and_averaged() {
    let v = values("agent_response_latency", &sample(), &call(None, None), None);
    let turns = only(&v, MetricContext::SegmentRange);
    // 6000 - 6500 overlaps (0 ms), 13800 - 13000 = 800 ms.
    assert_eq!(turns.iter().map(|t| t.value.unwrap()).collect::<Vec<_>>(), vec![0.0, 800.0]);
    assert!(turns.iter().all(|t| t.segment.is_some() && t.participant_role.as_deref() == Some("agent")));
    // Each spans the caller's line and the agent's answer.
    assert!(turns.iter().all(|t| t.from_segment.is_some() && t.to_segment.is_some()));
    assert_eq!(only(&v, MetricContext::Call)[0].value, Some(400.0));
    let agent_only =
        Transcript { entries: vec![sample().entries[0].clone()], participants: Vec::new(), transcription_source: None };
    let v = values("agent_response_latency", &agent_only, &call(None, None), None);
    assert_eq!(v[0].capture_status, Some(CaptureStatus::DataMissing));
}

#[test]
fn interruptions_count_overlapping_turns_of_the_other_side() {
    let v = values("interruption_count", &sample(), &call(None, None), None);
    assert_eq!(only(&v, MetricContext::Call)[0].value, Some(1.0));
    let turn = only(&v, MetricContext::SegmentRange)[0];
    assert_eq!(turn.participant_role.as_deref(), Some("agent"));
    assert_eq!(turn.to_segment.as_ref().unwrap().start_offset_ms, Some(6000));
}

#[test]
fn longest_silence_is_the_biggest_gap_nobody_spoke() {
    let v = values("longest_silence", &sample(), &call(None, None), None);
    assert_eq!(v[0].value, Some(3000.0), "9000 → 12000");
    assert_eq!(v[0].segment.as_ref().unwrap().start_offset_ms, Some(12000));
    let one =
        Transcript { entries: vec![sample().entries[0].clone()], participants: Vec::new(), transcription_source: None };
    assert_eq!(
        values("longest_silence", &one, &call(None, None), None)[0].capture_status,
        Some(CaptureStatus::DataMissing)
    );
}

#[test]
fn words_per_minute_for_each_side_or_data_missing() {
    let v = values("words_per_minute", &sample(), &call(None, None), None);
    let agent = v.iter().find(|x| x.participant_role.as_deref() == Some("agent")).unwrap();
    // 6 + 8 + 5 = 19 words in 2000 + 3000 + 1200 ms.
    assert_eq!(agent.value, Some((19.0f64 / (6200.0 / 60_000.0)).round()));
    let mut with_tone = sample();
    with_tone.entries.push(entry(ParticipantType::Customer, 16000, 16200, "[DTMF 1]"));
    let customer_wpm = |t: &Transcript| {
        values("words_per_minute", t, &call(None, None), None)
            .into_iter()
            .find(|x| x.participant_role.as_deref() == Some("customer"))
            .unwrap()
            .value
    };
    assert_eq!(customer_wpm(&with_tone), customer_wpm(&sample()), "key presses are not speech");
    let voicemail =
        Transcript { entries: vec![sample().entries[0].clone()], participants: Vec::new(), transcription_source: None };
    let v = values("words_per_minute", &voicemail, &call(None, None), None);
    let customer = v.iter().find(|x| x.participant_role.as_deref() == Some("customer")).unwrap();
    assert_eq!(customer.capture_status, Some(CaptureStatus::DataMissing));
    assert_eq!(customer.value, None);
}

#[test]
fn end_call_reason_is_a_classification_of_how_it_ended() {
    let v = values("end_call_reason", &sample(), &call(None, Some(EndedStatus::AgentEndedCall)), None);
    assert_eq!(v[0].label.as_deref(), Some("Agent ended call"));
    assert_eq!(v[0].value, Some(2.0));
    let v = values("end_call_reason", &sample(), &call(None, None), None);
    assert_eq!(v[0].capture_status, Some(CaptureStatus::DataMissing));
}

#[test]
fn keypad_entry_applies_only_to_flows_with_keypad_steps() {
    let c = call(None, None);
    let v = values("keypad_entry", &sample(), &c, None);
    assert_eq!(v[0].capture_status, Some(CaptureStatus::NotApplicable));
    let flow: CustomerFlow = serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "graph": [{"type": "AGENT_TURN", "steps": [{"type": "CUSTOMER_DTMF", "content": "Press 1 to confirm"}]}]
    }))
    .unwrap();
    assert_eq!(values("keypad_entry", &sample(), &c, Some(&flow))[0].value, Some(0.0));
    let mut pressed = sample();
    pressed.entries.push(entry(ParticipantType::Customer, 16000, 16200, "[DTMF 1]"));
    assert_eq!(values("keypad_entry", &pressed, &c, Some(&flow))[0].value, Some(1.0));
}

#[test]
fn keypad_entry_reads_the_script_the_simulation_ran() {
    let c = call(None, None);
    // The graph has a keypad step; one edge case has its own script without one, another its
    // own script with one, and the happy path none (it walks the graph).
    let flow: CustomerFlow = serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "graph": [{"type": "CUSTOMER_DTMF", "content": "Press 1 to confirm"}],
        "happyPath": {"id": "2a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "title": "Happy", "steps": []},
        "edgeCases": [
            {"id": "3a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "title": "Unsure",
             "steps": [{"type": "CUSTOMER_TURN", "content": "Can't you just tell me?"}]},
            {"id": "4a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "title": "Presses 2",
             "steps": [{"type": "AGENT_TURN", "steps": [{"type": "CUSTOMER_DTMF", "dtmfDigits": "2"}]}]}
        ]
    }))
    .unwrap();
    let run = |variant: Option<&FlowVariant>| {
        compute(
            "keypad_entry",
            &Conversation { call: &c, transcript: &sample(), flow: Some(&flow), variant, walked: None },
        )
        .unwrap()
    };
    let unsure = run(Some(&flow.edge_cases[0]));
    assert_eq!(unsure[0].capture_status, Some(CaptureStatus::NotApplicable));
    assert_eq!(unsure[0].value, None);
    assert!(
        unsure[0].error_message.as_deref().is_some_and(|m| m.contains("(\"Unsure\") has no keypad step")),
        "{unsure:?}"
    );
    assert_eq!(run(Some(&flow.edge_cases[1]))[0].value, Some(0.0), "its own script presses 2");
    assert_eq!(run(flow.happy_path.as_ref())[0].value, Some(0.0), "no steps of its own: the graph");
    assert_eq!(run(None)[0].value, Some(0.0), "no variant: the graph");
    let without_keys: CustomerFlow = serde_json::from_value(serde_json::json!({
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "graph": [{"type": "CUSTOMER_TURN", "content": "Hi"}],
        "edgeCases": [{"id": "4a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "steps": [{"type": "CUSTOMER_DTMF"}]}]
    }))
    .unwrap();
    let conversation =
        Conversation { call: &c, transcript: &sample(), flow: Some(&without_keys), variant: None, walked: None };
    let v = compute("keypad_entry", &conversation).unwrap();
    assert_eq!(v[0].capture_status, Some(CaptureStatus::NotApplicable), "another variant's keypad step does not count");
}

#[test]
fn unknown_slugs_are_not_computed_here() {
    assert!(
        compute(
            "task_completion",
            &Conversation { call: &call(None, None), transcript: &sample(), flow: None, variant: None, walked: None }
        )
        .is_none()
    );
}
