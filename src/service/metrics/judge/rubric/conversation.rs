//! The conversation as the offline judge reads it: who spoke, when, and in which sentences.
//! Every reader works on sentences in spoken order, so "booked" followed by "system error"
//! is seen in that order, and quotes carry the time they were said.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use super::details::Details;
use crate::api::model::{ParticipantType, Transcript};

/// Who said a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Agent,
    Caller,
    /// Background speakers and lines without a role: never evidence of either side.
    Other,
}

/// One sentence of a turn, as said and in a normalised lower case for matching.
#[derive(Debug, Clone)]
pub(super) struct Sentence {
    pub text: String,
    pub lower: String,
    pub kept: Kept,
}

/// What readers work out from a sentence alone (with its place in its turn), kept once worked
/// out: every question of a simulation's metrics reads the same sentences again, and working
/// them out for each was most of the judge's time.
#[derive(Debug, Clone, Default)]
pub(super) struct Kept {
    details: OnceCell<Details>,
    terms: OnceCell<BTreeSet<String>>,
    /// The expectation reader's terms of the sentence, and those with the words they stand for.
    pub said_terms: OnceCell<BTreeSet<String>>,
    pub related_terms: OnceCell<BTreeSet<String>>,
    /// The outcome reader's claim of success in the sentence.
    pub success_at: OnceCell<Option<(usize, bool)>>,
    /// What the sentence brings to every option of a classification (the intent reader's).
    pub wanted: OnceCell<super::intent::Wanted>,
}

impl Sentence {
    fn new(text: String) -> Sentence {
        Sentence { lower: normalise(&text), text, kept: Kept::default() }
    }

    /// The kinds of detail the sentence carries (`Details::of` its lower case and its text).
    pub fn details(&self) -> Details {
        *self.kept.details.get_or_init(|| Details::of(&self.lower, &self.text))
    }

    /// The sentence's terms (`terms::terms` of its lower case).
    pub fn terms(&self) -> &BTreeSet<String> {
        self.kept.terms.get_or_init(|| super::terms::terms(&self.lower))
    }
}

/// One transcript entry.
#[derive(Debug, Clone)]
pub(super) struct Turn {
    pub index: usize,
    pub side: Side,
    pub start_ms: i64,
    pub end_ms: i64,
    pub text: String,
    pub lower: String,
    pub sentences: Vec<Sentence>,
    details: OnceCell<Details>,
    terms: OnceCell<BTreeSet<String>>,
}

impl Turn {
    /// The kinds of detail the whole turn carries, worked out once.
    pub fn details(&self) -> Details {
        *self.details.get_or_init(|| Details::of(&self.lower, &self.text))
    }

    /// The whole turn's terms (`terms::terms` of its lower case), worked out once.
    pub fn terms(&self) -> &BTreeSet<String> {
        self.terms.get_or_init(|| super::terms::terms(&self.lower))
    }

    /// The keys of a keypad press (`[DTMF 12]` gives "12").
    pub fn keypad(&self) -> Option<&str> {
        let inner = self.text.trim().strip_prefix("[DTMF")?.trim_end_matches(']').trim();
        Some(inner)
    }

    pub fn at(&self) -> String {
        seconds(self.start_ms)
    }
}

/// A sentence together with the turn it belongs to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Said<'a> {
    pub turn: &'a Turn,
    pub sentence: &'a Sentence,
    /// Position in the conversation: (turn, sentence within the turn).
    pub order: (usize, usize),
}

impl<'a> Said<'a> {
    pub fn lower(&self) -> &'a str {
        &self.sentence.lower
    }

    /// `"text" at 41.2 s`; a bare "Done." or "Confirmed." takes the next sentence along.
    pub fn quote(&self) -> String {
        let mut text = self.sentence.text.clone();
        if text.chars().count() < 20
            && let Some(next) = self.turn.sentences.get(self.order.1 + 1)
        {
            text = format!("{text} {}", next.text);
        }
        format!("\"{}\" at {}", clip(&text), self.turn.at())
    }

    pub fn side(&self) -> Side {
        self.turn.side
    }

    pub fn is_question(&self) -> bool {
        self.sentence.text.trim_end().ends_with('?')
    }

    /// The kinds of detail the sentence carries.
    pub fn details(&self) -> Details {
        self.sentence.details()
    }

    /// The sentence's terms (`terms::terms` of its lower case).
    pub fn terms(&self) -> &'a BTreeSet<String> {
        self.sentence.terms()
    }
}

/// The whole conversation.
#[derive(Debug, Clone)]
pub(super) struct Conversation {
    pub turns: Vec<Turn>,
}

impl Conversation {
    pub fn read(transcript: &Transcript) -> Conversation {
        let turns = transcript
            .entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let side = match entry.role {
                    Some(ParticipantType::Agent) => Side::Agent,
                    Some(ParticipantType::Customer | ParticipantType::SimulatedCustomer) => Side::Caller,
                    _ => Side::Other,
                };
                let sentences = split_sentences(&entry.text).into_iter().map(Sentence::new).collect();
                Turn {
                    index,
                    side,
                    start_ms: entry.start_offset_ms,
                    end_ms: entry.end_offset_ms,
                    lower: normalise(&entry.text),
                    text: entry.text.clone(),
                    sentences,
                    details: OnceCell::new(),
                    terms: OnceCell::new(),
                }
            })
            .collect();
        Conversation { turns }
    }

    pub fn of(&self, side: Side) -> impl Iterator<Item = &Turn> {
        self.turns.iter().filter(move |t| t.side == side)
    }

    /// Every sentence in spoken order.
    pub fn said(&self) -> impl Iterator<Item = Said<'_>> {
        self.turns.iter().flat_map(|turn| {
            turn.sentences.iter().enumerate().map(move |(i, sentence)| Said { turn, sentence, order: (turn.index, i) })
        })
    }

    /// Every sentence one side said, in order.
    pub fn said_by(&self, side: Side) -> impl Iterator<Item = Said<'_>> {
        self.said().filter(move |s| s.side() == side)
    }

    /// Whether anyone other than background speakers said anything.
    pub fn is_empty(&self) -> bool {
        !self.turns.iter().any(|t| t.side != Side::Other && !t.text.trim().is_empty())
    }

    /// The agent's last sentence, for "the call ended with …".
    pub fn last_agent(&self) -> Option<Said<'_>> {
        self.said_by(Side::Agent).filter(|s| !s.lower().trim().is_empty()).last()
    }
}

/// Seconds with one decimal: "41.2 s".
pub(super) fn seconds(ms: i64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// A quote short enough for a reasoning line.
pub(super) fn clip(text: &str) -> String {
    const MAX: usize = 140;
    let text = text.trim();
    if text.chars().count() <= MAX {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{cut}…")
}

/// Lower case, straight apostrophes and quotes, single spaces.
pub(super) fn normalise(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '`' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            c => c,
        })
        .collect::<String>()
        .to_lowercase();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &["dr", "mr", "mrs", "ms", "st", "a.m", "p.m", "vs", "e.g", "i.e"];

/// Splits a turn into sentences at `.`, `!`, `?` and `;` followed by a space, keeping the
/// mark; "Dr. Chen", "9 a.m. on Tuesday" and "$1.50" stay whole.
fn split_sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..chars.len() {
        let c = chars[i];
        if !matches!(c, '.' | '!' | '?' | ';') {
            continue;
        }
        let next = chars.get(i + 1).copied();
        if next.is_some_and(|n| !n.is_whitespace()) {
            continue;
        }
        if c == '.' {
            let word: String = chars[start..i]
                .iter()
                .rev()
                .take_while(|c| !c.is_whitespace())
                .collect::<String>()
                .chars()
                .rev()
                .collect::<String>()
                .to_lowercase();
            let word = word.trim_start_matches(|c: char| !c.is_alphanumeric());
            if ABBREVIATIONS.contains(&word) && next.is_some() {
                continue;
            }
        }
        let sentence: String = chars[start..=i].iter().collect();
        if !sentence.trim().is_empty() {
            out.push(sentence.trim().to_owned());
        }
        start = i + 1;
    }
    let rest: String = chars[start.min(chars.len())..].iter().collect();
    if !rest.trim().is_empty() {
        out.push(rest.trim().to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_at_stops_but_not_at_titles_or_times() {
        let parts = split_sentences("Thanks. Dr. Chen has 9 a.m. on Tuesday! Is that ok? Great");
        assert_eq!(parts, ["Thanks.", "Dr. Chen has 9 a.m. on Tuesday!", "Is that ok?", "Great"]);
        assert_eq!(split_sentences("It costs $1.50; fine."), ["It costs $1.50;", "fine."]);
    }

    #[test]
    fn long_quotes_are_clipped_at_a_word() {
        let long = "word ".repeat(60);
        let clipped = clip(&long);
        assert!(clipped.ends_with('…') && clipped.chars().count() <= 141, "{clipped}");
    }
}
