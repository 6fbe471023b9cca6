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
/// with the paths set aside; the value decoded without them, when it then could be. A missing
/// member is filled with a stand-in, so the members after it (and the rules on them) are still
/// read: every problem of the file comes at once, never one round at a time.
pub fn decode_all<T: DeserializeOwned>(value: &Value) -> (Option<T>, Vec<(String, String)>) {
    let mut value = value.clone();
    let mut problems: Vec<(String, String)> = Vec::new();
    loop {
        let error = match serde_path_to_error::deserialize::<_, T>(value.clone()) {
            Ok(decoded) => return (Some(decoded), problems),
            Err(error) => error,
        };
        let param = path_text(error.path());
        let message = error.inner().to_string();
        let missing = MISSING.as_ref().and_then(|r| r.captures(&message)).map(|c| c[1].to_string());
        let at_fault = missing.as_deref().map_or_else(|| param.clone(), |member| join(&param, member));
        // A member set aside and then missed is already reported as unreadable.
        let seen = problems.iter().any(|(p, _)| *p == at_fault);
        if !seen {
            let words = match &missing {
                Some(_) => format!("{at_fault} is required"),
                None => in_words(&message),
            };
            problems.push((at_fault.clone(), words));
        }
        let went_on = match &missing {
            Some(member) => stand_in::<T>(&mut value, error.path(), member, &at_fault),
            // A list item's removal would move the ones after it: never removed.
            None => !seen && remove(&mut value, error.path()),
        };
        if problems.len() >= MOST || !went_on {
            return (None, problems);
        }
    }
}

/// Fills the missing `member` of the object at `path` with the first stand-in of a type it
/// takes (the file is refused all the same: the stand-in only lets the rest be read).
fn stand_in<T: DeserializeOwned>(value: &mut Value, path: &Path, member: &str, at_fault: &str) -> bool {
    let nil = Value::String(uuid::Uuid::nil().to_string());
    let stand_ins =
        [nil, Value::from(1), Value::Bool(false), Value::Array(Vec::new()), Value::Object(Default::default())];
    for candidate in stand_ins {
        let Some(Value::Object(members)) = at_path(value, path) else { return false };
        members.insert(member.to_owned(), candidate);
        match serde_path_to_error::deserialize::<_, T>(value.clone()) {
            Err(error) if path_text(error.path()) == at_fault => continue,
            _ => return true,
        }
    }
    false
}

/// The value at `path`, when every step of it is there.
fn at_path<'v>(value: &'v mut Value, path: &Path) -> Option<&'v mut Value> {
    let mut at = value;
    for segment in path.iter() {
        at = match (segment, at) {
            (Segment::Map { key }, Value::Object(members)) => members.get_mut(key)?,
            (Segment::Seq { index }, Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Removes the member at `path` (never a list item); whether it could.
fn remove(value: &mut Value, path: &Path) -> bool {
    let segments: Vec<&Segment> = path.iter().collect();
    let Some((Segment::Map { key }, parents)) = segments.split_last() else { return false };
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
    match at {
        Value::Object(members) => members.remove(key).is_some(),
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
