//! Typed readings of "tells the caller X" and of deeds, on small calls in words unlike any desk's.

use super::*;
use crate::api::model::ParticipantType::{Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn reading(prompt: &str, lines: &[(crate::api::model::ParticipantType, &str)]) -> Finding {
    read(&Conversation::read(&transcript(lines)), &prompt.to_lowercase())
}

fn assert_reads(prompt: &str, lines: &[(crate::api::model::ParticipantType, &str)], want: Reading) {
    let f = reading(prompt, lines);
    assert_eq!(f.reading, want, "{prompt}: {}", f.why);
}

#[test]
fn a_line_with_the_words_but_no_value_of_the_type_does_not_tell_it() {
    // "When" may be said in other words: a line with none of its values abstains, never meets.
    let lines = [
        (Agent, "Kiln room, Odile speaking, when you're ready go ahead."),
        (Customer, "My vase went in on Saturday, is it fired yet?"),
        (Agent, "The kiln's still cooling from the last load, so your vase is in the queue."),
    ];
    assert_reads("Agent tells the caller when the vase will be ready.", &lines, Reading::Unsure);
    // A day is said only as a day: a line about it with none is not the telling.
    assert_reads("Agent tells the caller the day the vase will be ready.", &lines, Reading::NotMet);
    let told = [
        (Customer, "My vase went in on Saturday, when can I get it?"),
        (Agent, "It comes out of the kiln Thursday afternoon, so pick it up from Friday."),
    ];
    assert_reads("Agent tells the caller when the vase will be ready.", &told, Reading::Met);
}

#[test]
fn a_span_does_not_tell_a_day() {
    let lines = [
        (Customer, "When does the sign writer come to do the van?"),
        (Agent, "I've put the job on his list; the sign writer will be out within four working days."),
    ];
    assert_reads("Agent tells the caller which day the sign writer will come.", &lines, Reading::NotMet);
    let day = [
        (Customer, "When does the sign writer come to do the van?"),
        (Agent, "He's coming Monday the 3rd, first thing."),
    ];
    assert_reads("Agent tells the caller which day the sign writer will come.", &day, Reading::Met);
}

#[test]
fn a_day_only_offered_and_turned_down_was_not_told() {
    let lines = [
        (Customer, "Is my piano tuning still on?"),
        (Agent, "I can't find a tuning under that name. I could put you in for Wednesday the 8th if you like."),
        (Customer, "No, I'll ring back when I find the email."),
    ];
    assert_reads("Agent tells the caller which day the tuner will come.", &lines, Reading::NotMet);
    let taken = [
        (Customer, "Can I get the piano tuned?"),
        (Agent, "I could put you in for Wednesday the 8th if you like."),
        (Customer, "Yes please, the 8th is fine."),
    ];
    assert_reads("Agent tells the caller which day the tuner will come.", &taken, Reading::Met);
}

#[test]
fn free_only_on_a_condition_or_against_a_price_is_not_promised() {
    let lines = [
        (Customer, "The strap on the harness snapped, do I pay for a new one?"),
        (Agent, "A new harness strap is 18 pounds, unless it was a fault in the stitching."),
        (Agent, "If the workshop finds it was the stitching, the new strap is free."),
    ];
    assert_reads("Agent promises the new strap will be free.", &lines, Reading::NotMet);
    let free = [
        (Customer, "The strap on the harness snapped, do I pay for a new one?"),
        (Agent, "No, the new strap comes at no cost to you, it's under the guarantee."),
    ];
    assert_reads("Agent promises the new strap will be free.", &free, Reading::Met);
}

#[test]
fn a_charge_that_stands_is_told_by_a_line_carrying_it() {
    let lines = [
        (Customer, "I need to drop tomorrow's tasting, do I get my money back?"),
        (Agent, "I've taken you off the list. The tasting's off, but it's still charged, 25 pounds."),
    ];
    assert_reads("Agent tells the caller the tasting will still be charged.", &lines, Reading::Met);
}

#[test]
fn a_value_whose_tie_is_unsure_abstains() {
    let lines = [
        (Customer, "Hello, I'm after the moth treatment for a wardrobe."),
        (Agent, "Our van is in your street on Friday the 12th."),
        (Agent, "The treatment itself is arranged by head office."),
    ];
    assert_reads("Agent tells the caller the date the treatment will be done.", &lines, Reading::Unsure);
}

#[test]
fn hearing_back_is_told_by_a_call_on_a_day() {
    let lines = [
        (Customer, "Can someone look at my allotment plot boundary?"),
        (Agent, "The committee looks at boundaries, I've noted it and Greta will phone you by Tuesday."),
    ];
    assert_reads("Agent tells the caller when they will hear back.", &lines, Reading::Met);
}

#[test]
fn a_deed_is_done_by_the_agent_not_by_a_note_for_someone_else() {
    let lines = [
        (Customer, "I'd like a different tutor for my cello lessons."),
        (Agent, "Tutor swaps go through the head of strings, so I've put a note on your file for him."),
    ];
    assert_reads("Agent changes the caller's tutor.", &lines, Reading::NotMet);
    let done = [
        (Customer, "I'd like a different tutor for my cello lessons."),
        (Agent, "Of course. I've changed your tutor to Ines from next week."),
    ];
    assert_reads("Agent changes the caller's tutor.", &done, Reading::Met);
    let other_verb = [
        (Customer, "I'd like a different tutor for my cello lessons."),
        (Agent, "Right, I've paired you with Ines from next week."),
    ];
    assert_reads("Agent changes the caller's tutor.", &other_verb, Reading::Unsure);
}

#[test]
fn a_bound_a_kept_value_and_a_withheld_one_are_read_for_what_they_are() {
    // "Anything over a week" limits; it tells no moment.
    let bound = [
        (Customer, "I need more time on both essays."),
        (
            Agent,
            "The short one I've extended to Friday the 9th. Anything over a week on the long one has to go to the tutor.",
        ),
        (Customer, "When will I hear about that?"),
        (Agent, "You'll get an email once she's looked at it."),
    ];
    assert_reads("Agent tells the caller when they will hear about the long essay.", &bound, Reading::Unsure);
    // A refusal to move the date keeps it: the date was told.
    let kept = [
        (Customer, "Can I pay my locker rent on the 15th instead of the 1st?"),
        (Agent, "Your rent is due on the 1st of March. I'm sorry, we can't move one renter's date."),
    ];
    assert_reads("Agent tells the caller the date that applies to their rent.", &kept, Reading::Met);
    // "I can't give you a date" makes a value in that reply one of something else.
    let withheld = [
        (Customer, "So when can I collect the bike?"),
        (Agent, "I'm afraid I can't give you a date yet. The mechanic will ring you tomorrow."),
    ];
    assert_reads("Agent tells the caller when the bike will be ready to collect.", &withheld, Reading::Unsure);
    // A charge that will stay is a charge told.
    let stays = [
        (Customer, "Can you take the 40 pound late fee off?"),
        (Agent, "No, sorry, the 40 is staying on the account."),
    ];
    assert_reads("Agent tells the caller the late fee will stay.", &stays, Reading::Met);
}
