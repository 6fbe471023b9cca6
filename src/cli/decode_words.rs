//! An input file's decoding errors in people's words, all at once: serde stops at the first
//! member of the wrong type, so that member is set aside and the rest read again, until the
//! file decodes or nothing more can be set aside.

use std::sync::LazyLock;

use regex::Regex;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::{Path, Segment};

use crate::api::validate::{index, join};

/// The most type errors collected from one file.
const MOST: usize = 20;

/// Decodes `value`, or lists each member that could not be read (its path and the reason),
/// with the paths set aside; the value decoded without them, when it then could be.
pub fn decode_all<T: DeserializeOwned>(value: &Value) -> (Option<T>, Vec<(String, String)>) {
    let mut value = value.clone();
    let mut problems: Vec<(String, String)> = Vec::new();
    loop {
        match serde_path_to_error::deserialize::<_, T>(value.clone()) {
            Ok(decoded) => return (Some(decoded), problems),
            Err(error) => {
                let param = path_text(error.path());
                let message = error.inner().to_string();
                // A member set aside and then missed is already reported as unreadable.
                let missed = MISSING.as_ref().and_then(|r| r.captures(&message)).map(|c| join(&param, &c[1]));
                let seen = problems.iter().any(|(p, _)| *p == param || Some(p) == missed.as_ref());
                if !seen {
                    problems.push((param, in_words(&message)));
                }
                // A missing member cannot be set aside, and a list item's removal would move
                // the ones after it: stop there.
                if seen
                    || problems.len() >= MOST
                    || message.starts_with("missing field")
                    || !remove(&mut value, error.path())
                {
                    return (None, problems);
                }
            }
        }
    }
}

/// Removes the member at `path` (never a list item); whether it could.
fn remove(value: &mut Value, path: &Path) -> bool {
    let segments: Vec<&Segment> = path.iter().collect();
    let Some((last, parents)) = segments.split_last() else { return false };
    let mut at = value;
    for segment in parents {
        at = match (segment, at) {
            (Segment::Map { key }, Value::Object(members)) => match members.get_mut(key) {
                Some(next) => next,
                None => return false,
            },
            (Segment::Seq { index }, Value::Array(items)) => match items.get_mut(*index) {
                Some(next) => next,
                None => return false,
            },
            _ => return false,
        };
    }
    match (last, at) {
        (Segment::Map { key }, Value::Object(members)) => members.remove(key).is_some(),
        _ => false,
    }
}

static MISMATCH: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^invalid (?:type|value): (.+), expected (.+)$").ok());
static MISSING: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^missing field `([^`]+)`$").ok());

/// serde's message as people say it: "must be a whole number, not \"three\"", never "expected i64".
pub fn in_words(message: &str) -> String {
    if let Some(caps) = MISMATCH.as_ref().and_then(|r| r.captures(message)) {
        return format!("must be {}, not {}", wanted(&caps[2]), found(&caps[1]));
    }
    if let Some(caps) = MISSING.as_ref().and_then(|r| r.captures(message)) {
        return format!("{} is required", &caps[1]);
    }
    message.replace("expected one of", "it is one of").replace('`', "")
}

fn wanted(expected: &str) -> String {
    let integer = ["i64", "u64", "i32", "u32", "i16", "u16", "u8", "i8", "usize", "integer"];
    match expected {
        e if integer.iter().any(|t| e == *t || e.ends_with(&format!(" {t}"))) => "a whole number".into(),
        "f64" | "f32" | "a number" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a string" | "a borrowed string" => "text".into(),
        e if e.starts_with("struct ") || e.starts_with("a map") => "an object of members".into(),
        "a sequence" => "a list".into(),
        other => other.replace('`', ""),
    }
}

fn found(unexpected: &str) -> String {
    let strip = |prefix: &str| unexpected.strip_prefix(prefix).map(|rest| rest.trim_matches('`').to_string());
    strip("string ")
        .or_else(|| strip("integer "))
        .or_else(|| strip("floating point "))
        .or_else(|| strip("boolean "))
        .unwrap_or_else(|| match unexpected {
            "map" => "an object".into(),
            "sequence" => "a list".into(),
            "null" | "unit value" => "nothing (null)".into(),
            other => other.replace('`', ""),
        })
}

/// serde_path_to_error's path in the interface's spelling: `flows[0].happyPath`.
pub fn path_text(path: &Path) -> String {
    let mut text = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index: i } => text = index(&text, *i),
            Segment::Map { key } => text = join(&text, key),
            Segment::Enum { variant } => text = join(&text, variant),
            Segment::Unknown => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_words_become_peoples_words() {
        assert_eq!(in_words("invalid type: string \"three\", expected i64"), "must be a whole number, not \"three\"");
        assert_eq!(in_words("invalid type: integer `5`, expected a string"), "must be text, not 5");
        assert_eq!(in_words("invalid type: sequence, expected a boolean"), "must be true or false, not a list");
        assert_eq!(in_words("missing field `name`"), "name is required");
    }
}
