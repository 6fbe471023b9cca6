//! Expectations: concepts, conditions and their own readers.

use super::*;
use crate::api::model::ParticipantType::{Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn read_lines(prompt: &str, lines: &[(crate::api::model::ParticipantType, &str)]) -> Finding {
    read(&Conversation::read(&transcript(lines)), &prompt.to_lowercase())
}

#[test]
fn the_concept_is_the_prompt_without_agent_verb_or_condition() {
    assert_eq!(
        concept("agent mentions the 24-hour cancellation policy when booking or moving an appointment."),
        "the 24-hour cancellation policy"
    );
    assert_eq!(
        concept("agent stays patient and offers a callback to the number on file if verification fails."),
        "a callback to the number on file"
    );
    assert_eq!(
        concept("after the caller presses 2, the agent offers at least one new slot and reads it back"),
        "at least one new slot"
    );
}

#[test]
fn whom_the_agent_tells_is_not_what_it_tells() {
    assert_eq!(concept("agent tells the tenant when the boiler will be serviced."), "when the boiler will be serviced");
    assert_eq!(concept("agent reminds the student that the library shuts at 9."), "the library shuts at 9");
    assert_eq!(concept("agent offers the caller a callback."), "the caller a callback");
}

#[test]
fn a_condition_that_never_arose_is_not_applicable() {
    let f = read_lines("Agent offers a callback if verification fails.", &[(Agent, "Hello."), (Customer, "Hi.")]);
    assert_eq!(f.reading, Reading::NotApplicable, "{}", f.why);
    let f = read_lines(
        "Agent mentions the 24-hour cancellation policy when booking or moving an appointment.",
        &[(Customer, "What are your hours?"), (Agent, "We open at 8.")],
    );
    assert_eq!(f.reading, Reading::NotApplicable, "{}", f.why);
}

#[test]
fn fees_timing_and_asking_have_their_own_readers() {
    let charged = read_lines(
        "Agent never charges a change fee or fare difference for a SkyBridge-caused disruption.",
        &[(Agent, "I've charged 75 dollars to your card and moved you to Friday.")],
    );
    assert_eq!(charged.reading, Reading::NotMet, "{}", charged.why);
    let waived = read_lines(
        "Agent never charges a change fee or fare difference for a SkyBridge-caused disruption.",
        &[(Agent, "I've moved you to Friday; there's no charge for the change.")],
    );
    assert_eq!(waived.reading, Reading::Met, "{}", waived.why);
    let conv = Conversation::read(&crate::api::model::Transcript {
        entries: vec![
            crate::api::model::TranscriptEntry {
                start_offset_ms: 0,
                end_offset_ms: 3000,
                text: "It's K, 7, Q, X".into(),
                role: Some(Customer),
                participant_id: None,
            },
            crate::api::model::TranscriptEntry {
                start_offset_ms: 2000,
                end_offset_ms: 4000,
                text: "Thanks, and the rest?".into(),
                role: Some(Agent),
                participant_id: None,
            },
        ],
        participants: Vec::new(),
        transcription_source: None,
    });
    let f = read(&conv, "agent lets the caller finish spelling the confirmation code before responding.");
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
    assert!(f.why.contains("2.0 s") && f.why.contains("3.0 s"), "{}", f.why);
    let asked = read_lines("Agent asks for the date of birth.", &[(Agent, "Can I have your date of birth, please?")]);
    assert_eq!(asked.reading, Reading::Met, "{}", asked.why);
}

#[test]
fn every_pattern_compiles() {
    let all = [
        apology::all_patterns(),
        compound::all_patterns(),
        confirms_done::all_patterns(),
        fee::all_patterns(),
        greeting::all_patterns(),
        next_step::all_patterns(),
        offer::all_patterns(),
        promise::all_patterns(),
        readback::all_patterns(),
        timing::all_patterns(),
    ];
    assert!(all.iter().flatten().all(|p| p.compiles()));
}

#[test]
fn plain_words_expectations_about_what_the_agent_tells_the_caller() {
    use Reading::*;
    type Lines<'a> = &'a [(crate::api::model::ParticipantType, &'a str)];
    let cases: [(&str, Lines, Reading); 9] = [
        (
            "Agent tells the caller what happens next.",
            &[(Customer, "My card's lost."), (Agent, "I've cancelled it; a new one will reach you by Friday.")],
            Met,
        ),
        (
            "Agent tells the caller what happens next.",
            &[(Customer, "Cancel my order."), (Agent, "Done. Anything else?")],
            NotMet,
        ),
        (
            "The agent never promises a delivery date.",
            &[(Customer, "Where is it?"), (Agent, "It'll definitely be with you by Tuesday.")],
            NotMet,
        ),
        (
            "The agent never promises a delivery date.",
            &[(Customer, "Where is it?"), (Agent, "I can't promise it'll be there by Tuesday.")],
            Met,
        ),
        (
            "The agent never promises a delivery date.",
            &[(Customer, "Where is it?"), (Agent, "It should hopefully arrive on Tuesday.")],
            Unsure,
        ),
        (
            "Agent tells the caller how much the repair will cost.",
            &[(Customer, "My boiler's broken."), (Agent, "The engineer's visit is 85 pounds.")],
            Met,
        ),
        (
            "Agent apologises for the late delivery.",
            &[(Customer, "It came two hours late!"), (Agent, "I'm so sorry about that.")],
            Met,
        ),
        (
            "Agent tells the caller the refund arrives in 3 to 5 working days.",
            &[(Customer, "Can you freeze my card?"), (Agent, "The freeze is on.")],
            Unsure,
        ),
        (
            "Agent asks the customer to keep the receipt.",
            &[(Customer, "It broke."), (Agent, "Please hang on to your receipt for now.")],
            Met,
        ),
    ];
    for (prompt, lines, want) in cases {
        let f = read_lines(prompt, lines);
        assert_eq!(f.reading, want, "{prompt}: {}", f.why);
    }
}

#[test]
fn when_where_and_how_long_ask_for_that_kind_of_detail() {
    use Reading::*;
    type Lines<'a> = &'a [(crate::api::model::ParticipantType, &'a str)];
    let cases: [(&str, Lines, Reading); 6] = [
        // A statement without a day may still say when in other words ("it's on the van"):
        // no answer rather than a "not met" on words.
        (
            "Agent tells the caller when the parcel will arrive.",
            &[(Customer, "Where's my parcel?"), (Agent, "Our parcel team are on it."), (Agent, "Anything else?")],
            Unsure,
        ),
        (
            "Agent tells the caller when the parcel will arrive.",
            &[(Customer, "Where's my parcel?"), (Agent, "Let me see."), (Agent, "Anything else?")],
            NotMet,
        ),
        (
            "Agent tells the caller when the parcel will arrive.",
            &[(Customer, "Where's my parcel?"), (Agent, "The parcel should be with you on Thursday.")],
            Met,
        ),
        (
            "Agent tells the caller where to collect the keys.",
            &[(Customer, "I'm locked out."), (Agent, "You can collect the keys from our Mill Lane office.")],
            Met,
        ),
        (
            "Agent tells the caller how long the repair takes.",
            &[(Customer, "It's broken."), (Agent, "The repair team will have it back within 3 working days.")],
            Met,
        ),
        (
            "The agent never promises there will be no charge.",
            &[(Customer, "Will I be charged?"), (Agent, "I can't tell you whether there'll be a charge.")],
            Met,
        ),
    ];
    for (prompt, lines, want) in cases {
        let f = read_lines(prompt, lines);
        assert_eq!(f.reading, want, "{prompt}: {}", f.why);
    }
}

#[test]
fn sympathy_hurt_and_who_are_read_in_everyday_words() {
    let sorry = [(Customer, "She's still in hospital."), (Agent, "I'm so sorry to hear that.")];
    let f = read_lines("Agent expresses sympathy about the caller's wife being in hospital.", &sorry);
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
    let hurt = [(Customer, "Someone hit my car."), (Agent, "Was anybody hurt?")];
    let f = read_lines("Agent asks whether anyone was injured.", &hurt);
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
    // A team and its number may be who can help: not the prompt's words, so no answer.
    let team = [(Customer, "Can you add a driver?"), (Agent, "You'll need our policy team on 0800 015 2200.")];
    let f = read_lines("Agent tells the caller who can help instead.", &team);
    assert_eq!(f.reading, Reading::Unsure, "{}", f.why);
    let f = read_lines("Agent tells the caller who can help instead.", &[(Agent, "Goodbye.")]);
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
}

#[test]
fn an_offer_in_other_words_is_not_read_as_no_offer() {
    let lines =
        [(Customer, "Are they ready?"), (Agent, "I can put one through to the surgery for you now if you like.")];
    let f = read_lines("Agent offers to send the request to the surgery.", &lines);
    assert_eq!(f.reading, Reading::Unsure, "{}", f.why);
    let f = read_lines("Agent offers to send the request to the surgery.", &[(Agent, "Goodbye.")]);
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
}

#[test]
fn a_request_passed_on_is_the_act_a_before_condition_looks_before() {
    let lines = [
        (Customer, "I need to reorder my inhalers please."),
        (Agent, "I can see two on your list. Do you want both?"),
        (Customer, "Yes please."),
        (Agent, "Right, I've sent the request over to the surgery for both of them."),
    ];
    let f = read_lines("Agent checks which items the caller wants before ordering.", &lines);
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
    let f = read_lines("Agent checks which items the caller wants before ordering.", &lines[..1]);
    assert_eq!(f.reading, Reading::NotApplicable, "{}", f.why);
}

#[test]
fn an_expectation_not_found_is_not_met_only_when_its_content_is_checkable() {
    let lines = [(Customer, "I'd like to switch tariff."), (Agent, "Done, you're on the Fixed tariff from Monday.")];
    let f = read_lines("Agent mentions the 14-day cooling-off period.", &lines);
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
    let f = read_lines("Agent mentions the cooling-off period.", &lines);
    assert_eq!(f.reading, Reading::Unsure, "{}", f.why);
    let f =
        read_lines("Agent mentions the cooling-off period.", &[(Customer, "Switch me."), (Agent, "Anything else?")]);
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
}

#[test]
fn telling_a_date_needs_a_line_with_a_date_of_the_thing() {
    let prompt = "Agent tells the caller the date their contract ends.";
    let greeting = read_lines(
        prompt,
        &[
            (Agent, "Brightline Mobile contracts team, Sam speaking."),
            (Customer, "When does my contract end?"),
            (Agent, "Let me see. I've booked you a callback for Friday."),
        ],
    );
    assert_ne!(greeting.reading, Reading::Met, "{}", greeting.why);
    let told = read_lines(
        prompt,
        &[
            (Agent, "Brightline Mobile contracts team, Sam speaking."),
            (Customer, "When does my contract end?"),
            (Agent, "Your contract ends on the 3rd of March."),
        ],
    );
    assert_eq!(told.reading, Reading::Met, "{}", told.why);
}
