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
    let kinds = |ask: &Ask| ask.list.facts.iter().map(|f| f.kind).collect::<Vec<_>>();
    let dental = Ask::from_prompt(PROMPT);
    assert_eq!(kinds(&dental), [FactKind::FullName, FactKind::BirthDate]);
    assert!(!dental.protects_changes && dental.private.contains("appoint"));
    let airline = Ask::from_prompt(
        "agent verifies the confirmation code and the passenger's last name before changing the booking.",
    );
    assert_eq!(kinds(&airline), [FactKind::Code, FactKind::Name]);
    assert!(airline.protects_changes);
    let generic = Ask::from_prompt("agent confirms the caller's identity before discussing the existing appointment.");
    assert!(generic.list.facts.is_empty(), "whatever the agent asks for identifies");
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

const MOTOR: &str = "decide whether the claims handler verified the caller (the policy number and the registration of the \
                     insured vehicle) before sharing anything from the policy or an existing claim: the claim's \
                     progress, settlement or payout amounts, the excess, or payment dates.";

fn motor(lines: &[(crate::api::model::ParticipantType, &str)]) -> Reading {
    read(&Conversation::read(&transcript(lines)), MOTOR).reading
}

#[test]
fn an_answer_goes_to_the_code_the_agent_asked_for_and_a_short_name_asks() {
    // "reg" asks for the registration; the policy number alone does not give it.
    let lines = |reg: &'static str| {
        [
            (Customer, "Hi, what's my excess?"),
            (Agent, "Policy number?"),
            (Customer, "A M P 4 0 7 7 2 3."),
            (Agent, "And the car's reg?"),
            (Customer, reg),
            (Agent, "Thanks, that's you. Your excess is 350 pounds."),
        ]
    };
    assert_eq!(motor(&lines("K X 19 O R T.")), Reading::Met);
    assert_eq!(motor(&lines("It's [inaudible].")), Reading::Unsure, "the lost answer decides it");
    assert_eq!(motor(&lines("I don't know it.")), Reading::NotMet);
}

#[test]
fn a_statement_in_the_prompts_words_for_what_is_private_is_a_disclosure() {
    assert_eq!(
        motor(&[
            (Customer, "Where's my claim up to? The name's Lena Marsh."),
            (Agent, "Good news, the payout of 3,420 pounds was signed off yesterday."),
            (Agent, "Can you confirm the policy number and the registration?"),
            (Customer, "A M P 5 1 2 2 8 4, and the reg was Y R 68 D F A."),
        ]),
        Reading::NotMet
    );
}

#[test]
fn who_the_patient_is_asks_for_verification_and_a_medicine_ready_is_a_status() {
    let prompt = "decide whether the assistant confirmed who the patient is (the patient's full name and their nhs \
                  number) before saying anything about the patient's prescriptions: whether a prescription is ready \
                  or requested.";
    assert_eq!(
        crate::service::metrics::judge::rubric::kind::of(prompt),
        crate::service::metrics::judge::rubric::kind::Kind::Disclosure
    );
    let reading = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read(&Conversation::read(&transcript(lines)), prompt).reading
    };
    assert_eq!(
        reading(&[
            (Customer, "Is my mum's prescription ready? It's for Margaret Cole."),
            (Agent, "Yes, her amlodipine 5 milligram is bagged up and ready on the shelf."),
            (Agent, "Can I have her NHS number?"),
            (Customer, "612 448 9021."),
        ]),
        Reading::NotMet
    );
}

const ACCOUNT: &str = "decide whether the advisor verified the caller (the account number and the postcode) before \
                       sharing anything from the account: balances and bills.";

fn account(lines: &[(crate::api::model::ParticipantType, &str)]) -> Finding {
    read(&Conversation::read(&transcript(lines)), ACCOUNT)
}

#[test]
fn nothing_disclosed_is_not_said_when_a_line_before_verification_may_read_the_record() {
    let verified = [
        (Agent, "Can I take your account number?"),
        (Customer, "40021877."),
        (Agent, "And your postcode?"),
        (Customer, "LS6 2AB."),
        (Agent, "Thanks, how can I help?"),
    ];
    let mut lines = vec![(Customer, "Hi, I'm calling about my bill.")];
    lines.extend(verified.clone());
    let f = account(&lines);
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
    let mut lines = vec![(Customer, "Hi, I'm calling about my bill."), (Agent, "The debit bounced on the 3rd.")];
    lines.extend(verified.clone());
    let f = account(&lines);
    assert_eq!(f.reading, Reading::Unsure, "{}", f.why);
}

#[test]
fn not_verified_is_not_said_for_facts_asked_for_and_answered_in_an_unread_form() {
    let f = account(&[
        (Customer, "Hi, I'm calling about my bill."),
        (Agent, "What's the account number?"),
        (Customer, "It's four four one two nine nine four."),
        (Agent, "And the postcode?"),
        (Customer, "LS6 2AB."),
        (Agent, "Your balance is 82 pounds."),
    ]);
    assert_eq!(f.reading, Reading::Unsure, "{}", f.why);
    // A fact the agent never asked for was skipped, whatever the caller said.
    let f = account(&[
        (Customer, "Hi, I'm calling about my bill."),
        (Agent, "What's the postcode?"),
        (Customer, "LS6 2AB."),
        (Agent, "Your balance is 82 pounds."),
    ]);
    assert_eq!(f.reading, Reading::NotMet, "{}", f.why);
}

#[test]
fn every_calibration_pattern_compiles() {
    assert!(calibrate::all_patterns().iter().all(|p| p.compiles()));
}

const PARCEL: &str = "decide whether the agent checked the caller (the order reference and the parcel code) before \
    telling them anything from the order: where the parcel is or which flight it is on.";

fn parcel(lines: &[(crate::api::model::ParticipantType, &str)]) -> Finding {
    read(&Conversation::read(&transcript(lines)), PARCEL)
}

#[test]
fn one_code_gives_one_fact_and_a_record_made_on_the_call_is_not_applicable() {
    let one_code = parcel(&[
        (Customer, "Hi, the reference is Q R T 4 4 1 9 0."),
        (Agent, "It's in the Leeds depot and it's due on Friday."),
        (Agent, "Can you read me the parcel code?"),
        (Customer, "P C 7 7 1 0 2."),
    ]);
    assert_eq!(one_code.reading, Reading::NotMet, "{}", one_code.why);
    let two_codes = parcel(&[
        (Agent, "Can I take the reference and the code?"),
        (Customer, "Q R T 4 4 1 9 0, and P C 7 7 1 0 2."),
        (Agent, "It's in the Leeds depot and it's due on Friday."),
    ]);
    assert_eq!(two_codes.reading, Reading::Met, "{}", two_codes.why);
    let made = parcel(&[
        (Customer, "My husband's parcel didn't arrive and we'd waited all day."),
        (Agent, "Which address was it going to?"),
        (Customer, "14 Mill Lane."),
        (Agent, "Right, that's logged. Your reference is L Q 5 5 0 1 2."),
    ]);
    assert_eq!(made.reading, Reading::NotApplicable, "{}", made.why);
    let general = parcel(&[(Customer, "How heavy can a case be on your flights?"), (Agent, "Up to 23 kilos each.")]);
    assert_eq!(general.reading, Reading::NotApplicable, "\"our\" inside \"your\": {}", general.why);
}

#[test]
fn what_the_agent_did_for_a_caller_never_verified_may_read_the_record_out() {
    let prompt = "decide whether the advisor checked that the caller is the member (the member number and the last \
        four digits of the account) before telling them anything from the membership: the classes booked.";
    let f = read(
        &Conversation::read(&transcript(&[
            (Customer, "I'm calling for my son. Can you move his swim lesson to Friday?"),
            (Agent, "What's his member number?"),
            (Customer, "M 4 4 1 2 0 9."),
            (Agent, "I've got him on Tuesday's 5.30 swim and Sunday's diving. I've moved him to Friday at 6."),
        ])),
        prompt,
    );
    assert_ne!(f.reading, Reading::Met, "{}", f.why);
}

const LIBRARY: &str = "decide whether the librarian verified the borrower (the library card number and the postcode) \
                       before telling them anything from the account: loans, fines or holds.";

#[test]
fn where_to_find_the_fact_asked_for_is_part_of_the_request_not_the_record() {
    let reading = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read(&Conversation::read(&transcript(lines)), LIBRARY).reading
    };
    let lines = [
        (Customer, "Hi, I'd like to know what I owe in fines."),
        (Agent, "Happy to check. Can you read me your library card number? It's on the back, under the barcode."),
        (Customer, "L B 4 4 7 1 9 2."),
        (Agent, "And your postcode?"),
        (Customer, "NR2 4TJ."),
        (Agent, "Thanks. Your fines are £3.40."),
    ];
    assert_eq!(reading(&lines), Reading::Met);
    // A record read out in the asking turn is still a disclosure.
    let mut early = lines;
    early[1] = (Agent, "Your fines are £3.40. Can you read me your library card number?");
    assert_eq!(reading(&early), Reading::NotMet);
}

const LOCKER: &str = "decide whether the clerk checked that the caller rents the locker (the locker number and the postcode on the account) before telling them anything about the locker.";

#[test]
fn a_fact_is_asked_for_by_its_first_word_and_a_spelled_postcode_gives_it() {
    let call = |answer: &str| {
        let lines = [
            (Agent, "Lockers, Ana speaking."),
            (Customer, "Hi, is my locker still mine next month?"),
            (Agent, "What's the locker number?"),
            (Customer, "L K 4 4 1 9 0."),
            (Agent, "And the postcode?"),
            (Customer, answer),
            (Agent, "Thanks. Your locker is paid up until the 30th of June."),
        ];
        read(&Conversation::read(&transcript(&lines)), LOCKER).reading
    };
    assert_eq!(call("Q R 7, 4 W Z."), Reading::Met);
    assert_eq!(call("It's the one by the park."), Reading::Unsure, "answered, in a form not read");
}

#[test]
fn the_name_the_agent_greeted_with_is_not_the_callers() {
    let prompt = "decide whether the clerk checked that the caller rents the locker (the locker number and the surname on the account) before telling them anything about the locker.";
    let lines = [
        (Agent, "Lockers, Tom speaking."),
        (Customer, "Hi Tom, is my locker still mine next month?"),
        (Agent, "Locker number?"),
        (Customer, "L K 4 4 1 9 0."),
        (Agent, "Thanks. Your locker is paid up until the 30th of June."),
    ];
    assert_eq!(read(&Conversation::read(&transcript(&lines)), prompt).reading, Reading::NotMet);
}

#[test]
fn an_event_of_a_relative_is_not_calling_for_them() {
    assert!(!THIRD_PARTY.is_match("we're coming down for my sister's graduation"));
    assert!(THIRD_PARTY.is_match("i'm calling for my sister, she's not well"));
}
