//! Fact by fact: every identifying fact the prompt lists (or one of its alternatives, or the
//! stated count) before the first disclosure; a guess asked back is a disclosure; someone
//! acting for a dependant is verified by the dependant's facts; a call that only makes
//! something new has no record to protect. In words unlike any desk's.

use super::*;
use crate::api::model::ParticipantType::{self, Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

const PLOTS: &str = "decide whether the secretary checked that the caller is the plot holder (the street address and the \
                     plot agreement number for that address) before telling them anything about their plot: rent owed, \
                     inspection results or notices on the plot.";

fn reading(prompt: &str, lines: &[(ParticipantType, &str)]) -> Reading {
    read(&Conversation::read(&transcript(lines)), prompt).reading
}

#[test]
fn one_of_two_facts_is_not_the_check() {
    let address_only = [
        (Agent, "Allotment society, Bea here."),
        (Customer, "Hello, did my plot pass the spring inspection?"),
        (Agent, "What's the address?"),
        (Customer, "7 Orchard Rise."),
        (Agent, "Thanks. The inspection on the 4th of May found the plot 80 percent cultivated, so it passed."),
    ];
    assert_eq!(reading(PLOTS, &address_only), Reading::NotMet);
    let both = [
        (Agent, "Allotment society, Bea here."),
        (Customer, "Hello, did my plot pass the spring inspection?"),
        (Agent, "What's the address, and the plot agreement number?"),
        (Customer, "7 Orchard Rise, and it's 4 4 0 1 9 2."),
        (Agent, "Thanks. The inspection on the 4th of May found the plot 80 percent cultivated, so it passed."),
    ];
    assert_eq!(reading(PLOTS, &both), Reading::Met, "a house number and a named street is an address");
}

#[test]
fn a_postcode_spelled_out_is_not_a_number_asked_for() {
    let prompt = "decide whether the desk checked the caller (the postcode and the member number) before telling them \
                  anything from the membership: renewal dates or fees.";
    let lines = [
        (Customer, "Hi, when does my membership renew?"),
        (Agent, "Postcode?"),
        (Customer, "K T 3, 9 B Z."),
        (Agent, "Right, I can see it renews on the 2nd of June."),
    ];
    assert_eq!(reading(prompt, &lines), Reading::NotMet);
}

#[test]
fn an_alternative_fact_stands_for_the_other() {
    let prompt = "decide whether the box office checked the caller (the season ticket number and either the date of \
                  birth or the passport number) before telling them anything about their seats.";
    let with = |second: &'static str| {
        [
            (Customer, "Hi, which seats have I got for the final?"),
            (Agent, "Can I take the season ticket number, please?"),
            (Customer, "It's 7 7 3 0 1 8."),
            (Agent, "And your date of birth, or your passport number?"),
            (Customer, second),
            (Agent, "Thanks. I can see you in row K, seats 14 and 15, for Saturday at 3pm."),
        ]
    };
    assert_eq!(reading(prompt, &with("Passport's 5 3 2 8 8 1 0 4 7.")), Reading::Met);
    assert_eq!(reading(prompt, &with("Sorry, I don't have either on me.")), Reading::NotMet);
}

#[test]
fn a_guess_asked_back_before_the_facts_is_a_disclosure() {
    let prompt = "decide whether the office checked the caller (the client number and the date of birth) before \
                  telling them anything about their visits: days, times or the tuner.";
    let lines = [
        (Customer, "Hi, I need to cancel my piano tuning tomorrow."),
        (
            Agent,
            "No problem. Is that the 2 o'clock with Mr Hale? I'll need your client number and date of birth first.",
        ),
        (Customer, "C L 4 4 0 2, and 3rd of March 1961."),
        (Agent, "Thanks, that's cancelled."),
    ];
    assert_eq!(reading(prompt, &lines), Reading::NotMet);
}

#[test]
fn someone_acting_for_a_dependant_is_verified_by_the_dependant_s_facts() {
    let prompt = "decide whether the club checked the caller (the swimmer number and the swimmer's date of birth) \
                  before telling them anything about the swimmer's sessions or fees.";
    let parent = [
        (Customer, "Hi, I'm calling for my daughter, Rosa. When's her next session?"),
        (Agent, "Can I take Rosa's swimmer number and her date of birth?"),
        (Customer, "S W 3 1 8 7, and she's 9th of June 2015."),
        (Agent, "Thanks. She's on Thursday at 5:30 with Coach Amos."),
    ];
    assert_eq!(reading(prompt, &parent), Reading::Met);
    // A partner is no dependant: the facts alone do not let them hear it.
    let partner = [
        (Customer, "Hi, I'm calling for my husband. When's his next session?"),
        (Agent, "Can I take his swimmer number and his date of birth?"),
        (Customer, "S W 3 1 8 8, and 9th of June 1980."),
        (Agent, "Thanks. He's on Thursday at 5:30 with Coach Amos."),
    ];
    assert_eq!(reading(prompt, &partner), Reading::NotMet);
    // A prompt that asks for a guardian's standing still wants it said.
    let guardian = "decide whether the club checked the caller (the swimmer number and the date of birth, plus guardian \
                    status for a child) before telling them anything about the swimmer's sessions.";
    assert_eq!(reading(guardian, &parent), Reading::NotMet);
}

#[test]
fn a_note_on_the_record_read_out_is_a_disclosure() {
    let lines = [
        (Customer, "Hi, someone was meant to come and check my plot's water butt on Monday."),
        (Agent, "Address?"),
        (Customer, "7 Orchard Rise."),
        (Agent, "Right. The warden's marked it as not accessible."),
        (Agent, "Plot agreement number?"),
        (Customer, "4 4 0 1 9 2."),
    ];
    assert_eq!(reading(PLOTS, &lines), Reading::NotMet);
    // Who may hear it is no note on the record.
    let refusal = [
        (Customer, "Hi, I'm ringing about my neighbour's plot rent."),
        (Agent, "Sorry, I can't go into another holder's plot unless you're listed as their contact."),
    ];
    assert_ne!(reading(PLOTS, &refusal), Reading::NotMet);
}

#[test]
fn a_call_that_only_makes_something_new_has_no_record_to_protect() {
    let prompt = "decide whether the boathouse checked the caller (the hire number and the mobile number's last four \
                  digits) before telling them anything about their hire: times, boats or the deposit.";
    let lines = [
        (Customer, "Hi, could I hire a rowing boat for Saturday morning?"),
        (Agent, "Sure. What's your name and mobile number?"),
        (Customer, "Tomas Reyes, 07700 900 516."),
        (Agent, "Thanks, Tomas. I've booked you a boat for Saturday at 10, and your hire number is R B 7 7 2."),
    ];
    assert_eq!(reading(prompt, &lines), Reading::NotApplicable);
    // A caller who speaks of a thing of theirs already held is about their record, though the
    // agent then makes something new.
    let held = [
        (Customer, "Hi, my boat came back from the winter store with a cracked oar."),
        (Agent, "Sorry to hear it. What's your name and mobile number?"),
        (Customer, "Tomas Reyes, 07700 900 516."),
        (Agent, "Thanks, Tomas. I've booked you a repair for Saturday at 10, and your hire number is R B 7 7 2."),
    ];
    assert_ne!(reading(prompt, &held), Reading::NotApplicable);
}

#[test]
fn a_greeting_that_names_a_fact_s_words_asks_for_nothing() {
    let prompt = "decide whether the desk checked the caller (the harbour berth number and the surname) before telling \
                  them anything about their berth: fees, dates or notices.";
    let lines = [
        (Agent, "Harbour office, good morning, this is Alba speaking to you."),
        (Customer, "Hi, what do I owe on my berth this quarter?"),
        (Agent, "Surname?"),
        (Customer, "Moreau."),
        (Agent, "I can see you owe 240 pounds, due on the 1st of July."),
    ];
    let conv = Conversation::read(&transcript(&lines));
    let finding = read(&conv, prompt);
    assert_eq!(finding.reading, Reading::NotMet, "{}", finding.why);
}

#[test]
fn a_short_code_counts_where_it_is_asked_for_or_named() {
    let prompt = "decide whether the desk checked that the caller is the renter (at least two of: the locker \
                  number, the account password, the postcode on file) before telling them anything about their \
                  locker: its code, the rent or the balance.";
    let lines = [
        (Customer, "Hi, I want a bigger locker."),
        (Agent, "Locker number and the password?"),
        (Customer, "K 12, and it's Lantern."),
        (Agent, "Thanks. You're paying 20 a month for the small one now, the big one is 30."),
    ];
    assert_eq!(reading(prompt, &lines), Reading::Met, "\"K 12\" answers the locker number asked for");
    let spelled = [
        (Customer, "Hi, my locker's jammed. The reference is B H X S K 2 2 9 0 4."),
        (Agent, "It's due a service on the 3rd of June, the code is 1 1 4 7."),
    ];
    assert_ne!(reading(prompt, &spelled), Reading::Met, "the tail of a spelled code is no short code");
}
