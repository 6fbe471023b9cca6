//! "Reads back the date, time and provider" (or flight, time and seat, or a reference): one
//! agent turn, once the caller has chosen, must carry every detail the prompt names. Nothing
//! chosen or booked means there was nothing to read back.

use super::super::conversation::{Conversation, Side, Turn, clip};
use super::super::details::gives_birth_date;
use super::super::outcome::{booking_stands, claims_success};
use super::super::pattern::patterns;
use super::super::{Finding, Shape};

patterns! {
    PROMPT = r"\b(reads?|repeats?|confirms?) (\w+ ){0,4}back\b|\bread-back\b";
    /// The caller choosing a slot or flight (a keypad press confirms; it does not choose).
    CHOICE = r"\b(works|work for me|that one|the one|i'll take|let's do|put me on|book (it|that)|do that|yes|sounds good|perfect|fine|take it|go ahead|easiest)\b";
    /// The agent seeking the caller's go-ahead before acting.
    GO_AHEAD = r"\b(is that (right|correct|ok|okay)|shall i|should i|want me to|happy (for me )?to (go ahead|proceed)|(does|would) that (work|suit|sound)|just to confirm|can i confirm|go ahead\?)";
    ALTERNATIVE = r"\(or (the )?[^)]*(reference|code)[^)]*\)";
}

/// One detail a prompt asks to hear, named as the reasoning names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Date,
    Time,
    Person,
    Amount,
    Reference,
    /// An identifier after this word ("seat 27E"); for "X number", any identifier.
    Identifier(&'static str),
}

impl Wanted {
    fn name(self) -> &'static str {
        match self {
            Wanted::Date => "date",
            Wanted::Time => "time",
            Wanted::Person => "person",
            Wanted::Amount => "amount",
            Wanted::Reference => "reference",
            Wanted::Identifier("") => "number",
            Wanted::Identifier(word) => word,
        }
    }

    fn heard_in(self, turn: &Turn) -> bool {
        let d = turn.details();
        match self {
            Wanted::Date => d.date,
            Wanted::Time => d.time,
            Wanted::Person => d.person,
            Wanted::Amount => d.money,
            Wanted::Reference => d.reference,
            Wanted::Identifier("") => d.identifier,
            Wanted::Identifier(word) => turn.lower.match_indices(word).any(|(at, _)| {
                turn.lower[at + word.len()..]
                    .trim_start_matches('s')
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
            }),
        }
    }
}

/// Words for who a booking is with.
const PEOPLE: &[&str] =
    &["provider", "person", "doctor", "clinician", "practitioner", "engineer", "nurse", "technician", "who"];
/// Words for a place or item named by an identifier.
const NAMED_BY_ID: &[&str] = &["seat", "room", "gate", "bay", "platform", "table", "unit"];

/// The details a prompt asks to hear; `alternative` is "(or the refund reference)".
fn wanted(prompt: &str) -> (Vec<Wanted>, bool) {
    let main = ALTERNATIVE.find(prompt).map_or(prompt.to_owned(), |m| prompt.replace(m.as_str(), ""));
    let words: Vec<&str> = main.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or("");
        let found = match *w {
            "date" | "day" => Some(Wanted::Date),
            "time" => Some(Wanted::Time),
            "price" | "cost" | "amount" | "total" | "fee" => Some(Wanted::Amount),
            "reference" => Some(Wanted::Reference),
            "code" if words.get(i.wrapping_sub(1)) == Some(&"confirmation") => Some(Wanted::Reference),
            w if PEOPLE.contains(&w) => Some(Wanted::Person),
            w if NAMED_BY_ID.contains(&w) => NAMED_BY_ID.iter().find(|n| **n == w).map(|n| Wanted::Identifier(n)),
            _ if next == "number" => Some(Wanted::Identifier("")),
            _ => None,
        };
        if let Some(found) = found.filter(|f| !out.contains(f)) {
            out.push(found);
        }
    }
    (out, ALTERNATIVE.is_match(prompt))
}

/// The wanted details a turn lacks.
fn lacks(turn: &Turn, wanted: &[Wanted]) -> Vec<&'static str> {
    wanted.iter().filter(|w| !w.heard_in(turn)).map(|w| w.name()).collect()
}

pub(super) fn read(conv: &Conversation, prompt: &str) -> Option<Finding> {
    if !PROMPT.is_match(prompt) {
        return None;
    }
    let (wanted, alternative) = wanted(prompt);
    if super::BEFORE_BOOKING.is_match(prompt) {
        return Some(before_the_change(conv, &wanted));
    }
    // The final choice: the caller's last choice before the booking was made (or at all).
    if !booking_stands(conv) {
        return Some(Finding::not_applicable(
            Shape::NothingBooked,
            "Not applicable: nothing was booked or moved to read back.".to_owned(),
        ));
    }
    let Some(booked) = conv.said_by(Side::Agent).find(claims_success).map(|s| s.turn.index) else {
        return Some(Finding::not_applicable(
            Shape::NothingBooked,
            "Not applicable: nothing was booked or moved to read back.".to_owned(),
        ));
    };
    let chooses = |t: &Turn| {
        let d = t.details();
        t.keypad().is_none() && !gives_birth_date(&t.lower) && (CHOICE.is_match(&t.lower) || d.date || d.time)
    };
    let choice = conv.of(Side::Caller).filter(|t| t.index < booked && chooses(t)).last();
    let from = choice.map_or(booked.saturating_sub(1), |t| t.index);
    let candidates: Vec<&Turn> = conv.of(Side::Agent).filter(|t| t.index > from).collect();
    let full = candidates.iter().find(|t| {
        lacks(t, &wanted).is_empty()
            || (alternative && t.lower.contains("refund") && lacks(t, &[Wanted::Reference]).is_empty())
    });
    if let Some(turn) = full {
        return Some(Finding::met(
            Shape::ReadBackFull,
            format!(
                "Met: the agent read back {} in \"{}\" at {}.",
                wanted.iter().map(|w| w.name()).collect::<Vec<_>>().join(", "),
                clip(&turn.text),
                turn.at()
            ),
            0.85,
        ));
    }
    // The turn that came closest, usually the confirmation.
    let books = |t: &Turn| conv.said().any(|s| s.turn.index == t.index && claims_success(&s));
    let closest = candidates.iter().min_by_key(|t| (lacks(t, &wanted).len(), !books(t), t.index));
    Some(match closest {
        Some(turn) => Finding::not_met(
            Shape::ReadBackLacks,
            format!(
                "Not met: the agent's closest read-back, \"{}\" at {}, has no {}.",
                clip(&turn.text),
                turn.at(),
                lacks(turn, &wanted).join(" or ")
            ),
            0.8,
        ),
        None => Finding::not_met(
            Shape::ReadBackLacks,
            "Not met: the agent never spoke after the caller chose.".to_owned(),
            0.6,
        ),
    })
}

/// "Reads the new car back before changing the booking": an agent turn between the caller's
/// request and the first change, carrying what the prompt names. A read-back before a change
/// seeks the caller's go-ahead, so with none asked for there was none; with one asked for and
/// nothing named to listen for, it cannot tell.
fn before_the_change(conv: &Conversation, wanted: &[Wanted]) -> Finding {
    let Some(change) = conv.said_by(Side::Agent).find(claims_success) else {
        return Finding::not_applicable(
            Shape::NothingBooked,
            "Not applicable: nothing was changed on this call.".to_owned(),
        );
    };
    let asked = conv.said_by(Side::Caller).find(|s| s.turn.keypad().is_none()).map_or(0, |s| s.turn.index);
    let between: Vec<&Turn> = conv.of(Side::Agent).filter(|t| t.index > asked && t.index < change.turn.index).collect();
    let read_back = between.iter().find(|t| !wanted.is_empty() && lacks(t, wanted).is_empty());
    let sought_go_ahead = between.iter().any(|t| GO_AHEAD.is_match(&t.lower));
    match (read_back, sought_go_ahead) {
        (Some(turn), _) => Finding::met(
            Shape::ReadBeforeChange,
            format!("Met: the agent read it back in \"{}\" at {}, before the change.", clip(&turn.text), turn.at()),
            0.8,
        ),
        (None, false) => Finding::not_met(
            Shape::ChangedWithoutReadBack,
            format!(
                "Not met: the agent made the change, {}, without reading it back for the caller's go-ahead first.",
                change.quote()
            ),
            0.75,
        ),
        (None, true) => Finding::unsure(
            "Cannot tell: the agent asked for a go-ahead before the change, and the prompt names no detail to \
             hear in it."
                .to_owned(),
        ),
    }
}
