//! "Reads back the date, time and provider" (or flight, time and seat, or a reference): one
//! agent turn, once the caller has chosen, must carry every detail the prompt names. Nothing
//! chosen or booked means there was nothing to read back.

use super::super::Finding;
use super::super::conversation::{Conversation, Side, Turn, clip};
use super::super::details::{Details, gives_birth_date};
use super::super::outcome::{booking_stands, claims_success};
use super::super::pattern::patterns;

patterns! {
    PROMPT = r"\b(reads?|repeats?) (it |them )?back\b|\bread-back\b";
    /// The caller choosing a slot or flight (a keypad press confirms; it does not choose).
    CHOICE = r"\b(works|work for me|that one|the one|i'll take|let's do|put me on|book (it|that)|do that|yes|sounds good|perfect|fine|take it|go ahead|easiest)\b";
    ALTERNATIVE = r"\(or (the )?[^)]*(reference|code)[^)]*\)";
}

/// The details a prompt asks to hear; `alternative` is "(or the refund reference)".
fn wanted(prompt: &str) -> (Vec<&'static str>, bool) {
    let main = ALTERNATIVE.find(prompt).map_or(prompt.to_owned(), |m| prompt.replace(m.as_str(), ""));
    let main_word = |w: &str| main.split(|c: char| !c.is_alphanumeric()).any(|p| p == w);
    let mut out = Vec::new();
    if main_word("date") {
        out.push("date");
    }
    if main_word("time") {
        out.push("time");
    }
    if main_word("provider") || main_word("dentist") || main_word("hygienist") {
        out.push("provider");
    }
    if main.contains("flight") {
        out.push("flight number");
    }
    if main_word("seat") {
        out.push("seat");
    }
    if main_word("reference") || main.contains("confirmation code") {
        out.push("reference");
    }
    (out, ALTERNATIVE.is_match(prompt))
}

/// The wanted details a turn lacks.
fn lacks(turn: &Turn, wanted: &[&'static str]) -> Vec<&'static str> {
    let names = Details::of(&turn.lower, &turn.text).names();
    wanted.iter().filter(|w| !names.contains(w)).copied().collect()
}

pub(super) fn read(conv: &Conversation, prompt: &str) -> Option<Finding> {
    if !PROMPT.is_match(prompt) {
        return None;
    }
    let (wanted, alternative) = wanted(prompt);
    // The final choice: the caller's last choice before the booking was made (or at all).
    if !booking_stands(conv) {
        return Some(Finding::not_applicable("Not applicable: nothing was booked or moved to read back.".to_owned()));
    }
    let Some(booked) = conv.said_by(Side::Agent).find(claims_success).map(|s| s.turn.index) else {
        return Some(Finding::not_applicable("Not applicable: nothing was booked or moved to read back.".to_owned()));
    };
    let chooses = |t: &Turn| {
        let d = Details::of(&t.lower, &t.text);
        t.keypad().is_none() && !gives_birth_date(&t.lower) && (CHOICE.is_match(&t.lower) || d.date || d.time)
    };
    let choice = conv.of(Side::Caller).filter(|t| t.index < booked && chooses(t)).last();
    let from = choice.map_or(booked.saturating_sub(1), |t| t.index);
    let candidates: Vec<&Turn> = conv.of(Side::Agent).filter(|t| t.index > from).collect();
    let full = candidates.iter().find(|t| {
        lacks(t, &wanted).is_empty()
            || (alternative && t.lower.contains("refund") && lacks(t, &["reference"]).is_empty())
    });
    if let Some(turn) = full {
        return Some(Finding::met(
            format!("Met: the agent read back {} in \"{}\" at {}.", wanted.join(", "), clip(&turn.text), turn.at()),
            0.85,
        ));
    }
    // The turn that came closest, usually the confirmation.
    let books = |t: &Turn| conv.said().any(|s| s.turn.index == t.index && claims_success(&s));
    let closest = candidates.iter().min_by_key(|t| (lacks(t, &wanted).len(), !books(t), t.index));
    Some(match closest {
        Some(turn) => Finding::not_met(
            format!(
                "Not met: the agent's closest read-back, \"{}\" at {}, has no {}.",
                clip(&turn.text),
                turn.at(),
                lacks(turn, &wanted).join(" or ")
            ),
            0.8,
        ),
        None => Finding::not_met("Not met: the agent never spoke after the caller chose.".to_owned(), 0.6),
    })
}
