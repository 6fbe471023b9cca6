//! "Tells (promises, confirms) the caller X" where X is a value of a type the expectation
//! names (see `typed`): met by an agent line that carries a value of that type, says it rather
//! than offers it or makes it hang on a condition, and is tied to what X is about: by its own
//! words, by answering the caller's question for it, by being the value of what the agent
//! just did, or by the caller taking it up. A line about X that answers in another type ("within
//! ten days" for a date, a price for "free") is not met; a value whose tie is unsure abstains.

use std::collections::BTreeSet;

use super::super::conversation::{Conversation, Said, Side, Turn};
use super::super::details::is_calendar_word;
use super::super::identity::is_unclear;
use super::super::outcome::{claims_success, own_deed_at};
use super::super::pattern::patterns;
use super::super::terms::{terms, with_related};
use super::super::{Finding, Shape};
use super::calibrate::refuses_it;
use super::typed::{Carried, Object, by_form, subject};

patterns! {
    /// Verbs of telling: the agent says what is so (not asks, offers or does it).
    TELLS = r"\bagent (always |clearly |explicitly )?(tells|informs|explains|states|says|confirms|promises|advises|lets (the )?\w+ know)\b";
    NEVER = r"\b(never|does not|doesn't|do not)\b";
    /// A value put on the table for the caller to take or leave.
    OFFERED = r"\bif you (want|like|prefer|'d like)\b|\bwould you like\b|\bshall i\b|\bi (can|could) (book|put|do|offer|get|move|give|have)\b|\bdo you want\b|\bhow about\b";
    /// A value that holds only on a condition.
    CONDITIONAL = r"^(if|unless|provided|assuming|should)\b|, if\b|\bif (they|it|we|you|he|she|that|the)\b|\bunless\b";
    /// The caller taking up what was put to them.
    TAKES_UP = r"^(yes|yeah|yep|yes please|please|that's fine|fine|great|perfect|lovely|go on|ok|okay|sure|brilliant|that works|sounds good|that's great)\b";
    ASKS_DAY = r"\bwhen\b|\bwhat day\b|\bwhich day\b|\bdate\b";
    ASKS_TIME = r"\bwhen\b|\bwhat time\b|\bhow (soon|late|early)\b";
    ASKS_SPAN = r"\bhow long\b|\bwhen\b";
    ASKS_AMOUNT = r"\bhow much\b|\bprice\b|\bcosts?\b|\bcharge\b|\bpay\b|\bfree\b|\bmoney back\b|\brefund\b";
    /// The agent saying it cannot give what was asked ("I can't give you a date"): a value in
    /// that reply is of something else.
    WITHHELD = r"\b(can't|cannot|not able to|unable to|couldn't) (give|tell|say|confirm)( you)?( an?| the| any)?( exact| firm)? (date|day|time|price|cost|figure)\b";
    /// A refusal to move or change the value, which keeps it rather than takes it back.
    KEEPS = r"\b(can't|cannot|not able to|unable to|won't)( \w+)? (move|change|shift|alter|swap|push|bring)\b";
}

/// Ways of hearing back from someone: "when they will hear back" is told by "she'll ring you
/// by Friday".
const HEARING: &[&str] = &["ring", "call", "phone", "email", "text", "contact", "letter", "write", "message"];

pub(super) fn read(conv: &Conversation, said: &[Said], prompt: &str, concept: &str) -> Option<Finding> {
    if !TELLS.is_match(prompt) || NEVER.is_match(prompt) {
        return None;
    }
    let object = Object::of(concept)?;
    let about = widened(subject(concept, object));
    let of_kind = |kind: Carried| -> Vec<Said> { said.iter().filter(|s| object.carried(s) == kind).copied().collect() };
    let (mut values, others, vague) = (of_kind(Carried::Value), of_kind(Carried::OtherKind), of_kind(Carried::Vague));
    // A figure in a currency outranks a bare one ("from 4 till 6"), which may be no amount.
    if matches!(object, Object::Amount(_)) && values.iter().any(|s| by_form(s)) {
        values.retain(|s| by_form(s));
    }
    let told: Vec<Said> = values.iter().filter(|s| tells(conv, s)).copied().collect();
    let name = object.name();
    if let Some(s) = told.iter().find(|s| tied(conv, s, &about, object, &told)) {
        if let Some(back) = taken_back(said, s, concept) {
            return Some(Finding::not_met(
                Shape::ValueTakenBack,
                format!("Not met: the agent said {}, then {}, which takes it back.", s.quote(), back.quote()),
                0.75,
            ));
        }
        return Some(Finding::met(Shape::ValueTold, format!("Met: the agent told {name}: {}.", s.quote()), 0.75));
    }
    if let Some(s) = others.iter().find(|s| tells(conv, s) && shares_words(s, &about)) {
        return Some(Finding::not_met(
            Shape::OtherKindTold,
            format!("Not met: the agent said {}, which does not give {name}.", s.quote()),
            0.7,
        ));
    }
    if let Some(s) = told.first() {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent said {}, which gives {name}, but whether it is the one \"{concept}\" asks for \
             is unclear.",
            s.quote()
        )));
    }
    if let Some(lost) = said.iter().find(|s| is_unclear(s.lower())) {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent's line {} is partly lost from the transcript, and it may have given {name}.",
            lost.quote()
        )));
    }
    if let Some(s) = values.first() {
        return Some(Finding::not_met(
            Shape::ValueOnlyOffered,
            format!("Not met: the agent only put {name} as an offer or on a condition: {}.", s.quote()),
            0.7,
        ));
    }
    if let Some(s) = vague.first() {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent said {}, which says when without {name}.",
            s.quote()
        )));
    }
    if !super::says_anything(said) {
        return None;
    }
    // "When" may be said without a day or a time ("it's with the courier now"); a day, a span
    // or an amount is said only by its form.
    Some(if matches!(object, Object::Moment | Object::Time) {
        Finding::unsure(format!(
            "Cannot tell: \"{concept}\" asks for {name}, and no agent line carries one, but it may have been said \
             in other words."
        ))
    } else {
        Finding::not_met(
            Shape::NoValueCarried,
            format!("Not met: \"{concept}\" asks for {name}, and no agent line carries one."),
            0.7,
        )
    })
}

/// What the expectation is about, with the ways of hearing back when it is about hearing, and
/// the money coming back when it is about a refund.
fn widened(mut about: BTreeSet<String>) -> BTreeSet<String> {
    if about.contains("hear") {
        about.extend(HEARING.iter().flat_map(|w| terms(w)));
    }
    if about.contains("refund") {
        about.extend(terms("money back"));
    }
    about
}

/// Whether a line says its value rather than offering it (unless the caller took it up) or
/// making it hang on a condition.
fn tells(conv: &Conversation, s: &Said) -> bool {
    // "If you like" offers; it sets no condition on the value.
    if CONDITIONAL.is_match(&OFFERED.replace_all(s.lower(), "")) {
        return false;
    }
    if s.is_question() || OFFERED.is_match(s.lower()) {
        return reply(conv, s.turn).is_some_and(|t| TAKES_UP.is_match(&t.lower) || echoes(&t.lower, s.lower()));
    }
    true
}

/// Whether a line with a value is tied to what the expectation is about: by its words, by
/// answering the caller's question for that type, by the caller saying its value before or
/// after it, or, for an amount, by being the only one told. A line reporting a deed of its own ("I've booked a
/// callback for Friday") gives the value of that deed, and is tied only by its words.
fn tied(conv: &Conversation, s: &Said, about: &BTreeSet<String>, object: Object, told: &[Said]) -> bool {
    let asked = |t: &Turn| {
        let lower = &t.lower;
        let asks = match object {
            Object::Day => ASKS_DAY.is_match(lower),
            Object::Time | Object::Moment => ASKS_TIME.is_match(lower) || ASKS_DAY.is_match(lower),
            Object::Span => ASKS_SPAN.is_match(lower),
            Object::Amount(_) => ASKS_AMOUNT.is_match(lower),
        };
        asks && lower.contains('?')
    };
    let own_deed = claims_success(s) || own_deed_at(s.lower()).is_some();
    let only_amount = matches!(object, Object::Amount(_)) && told.len() == 1 && by_form(s);
    let settled = |t: &Turn| echoes(&t.lower, s.lower());
    let withheld = s.turn.sentences.iter().any(|x| WITHHELD.is_match(&x.lower));
    shares_words(s, about)
        || (!own_deed
            && !withheld
            && (prompted(conv, s.turn).is_some_and(|t| asked(t) || settled(t))
                || reply(conv, s.turn).is_some_and(settled)
                || only_amount))
}

fn shares_words(s: &Said, about: &BTreeSet<String>) -> bool {
    !with_related(s.terms()).is_disjoint(about)
}

/// The caller's turn just before an agent turn.
fn prompted<'a>(conv: &'a Conversation, turn: &Turn) -> Option<&'a Turn> {
    conv.turns[..turn.index].iter().rev().find(|t| t.side != Side::Other).filter(|t| t.side == Side::Caller)
}

/// The caller's turn just after an agent turn.
fn reply<'a>(conv: &'a Conversation, turn: &Turn) -> Option<&'a Turn> {
    conv.turns[turn.index + 1..].iter().find(|t| t.side != Side::Other).filter(|t| t.side == Side::Caller)
}

/// Whether the caller says back a day or a number of the agent's line ("Tuesday's fine").
fn echoes(reply: &str, line: &str) -> bool {
    let words = |text: &str| -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            // Not "may", which is more often a verb than a month.
            .filter(|w| (is_calendar_word(w) && w.len() > 3) || w.chars().any(|c| c.is_ascii_digit()))
            .map(|w| w.trim_end_matches(|c: char| c.is_alphabetic() && !is_calendar_word(w)).to_owned())
            .collect()
    };
    !words(reply).is_disjoint(&words(line))
}

/// A later agent line whose every clause about the same thing says it cannot be done ("I
/// can't waive it"); "I can't promise X, but the fitter texts first" takes nothing back.
fn taken_back<'a>(said: &[Said<'a>], s: &Said, concept: &str) -> Option<Said<'a>> {
    said.iter()
        .filter(|o| o.order > s.order)
        .find(|o| refuses_it(o.lower(), concept) && !KEEPS.is_match(o.lower()))
        .copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_pattern_compiles() {
        assert!(super::all_patterns().iter().all(|p| p.compiles()));
    }
}
