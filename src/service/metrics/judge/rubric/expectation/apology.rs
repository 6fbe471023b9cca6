//! "Apologises (for X)": an agent line that says sorry, not for mishearing. It is met when the
//! apology names X or is for the caller's trouble in general ("sorry for all the hassle");
//! an apology for something else leaves it open, and no apology at all is not met.

use super::super::conversation::Said;
use super::super::pattern::patterns;
use super::super::terms::{coverage, terms};
use super::super::{Finding, Shape};

patterns! {
    /// An apology, or sympathy, which is said the same way ("I'm so sorry to hear that").
    PROMPT = r"\bapologi[sz]es?\b|\bsays sorry\b|\b(expresses|shows|offers) (sympathy|condolences)\b|\bsympathi[sz]es\b";
    APOLOGY = r"\b(sorry|apologi[sz]e|apologies)\b";
    /// "Sorry?" and "sorry, could you repeat that" ask to hear again.
    MISHEARD = r"\bsorry\?|\bsorry,? (what|could you|can you|i didn't catch|say that again|pardon)\b|\bdidn't catch\b";
    /// A reason that is the caller's trouble, whatever it was.
    GENERAL = r"\b(for|about) (all )?(the|that|this|your) (hassle|trouble|inconvenience|wait|mix-up|problem|issue|frustration|disruption|delay|situation)\b|\bsorry (to hear|about that|for that|you've had|you had)\b|\bso sorry\b|\breally sorry\b";
}

pub(super) fn read(said: &[Said], prompt: &str) -> Option<Finding> {
    let m = PROMPT.find(prompt)?;
    let reason = prompt[m.end()..].trim().trim_start_matches("for ").trim_start_matches("about ").trim_end_matches('.');
    let wanted = terms(reason);
    let apologies: Vec<&Said> =
        said.iter().filter(|s| APOLOGY.is_match(s.lower()) && !MISHEARD.is_match(s.lower())).collect();
    let names_it = |s: &&&Said| wanted.is_empty() || coverage(&wanted, s.terms()).1 > 0.0;
    Some(
        match (
            apologies.iter().find(names_it),
            apologies.iter().find(|s| GENERAL.is_match(s.lower())),
            apologies.first(),
        ) {
            (Some(s), _, _) | (None, Some(s), _) => {
                Finding::met(Shape::Apologised, format!("Met: the agent apologised: {}.", s.quote()), 0.8)
            }
            (None, None, Some(s)) => Finding::unsure(format!(
                "Cannot tell: the agent's only apology, {}, may be for something other than {reason}.",
                s.quote()
            )),
            (None, None, None) => {
                Finding::not_met(Shape::NeverApologised, "Not met: the agent never apologised.".to_owned(), 0.75)
            }
        },
    )
}
