//! Readings of "was the request done?" added after rounds 13 to 16 (phone repair, heating,
//! student services, self storage), in words unlike any desk's: a place on a list or a
//! call-back request is no deed, thanks for details is no success, a deed told in the present
//! tense is one, a caller who gives up on a call where nothing was done left without it, a
//! refusal under "otherwise" is a condition, and a lost word or a bare request for details
//! is no answer.

use super::*;
use crate::api::model::ParticipantType::{self, Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn reading(lines: &[(ParticipantType, &str)]) -> Reading {
    read(&Conversation::read(&transcript(lines)), false).reading
}

#[test]
fn a_place_on_a_list_or_a_call_back_request_is_not_the_request_done() {
    let listed = [
        (Customer, "I'd like to swap my allotment for a bigger plot."),
        (Agent, "No big plots free. Put you on the list for one."),
    ];
    assert_eq!(reading(&listed), Reading::NotMet);
    let call_back = [
        (Customer, "I want to add my partner to the boat licence."),
        (Agent, "Joint licences are handled by the harbour office, so I'll put you through. Please hold."),
        (Agent, "Sorry, they're busy. I've put a call-back request in for you, they'll ring you today."),
    ];
    assert_eq!(reading(&call_back), Reading::NotMet);
}

#[test]
fn thanks_for_the_details_given_is_not_the_request_done() {
    let lines = [
        (Customer, "Can you engrave both trophies, the cup and the shield?"),
        (Agent, "Can I take the order number, please?"),
        (Customer, "It's 4 4 1 9 2."),
        (Agent, "Thank you, that's confirmed. The engraver is off today, so I can't say when."),
    ];
    assert_ne!(reading(&lines), Reading::Met);
}

#[test]
fn a_deed_told_in_the_present_tense_is_done_but_one_offered_is_not() {
    let told = [
        (Customer, "Can I move my pottery class to a later one?"),
        (Agent, "Yes, there is space. I book you Thursday at 7, same teacher."),
        (Customer, "Great, thanks."),
    ];
    assert_eq!(reading(&told), Reading::Met);
    let offered = [
        (Customer, "Can I move my pottery class to a later one?"),
        (Agent, "You can ask the studio or I book you Thursday at 7. You want?"),
    ];
    assert_ne!(reading(&offered), Reading::Met);
}

#[test]
fn a_caller_who_gives_up_where_nothing_was_done_left_without_it() {
    let lines = [
        (Customer, "I need the piano tuner out this week on my service plan."),
        (Agent, "I'm sorry, there's no service plan on your account. I can send a tuner as a one-off, that's 90."),
        (Customer, "Forget it, I'll find someone else."),
    ];
    assert_eq!(reading(&lines), Reading::NotMet);
    let transferred = [
        (Customer, "I'd like to close my locker account, please."),
        (Agent, "Closures are handled by our accounts team. I'll transfer you now."),
    ];
    assert_eq!(reading(&transferred), Reading::NotMet);
}

#[test]
fn a_refusal_under_otherwise_is_a_condition_not_a_take_back() {
    let lines = [
        (Customer, "Can my neighbour collect my dry cleaning?"),
        (
            Agent,
            "Done, Ana's on the order as allowed to collect. She'll need the receipt, otherwise we can't hand it over.",
        ),
        (Customer, "Perfect."),
    ];
    assert_eq!(reading(&lines), Reading::Met);
}

#[test]
fn a_lost_word_in_the_deed_or_the_answer_is_no_answer() {
    let bounded = [
        (Customer, "My tuning is booked for Monday, can you get someone out before the weekend?"),
        (Agent, "Let me see. OK, I've moved it to -- [inaudible] -- between 9 and 12."),
        (Customer, "Great."),
    ];
    assert_eq!(reading(&bounded), Reading::Unsure);
    let asked_details = [
        (Customer, "The kiln you fixed in May is cracking again, is that under the guarantee?"),
        (Agent, "Order number and the postcode."),
        (Customer, "4 4 1 9 2, K T 3 9 B Z."),
        (Agent, "May the 20th, kiln. That's -- [inaudible] -- the guarantee."),
    ];
    assert_eq!(reading(&asked_details), Reading::Unsure);
}

#[test]
fn a_deed_is_spoken_of_by_any_of_its_verbs_and_a_refusal_of_another_part_leaves_it_standing() {
    let deed = |prompt: &str, lines: &[(ParticipantType, &str)]| {
        read_deed(&Conversation::read(&transcript(lines)), &prompt.to_lowercase()).reading
    };
    let put_on = [
        (Customer, "I'm happy with the quote, go ahead with both jobs."),
        (Agent, "Lovely, I've put your go-ahead on the job sheet for both."),
    ];
    assert_eq!(deed("The caller's go-ahead was taken and put on the job sheet.", &put_on), Reading::Met);
    let second_part = [
        (Customer, "I need both boats serviced, the dinghy and the launch."),
        (Agent, "I book you Tuesday the 4th for the dinghy."),
        (Agent, "The launch's cover has lapsed, so I cannot book the service on the cover, sorry."),
    ];
    assert_eq!(deed("A service was booked during the call.", &second_part), Reading::Unsure);
}
