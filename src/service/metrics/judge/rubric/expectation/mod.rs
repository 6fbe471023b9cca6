//! "Agent does X" expectations: what the prompt asks the agent to do, when it applies, and
//! whether an agent line (never a caller's) does it. Read-backs, offers, fees and timing
//! have their own readers; mentioning, asking, never doing and anything else is matched as
//! a concept against the agent's sentences.

mod apology;
mod calibrate;
mod compound;
mod confirms_done;
mod deed;
mod fee;
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
use super::outcome::{booking_stands, claims_success, passes_on};
use super::pattern::patterns;
use super::terms::{covered_by, terms, with_related};
use super::{Finding, Shape};

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
    /// A span of time: "within 5 working days", "in a couple of weeks".
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

/// When an expectation applies, and from which point on.
struct Condition<'a> {
    /// Only lines after this one count (a keypad press, a failed verification).
    after: Option<Said<'a>>,
    /// Only lines before this one count (the booking, for "before booking").
    before: Option<Said<'a>>,
    /// Why it does not apply, when it does not.
    not_applicable: Option<String>,
}

fn condition<'a>(conv: &'a Conversation, prompt: &str) -> Condition<'a> {
    let mut out = Condition { after: None, before: None, not_applicable: None };
    let booked = || booking_stands(conv);
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
    } else if WHEN_BOOKING.is_match(prompt) && !booked() {
        out.not_applicable = Some("Not applicable: nothing was booked or moved on this call.".to_owned());
    } else if let Some(m) = BEFORE_BOOKING.find(prompt) {
        // A change made and later undone was still made: what came before it is what counts.
        // A request passed on ("I've sent the request over to the surgery") is the act too.
        out.before = conv.said_by(Side::Agent).find(|s| claims_success(s) || passes_on(s));
        if out.before.is_none() {
            let what = m.as_str().trim_start_matches("before ");
            out.not_applicable = Some(format!("Not applicable: the call never got as far as {what}."));
        }
    }
    out
}

/// The agent's sentences a condition lets count.
fn window<'a>(conv: &'a Conversation, condition: &Condition<'a>) -> Vec<Said<'a>> {
    conv.said_by(Side::Agent)
        .filter(|s| condition.after.is_none_or(|a| s.order > a.order))
        .filter(|s| condition.before.is_none_or(|b| s.order < b.order))
        .collect()
}

/// What the agent should do, without "Agent" in front or conditions behind.
fn concept(prompt: &str) -> String {
    let body = MANNER.find(prompt).map_or(prompt.to_owned(), |m| {
        let rest = prompt[m.end()..].trim_start().trim_start_matches("and ").to_owned();
        format!("{}{rest}", &prompt[..m.start()])
    });
    let body = VERB.find(&body).map_or(body.as_str(), |m| &body[m.end()..]).trim().to_owned();
    let body = without_addressee(&body);
    // "until when the room can be changed" asks for the limit: its "when" ends nothing.
    let skip = LIMIT_START.find(&body).map_or(0, |m| m.end());
    let cut = CONCEPT_END.find(&body[skip..]).map_or(body.len(), |m| m.start() + skip);
    body[..cut].trim().trim_end_matches('.').to_owned()
}

/// "the member when payments restart" is "when payments restart"; "the caller that …" is "…".
fn without_addressee(body: &str) -> String {
    if LIMIT_START.is_match(body) {
        return body.to_owned();
    }
    let Some(m) = ADDRESSEE.captures(body) else { return body.to_owned() };
    let (Some(whole), Some(noun), Some(word)) = (m.get(0), m.get(2), m.get(3)) else { return body.to_owned() };
    // "the date that applies to …" names what to tell, not whom.
    if KINDS_TOLD.contains(&noun.as_str()) {
        return body.to_owned();
    }
    let keep = if ["that", "about"].contains(&word.as_str()) { whole.end() } else { word.start() };
    body[keep..].to_owned()
}

/// Nouns for a kind of value to tell, which an addressee never is.
const KINDS_TOLD: &[&str] =
    &["date", "day", "time", "window", "amount", "price", "cost", "charge", "fee", "deadline", "number", "reason"];

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
fn concept_terms(concept: &str) -> BTreeSet<String> {
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
fn best<'a>(said: &[Said<'a>], concept: &str, questions_only: bool) -> Option<(Said<'a>, bool, f64)> {
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
fn said_terms<'a>(said: &Said<'a>) -> &'a BTreeSet<String> {
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
pub(super) fn concept_loosely(said: &[Said], concept: &str) -> Finding {
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

/// As [`concept_found`], noting when only the caller said it (`others` are their lines).
fn concept_found_in(said: &[Said], others: &[Said], concept: &str, never: bool, asks: bool) -> Finding {
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

#[cfg(test)]
mod compound_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_tests;
