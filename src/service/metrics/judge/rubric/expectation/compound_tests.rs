//! A newcomer's own steps and metrics (issue 28): a compound step, a bare welcome, a question
//! asking for a date told, and a success said in the passive, with the texts of their calls.

use super::compound::{as_statement, parts};
use crate::api::model::ParticipantType::{self, Agent, Customer};
use crate::service::metrics::judge::rubric::tests::transcript;
use crate::service::metrics::judge::{Answer, Question, Verdict, rubric};

const GREET: &str = "Hello, Maple Street Library lending desk here. What can I do for you today?";
const DONE: &str = "Found you, card ending 2290. Both items are extended; they're now due on the 18th of December.";
const BUGGY: &str = "Hmm, our catalogue system seems to be having a moment. Could you call back later?";
const DUE_DATE: &str = "Did the agent tell the caller the new due date of the renewed items?";
const TASK: &str = "Identify what the caller wanted from the call. Answer true if, by the end of the call, that request \
     was completed (booked, changed, cancelled, answered or refunded as asked), and false if the caller left without it.";

fn renewal(last: &'static str) -> Vec<(ParticipantType, &'static str)> {
    vec![
        (Agent, GREET),
        (Customer, "Hello, it's Margaret Oyelaran. I'd like to renew the two novels I have out."),
        (Agent, "Sure thing. Could you read me the number on the back of your library card?"),
        (Customer, "Of course, the number is 2290 0417 3381."),
        (Agent, last),
        (Customer, "Wonderful, thank you so much. Goodbye."),
    ]
}

fn fines() -> Vec<(ParticipantType, &'static str)> {
    vec![
        (Agent, GREET),
        (Customer, "Hi there! hi, this is Margaret Oyelaran. Do I owe any fines on my account?"),
        (Agent, "There's nothing owing on your account at the moment."),
        (Customer, "Good to know, thanks. Goodbye."),
    ]
}

/// As a step is judged: a boolean on the agent's lines.
fn judged(prompt: &str, lines: &[(ParticipantType, &str)]) -> Verdict {
    let t = transcript(lines);
    rubric::judge(&Question { prompt, answer: Answer::Boolean, transcript: &t, agent_only: true, knowledge: None })
        .unwrap()
}

#[test]
fn a_compound_expectation_is_split_into_its_deeds() {
    assert_eq!(
        parts("agent welcomes the caller to the library and offers help."),
        Some(vec!["agent welcomes the caller to the library.".to_owned(), "agent offers help.".to_owned()])
    );
    assert_eq!(
        parts("agent confirms the change, mentions the 24-hour cancellation policy and gives a confirmation code."),
        Some(vec![
            "agent confirms the change.".to_owned(),
            "agent mentions the 24-hour cancellation policy.".to_owned(),
            "agent gives a confirmation code.".to_owned(),
        ])
    );
    // A condition or a manner may govern every deed; a list of things is one deed.
    assert_eq!(parts("agent stays patient and offers a callback if verification fails."), None);
    assert_eq!(parts("agent reads back the date, time and provider."), None);
    assert_eq!(parts("agent says friday is full and offers monday."), None);
}

#[test]
fn a_question_about_the_agent_is_read_as_the_statement_it_asks_about() {
    assert_eq!(
        as_statement("did the agent tell the caller the new due date of the renewed items?"),
        "the agent tells the caller the new due date of the renewed items"
    );
    assert_eq!(as_statement("did the agent apologise?"), "the agent apologises");
    assert_eq!(as_statement("the agent tells the caller x."), "the agent tells the caller x.");
}

#[test]
fn a_welcome_and_an_offer_of_help_in_other_words_are_met() {
    let prompt = "Agent welcomes the caller to the library and offers help.";
    for last in [
        DONE,
        "Found you, card ending 2290. I have extended both loans for you; they are now due back on the 18th of December.",
    ] {
        let v = judged(prompt, &renewal(last));
        assert!(v.holds(), "{}", v.reasoning);
        assert!(
            v.reasoning.contains("Maple Street Library") && v.reasoning.contains("What can I do"),
            "{}",
            v.reasoning
        );
    }
    let v = judged(prompt, &renewal(BUGGY));
    assert!(v.holds(), "the greeting does not depend on the rest of the call: {}", v.reasoning);
}

#[test]
fn a_bare_welcome_is_checked_against_the_first_words() {
    let v = judged("Agent welcomes the caller.", &fines());
    assert!(v.holds(), "{}", v.reasoning);
    let v = judged("Agent welcomes the caller.", &[(Agent, "Card number?"), (Customer, "1234.")]);
    assert!(!v.answered(), "a greeting can be worded any way: {}", v.reasoning);
    let v = judged("Agent offers help.", &[(Agent, "Card number?"), (Customer, "1234.")]);
    assert!(!v.answered(), "{}", v.reasoning);
}

#[test]
fn a_new_due_date_told_is_met_and_one_never_told_is_quoted_cleanly() {
    let v = judged(DUE_DATE, &renewal(DONE));
    assert!(v.holds(), "{}", v.reasoning);
    assert!(v.reasoning.contains("18th of December"), "{}", v.reasoning);
    for lines in [renewal(BUGGY), fines()] {
        // Never met: the buggy renewal abstains (the date may be said in other words).
        let v = judged(DUE_DATE, &lines);
        assert!(!v.holds(), "{}", v.reasoning);
        assert!(!v.reasoning.contains("the caller the new due date"), "{}", v.reasoning);
        assert!(!v.reasoning.contains("items?"), "{}", v.reasoning);
    }
}

#[test]
fn renewed_loans_confirmed_in_the_passive_meet_the_step_and_the_task() {
    let step = "Agent confirms the loans are renewed and states the new due date.";
    let v = judged(step, &renewal(DONE));
    assert!(v.holds(), "{}", v.reasoning);
    // Never met: the buggy renewal abstains.
    let v = judged(step, &renewal(BUGGY));
    assert!(!v.holds(), "{}", v.reasoning);
    let v = judged(TASK, &renewal(DONE));
    assert!(v.holds(), "\"both items are extended\" is the request done: {}", v.reasoning);
    let v = judged(TASK, &renewal(BUGGY));
    assert!(!v.holds(), "{}", v.reasoning);
}
