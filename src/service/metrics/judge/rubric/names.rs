//! Names as a caller says them: two capitalised words, an introduction ("this is Kevin
//! Park", "she's called Misty"), a name spelled out, or one capitalised word that is not a
//! common word, a place or a firm. Read on the text as said, since capitals tell a name.

use super::details::is_calendar_word;
use super::pattern::patterns;

patterns! {
    NAME = r"\b[A-Z][a-z']+(-[A-Z][a-z']+)? [A-Z][a-z']+(-[A-Z][a-z']+)?\b";
    INTRODUCES = r"\b(?i:my name is|name's|this is|it's|i'm|name is|called|named|it's about) [A-Z][a-z']+|\b[A-Z](-[A-Z]){2,}\b";
    /// A capitalised word inside a sentence, with the word before it.
    PROPER = r"\b([A-Za-z]+),? ([A-Z][a-z']{2,})\b";
}

/// Whether a caller's line (as said) gives a person's name: two capitalised words that are
/// not calendar or common words, an introduction, or a name spelled out.
pub(super) fn gives_name(original: &str) -> bool {
    let is_name = |candidate: &str| {
        candidate.split([' ', '-']).all(|w| {
            let w = w.to_lowercase();
            !is_calendar_word(&w) && !is_common_word(&w)
        })
    };
    NAME.find_all(original).iter().any(|m| is_name(m.as_str()))
        || INTRODUCES.find_all(original).iter().any(|m| {
            let last = m.as_str().rsplit(' ').next().unwrap_or("");
            m.as_str().contains('-') || is_name(last)
        })
}

/// A single capitalised word that is not a common word, said alone ("Reid."), introduced
/// ("She's called Misty") or inside a sentence after a word that does not make it a place or
/// an organisation ("my dog Rocky's tablets", but not "our Orlando flight").
pub(super) fn gives_proper_word(original: &str) -> bool {
    let trimmed = original.trim();
    let word_ok = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        !w.is_empty() && !is_calendar_word(&w) && !is_common_word(&w)
    };
    let alone = trimmed.trim_end_matches(['.', '!', ',']).split_whitespace().count() == 1
        && trimmed.chars().next().is_some_and(char::is_uppercase);
    (alone && word_ok(trimmed))
        || PROPER.captures_all(original).iter().any(|c| {
            let before = c.get(1).map_or("", |m| m.as_str()).to_lowercase();
            !PLACE_WORDS.contains(&before.as_str()) && word_ok(c.get(2).map_or("", |m| m.as_str()))
        })
}

/// Words before a capitalised word that make it a place, a firm or a thing, not a name.
const PLACE_WORDS: &[&str] =
    &["our", "the", "to", "in", "from", "at", "of", "via", "near", "through", "into", "your", "a", "an", "by"];

/// Capitalised words that are not names: greetings, fillers, pronouns, titles and the like.
pub(super) fn is_common_word(word: &str) -> bool {
    COMMON_WORDS.contains(&word)
}

const COMMON_WORDS: &[&str] = &[
    "i",
    "hi",
    "hello",
    "hiya",
    "hey",
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "sure",
    "okay",
    "ok",
    "oh",
    "um",
    "uh",
    "er",
    "erm",
    "well",
    "thanks",
    "thank",
    "please",
    "cheers",
    "dr",
    "doctor",
    "mr",
    "mrs",
    "ms",
    "miss",
    "my",
    "it's",
    "this",
    "that",
    "the",
    "and",
    "is",
    "am",
    "pm",
    "let",
    "just",
    "sorry",
    "look",
    "great",
    "perfect",
    "alright",
    "right",
    "actually",
    "honestly",
    "dear",
    "good",
    "morning",
    "afternoon",
    "evening",
    "our",
    "your",
    "his",
    "her",
    "their",
    "we",
    "you",
    "he",
    "she",
    "they",
    "it",
    "a",
    "an",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "of",
    "can",
    "could",
    "do",
    "does",
    "will",
    "would",
    "what",
    "when",
    "where",
    "why",
    "how",
    "lovely",
    "brilliant",
    "fine",
    "sounds",
    "so",
    "but",
    "if",
    "then",
    "there",
    "here",
    "account",
    "postcode",
    "card",
    "last",
    "security",
    "word",
    "number",
    "phone",
    "try",
    "is",
    "maybe",
    "think",
    "not",
    "also",
    "only",
    "yes,",
    "anyway",
    "still",
    "now",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "she's",
    "he's",
    "they're",
    "i'm",
    "we're",
    "you're",
    "that's",
    "there's",
    "i've",
    "i'll",
    "can't",
    "don't",
    "didn't",
    "won't",
    "hang",
    "wait",
    "got",
    "terminal",
    "front",
    "desk",
    "team",
    "office",
    "line",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn names_are_told_from_places_and_common_words() {
        assert!(gives_name("Dana Whitfield, March 12, 1984."));
        assert!(gives_name("Hi, this is Kevin Park."));
        assert!(gives_name("Raman. R-A-M-A-N."));
        assert!(!gives_name("Sure, it's March 12, 1984."));
        assert!(gives_proper_word("Hi, it's Mrs Patel, Coco's owner."));
        assert!(gives_proper_word("Reid."));
        assert!(!gives_proper_word("T9HB3D. Our Orlando flight was cancelled."), "a place is not a name");
    }
}
