//! Who was verified, and what came first.

use super::*;
use crate::api::model::ParticipantType::{Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

const PROMPT: &str =
    "agent verifies the patient's full name and date of birth before discussing any appointment details.";

fn met(lines: &[(crate::api::model::ParticipantType, &str)]) -> Reading {
    read(&Conversation::read(&transcript(lines)), PROMPT).reading
}

#[test]
fn the_prompt_says_what_identifies_and_what_is_protected() {
    let kinds = |ask: &Ask| ask.facts.iter().map(|f| f.kind).collect::<Vec<_>>();
    let dental = Ask::from_prompt(PROMPT);
    assert_eq!(kinds(&dental), [FactKind::FullName, FactKind::BirthDate]);
    assert!(!dental.protects_changes && dental.private.contains("appoint"));
    let airline = Ask::from_prompt(
        "agent verifies the confirmation code and the passenger's last name before changing the booking.",
    );
    assert_eq!(kinds(&airline), [FactKind::Code, FactKind::Name]);
    assert!(airline.protects_changes);
    let generic = Ask::from_prompt("agent confirms the caller's identity before discussing the existing appointment.");
    assert!(generic.facts.is_empty(), "whatever the agent asks for identifies");
}

#[test]
fn details_before_the_date_of_birth_are_a_disclosure_and_after_are_not() {
    assert_eq!(
        met(&[
            (Customer, "Hi, this is Kevin Park, I need to change my appointment."),
            (Agent, "Sure, I see you're booked Thursday at 2:30 with Dr. Chen."),
            (Customer, "April 23, 1969."),
        ]),
        Reading::NotMet
    );
    assert_eq!(
        met(&[
            (Customer, "Hi, this is Kevin Park, I need to change my appointment."),
            (Agent, "Can you confirm your date of birth?"),
            (Customer, "April 23, 1969."),
            (Agent, "Thank you. I see you're booked Thursday at 2:30 with Dr. Chen."),
        ]),
        Reading::Met
    );
}

#[test]
fn what_the_caller_says_and_a_rejected_date_of_birth_are_read_for_what_they_are() {
    // The caller's own words are not a disclosure.
    assert_eq!(
        met(&[
            (Customer, "My cleaning is Thursday at 9 with Maya. I'm Dana Whitfield."),
            (Agent, "Before I pull up your appointment, what's your date of birth?"),
        ]),
        Reading::Met
    );
    // A date of birth the agent says does not match verifies nothing.
    assert_eq!(
        met(&[
            (Customer, "Dana Whitfield, June 1, 1950."),
            (Agent, "That doesn't match our records, but your cleaning is Thursday at 9."),
        ]),
        Reading::NotMet
    );
}
