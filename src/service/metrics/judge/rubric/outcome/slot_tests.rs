//! The request-slot reading (`slots.rs`, `fit.rs`), in words unlike any desk's: a read-back of
//! what already stood, a time that breaks the caller's, a time lost where the caller set one, a
//! question of two parts answered in one, and a new thing made for a deed of moving one.

use super::*;
use crate::api::model::ParticipantType::{self, Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn reading(lines: &[(ParticipantType, &str)]) -> Reading {
    let f = read(&Conversation::read(&transcript(lines)), false);
    eprintln!("{}", f.why);
    f.reading
}

#[test]
fn reading_back_what_already_stands_is_no_change() {
    let stays = [
        (Customer, "The chimney sweep is coming to us, and I need it done before the in-laws arrive."),
        (Agent, "So I've got you down for Tuesday the 19th, the lounge and the study."),
        (Agent, "The diary is full until then, so the 19th is the earliest, which is the one you already have."),
        (Customer, "Nothing sooner?"),
        (Agent, "No, sorry."),
        (Customer, "Fine."),
    ];
    assert_eq!(reading(&stays), Reading::NotMet);
    let moved = [
        (Customer, "Can you bring the chimney sweep forward? I need it done sooner."),
        (Agent, "I've moved you to Friday the 15th; the 19th is still free if that changes."),
        (Customer, "Great."),
    ];
    assert_eq!(reading(&moved), Reading::Met, "a new day is a change, whatever else stands");
}

#[test]
fn a_time_stated_with_the_deed_must_fit_the_callers() {
    let only = |done: &'static str| {
        [
            (Customer, "Could you shift my rehearsal to Thursday, same time, seven o'clock? Seven's all I can manage."),
            (Agent, done),
            (Customer, "Cheers."),
        ]
    };
    assert_eq!(reading(&only("Done. Thursday the 4th at 2, in the small room.")), Reading::NotMet);
    assert_eq!(reading(&only("Done. Thursday the 4th at 7, in the small room.")), Reading::Met);
    let after = |done: &'static str| {
        [
            (
                Customer,
                "Can you swap my kayak hire to Sunday? It has to be after four, I'm at a christening till then.",
            ),
            (Agent, done),
        ]
    };
    assert_eq!(reading(&after("Sorted, Sunday at 11am.")), Reading::NotMet);
    assert_eq!(reading(&after("Sorted, Sunday at 5.")), Reading::Met);
}

#[test]
fn a_time_lost_from_the_deciding_line_cannot_be_checked_against_the_callers() {
    let lost = [
        (Customer, "Can you push my tasting to Friday? It has to be before 11, I fly at one."),
        (Agent, "Right, I've moved it to Friday at [inaudible], see you then."),
        (Customer, "Perfect."),
    ];
    assert_eq!(reading(&lost), Reading::Unsure);
    let no_time_asked = [
        (Customer, "Can you push my tasting to Friday?"),
        (Agent, "Right, I've moved it to Friday at [inaudible], see you then."),
    ];
    assert_eq!(reading(&no_time_asked), Reading::Met, "the caller set no time the loss could break");
}

#[test]
fn each_part_of_a_question_that_asks_for_a_value_needs_one() {
    let half = [
        (Customer, "What time do you open on bank holidays, and do you take cards?"),
        (Agent, "Yes, we take all cards, even the foreign ones."),
        (Customer, "Thanks."),
    ];
    assert_eq!(reading(&half), Reading::NotMet);
    let both = [
        (Customer, "What time do you open on bank holidays, and do you take cards?"),
        (Agent, "Yes, we take cards, and we open at 10."),
    ];
    assert_eq!(reading(&both), Reading::Met);
}

#[test]
fn a_new_one_made_is_not_an_existing_one_moved() {
    let deed = |lines: &[(ParticipantType, &str)]| {
        read_deed(&Conversation::read(&transcript(lines)), "A fitting was moved to a new date.").reading
    };
    let new = [(Customer, "Can you book me an extra fitting next week?"), (Agent, "Done, you're in on Tuesday at 2.")];
    assert_eq!(deed(&new), Reading::NotMet);
    let moved = [(Customer, "Can you move my fitting to next week?"), (Agent, "Done, you're in on Tuesday at 2.")];
    assert_eq!(deed(&moved), Reading::Met);
}

#[test]
fn times_are_read_as_values_with_their_bounds() {
    let slots = slots::time_slots(["it has to be before 10, i start work at half ten."].into_iter());
    assert_eq!(slots.len(), 1, "the reason beside a bound is no slot: {slots:?}");
    assert!(matches!(slots[0], slots::TimeSlot::Before(_)));
    assert!(slots::time_slots(["i start work at half ten."].into_iter()).is_empty(), "a time mentioned is no slot");
    let v = slots::Values::of("so i've got you down for wednesday the 28th at 9:30.");
    assert!(v.days.contains(&28) && v.weekdays.contains("wednesday") && v.clocks.len() == 1);
    assert!(slots::Values::of("it'll take 3 to 5 working days.").clocks.is_empty());
}

#[test]
fn a_refusal_of_the_very_deed_asked_is_not_done() {
    let refused = [
        (Customer, "My tasting is in March. Could you get me an earlier one?"),
        (Agent, "You're on the 14th of March at 6. The vineyard sets those dates. We can't move it."),
        (Customer, "Oh well."),
    ];
    assert_eq!(reading(&refused), Reading::NotMet);
    let other_deed = [
        (Customer, "My tasting is in March. Could you get me an earlier one?"),
        (Agent, "You're on the 14th of March at 6. The vineyard sets those dates. We can't refund it."),
    ];
    assert_ne!(reading(&other_deed), Reading::NotMet, "a refusal of something else is not the request refused");
}

#[test]
fn a_question_whose_every_part_has_its_answer_is_answered() {
    let both = [
        (Customer, "How much is a crate of lemons, and do you knock anything off for a dozen crates?"),
        (Agent, "Yep, so it's 9 pounds a crate."),
        (Agent, "If you take a dozen crates it's 96, so you save 12."),
        (Customer, "Good to know, I'll ring back."),
        (Agent, "No worries, bye."),
    ];
    assert_eq!(reading(&both), Reading::Met);
    let half = [
        (Customer, "Can I bring a dog to the gallery, and what do I do with a pushchair?"),
        (Agent, "Dogs, yes, on a lead, in every room but the print room."),
        (Customer, "Okay."),
        (Agent, "No worries, bye."),
    ];
    assert_ne!(reading(&half), Reading::Met, "the pushchair was never spoken of");
}

#[test]
fn a_part_asking_for_a_deed_that_ends_in_a_transfer_is_not_done() {
    let transferred = [
        (Customer, "I'd like the big marquee for the fete. How much is it, and can you reserve it?"),
        (
            Agent,
            "It's 300 pounds for the day. Only the hire manager can reserve it, I'm putting you through to her now.",
        ),
        (Agent, "She's on the other line, you're in her queue."),
    ];
    assert_eq!(reading(&transferred), Reading::NotMet);
}
