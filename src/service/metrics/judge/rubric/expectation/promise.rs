//! "Never promises a date the fault will be fixed" (or "promises …"): a promise is a line that
//! commits to a resolution by a time ("it'll be fixed by Friday, guaranteed"). "I can't
//! promise it'll be fixed on the day" is not one; a line that hedges ("it's estimated back by
//! 6pm", "it should be sorted tomorrow") is neither clearly a promise nor clearly not, and
//! the judge abstains on it.

use super::super::conversation::Said;
use super::super::pattern::patterns;
use super::super::terms::terms;
use super::super::{Finding, Shape};

patterns! {
    PROMPT = r"\b(promis\w*|guarantee\w*|commits? to)\b";
    /// A resolution, of whatever the call is about.
    RESOLVED = r"\b(fixed|resolved|sorted|back|working|restored|delivered|deliver|arrive|arrives|with you|done|up and running|repaired|ready|refunded|in your account|be there|be here|get there|reach you|land|show)\b";
    /// A promise about when: "a delivery date", "a time the fault is fixed".
    WHEN = r"\b(date|day|time|when|deadline|by)\b";
    /// When.
    DEADLINE = r"\b(by|before|within|on|until) \w+|\b(today|tonight|tomorrow|this week|next week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\d";
    COMMITS = r"\b(will|'ll|is going to|are going to|i promise|i can promise|guarantee\w*|definitely|for sure|without fail)\b";
    NO_PROMISE = r"\b(can't|cannot|can not|won't|couldn't|not able to|unable to|don't|do not) (promise|guarantee|commit)\b|\bno guarantee\b|\bnot promis\w*\b";
    /// A line that leaves the thing open ("I can't tell you whether there'll be a charge").
    IN_DOUBT = r"\b(whether|if)\b|\b(can't|cannot|couldn't|not able to|unable to) (say|tell)\b";
    HEDGED = r"\b(estimated?|estimates?|should|hopefully|hope|expect\w*|aim\w*|usually|normally|typically|might|may|probably|likely|roughly|around|about|touch wood)\b";
}

pub(super) fn read(said: &[Said], prompt: &str) -> Option<Finding> {
    let promise = PROMPT.find(prompt)?;
    let never = prompt.contains("never") || prompt.contains("does not") || prompt.contains("doesn't");
    // "Never promises there will be no damage charge" is about that thing, not about when
    // something will be resolved.
    let promised = &prompt[promise.end()..];
    if !RESOLVED.is_match(promised) && !WHEN.is_match(promised) {
        return Some(about_a_thing(said, promised, never));
    }
    let about_when = ["date", "day", "time", "when", "deadline"].iter().any(|w| prompt.contains(w));
    let commitment = |s: &&Said| {
        let lower = s.lower();
        RESOLVED.is_match(lower) && (!about_when || DEADLINE.is_match(lower)) && !NO_PROMISE.is_match(lower)
    };
    let promised_line =
        said.iter().filter(commitment).find(|s| COMMITS.is_match(s.lower()) && !HEDGED.is_match(s.lower()));
    let hedged = said.iter().filter(commitment).find(|s| HEDGED.is_match(s.lower()));
    Some(match (promised_line, hedged, never) {
        (Some(s), _, true) => {
            Finding::not_met(Shape::PromiseFound, format!("Not met: the agent promised it: {}.", s.quote()), 0.8)
        }
        (Some(s), _, false) => {
            Finding::met(Shape::PromiseFound, format!("Met: the agent promised it: {}.", s.quote()), 0.8)
        }
        (None, Some(s), _) => Finding::unsure(format!(
            "Cannot tell: the agent said {}, an estimate rather than clearly a promise or clearly none.",
            s.quote()
        )),
        (None, None, true) => Finding::met(
            Shape::PromiseAbsent,
            "Met: no agent line commits to when it will be resolved.".to_owned(),
            0.7,
        ),
        (None, None, false) => Finding::not_met(
            Shape::PromiseAbsent,
            "Not met: no agent line commits to when it will be resolved.".to_owned(),
            0.7,
        ),
    })
}

/// A promise of a named thing: a line that commits, unhedged and not in doubt ("whether"), in
/// the thing's own words.
fn about_a_thing(said: &[Said], promised: &str, never: bool) -> Finding {
    let wanted = terms(promised);
    let commits = said.iter().find(|s| {
        let lower = s.lower();
        COMMITS.is_match(lower)
            && !NO_PROMISE.is_match(lower)
            && !HEDGED.is_match(lower)
            && !IN_DOUBT.is_match(lower)
            && !terms(lower).is_disjoint(&wanted)
    });
    match (commits, never) {
        (Some(s), true) => {
            Finding::not_met(Shape::PromiseFound, format!("Not met: the agent promised it: {}.", s.quote()), 0.75)
        }
        (Some(s), false) => {
            Finding::met(Shape::PromiseFound, format!("Met: the agent promised it: {}.", s.quote()), 0.75)
        }
        (None, true) => {
            Finding::met(Shape::PromiseAbsent, format!("Met: no agent line promises \"{}\".", promised.trim()), 0.7)
        }
        (None, false) => Finding::not_met(
            Shape::PromiseAbsent,
            format!("Not met: no agent line promises \"{}\".", promised.trim()),
            0.7,
        ),
    }
}
