//! "Tells the caller how much it costs", "… when it will be ready": an expectation that asks
//! for a kind of detail a line carries by its form (an amount; a day, a time or a span). When
//! no agent line carries that kind at all, nor a word that stands for it ("free", "soon",
//! "this afternoon"), it was not told in any words: a "not met" that does not rest on the
//! prompt's wording.

use super::super::conversation::Said;
use super::super::details::Details;
use super::super::pattern::patterns;
use super::DURATION;

patterns! {
    /// A concept asking for an amount.
    ASKS_AMOUNT = r"\bhow much\b|\b(cost|costs|price|prices|charge|charges|amount)\b";
    /// A concept asking for a moment or a span.
    ASKS_WHEN = r"\bwhen\b|\bwhat time\b|\bhow long\b|\b(date|day|time) (their|his|her|its|it|the|of|that|when)\b|\b(date|day|time)$";
    /// Words that say an amount without a figure.
    AMOUNT_IN_WORDS = r"\b(free|no charge|no cost|nothing to pay|cost you nothing|won't cost|doesn't cost|at no|complimentary|included|covered|waived|same price|half price|discount|percent|deposit|fee)\b";
    /// Words that say a moment or a span without a figure.
    WHEN_IN_WORDS = r"\b(soon|shortly|later|next|now|today|tonight|tomorrow|morning|afternoon|evening|week|weeks|month|months|year|hour|hours|minute|minutes|asap|first thing|end of|straight away|right away|immediately|any time|anytime|until|till|by then|already|day|days|weekend)\b";
}

/// The kind of detail an expectation asks for, by form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Amount,
    When,
}

impl Kind {
    fn asked_by(concept: &str) -> Option<Kind> {
        if ASKS_AMOUNT.is_match(concept) {
            Some(Kind::Amount)
        } else if ASKS_WHEN.is_match(concept) {
            Some(Kind::When)
        } else {
            None
        }
    }

    fn carried_by(self, said: &Said) -> bool {
        let lower = said.lower();
        let d = Details::of(lower, &said.sentence.text);
        match self {
            Kind::Amount => d.money || AMOUNT_IN_WORDS.is_match(lower),
            Kind::When => d.date || d.time || DURATION.is_match(lower) || WHEN_IN_WORDS.is_match(lower),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Amount => "an amount or a price in any words",
            Kind::When => "a day, a time or a span in any words",
        }
    }
}

/// Why the expectation was not met, when it asks for a kind of detail no agent line carries.
pub(super) fn never_told(said: &[Said], concept: &str) -> Option<String> {
    let kind = Kind::asked_by(concept)?;
    let stated: Vec<&Said> = said.iter().filter(|s| !s.is_question()).collect();
    (!stated.is_empty() && !stated.iter().any(|s| kind.carried_by(s)))
        .then(|| format!("Not met: \"{concept}\" asks for {}, and no agent line carries one.", kind.name()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::ParticipantType::{Agent, Customer};
    use crate::service::metrics::judge::rubric::conversation::{Conversation, Side};
    use crate::service::metrics::judge::rubric::tests::transcript;

    fn told(concept: &str, lines: &[(crate::api::model::ParticipantType, &str)]) -> bool {
        let conv = Conversation::read(&transcript(lines));
        let said: Vec<Said> = conv.said_by(Side::Agent).collect();
        never_told(&said, concept).is_none()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn a_kind_of_detail_never_carried_was_never_told() {
        let lines = [
            (Customer, "Can I bring my canoe on the ferry, and what does that cost?"),
            (Agent, "Canoes go on the roof rack deck. Pricing sits with the bookings office, I'm afraid."),
        ];
        assert!(!told("how much taking the canoe costs", &lines));
        assert!(!told("when the ferry leaves", &lines));
        assert!(told("a code for the day pass", &lines), "a day pass asks for no day");
    }

    #[test]
    fn a_kind_said_in_words_or_figures_may_be_the_telling() {
        let free = [(Customer, "What does the canoe cost?"), (Agent, "Canoes travel free with a car ticket.")];
        assert!(told("how much taking the canoe costs", &free));
        let figure = [(Customer, "What does the canoe cost?"), (Agent, "That's 12.50 each way.")];
        assert!(told("how much taking the canoe costs", &figure));
        let soon = [(Customer, "When do we sail?"), (Agent, "We'll be boarding shortly.")];
        assert!(told("when the ferry leaves", &soon));
        let asked_only = [(Customer, "When do we sail?"), (Agent, "Which crossing are you on?")];
        assert!(told("when the ferry leaves", &asked_only), "a question states nothing to judge by");
    }
}
