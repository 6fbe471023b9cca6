//! The caller's first words: a persona's opener ("Hi there! ", "Look, ") joined to the
//! script's first line so the two read as one natural sentence, with one greeting.

/// Greetings a line may open with, the longer first so "hi there" is not read as "hi".
const GREETINGS: &[&str] =
    &["good morning", "good afternoon", "good evening", "hello there", "hi there", "hello", "hiya", "hey", "hi"];

/// `line` spoken after `opener`. An opener that greets replaces the line's own greeting
/// ("Hi there! " + "Hello, it's Dana" is "Hi there! It's Dana", not two hellos); after an
/// opener that ends a sentence the line starts with a capital, after one that runs on
/// ("Look, ") with a small letter, but "I" stays a capital.
pub fn with_opener(opener: &str, line: &str) -> String {
    let line = match after_greeting(line) {
        Some(rest) if after_greeting(opener).is_some() => rest,
        _ => line,
    };
    let end = opener.trim_end();
    let ends_sentence = end.ends_with(['.', '!', '?']) && !end.ends_with("...");
    let line = if ends_sentence { upper_first(line) } else { lowercase_first(line) };
    format!("{opener}{line}").trim_end().to_string()
}

/// The rest of `text` after the greeting it opens with, if it opens with one.
fn after_greeting(text: &str) -> Option<&str> {
    GREETINGS.iter().find_map(|greeting| {
        let head = text.get(..greeting.len())?;
        let rest = &text[greeting.len()..];
        let whole_word = !rest.starts_with(|c: char| c.is_alphanumeric() || c == '\'');
        (head.eq_ignore_ascii_case(greeting) && whole_word).then(|| rest.trim_start_matches([',', '!', '.', '-', ' ']))
    })
}

/// `text` with a small first letter, unless its first word is "I" (or "I'm", "I'd", …).
pub fn lowercase_first(text: &str) -> String {
    let first_word = text.split([' ', ',']).next().unwrap_or_default();
    if first_word == "I" || first_word.starts_with("I'") {
        return text.to_string();
    }
    let mut chars = text.chars();
    chars.next().map(|c| c.to_lowercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_greeting_opener_takes_the_place_of_the_lines_own_greeting() {
        assert_eq!(with_opener("Hi there! ", "Hello, it's Dana Whitfield."), "Hi there! It's Dana Whitfield.");
        assert_eq!(with_opener("Hi there! ", "Hi there, this is Sam."), "Hi there! This is Sam.");
        assert_eq!(with_opener("Hi there! ", "Good morning! I need a new card."), "Hi there! I need a new card.");
        assert_eq!(with_opener("Hi... ", "Hello, it's Dana."), "Hi... it's Dana.");
        assert_eq!(
            with_opener("Hi there! ", "I'd like to move my appointment."),
            "Hi there! I'd like to move my appointment."
        );
        assert_eq!(with_opener("Hi there! ", "Hello!"), "Hi there!");
        // "Hillary" is a name, not a greeting.
        assert_eq!(with_opener("Hi there! ", "Hillary here."), "Hi there! Hillary here.");
    }

    #[test]
    fn an_opener_that_is_not_a_greeting_keeps_the_lines_greeting_and_reads_as_one_sentence() {
        assert_eq!(with_opener("Look, ", "Hello, it's Dana."), "Look, hello, it's Dana.");
        assert_eq!(with_opener("Look, ", "I need this fixed."), "Look, I need this fixed.");
        assert_eq!(with_opener("Hm. ", "hello, it's Dana."), "Hm. Hello, it's Dana.");
        assert_eq!(
            with_opener("I'm in a hurry, so quickly: ", "My card is lost."),
            "I'm in a hurry, so quickly: my card is lost."
        );
    }
}
