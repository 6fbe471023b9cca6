//! "Tells the caller how much it costs": an expectation that asks for an amount, which a line
//! carries by its form (a figure, a currency) or in a few plain words ("free", "included").
//! When no agent line carries one at all, it was not told in any words: a "not met" that does
//! not rest on the prompt's wording. A moment is not read this way: "it's on the van" says
//! when without a day or a time.

use super::super::conversation::Said;
use super::super::pattern::patterns;

patterns! {
    /// A concept asking for an amount.
    ASKS_AMOUNT = r"\bhow much\b|\b(cost|costs|price|prices|charge|charges|amount)\b";
    /// Words that say an amount without a figure.
    AMOUNT_IN_WORDS = r"\b(free|no charge|no cost|nothing to pay|cost you nothing|won't cost|doesn't cost|at no|complimentary|included|covered|waived|same price|half price|discount|percent|deposit|fee)\b";
}

/// Words after a figure that make it something other than an amount.
const NOT_AMOUNT_UNITS: &[&str] = &[
    "am", "pm", "o'clock", "kilos", "kilo", "kg", "kgs", "grams", "g", "mg", "ml", "litres", "liters", "miles", "km",
    "mph", "minutes", "mins", "hours", "hrs", "days", "day", "weeks", "week", "months", "month", "years", "year",
    "times", "digits", "nights", "people", "bags", "seats", "items", "tablets", "st", "nd", "rd", "th",
];

/// Whether a line carries an amount: money by its form, a bare figure that is neither a time,
/// a measure nor part of a phone number, or an amount in words.
fn carries_amount(said: &Said) -> bool {
    let lower = said.lower();
    said.details().money || AMOUNT_IN_WORDS.is_match(lower) || bare_figure(lower)
}

/// "That's 12.50 each way": a figure alone, not "23 kilos", "9:40" or "0330 100 4455".
pub(super) fn bare_figure(lower: &str) -> bool {
    let words: Vec<&str> = lower.split_whitespace().map(|w| w.trim_end_matches(['.', ',', '!', '?', ';'])).collect();
    let figure = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',');
    words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).copied().unwrap_or("");
        let prev = if i == 0 { "" } else { words[i - 1] };
        figure(w)
            && w.starts_with(|c: char| c.is_ascii_digit())
            && !figure(next)
            && !figure(prev)
            && !NOT_AMOUNT_UNITS.contains(&next)
    })
}

/// Why the expectation was not met, when it asks for an amount no agent line carries.
pub(super) fn never_told(said: &[Said], concept: &str) -> Option<String> {
    if !ASKS_AMOUNT.is_match(concept) {
        return None;
    }
    let stated: Vec<&Said> = said.iter().filter(|s| !s.is_question()).collect();
    (!stated.is_empty() && !stated.iter().any(|s| carries_amount(s))).then(|| {
        format!("Not met: \"{concept}\" asks for an amount, and no agent line carries one in figures or in words.")
    })
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
    fn an_amount_never_carried_was_never_told() {
        let lines = [
            (Customer, "Can I bring my canoe on the ferry, and what does that cost?"),
            (
                Agent,
                "Canoes up to 30 kilos go on the top deck. Pricing sits with the bookings office on 01632 960 118.",
            ),
        ];
        assert!(!told("how much taking the canoe costs", &lines));
        assert!(told("when the ferry leaves", &lines), "only an amount is read this way");
    }

    #[test]
    fn an_amount_in_words_or_figures_may_be_the_telling() {
        let free = [(Customer, "What does the canoe cost?"), (Agent, "Canoes travel free with a car ticket.")];
        assert!(told("how much taking the canoe costs", &free));
        let figure = [(Customer, "What does the canoe cost?"), (Agent, "That's 12.50 each way.")];
        assert!(told("how much taking the canoe costs", &figure));
        let asked_only = [(Customer, "What does the canoe cost?"), (Agent, "Which crossing are you on?")];
        assert!(told("how much taking the canoe costs", &asked_only), "a question states nothing to judge by");
    }
}
