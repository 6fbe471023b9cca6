//! "Agent confirms the loans are renewed": confirming that something is done is the agent
//! saying the request was done, in whatever words (the request reader's own reading). Met only
//! when that reader finds it done; otherwise the concept readers judge it.

use super::super::conversation::Conversation;
use super::super::outcome;
use super::super::pattern::patterns;
use super::super::{Finding, Reading, Shape};

patterns! {
    /// "confirms (that) the X is/are/has been <done>": a state of being done, not a value.
    CONFIRMS_DONE = r"\bagent confirms (that )?(the|your|their|his|her|its|all|both) [a-z' -]{2,40}? (is|are|was|were|has been|have been|is now|are now) ([a-z]+ed|done|set|sent|put|paid|made)\.?$";
}

/// Met when the prompt asks the agent to confirm something done and the agent said it was.
pub(super) fn read(conv: &Conversation, prompt: &str) -> Option<Finding> {
    if !CONFIRMS_DONE.is_match(prompt) {
        return None;
    }
    let done = outcome::read(conv, false);
    (done.reading == Reading::Met)
        .then(|| Finding::met(Shape::ConfirmedDone, done.why.replacen("Met: ", "Met: it was done: ", 1), 0.7))
}
