//! "Agent renames the caller's locker": the agent doing a deed on the caller's behalf, which
//! is met by the agent saying, in the first person, that it has done it ("I've renamed it"),
//! and not by a note, a hand-off or a request left for someone else ("I've put a note in for
//! the office to sort"). A deed reported in another verb may be it in other words: abstain.

use super::super::conversation::Said;
use super::super::outcome::{claims_success, own_deed_at, passes_on};
use super::super::pattern::patterns;
use super::super::terms::{stem, terms, with_related};
use super::super::{Finding, Shape};

patterns! {
    /// The expectation's verb, third person, right after "agent".
    VERB = r"^(the )?agent ([a-z]+s)\b";
    /// The agent saying it is doing or will do something itself, and the next words.
    SELF = r"\b(i've|i have|we've|we have|i'll|i will|we'll|i'm|i am|let me|i can)((?: [a-z']+){1,3})";
}

/// Verbs of speaking, asking, offering, manner or checking: read elsewhere, not deeds.
const NOT_DEEDS: &[&str] = &[
    "mentions",
    "tells",
    "explains",
    "informs",
    "states",
    "reminds",
    "says",
    "gives",
    "asks",
    "greets",
    "avoids",
    "confirms",
    "offers",
    "provides",
    "uses",
    "addresses",
    "apologises",
    "apologizes",
    "acknowledges",
    "checks",
    "verifies",
    "reads",
    "repeats",
    "stays",
    "remains",
    "is",
    "keeps",
    "lets",
    "waits",
    "promises",
    "suggests",
    "advises",
    "warns",
    "answers",
    "listens",
    "speaks",
    "identifies",
    "introduces",
    "thanks",
    "transfers",
    "puts",
    "connects",
    "escalates",
    "refers",
    "passes",
    "sends",
    "does",
    "accepts",
    "follows",
    "treats",
    "spells",
    "takes",
    "collects",
    "records",
    "notes",
    "logs",
    "handles",
    "responds",
    "closes",
    "ends",
    "recaps",
    "summarises",
    "summarizes",
    "expresses",
    "shows",
    "sympathises",
    "sympathizes",
    "calls",
    "interrupts",
    "talks",
    "cuts",
];

pub(super) fn read(said: &[Said], prompt: &str) -> Option<Finding> {
    let verb = VERB.captures(prompt)?.get(2)?.as_str();
    if NOT_DEEDS.contains(&verb) {
        return None;
    }
    let wanted = stem(verb.trim_end_matches('s'));
    let names_it = |s: &Said| {
        let own = with_related(s.terms());
        own.contains(&wanted) || own.contains(&stem(verb))
    };
    let done = |s: &&Said| own_deed_at(s.lower()).is_some() || claims_success(s);
    if let Some(s) = said.iter().filter(done).find(|s| names_it(s)) {
        return Some(Finding::met(Shape::DidItItself, format!("Met: the agent did it itself: {}.", s.quote()), 0.75));
    }
    if let Some(s) = said.iter().find(done) {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent reported {}, which may be the deed in other words.",
            s.quote()
        )));
    }
    let handed = said.iter().find(|s| passes_on(s))?;
    // The agent saying it will do the verb itself is no hand-off, whatever else it passed on.
    let does_itself = |s: &&Said| {
        SELF.captures_all(s.lower()).iter().any(|c| c.get(2).is_some_and(|m| terms(m.as_str()).contains(&wanted)))
    };
    if said.iter().any(|s| does_itself(&s)) {
        return None;
    }
    Some(Finding::not_met(
        Shape::PassedOnNotDone,
        format!("Not met: the agent never said it had done it itself; it passed it on: {}.", handed.quote()),
        0.7,
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_pattern_compiles() {
        assert!(super::all_patterns().iter().all(|p| p.compiles()));
    }
}
