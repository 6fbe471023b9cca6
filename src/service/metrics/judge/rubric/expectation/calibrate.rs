//! When a line found for an expectation is robust enough to answer "met". The concept match
//! finds the agent line sharing most of the expectation's words; a line can share them and
//! still not do it: it refuses ("I can't promise that from here"), names an identifier
//! without giving one, leaves out what the expectation says is so ("… is at their own
//! risk"), or gives a day where a limit was asked for. These checks send the judge to
//! abstain there.

use super::super::conversation::Said;
use super::super::identity::gives_code;
use super::super::outcome::cannot_do;
use super::super::pattern::patterns;
use super::super::terms::{terms, with_related};

patterns! {
    /// Where a line turns to another clause: a refusal in one says nothing of the other.
    CLAUSE = r", but |; | but |, so |\. ";
    /// A concept that asks a question (where, when, why …) rather than states what is so.
    WH = r"^(where|when|why|what|which|who|whom|how|whether|if)\b";
    /// The expectation names an identifier to give or tell: a reference, a number, a code.
    IDENTIFIER = r"\b(reference|ref|number|code|id)\b";
    /// A copula in a told clause: what follows it is what is told.
    COPULA = r" (is|are|was|were|will be|would be|must be|can be|has to be) ";
    /// The expectation asks for a limit in time.
    LIMIT_ASKED = r"\b(until|till|by) when\b|\bdeadline\b|\bhow late\b";
    /// A line that sets a limit in time.
    LIMIT_SAID = r"\b(until|till|up to|up until|by|before|no later than|deadline|latest)\b";
    /// An act the expectation must come before ("before reading out the file").
    BEFORE_ACT = r"\bbefore ([a-z]+ing)\b";
}

/// Gerunds after "before" that name the end of the call, before which everything comes.
const ENDINGS: &[&str] = &["ending", "hanging", "closing", "finishing", "leaving"];

/// Why the line found for a (not "never") expectation may not do it; None when it may stand.
/// `asks` is an expectation to ask for something, which a question does without the thing.
pub(super) fn doubt_met(said: &Said, concept: &str, asks: bool) -> Option<String> {
    let lower = said.lower();
    let quote = said.quote();
    if refuses_it(lower, concept) {
        return Some(format!("the agent said {quote}, which says it cannot do it; that is not doing it"));
    }
    if asks {
        return None;
    }
    if wants_identifier(concept) && !gives_identifier(lower) {
        return Some(format!("the agent said {quote}, which names it but gives no number or code"));
    }
    if LIMIT_ASKED.is_match(concept) && !LIMIT_SAID.is_match(lower) {
        return Some(format!("the agent said {quote}, which gives no limit in time (until, by, up to)"));
    }
    let stated = !WH.is_match(concept.trim_start_matches("that "));
    let predicate = COPULA.find(concept).filter(|_| stated).map(|m| terms(&concept[m.end()..])).unwrap_or_default();
    let own = with_related(&terms(lower));
    if !predicate.is_empty() && predicate.is_disjoint(&own) {
        return Some(format!("the agent said {quote}, which does not say what the expectation says is so"));
    }
    None
}

/// Whether every clause of the line that speaks of the concept says the agent cannot do
/// something ("late checkout I can't promise"); "I can't promise it's fixed that day, but the
/// engineer texts first" still tells when the engineer comes.
pub(super) fn refuses_it(lower: &str, concept: &str) -> bool {
    let wanted = terms(concept);
    let speaking: Vec<&str> =
        CLAUSE.split(lower).into_iter().filter(|c| !with_related(&terms(c)).is_disjoint(&wanted)).collect();
    !speaking.is_empty() && speaking.iter().all(|c| cannot_do(c))
}

/// Whether a line carries an identifier: a code, or a number of four digits or more.
pub(super) fn gives_identifier(lower: &str) -> bool {
    gives_code(lower) || lower.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= 4)
}

/// Whether an expectation asks for an identifier to be given or told.
pub(super) fn wants_identifier(concept: &str) -> bool {
    IDENTIFIER.is_match(concept)
}

/// An act the prompt says the thing must come before ("asks for X before reading out Y")
/// that no condition reader placed: a "met" found anywhere on the call may have come after it.
pub(super) fn unplaced_before(prompt: &str) -> Option<String> {
    let gerund = BEFORE_ACT.captures(prompt)?.get(1)?.as_str();
    (!ENDINGS.contains(&gerund)).then(|| format!("before {gerund}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::ParticipantType::Agent;
    use crate::service::metrics::judge::rubric::conversation::Conversation;
    use crate::service::metrics::judge::rubric::tests::transcript;

    fn doubt(line: &str, concept: &str) -> bool {
        let conv = Conversation::read(&transcript(&[(Agent, line)]));
        let said = conv.said().next().unwrap();
        doubt_met(&said, concept, false).is_some()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn a_line_sharing_the_words_may_still_not_do_it() {
        assert!(doubt("The loft hatch I can't promise, it depends on the builder.", "confirms the loft hatch"));
        assert!(doubt(
            "If the kit hasn't come by Friday, ring us and we'll give you the kit reference.",
            "the kit reference"
        ));
        assert!(!doubt(
            "I can't promise the fitting that day, but the fitter texts you an hour before.",
            "when the fitter comes"
        ));
        assert!(doubt("Kit queries are handled by our stores desk.", "a kit reference"));
        assert!(doubt("Sure, we can store the canoe by the gate.", "a canoe stored by the gate is at their own risk"));
        assert!(doubt(
            "The canoe is stored from the 3rd to the 9th, no fee.",
            "until when the canoe can be collected free of charge"
        ));
    }

    #[test]
    fn a_line_that_does_it_stands() {
        assert!(!doubt("Your kit reference is K T 4 4 0 1.", "the kit reference"));
        assert!(!doubt(
            "A canoe left by the gate is at your own risk, I'm afraid.",
            "a canoe stored by the gate is at their own risk"
        ));
        assert!(!doubt(
            "You can collect it free until noon on the 9th.",
            "until when the canoe can be collected free of charge"
        ));
        let conv = Conversation::read(&transcript(&[(Agent, "Can I take the kit reference?")]));
        let asking = conv.said().next().unwrap();
        assert!(doubt_met(&asking, "the kit reference", true).is_none(), "asking for it needs no code");
    }

    #[test]
    fn an_act_the_thing_must_come_before_is_noted_unless_it_is_the_end_of_the_call() {
        assert_eq!(
            unplaced_before("agent asks for the locker number before reading out the locker"),
            Some("before reading".into())
        );
        assert_eq!(unplaced_before("agent explains what happens next before ending the call"), None);
        assert_eq!(unplaced_before("agent reminds the rider that helmets must be worn before the ride"), None);
    }
}
