//! "Agent does X" expectations: what the prompt asks the agent to do, when it applies, and
//! whether an agent line (never a caller's) does it. Read-backs, offers, fees and timing
//! have their own readers; mentioning, asking, never doing and anything else is matched as
//! a concept against the agent's sentences.

mod apology;
mod calibrate;
mod compound;
mod concept;
mod condition;
mod confirms_done;
mod deed;
mod fee;
mod found;
mod greeting;
mod next_step;
mod offer;
mod promise;
mod readback;
mod timing;
mod told;
mod typed;
mod unsaid;

use std::collections::BTreeSet;

use super::conversation::{Conversation, Said, Side};
use super::identity::is_unclear;
use super::pattern::patterns;
use super::terms::terms;
use super::{Finding, Shape};
use concept::concept;
use condition::{condition, window};
pub(super) use found::concept_loosely;
use found::{concept_found_in, concept_terms, said_terms};

patterns! {
    /// Curt or dismissive lines, for "stays patient" and the like.
    CURT = r"\bcan't help you\b|\bnothing (else )?i can do\b|\bcalm down\b|\bnot my problem\b|\bi already told you\b|\bas i (said|told you)\b|\bthat's (just )?(the|our) policy\b";
    MANNER = r"\b(stays|remains|is|being) (patient|calm|polite|courteous|respectful|friendly|professional|empathetic)\b";
    ASKS_FOR = r"\bcan i (have|get)\b|\bmay i (have|get)\b|\bcould you\b|\bcan you\b|\bplease (tell|give|confirm|spell)\b|\bwhat('s| is) (your|the)\b";
    AFTER_PRESS = r"after the caller presses (\d)";
    IF_VERIFICATION_FAILS = r"\bif (verification|the verification|identity verification) fails\b|\bif the date of birth (does not|doesn't) match\b|\bif (it|they) (does not|doesn't|do not|don't) match\b";
    WHEN_BOOKING = r"\bwhen (booking|moving|rescheduling|changing|making|confirming)\b|\bafter (booking|moving|rescheduling)\b";
    /// "… before booking an engineer visit": only what comes before the booking counts.
    BEFORE_BOOKING = r"\bbefore (booking|moving|rescheduling|changing|ordering|cancell?ing|refunding|arranging|placing|sending|making the (booking|change|order))\b";
    /// "asks the owner to bring …" is an instruction, not a question.
    ASKS_TO = r"\basks (the )?(caller|customer|owner|client|patient|passenger|member|them|him|her)? ?to \w+";
    /// A line that refuses or denies the thing rather than doing it ("I can't give doses").
    DENIES = r"\b(can't|cannot|can not|won't|don't|do not|never|not able to|unable to|not allowed to|isn't|is not|no)\b";
    /// Someone to turn to: a team, a desk, a colleague.
    SOMEONE = r"\b(our|the|your|a) ([a-z]+ )?(team|department|desk|line|office|surgery|branch|colleague|manager|supervisor|pharmacist|specialist|helpline)\b";
    /// A phone number said out.
    PHONE = r"\b0\d{3,4}[ -]?\d{3}[ -]?\d{3,4}\b|\b\d{3}[ -]\d{3}[ -]\d{4}\b";
    DURATION = r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|a) (to \d+ )?(working |business )?(minutes?|hours?|days?|weeks?|months?|fortnight)\b";
    /// Whom the agent tells, before what it tells: "the member" in "tells the member when …".
    ADDRESSEE = r"^(the |a |an |their |his |her )?([a-z'-]+) (when|where|what|how|who|whom|why|whether|which|that|about) ";
    /// A concept asking for a limit in time ("until when …"), whose "when" is its own.
    LIMIT_START = r"^(until|till|by) when\b";
    CONCEPT_END = r" (when|if|before|after|until|while|whenever|so that|unless|as soon as) | and charges | and reads | and then ";
    VERB = r"\b(the )?agent (always |clearly |explicitly )?(mentions|tells the caller( that)?|tells|explains( that)?|informs the caller( that)?|states( that)?|reminds the caller( of| about)?|says( that)?|gives|asks for|asks( the caller)?( whether| if| to)?|greets the caller( as)?|greets|never|does not|doesn't|avoids|confirms|offers|provides|uses|addresses the caller( by)?|apologi[sz]es( for)?|acknowledges)\b|\b(the )?agent \w+\b";
}

/// Reads an expectation about the agent.
pub(super) fn read(conv: &Conversation, prompt: &str) -> Finding {
    let prompt = &compound::as_statement(prompt);
    if let Some(parts) = compound::parts(prompt) {
        return compound::read(conv, &parts);
    }
    let condition = condition(conv, prompt);
    if let Some(why) = condition.not_applicable {
        return Finding::not_applicable(Shape::ConditionNeverArose, why);
    }
    let said = window(conv, &condition);
    if MANNER.is_match(prompt)
        && let Some(curt) = said.iter().find(|s| CURT.is_match(s.lower()))
    {
        return Finding::not_met(Shape::Curt, format!("Not met: the agent was curt: {}.", curt.quote()), 0.8);
    }
    if let Some(finding) = apology::read(&said, prompt) {
        return finding;
    }
    if let Some(finding) = greeting::read(conv, &said, prompt, &concept(prompt)) {
        return finding;
    }
    if let Some(finding) = confirms_done::read(conv, prompt) {
        return finding;
    }
    if let Some(finding) = deed::read(&said, prompt) {
        return finding;
    }
    if let Some(finding) = told::read(conv, &said, prompt, &concept(prompt)) {
        return finding;
    }
    if let Some(finding) = promise::read(&said, prompt) {
        return finding;
    }
    if let Some(finding) = next_step::read(conv, prompt) {
        return finding;
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
    let asks = prompt.contains("asks") && !ASKS_TO.is_match(prompt);
    let caller: Vec<Said> = conv.said_by(Side::Caller).collect();
    let finding = concept_found_in(&said, &caller, &concept, never, asks);
    if finding.reading == super::Reading::Met
        && !never
        && !BEFORE_BOOKING.is_match(prompt)
        && let Some(act) = calibrate::unplaced_before(prompt)
    {
        return Finding::unsure(format!(
            "Cannot tell: {} but the expectation must come {act}, which the offline judge cannot place on the call.",
            finding.why.trim_end_matches('.')
        ));
    }
    if finding.reading != super::Reading::NotMet || never {
        return finding;
    }
    // Not found: say so only when the call could have held it.
    if let Some(lost) = said.iter().find(|s| is_unclear(s.lower())) {
        return Finding::unsure(format!(
            "Cannot tell: the agent's line {} is partly lost from the transcript, and it may be the one.",
            lost.quote()
        ));
    }
    if let Some(kind_said) = said_a_kind_asked(&said, &concept) {
        return Finding::unsure(format!(
            "Cannot tell: the agent said {}, which has the kind of detail asked for but not in the prompt's words.",
            kind_said.quote()
        ));
    }
    match absent_subject(conv, &concept) {
        Some(subject) => Finding::unsure(format!(
            "Cannot tell: the call never mentions {subject}, so whether the expectation applied is unclear."
        )),
        None if checkable(&concept) => finding,
        None if !says_anything(&said) => Finding { shape: Some(Shape::AgentStatedNothing), ..finding },
        None if !asks && let Some(why) = unsaid::never_told(&said, &concept) => {
            Finding::not_met(Shape::NeverTold, why, 0.7)
        }
        None => Finding::unsure(format!(
            "Cannot tell: no agent line says \"{concept}\" in the prompt's words, and it may have been said in others; \
             only a number or a quoted phrase can be checked as never said."
        )),
    }
}

/// Whether any agent line in the window states something (a question or a word of manners
/// says nothing the expectation could be hiding in).
pub(super) fn says_anything(said: &[Said]) -> bool {
    said.iter().any(|s| !s.is_question() && s.lower().split_whitespace().count() >= 4)
}

/// Whether an expectation's content can be checked by its form, so that its absence from every
/// agent line is a reliable "not met": a number or a quoted phrase cannot be paraphrased away.
fn checkable(concept: &str) -> bool {
    concept.chars().any(|c| c.is_ascii_digit()) || concept.contains('"')
}

/// An agent line carrying the kind of detail a "where", "when" or "who" concept asks for (a place, a
/// day or time) but none of its words: it may be the answer, in words the judge cannot tie.
fn said_a_kind_asked<'a>(said: &[Said<'a>], concept: &str) -> Option<Said<'a>> {
    let kinds: BTreeSet<String> = concept_terms(concept).into_iter().filter(|t| t.starts_with('<')).collect();
    if kinds.is_empty() {
        return None;
    }
    said.iter().find(|s| kinds.is_subset(said_terms(s))).copied()
}

/// The words of "the X" the concept is about ("the replacement card arrives …") that no agent
/// line uses: then the expectation may never have applied (no replacement was sent, or the
/// caller's was already there).
fn absent_subject(conv: &Conversation, concept: &str) -> Option<String> {
    let body = concept.trim_start_matches("that ").trim_start_matches("the caller ").trim_start_matches("that ");
    let subject = body.strip_prefix("the ")?;
    // A clause ("the replacement card arrives …") presupposes its subject; a bare noun
    // phrase ("the 24-hour cancellation policy") is the thing to say, and presupposes nothing.
    let all: Vec<&str> = subject.split_whitespace().collect();
    let verb = all.iter().take(4).position(|w| is_verb_like(w))?;
    let words = &all[..verb];
    if words.is_empty() {
        return None;
    }
    let said: BTreeSet<String> = conv.of(Side::Agent).flat_map(|t| terms(&t.lower)).collect();
    let missing = terms(&words.join(" ")).iter().any(|t| !said.contains(t));
    missing.then(|| format!("the {}", words.join(" ")))
}

fn is_verb_like(word: &str) -> bool {
    ["is", "are", "was", "will", "takes", "take", "arrives", "arrive", "stops", "costs", "comes", "has", "must", "can"]
        .contains(&word)
        || word.ends_with("'ll")
}

#[cfg(test)]
mod compound_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_tests;
