//! A concept matched against the agent's sentences: their words and the kinds of detail they
//! carry (a place, a day, a span, someone to turn to), the best line for it, and the finding.

use std::collections::BTreeSet;

use super::super::conversation::Said;
use super::super::terms::{covered_by, terms, with_related};
use super::super::{Finding, Shape};
use super::calibrate;
use super::{ASKS_FOR, DENIES, DURATION, PHONE, SOMEONE};

/// The past tense of what the prompt asks for, for "the agent never …".
fn did(asks: bool, concept: &str) -> String {
    if asks { format!("asked for \"{concept}\"") } else { format!("said anything about \"{concept}\"") }
}

/// The term a line naming a place carries, and a "where" concept asks for.
const PLACE: &str = "<place>";
/// The term a line with a day, a time or a span carries, and a "when" concept asks for.
const WHEN: &str = "<when>";
/// The term a line with a span ("within 5 working days") carries, and "how long" asks for.
const HOW_LONG: &str = "<how long>";
/// The term a line naming someone to turn to (a person, a team, a number) carries, and a
/// "who" concept asks for.
const WHO: &str = "<who>";

/// A concept's terms; "where to collect the car" also asks for a place, "when the power
/// will be back" for a day or time, "how long the review takes" for a span.
pub(super) fn concept_terms(concept: &str) -> BTreeSet<String> {
    let words: Vec<&str> = concept.split_whitespace().collect();
    let how_long = words.windows(2).any(|w| w == ["how", "long"]);
    let mut out = terms(concept);
    if how_long {
        out.remove("how");
        out.remove("long");
        out.insert(HOW_LONG.to_owned());
    }
    if words.contains(&"where") {
        out.insert(PLACE.to_owned());
    }
    if words.contains(&"when") {
        out.insert(WHEN.to_owned());
    }
    if words.contains(&"who") {
        out.insert(WHO.to_owned());
    }
    out
}

/// The best agent sentence for a concept: (sentence, anchors present, share of other terms).
pub(super) fn best<'a>(said: &[Said<'a>], concept: &str, questions_only: bool) -> Option<(Said<'a>, bool, f64)> {
    let wanted = concept_terms(concept);
    said.iter()
        .filter(|s| !questions_only || s.is_question() || ASKS_FOR.is_match(s.lower()))
        .map(|s| {
            let (anchored, share) = covered_by(&wanted, related_said_terms(s));
            (*s, anchored, share)
        })
        .max_by(|a, b| {
            (a.1, a.2).partial_cmp(&(b.1, b.2)).unwrap_or(std::cmp::Ordering::Equal).then(b.0.order.cmp(&a.0.order))
        })
}

/// A sentence's words, with the words for the kinds of detail it carries: "48 pounds" is a
/// price and a cost, "half a tablet twice a day" a dose, "Tuesday at 9" a day and a date.
pub(super) fn said_terms<'a>(said: &Said<'a>) -> &'a BTreeSet<String> {
    said.sentence.kept.said_terms.get_or_init(|| work_out_said_terms(said))
}

/// `said_terms` with the words they stand for, worked out once a sentence.
fn related_said_terms<'a>(said: &Said<'a>) -> &'a BTreeSet<String> {
    said.sentence.kept.related_terms.get_or_init(|| with_related(said_terms(said)))
}

fn work_out_said_terms(said: &Said) -> BTreeSet<String> {
    let mut out = said.terms().clone();
    let d = said.details();
    let mut add = |words: &str| out.extend(terms(words));
    // Not "fee": a fee stands for a policy, and an amount alone is no policy.
    if d.money {
        add("price cost charge amount much");
    }
    if d.quantity {
        add("dose dosage amount");
    }
    if d.date {
        add("date day");
    }
    if d.time {
        add("hour window arrival");
    }
    if d.place {
        out.insert(PLACE.to_owned());
    }
    if d.date || d.time || DURATION.is_match(said.lower()) {
        out.insert(WHEN.to_owned());
    }
    if DURATION.is_match(said.lower()) {
        out.insert(HOW_LONG.to_owned());
    }
    if d.person || PHONE.is_match(said.lower()) || SOMEONE.is_match(said.lower()) {
        out.insert(WHO.to_owned());
    }
    out
}

/// A prompt the judge does not recognise, matched by its words: met when one line says most of
/// it, and no answer otherwise.
pub(in super::super) fn concept_loosely(said: &[Said], concept: &str) -> Finding {
    if terms(concept).is_empty() {
        return Finding::unsure(format!("Cannot tell: nothing to look for in \"{concept}\"."));
    }
    match best(said, concept, false) {
        Some((s, true, share)) if share >= 0.6 => {
            Finding::met(Shape::LooseWordsMatch, format!("Met: {} says it.", s.quote()), 0.6)
        }
        Some((s, _, share)) if share > 0.0 => Finding::unsure(format!(
            "Cannot tell: the prompt is not one the offline judge knows, and the closest line, {}, says only part of it.",
            s.quote()
        )),
        // No shared word is no evidence: the agent may have done it in words of its own
        // ("What can I do for you?" for "asks how they can help").
        _ => Finding::unsure(format!(
            "Cannot tell: the prompt is not one the offline judge knows, and no line speaks of \"{concept}\" in its words."
        )),
    }
}

/// Words in a concept that name a kind of detail the line must carry ("the date their
/// membership ends"), with the terms a line carrying it gets for free.
const KIND_WORDS: &[&str] = &["date", "time"];

/// Whether a line carries the kind of detail the concept names (a date for "the date …", a
/// time for "the time …"), and one of the concept's other words besides: a greeting that
/// names the desk, or a booking's day, is not "the date the membership ends".
fn carries_kind_named(said: &Said, concept: &str) -> bool {
    let words: Vec<&str> = concept.split(|c: char| !c.is_alphanumeric()).collect();
    // Not "day" or "hour": "the 24-hour policy" names no detail to carry.
    let (wants_date, wants_time) = (words.contains(&"date"), words.contains(&"time"));
    let d = said.details();
    // "The window the visit comes in" is told only by a time or a span of hours, not a day.
    if words.contains(&"window") && !wants_date && !wants_time {
        return d.time;
    }
    if !wants_date && !wants_time {
        return true;
    }
    let carries = (wants_date && d.date) || (wants_time && (d.time || d.date));
    let own = said.terms();
    let rest = terms(concept).into_iter().filter(|t| !KIND_WORDS.contains(&t.as_str())).any(|t| own.contains(&t));
    carries && rest
}

/// Whether the agent's lines carry `concept`, noting when only the caller said it (`others` are their lines).
pub(super) fn concept_found_in(said: &[Said], others: &[Said], concept: &str, never: bool, asks: bool) -> Finding {
    if terms(concept).is_empty() {
        return Finding::not_applicable(
            Shape::NothingToLookFor,
            format!("Not applicable: nothing to look for in \"{concept}\"."),
        );
    }
    // A line that refuses or denies the thing ("I can't give doses over the phone") is not
    // doing it, for an expectation that it never be done.
    let doing: Vec<Said> = said.iter().filter(|s| !(never && DENIES.is_match(s.lower()) && !asks)).copied().collect();
    // "Told the date X": only a line carrying a date, and something of X besides, tells it.
    let doing: Vec<Said> = doing.into_iter().filter(|s| never || asks || carries_kind_named(s, concept)).collect();
    // "Gives the caller a reference": only a line carrying a code or a long number gives one.
    let identifier = !never && !asks && calibrate::wants_identifier(concept);
    let doing: Vec<Said> =
        doing.into_iter().filter(|s| !identifier || calibrate::gives_identifier(s.lower())).collect();
    let found = best(&doing, concept, asks).filter(|(_, anchored, share)| *anchored && *share >= 0.3);
    match (found, never) {
        (Some((s, _, _)), false) => match calibrate::doubt_met(&s, concept, asks) {
            Some(why) => Finding::unsure(format!("Cannot tell: {why}.")),
            None => Finding::met(Shape::ConceptSaid, format!("Met: the agent said {}.", s.quote()), 0.75),
        },
        (Some((s, _, _)), true) => {
            Finding::not_met(Shape::NeverButDid, format!("Not met: the agent said {}.", s.quote()), 0.7)
        }
        (None, true) => Finding::met(Shape::NeverDone, format!("Met: the agent never {}.", did(asks, concept)), 0.65),
        (None, false) => {
            let by_caller = best(others, concept, false).filter(|(_, anchored, share)| *anchored && *share >= 0.3);
            let closest = best(said, concept, false).filter(|(_, _, share)| *share > 0.0);
            let never_did = did(asks, concept);
            let why = match (by_caller, closest, said.last()) {
                (Some((s, _, _)), _, _) => {
                    format!("Not met: only the caller said it, {}; the agent never {never_did}.", s.quote())
                }
                (None, Some((s, _, _)), _) => {
                    format!("Not met: the agent never {never_did}; the closest was {}.", s.quote())
                }
                (None, None, Some(last)) => {
                    format!("Not met: the agent never {never_did}; its last line was {}.", last.quote())
                }
                (None, None, None) => format!("Not met: the agent never {never_did}."),
            };
            Finding::not_met(Shape::CheckableUnsaid, why, 0.65)
        }
    }
}
