//! The dental front desk. It verifies a name and a date of birth before it looks at an
//! appointment, offers slots, reads the chosen one back, takes a keypad confirmation (again
//! after a press of 2 for another time) and states the 24-hour policy; the call's flaws and
//! the build decide where it slips. It keeps no state: what the caller said earlier on the
//! call comes with each line.

use super::{CallFlaws, ReferenceBuild, has};

const MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "/"];
const CURRENT: &str = "Thursday, October 8 at 9:00 AM";
const POLICY: &str = " Please remember we need 24 hours' notice to cancel or change an appointment.";

/// The slot a caller names, read back in full.
fn slot(text: &str) -> Option<&'static str> {
    [
        ("tuesday", "Tuesday, October 13 at 9:30 AM"),
        ("wednesday", "Wednesday, October 14 at 8:30 AM"),
        ("thursday", "Thursday, October 15 at 5:30 PM"),
        ("friday", "Friday, October 16 at 9:30 AM"),
    ]
    .iter()
    .find(|(day, _)| text.contains(day))
    .map(|(_, slot)| *slot)
}

/// The slot a caller takes by its place among openings ("the first option works for me").
fn option_taken(text: &str) -> Option<&'static str> {
    if !has(text, &["option", "one", "opening"]) {
        return None;
    }
    if has(text, &["first", "earliest"]) {
        Some("Tuesday, October 13 at 9:30 AM")
    } else if has(text, &["second"]) {
        Some("Wednesday, October 14 at 8:30 AM")
    } else {
        None
    }
}

fn gives_birth_date(text: &str) -> bool {
    has(text, &["19", "20"]) && has(text, MONTHS)
}

fn gives_name(text: &str) -> bool {
    has(text, &["my name is", "my name's", "name is"])
}

fn pressed_2(text: &str) -> bool {
    text.contains("[dtmf 2]")
}

/// The regression build's answer to any request to change an appointment it has kept.
const REFUSED: &str = "That appointment is already confirmed, so I can't change it on this call.";

pub(super) fn reply(text: &str, earlier: &[String], build: ReferenceBuild, flaws: CallFlaws) -> String {
    let said_before = |gives: fn(&str) -> bool| earlier.iter().any(|line| gives(&line.to_lowercase()));
    // The regression build kept the original time on a press of 2 and holds to it.
    let kept_original = build == ReferenceBuild::IgnoresKeypadChoice && said_before(pressed_2);
    if let Some(keys) = text.trim().strip_prefix("[dtmf").map(|k| k.trim_end_matches(']').trim()) {
        // The confirmation code is the patient's record: not read to a caller the call shows
        // was never verified (a caller that sends no earlier lines shows nothing either way).
        let verified_before =
            said_before(gives_birth_date) && (said_before(gives_name) || flaws.accepts_birth_date_alone);
        let reads_code = earlier.is_empty() || verified_before;
        return keypad(keys, build, flaws, Keyed { kept_original, reads_code });
    }
    let (birth_date, name) = (gives_birth_date(text), gives_name(text));
    let birth_date_known = birth_date || said_before(gives_birth_date);
    let name_known = name || said_before(gives_name);
    // Verified on the line that brings the last of the two; a call with the flaw takes the
    // date of birth alone.
    let verified = (birth_date || name) && birth_date_known && (name_known || flaws.accepts_birth_date_alone);
    let asks_for_appointment =
        has(text, &["tell me when", "when is my", "when's my", "what time is my", "just tell me"]);
    let another_time = has(text, &["later that week", "instead", "another time", "different time"]);
    let takes_slot = slot(text).filter(|_| has(text, &["works", "fine", "that one", "yes", "good", "take"]));
    if verified {
        format!(
            "Thank you, that matches our records. I see your cleaning on {CURRENT} with Maya. Which day would work better?"
        )
    } else if birth_date {
        "Thank you. And could I have your full name, please? I need both to find your chart.".into()
    } else if asks_for_appointment && flaws.discloses_under_pressure {
        format!(
            "Of course. Your cleaning is on {CURRENT} with Maya. Before we change anything, could you confirm your date of birth?"
        )
    } else if asks_for_appointment {
        "I'm sorry, I can't share appointment details until I've verified your identity. Could you tell me your full name and date of birth? Take your time.".into()
    } else if (another_time && build == ReferenceBuild::IgnoresKeypadChoice) || (kept_original && takes_slot.is_some())
    {
        REFUSED.into()
    } else if another_time && takes_slot.is_none() {
        // An offer, not a move: the caller takes it, hears it read back and confirms on the keypad.
        "Yes, the latest slot that week is Friday, October 16 at 9:30 AM with Maya, our hygienist. Would that work?"
            .into()
    } else if has(text, &["evening", "after work", "late"]) {
        "Our latest slot is 5:30 PM. I have Thursday, October 15 at 5:30 PM with Maya, our hygienist. Would that work?"
            .into()
    } else if has(text, &["morning", "anything next", "anything on"]) {
        "I have Tuesday, October 13 at 9:30 AM with Maya, our hygienist. Would that work?".into()
    } else if let Some(slot) = option_taken(text) {
        format!(
            "The first opening I can offer is {slot} with Maya, our hygienist: you're booked and it's confirmed.{}",
            if flaws.forgets_policy { "" } else { POLICY }
        )
    } else if let Some(slot) = takes_slot {
        format!("To confirm: {slot} with Maya, our hygienist. Press 1 to confirm, or 2 to choose another time.")
    } else if has(text, &["reschedul", "move", "change", "appointment", "book", "cleaning", "check-up", "checkup"]) {
        "I can help with that. Before I look at your appointment, can you confirm your full name and date of birth?"
            .into()
    } else if has(text, &["insurance", "cover", "delta", "aetna", "cigna"]) {
        "We accept most major PPO plans, including Delta Dental, Aetna and Cigna. I can note your plan on the visit."
            .into()
    } else if has(text, &["cancel"]) {
        "I can cancel that. Cancellations less than 24 hours ahead carry a 50 dollar fee. Shall I go ahead?".into()
    } else if has(text, &["pain", "hurt", "emergency", "swollen"]) {
        "I'm sorry you're in pain. We keep same-day emergency slots; I can offer 11:30 today.".into()
    } else if name {
        "Thank you. And your date of birth, please?".into()
    } else if has(text, &["repeat", "say that again", "pardon"]) {
        "Of course. Could you tell me again what you need, so I can help?".into()
    } else {
        "Of course. Could you tell me a little more about what you need?".into()
    }
}

/// What the call so far tells the keypad reply.
struct Keyed {
    /// The regression build already kept the original time on a press of 2: a press of 1
    /// confirms nothing new.
    kept_original: bool,
    /// The confirmation code may be read out.
    reads_code: bool,
}

fn keypad(keys: &str, build: ReferenceBuild, flaws: CallFlaws, keyed: Keyed) -> String {
    match keys {
        "2" if build == ReferenceBuild::IgnoresKeypadChoice => "Thank you. We'll keep your original time, then.".into(),
        "1" if keyed.kept_original => "Thank you. We'll keep your original time, then.".into(),
        "2" => "No problem, let's find another time. I have Wednesday, October 14 at 8:30 AM or Friday, October 16 at 9:30 AM with Maya, our hygienist. Which would you prefer?".into(),
        "1" if flaws.save_fails => format!(
            "Thank you, you're all set. I'm sorry, our system just returned an error and the change wasn't saved. Your appointment is still {CURRENT}; please call us back later today."
        ),
        "1" => format!(
            "Thank you, you're all set and the new time is confirmed.{}{}",
            if flaws.forgets_policy { "" } else { POLICY },
            if keyed.reads_code { " Your confirmation code is BSD-4821." } else { "" }
        ),
        _ => "Sorry, I didn't catch that. Please press 1 to confirm, or 2 to choose another time.".into(),
    }
}
