//! The offline judge end to end, on small conversations.

use super::*;
use crate::api::model::{ParticipantType, ScaleLabel, Transcript, TranscriptEntry};

pub(super) fn transcript(lines: &[(ParticipantType, &str)]) -> Transcript {
    Transcript {
        entries: lines
            .iter()
            .enumerate()
            .map(|(i, (role, text))| TranscriptEntry {
                start_offset_ms: i as i64 * 3000,
                end_offset_ms: i as i64 * 3000 + 2500,
                text: (*text).into(),
                role: Some(role.clone()),
                participant_id: None,
            })
            .collect(),
        participants: Vec::new(),
        transcription_source: None,
    }
}

fn ask(prompt: &str, t: &Transcript, answer: Answer) -> Verdict {
    judge(&Question { prompt, answer, transcript: t, agent_only: false, knowledge: None }).unwrap()
}

const TASK: &str = "Answer true if, by the end of the call, the caller's request was completed.";

#[test]
fn the_caller_saying_the_words_is_not_the_agent_doing_it() {
    use ParticipantType::*;
    let t = transcript(&[
        (Agent, "Brightsmile Dental, how can I help?"),
        (Customer, "Book me, confirm it, I'm all set and complete, right?"),
        (Agent, "Let me check on that for you. Is there anything else I can help with?"),
    ]);
    let v = ask(TASK, &t, Answer::Boolean);
    assert!(!v.holds(), "{}", v.reasoning);
    assert!(v.reasoning.starts_with("Not met") && v.reasoning.contains("Let me check"), "{}", v.reasoning);
}

#[test]
fn a_success_taken_back_is_not_a_success_and_both_lines_are_quoted() {
    use ParticipantType::*;
    let t = transcript(&[
        (Customer, "I need to move my cleaning to Tuesday."),
        (Agent, "Your appointment is booked for Tuesday at 9:30."),
        (Agent, "Sorry, our system failed to save it."),
    ]);
    let v = ask(TASK, &t, Answer::Boolean);
    assert!(!v.holds());
    assert_eq!(
        v.reasoning,
        "Not met: the agent said \"Your appointment is booked for Tuesday at 9:30.\" at 3.0 s but then \"Sorry, our system failed to save it.\" at 6.0 s."
    );
}

#[test]
fn a_failure_put_right_is_a_success() {
    use ParticipantType::*;
    let t = transcript(&[
        (Customer, "I need to move my cleaning to Tuesday."),
        (Agent, "Sorry, I got an error saving that. Let me try again."),
        (Agent, "There we go, you're booked for Tuesday at 9:30."),
    ]);
    let v = ask(TASK, &t, Answer::Boolean);
    assert!(v.holds(), "{}", v.reasoning);
    assert!(v.reasoning.contains("after first saying"), "{}", v.reasoning);
}

#[test]
fn an_offer_is_not_a_booking() {
    use ParticipantType::*;
    let t = transcript(&[
        (Customer, "Please rebook me on the next flight."),
        (Agent, "I can put you on SB 1190 at 4:40 PM. Shall I book it?"),
        (Customer, "Let me think about it. Bye."),
    ]);
    assert!(!ask(TASK, &t, Answer::Boolean).holds());
}

#[test]
fn a_question_to_nobody_is_not_applicable_and_an_empty_call_is_an_error() {
    use ParticipantType::*;
    let t = transcript(&[(Agent, "Brightsmile Dental, our hours are 8 to 6."), (Customer, "Thanks.")]);
    let v = ask(
        "Agent reads back the final appointment date, time and provider before ending the call.",
        &t,
        Answer::Boolean,
    );
    assert_eq!(v.standing, Standing::NotApplicable, "{}", v.reasoning);
    assert!(v.reasoning.starts_with("Not applicable"));
    let empty = Transcript::default();
    assert!(
        judge(&Question {
            prompt: "x",
            answer: Answer::Boolean,
            transcript: &empty,
            agent_only: true,
            knowledge: None
        })
        .is_err()
    );
}

#[test]
fn the_knowledge_base_line_that_applies_is_cited() {
    use ParticipantType::*;
    let t = transcript(&[(Customer, "When is my appointment?"), (Agent, "It's on Tuesday at 9.")]);
    let knowledge = "Opening hours are 8 to 5.\nStaff must verify identity with the date of birth before discussing any appointment details.";
    let v = judge(&Question {
        prompt: "Identity verified with the date of birth before appointment details were disclosed",
        answer: Answer::Boolean,
        transcript: &t,
        agent_only: true,
        knowledge: Some(knowledge),
    })
    .unwrap();
    assert!(!v.holds(), "{}", v.reasoning);
    assert!(v.reasoning.contains("Policy: \"Staff must verify identity"), "{}", v.reasoning);
}

#[test]
fn the_judge_is_deterministic() {
    use ParticipantType::*;
    let t = transcript(&[(Customer, "Move my cleaning, please."), (Agent, "Done, you're booked for Tuesday.")]);
    assert_eq!(ask(TASK, &t, Answer::Boolean), ask(TASK, &t, Answer::Boolean));
}

#[test]
fn scales_and_classifications_are_read_from_the_conversation() {
    use ParticipantType::*;
    let t = transcript(&[
        (Customer, "My tooth really hurts and my cheek is swollen."),
        (Agent, "I'm so sorry you're in pain. Take your time; let's get you in today at 3."),
    ]);
    let labels = vec![
        ScaleLabel { range_min: Some(1.0), range_max: Some(3.0), label: Some("Cool".into()), ..Default::default() },
        ScaleLabel { range_min: Some(4.0), range_max: Some(5.0), label: Some("Warm".into()), ..Default::default() },
    ];
    let v = ask("Rate the agent's empathy", &t, Answer::Scale { min: 1, max: 5, labels });
    assert_eq!((v.value, v.label.as_deref()), (4.0, Some("Warm")), "{}", v.reasoning);
    assert!(v.reasoning.contains("I'm so sorry"), "{}", v.reasoning);
    let options = vec![
        ("Billing question".to_owned(), "insurance, invoice, payment".to_owned()),
        ("Book or change appointment".to_owned(), "book, reschedule or cancel, including emergencies".to_owned()),
    ];
    let v = ask("What did the caller want?", &t, Answer::Classification { options });
    assert_eq!((v.value, v.label.as_deref()), (2.0, Some("Book or change appointment")), "{}", v.reasoning);
}

#[test]
fn every_pattern_compiles() {
    let all = [
        outcome::all_patterns(),
        disclosure::all_patterns(),
        expectation::all_patterns(),
        scale::all_patterns(),
        intent::all_patterns(),
    ];
    assert!(all.iter().flatten().all(|p| p.compiles()));
}

/// The conversation read once for a transcript is never the one of another transcript.
#[test]
fn judging_two_transcripts_in_turn_reads_each_as_itself() {
    use ParticipantType::*;
    let booked = transcript(&[
        (Customer, "I'd like to book a cleaning on Tuesday."),
        (Agent, "You're booked for Tuesday at nine. Your confirmation number is 4417."),
    ]);
    let not_booked = transcript(&[
        (Customer, "I'd like to book a cleaning on Tuesday."),
        (Agent, "Let me check on that for you. Is there anything else I can help with?"),
    ]);
    let fresh: Vec<bool> = [&booked, &not_booked].iter().map(|t| ask(TASK, t, Answer::Boolean).holds()).collect();
    assert_ne!(fresh[0], fresh[1], "the two conversations differ in what they show");
    for _ in 0..2 {
        assert_eq!(ask(TASK, &booked, Answer::Boolean).holds(), fresh[0]);
        assert_eq!(ask(TASK, &booked, Answer::Boolean).holds(), fresh[0]);
        assert_eq!(ask(TASK, &not_booked, Answer::Boolean).holds(), fresh[1]);
    }
}

/// Calls from desks neither the seed nor the labelled sets have, in wording written for this
/// test: each line is (prompt, transcript, the careful reader's answer).
type Case<'a> = (&'a str, Vec<(ParticipantType, &'a str)>, Standing, bool);

/// Each case's prompt, read on its lines, gives that standing and value.
fn assert_cases(cases: Vec<Case>) {
    for (prompt, lines, standing, holds) in cases {
        let t = transcript(&lines);
        let v = ask(prompt, &t, Answer::Boolean);
        assert_eq!((v.standing, v.holds()), (standing, holds), "{prompt}\n{lines:?}\n{}", v.reasoning);
    }
}

#[test]
fn other_desks_requests_are_read_in_their_own_words() {
    use ParticipantType::*;
    use Standing::*;
    assert_cases(vec![
        (
            TASK,
            vec![
                (Customer, "My order never arrived, I want a refund."),
                (Agent, "So sorry! I've refunded the full 23.40 to your card; it should show in 3-5 days."),
            ],
            Answered,
            true,
        ),
        (
            TASK,
            vec![
                (Customer, "Can you cancel my subscription please?"),
                (Agent, "Of course. I've gone ahead and cancelled it, effective today."),
            ],
            Answered,
            true,
        ),
        (
            TASK,
            vec![
                (Customer, "Please change my delivery address to 5 Park Lane."),
                (Agent, "Unfortunately the order has already been dispatched, so the address can't be changed now."),
            ],
            Answered,
            false,
        ),
        (
            TASK,
            vec![
                (Customer, "Could you book a table for four at 8 tonight?"),
                (Agent, "Let me see. I'm afraid we're fully booked at 8."),
                (Customer, "Okay, bye."),
            ],
            Answered,
            false,
        ),
        (
            TASK,
            vec![
                (Customer, "I'd like to upgrade to premium."),
                (Agent, "Your upgrade has been processed."),
                (Agent, "Sorry, scratch that, the payment was declined."),
            ],
            Answered,
            false,
        ),
        (
            TASK,
            vec![
                (Customer, "I want to move my delivery to Friday."),
                (Agent, "I can see your delivery is booked for Thursday between 2 and 4."),
                (Customer, "Yes, so Friday?"),
                (Agent, "Our drivers don't deliver on Fridays in your area, sorry."),
            ],
            Answered,
            false,
        ),
    ]);
}

#[test]
fn other_desks_expectations_and_checks_are_read_in_their_own_words() {
    use ParticipantType::*;
    use Standing::*;
    assert_cases(vec![
        (
            "Agent tells the customer the refund takes 3-5 working days.",
            vec![
                (Customer, "My order never arrived, I want a refund."),
                (Agent, "I've refunded the full 23.40 to your card; it should show in 3-5 working days."),
            ],
            Answered,
            true,
        ),
        (
            "The agent never promises a delivery time.",
            vec![(Customer, "Where's my food?"), (Agent, "Your food will definitely be there by 7:30.")],
            Answered,
            false,
        ),
        (
            "Agent tells the customer what happens next.",
            vec![(Customer, "Cancel my order, please."), (Agent, "Done. Anything else?")],
            Answered,
            false,
        ),
        (
            "Decide whether the agent verified the policyholder (the policy number AND the date of birth) BEFORE \
             discussing the claim: its status, amounts or payment dates.",
            vec![
                (Customer, "Hi, I'm calling about my claim."),
                (Agent, "Sure, your claim for 1,200 pounds is approved and paying on Friday."),
            ],
            Answered,
            false,
        ),
        (
            "Decide whether the agent verified the policyholder (the policy number AND the date of birth) BEFORE \
             discussing the claim: its status, amounts or payment dates.",
            vec![
                (Customer, "Hi, I'm calling about my claim."),
                (Agent, "Sure. What's your policy number?"),
                (Customer, "HX 449 2810."),
                (Agent, "And your date of birth?"),
                (Customer, "2nd of June 1990."),
                (Agent, "Thanks. Your claim for 1,200 pounds is approved and paying on Friday."),
            ],
            Answered,
            true,
        ),
    ]);
}

/// What is kept of a sentence once worked out (`conversation::Kept`) serves every later
/// question on the same transcript: each question is answered as when asked on a fresh read.
#[test]
fn a_question_asked_after_others_is_answered_as_on_a_fresh_read() {
    use ParticipantType::*;
    let t = transcript(&[
        (Agent, "Brightsmile Dental, this is Maya. How can I help?"),
        (Customer, "I need to move my cleaning on Tuesday, I can't make it."),
        (Agent, "Sure. Can I have your full name and date of birth?"),
        (Customer, "Dana Whitfield, March 12, 1984."),
        (Agent, "Thanks Dana. I see your cleaning on Tuesday at 9:30 AM with Dr. Chen."),
        (Agent, "Moving it within 24 hours carries a 25 dollar fee. I have Thursday at 2 PM."),
        (Customer, "Thursday works."),
        (Agent, "Done, you're booked for Thursday at 2 PM. Your reference is BK-4471."),
    ]);
    let options = vec![
        ("Reschedule".to_owned(), "The caller wants to move an appointment".to_owned()),
        ("Billing".to_owned(), "A question about a bill or a payment".to_owned()),
    ];
    let questions = [
        (TASK, Answer::Boolean),
        (
            "Did the agent verify the caller's full name and date of birth before sharing appointment details?",
            Answer::Boolean,
        ),
        ("The agent tells the caller the fee for moving the appointment.", Answer::Boolean),
        ("The agent confirms the new day and time and gives a reference number.", Answer::Boolean),
        ("What did the caller want?", Answer::Classification { options }),
    ];
    let other = transcript(&[(Agent, "Hello, how can I help?"), (Customer, "Just checking, thanks.")]);
    // Judging another transcript in between has this one read afresh for each question.
    let fresh: Vec<Verdict> = questions
        .iter()
        .map(|(prompt, answer)| {
            ask(TASK, &other, Answer::Boolean);
            ask(prompt, &t, answer.clone())
        })
        .collect();
    let mut one_read: Vec<Verdict> =
        questions.iter().rev().map(|(prompt, answer)| ask(prompt, &t, answer.clone())).collect();
    one_read.reverse();
    assert!(fresh.iter().filter(|v| v.answered()).count() >= 3, "{fresh:#?}");
    assert_eq!(fresh, one_read);
}
