//! "Agent does X" expectations: what the prompt asks the agent to do, when it applies, and
//! whether an agent line (never a caller's) does it. Read-backs, offers, fees and timing
//! have their own readers; mentioning, asking, never doing and anything else is matched as
//! a concept against the agent's sentences.

mod fee;
mod offer;
mod readback;
mod timing;

use super::Finding;
use super::conversation::{Conversation, Said, Side};
use super::outcome::booking_stands;
use super::pattern::patterns;
use super::terms::{coverage, terms};

patterns! {
    /// Curt or dismissive lines, for "stays patient" and the like.
    CURT = r"\bcan't help you\b|\bnothing (else )?i can do\b|\bcalm down\b|\bnot my problem\b|\bi already told you\b|\bas i (said|told you)\b|\bthat's (just )?(the|our) policy\b";
    MANNER = r"\b(stays|remains|is|being) (patient|calm|polite|courteous|respectful|friendly|professional|empathetic)\b";
    ASKS_FOR = r"\bcan i (have|get)\b|\bmay i (have|get)\b|\bcould you\b|\bcan you\b|\bplease (tell|give|confirm|spell)\b|\bwhat('s| is) (your|the)\b";
    AFTER_PRESS = r"after the caller presses (\d)";
    IF_VERIFICATION_FAILS = r"\bif (verification|the verification|identity verification) fails\b|\bif the date of birth (does not|doesn't) match\b|\bif (it|they) (does not|doesn't|do not|don't) match\b";
    WHEN_BOOKING = r"\bwhen (booking|moving|rescheduling|changing|making|confirming)\b|\bafter (booking|moving|rescheduling)\b";
    CONCEPT_END = r" (when|if|before|after|until|while|whenever|so that|unless) | and charges | and reads | and then ";
    VERB = r"\b(the )?agent (always |clearly |explicitly )?(mentions|tells the caller( that)?|tells|explains( that)?|informs the caller( that)?|states( that)?|reminds the caller( of| about)?|says( that)?|gives|asks for|asks( the caller)?( whether| if| to)?|greets the caller( as)?|greets|never|does not|doesn't|avoids|confirms|offers|provides|uses|addresses the caller( by)?|apologi[sz]es( for)?|acknowledges)\b|\b(the )?agent \w+\b";
}

/// When an expectation applies, and from which point on.
struct Condition<'a> {
    /// Only lines after this one count (a keypad press, a failed verification).
    after: Option<Said<'a>>,
    /// Why it does not apply, when it does not.
    not_applicable: Option<String>,
}

fn condition<'a>(conv: &'a Conversation, prompt: &str) -> Condition<'a> {
    let mut out = Condition { after: None, not_applicable: None };
    if let Some(m) = AFTER_PRESS.find(prompt) {
        let digit = m.as_str().chars().last().unwrap_or('?').to_string();
        out.after = conv.said_by(Side::Caller).find(|s| s.turn.keypad().is_some_and(|k| k.contains(&digit)));
        if out.after.is_none() {
            out.not_applicable = Some(format!("Not applicable: the caller never pressed {digit}."));
        }
    } else if IF_VERIFICATION_FAILS.is_match(prompt) {
        out.after = conv.said_by(Side::Agent).find(|s| super::disclosure::rejects(s.lower()));
        if out.after.is_none() {
            out.not_applicable = Some("Not applicable: verification never failed on this call.".to_owned());
        }
    } else if WHEN_BOOKING.is_match(prompt) && !booking_stands(conv) {
        out.not_applicable = Some("Not applicable: nothing was booked or moved on this call.".to_owned());
    }
    out
}

/// The agent's sentences a condition lets count.
fn window<'a>(conv: &'a Conversation, condition: &Condition<'a>) -> Vec<Said<'a>> {
    conv.said_by(Side::Agent).filter(|s| condition.after.is_none_or(|a| s.order > a.order)).collect()
}

/// What the agent should do, without "Agent" in front or conditions behind.
fn concept(prompt: &str) -> String {
    let body = MANNER.find(prompt).map_or(prompt.to_owned(), |m| {
        let rest = prompt[m.end()..].trim_start().trim_start_matches("and ").to_owned();
        format!("{}{rest}", &prompt[..m.start()])
    });
    let body = VERB.find(&body).map_or(body.as_str(), |m| &body[m.end()..]).trim().to_owned();
    let cut = CONCEPT_END.find(&body).map_or(body.len(), |m| m.start());
    body[..cut].trim().trim_end_matches('.').to_owned()
}

/// Reads an expectation about the agent.
pub(super) fn read(conv: &Conversation, prompt: &str) -> Finding {
    let condition = condition(conv, prompt);
    if let Some(why) = condition.not_applicable {
        return Finding::not_applicable(why);
    }
    let said = window(conv, &condition);
    if MANNER.is_match(prompt)
        && let Some(curt) = said.iter().find(|s| CURT.is_match(s.lower()))
    {
        return Finding::not_met(format!("Not met: the agent was curt: {}.", curt.quote()), 0.8);
    }
    if let Some(finding) = fee::read(&said, prompt) {
        return finding;
    }
    if let Some(finding) = timing::read(conv, prompt) {
        return finding;
    }
    if let Some(finding) = offer::read(&said, prompt, &concept(prompt)) {
        return finding;
    }
    if let Some(finding) = readback::read(conv, prompt) {
        return finding;
    }
    let concept = concept(prompt);
    let never = prompt.contains("never ") || prompt.contains("does not ") || prompt.contains("doesn't ");
    let asks = prompt.contains("asks");
    let caller: Vec<Said> = conv.said_by(Side::Caller).collect();
    concept_found_in(&said, &caller, &concept, never, asks)
}

/// The past tense of what the prompt asks for, for "the agent never …".
fn did(asks: bool, concept: &str) -> String {
    if asks { format!("asked for \"{concept}\"") } else { format!("said anything about \"{concept}\"") }
}

/// The best agent sentence for a concept: (sentence, anchors present, share of other terms).
fn best<'a>(said: &[Said<'a>], concept: &str, questions_only: bool) -> Option<(Said<'a>, bool, f64)> {
    let wanted = terms(concept);
    said.iter()
        .filter(|s| !questions_only || s.is_question() || ASKS_FOR.is_match(s.lower()))
        .map(|s| {
            let (anchored, share) = coverage(&wanted, &terms(s.lower()));
            (*s, anchored, share)
        })
        .max_by(|a, b| {
            (a.1, a.2).partial_cmp(&(b.1, b.2)).unwrap_or(std::cmp::Ordering::Equal).then(b.0.order.cmp(&a.0.order))
        })
}

pub(super) fn concept_found(said: &[Said], concept: &str, never: bool, asks: bool) -> Finding {
    concept_found_in(said, &[], concept, never, asks)
}

/// As [`concept_found`], noting when only the caller said it (`others` are their lines).
fn concept_found_in(said: &[Said], others: &[Said], concept: &str, never: bool, asks: bool) -> Finding {
    if terms(concept).is_empty() {
        return Finding::not_applicable(format!("Not applicable: nothing to look for in \"{concept}\"."));
    }
    let found = best(said, concept, asks).filter(|(_, anchored, share)| *anchored && *share >= 0.3);
    match (found, never) {
        (Some((s, _, _)), false) => Finding::met(format!("Met: the agent said {}.", s.quote()), 0.75),
        (Some((s, _, _)), true) => Finding::not_met(format!("Not met: the agent said {}.", s.quote()), 0.7),
        (None, true) => Finding::met(format!("Met: the agent never {}.", did(asks, concept)), 0.65),
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
            Finding::not_met(why, 0.65)
        }
    }
}

#[cfg(test)]
mod tests;
