//! The content of an expectation that can be checked without reading it for meaning: a phrase
//! in quotes ("Brightsmile Dental"), a number (9:00, 24), or a `/regular expression/`. A
//! STRICT flow's caller holds the agent to these; anything else an expectation says in plain
//! words is judged after the call.

use regex::Regex;

/// Whether `said` holds every checkable part of `expected`; `None` when the expectation has
/// none (nothing here to decide).
pub(super) fn holds(expected: &str, said: &str) -> Option<bool> {
    let parts = parts(expected);
    if parts.is_empty() {
        return None;
    }
    let lower = said.to_lowercase();
    Some(parts.iter().all(|part| match part {
        Part::Phrase(phrase) => lower.contains(&phrase.to_lowercase()),
        Part::Number(number) => numbers(said).iter().any(|n| n == number),
        Part::Pattern(pattern) => pattern.is_match(said),
    }))
}

#[derive(Debug)]
enum Part {
    Phrase(String),
    Number(String),
    Pattern(Regex),
}

/// The checkable parts of an expectation, in order. A `/…/` that is not a valid expression is
/// read as a phrase.
fn parts(expected: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut rest = expected;
    let mut plain = String::new();
    while let Some(at) = rest.find(['"', '“', '/']) {
        plain.push_str(&rest[..at]);
        let opening = rest[at..].chars().next().unwrap_or('"');
        let closing = match opening {
            '“' => '”',
            other => other,
        };
        let inner = &rest[at + opening.len_utf8()..];
        match inner.find(closing) {
            Some(end) if end > 0 => {
                let text = &inner[..end];
                out.push(match opening {
                    '/' => {
                        Regex::new(&format!("(?i){text}")).map_or_else(|_| Part::Phrase(text.to_owned()), Part::Pattern)
                    }
                    _ => Part::Phrase(text.to_owned()),
                });
                rest = &inner[end + closing.len_utf8()..];
            }
            _ => {
                plain.push(opening);
                rest = inner;
            }
        }
    }
    plain.push_str(rest);
    out.extend(numbers(&plain).into_iter().map(Part::Number));
    out
}

/// The numbers a text names, as written without separators: "9:00" → "900", "$1,250" → "1250".
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            current.push(c);
        } else if matches!(c, ':' | ',' | '.') && !current.is_empty() && chars.peek().is_some_and(char::is_ascii_digit)
        {
            // A separator inside a number ("9:00", "1,250", "2.5") keeps it one number.
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_have_nothing_to_check() {
        assert_eq!(holds("Agent greets the caller and asks how it can help.", "Hi, this is Sam"), None);
    }

    #[test]
    fn quoted_phrases_numbers_and_patterns_are_held_to() {
        let expected = "Agent says \"Brightsmile Dental\" and offers 9:00";
        assert_eq!(holds(expected, "Thanks for calling brightsmile dental. I have 9:00 open."), Some(true));
        assert_eq!(holds(expected, "Thanks for calling Brightsmile Dental. I have 10:00 open."), Some(false));
        assert_eq!(holds("Agent reads the code /[A-Z]{2}\\d{4}/", "It's ab1234."), Some(true));
        assert_eq!(holds("Agent reads the code /[A-Z]{2}\\d{4}/", "It's on file."), Some(false));
        assert_eq!(holds("Agent quotes “24 hours” notice", "We need 24 hours notice"), Some(true));
    }

    #[test]
    fn numbers_are_read_as_written() {
        assert_eq!(numbers("at 9:00 on the 8th, $1,250 or 2.5"), ["900", "8", "1250", "25"]);
    }
}
