//! The shapes of a call where "was the request done?" must not be answered "done" (rounds 9 and
//! 10's first-look misses), in words unlike any desk's: a refusal followed by a restated plan,
//! a two-part question answered in part, a request to act answered by reading what stands,
//! part of a request left to someone else, the caller giving up on a part, and a take-back
//! said after a yes.

use super::*;
use crate::api::model::ParticipantType::{self, Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn reading(lines: &[(ParticipantType, &str)]) -> Reading {
    read(&Conversation::read(&transcript(lines)), false).reading
}

#[test]
fn a_refusal_followed_by_the_plan_restated_is_not_done() {
    let refused = [
        (Customer, "Could you tune the piano on Monday rather than Friday?"),
        (Agent, "The tuner's van is away until Thursday, so I can't bring it forward, sorry."),
        (Customer, "Can't you send someone else?"),
        (Agent, "It's staying on Friday."),
    ];
    assert_ne!(reading(&refused), Reading::Met);
    let done_after = [
        (Customer, "Could you tune the piano on Monday?"),
        (Agent, "I can't do Monday, sorry."),
        (Agent, "I've booked the tuner for Tuesday at 10."),
        (Customer, "Okay, Tuesday's fine."),
    ];
    assert_eq!(reading(&done_after), Reading::Met, "a claim after the refusal stands");
}

#[test]
fn a_refusal_of_something_asked_after_the_answer_leaves_the_answer_standing() {
    let side = [
        (Customer, "When does the library shut tonight?"),
        (Agent, "We close at 8 tonight."),
        (Customer, "And could you hold a copy of the new atlas for me?"),
        (Agent, "I'm afraid I can't reserve it from here, sorry."),
    ];
    assert_eq!(reading(&side), Reading::Met);
}

#[test]
fn a_question_of_two_joined_parts_answered_in_one_is_not_read_as_answered() {
    let half = [
        (Customer, "Do you repair tandems, and have you got a slot on Saturday?"),
        (Agent, "We do, in the back workshop."),
        (Agent, "Saturday may be tight, the mechanic keeps the diary."),
    ];
    assert_eq!(reading(&half), Reading::Unsure);
}

#[test]
fn asking_for_a_deed_and_hearing_what_stands_is_not_the_deed() {
    let read_back = [
        (Customer, "We're down for two lessons. Could you drop the second one?"),
        (Agent, "Let me look. You have the 3rd and the 10th, both at 6pm."),
        (Customer, "Thanks, bye."),
    ];
    assert_eq!(reading(&read_back), Reading::Unsure);
}

#[test]
fn part_of_the_request_left_to_someone_else_is_not_all_of_it_done() {
    let part = [
        (Customer, "Please cancel both tickets, mine and my brother's."),
        (Agent, "His is on his own account, so he'll need to cancel that himself. Yours I've cancelled."),
        (Customer, "Okay."),
    ];
    assert_eq!(reading(&part), Reading::Unsure);
}

#[test]
fn a_caller_giving_up_on_a_part_before_the_rest_is_done_is_not_all_of_it_done() {
    let dropped = [
        (Customer, "Can you waive the late fee and move my lesson to the 9th?"),
        (Agent, "I can't waive the fee, I'm afraid."),
        (Customer, "Forget it then."),
        (Agent, "I've moved your lesson to the 9th."),
    ];
    assert_eq!(reading(&dropped), Reading::Unsure);
}

#[test]
fn a_take_back_said_after_a_yes_to_the_caller_is_two_readings() {
    let conflict = [
        (Customer, "Please cancel the June class, not the May one."),
        (Agent, "That's cancelled."),
        (Customer, "And May is definitely still on?"),
        (Agent, "Definitely. The May class on the 4th, nothing's changed on it."),
    ];
    assert_eq!(reading(&conflict), Reading::Unsure);
}

#[test]
fn a_setback_said_only_for_later_is_no_setback_now() {
    let t = transcript(&[
        (Customer, "My refund for the concert hasn't arrived."),
        (Agent, "I can see it went back to your card on the 2nd. If it isn't there by Friday, call us back."),
    ]);
    assert!(walk(&Conversation::read(&t), false).setback.is_none());
}

#[test]
fn a_deed_of_putting_on_a_day_is_spoken_of_by_moving_it() {
    let t = transcript(&[(Customer, "Can you move my lesson to Friday?"), (Agent, "I've moved it to Friday at 4.")]);
    let f = read_deed(&Conversation::read(&t), "the lesson was booked in for a new day.");
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
}
