//! Top-level members of a JSON object set in its text, the rest kept byte for byte and in its
//! order (what SQLite's `json_set` does in SQL, for the engine that has no such function).
//! PostgreSQL's `sb_set_members` (migration 17) does the same, the same way, so that both
//! engines write the same bytes for any body (`store::tests::migrating`).

use std::sync::LazyLock;

use regex::Regex;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::error::{StoreError, StoreResult};

/// What may come before a member set in place: `{` and members with plain names (no escapes)
/// and values that hold nothing nested, each followed by its comma.
static PLAIN_BEFORE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?s)^\{(?:"[^"\\]*":(?:"(?:[^"\\]|\\.)*"|[-+.0-9a-zA-Z]+),)*$"#).ok());

/// A plain value (a string, a number, true, false or null) and what ends it.
static PLAIN_VALUE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?s)^(?:"(?:[^"\\]|\\.)*"|[-+.0-9a-zA-Z]+)[,}]"#).ok());

/// `body` with each `($.name, json)` of `members` set: replaced where the member is, appended
/// at the end where it is not. Each member in turn is set in place while it can be (below);
/// from the first that cannot, the body's members are read and written again, each name as
/// JSON writes it, without whitespace between them. Each value given is compact JSON text, as
/// serde writes it: set in place it is written as given, read whole without the whitespace
/// around it.
pub fn set(body: &str, members: &[(&str, String)]) -> StoreResult<String> {
    let mut done = body.to_owned();
    for (index, (path, json)) in members.iter().enumerate() {
        let name = top_level(path)?;
        serde_json::from_str::<&RawValue>(json)?;
        match in_place(&done, name, json)? {
            Some(spliced) => done = spliced,
            None => return rewritten(&done, &members[index..]),
        }
    }
    Ok(done)
}

/// The member's name in `$.name`.
fn top_level(path: &str) -> StoreResult<&str> {
    path.strip_prefix("$.")
        .filter(|name| !name.is_empty() && !name.contains('.'))
        .ok_or_else(|| StoreError::backend(format!("store: {path:?} is not a top-level member")))
}

/// `body` with the member's value replaced where its name's first appearance as text is a
/// member's, found without reading the body whole: only plain members before it, and its own
/// value plain. `None` where that cannot be told so cheaply (then the body is read whole).
fn in_place(body: &str, name: &str, json: &str) -> StoreResult<Option<String>> {
    let (Some(plain_before), Some(plain_value)) = (PLAIN_BEFORE.as_ref(), PLAIN_VALUE.as_ref()) else {
        return Ok(None);
    };
    let key = format!("{}:", serde_json::to_string(name)?);
    let Some(at) = body.find(&key) else { return Ok(None) };
    if !plain_before.is_match(&body[..at]) {
        return Ok(None);
    }
    let value_at = at + key.len();
    let Some(old) = plain_value.find(&body[value_at..]) else { return Ok(None) };
    let after = value_at + old.end() - 1;
    Ok(Some([&body[..value_at], json, &body[after..]].concat()))
}

/// `body`'s members read whole and written again with `members` set.
pub(super) fn rewritten(body: &str, members: &[(&str, String)]) -> StoreResult<String> {
    let mut entries = ordered(body)?;
    for (path, json) in members {
        let name = top_level(path)?;
        let value = RawValue::from_string(json.clone())?;
        match entries.iter_mut().find(|(key, _)| key == name) {
            Some(entry) => entry.1 = value,
            None => entries.push((name.to_owned(), value)),
        }
    }
    let mut out = String::with_capacity(body.len() + members.iter().map(|(_, j)| j.len()).sum::<usize>());
    out.push('{');
    for (index, (key, value)) in entries.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key)?);
        out.push(':');
        out.push_str(value.get());
    }
    out.push('}');
    Ok(out)
}

/// The object's members, each name as read and each value as its text, in their order: what
/// a body holds whatever way it is written (for tests).
#[cfg(test)]
pub(super) fn read_back(body: &str) -> StoreResult<Vec<(String, String)>> {
    Ok(ordered(body)?.into_iter().map(|(name, value)| (name, value.get().to_owned())).collect())
}

/// The object's members in their order, each value as its text.
fn ordered(body: &str) -> StoreResult<Vec<(String, Box<RawValue>)>> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::new();
            while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                entries.push(entry);
            }
            Ok(entries)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(body);
    let entries = (&mut deserializer).deserialize_map(Members)?;
    deserializer.end()?;
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::set;

    #[test]
    fn set_members_replace_in_place_append_new_ones_and_keep_the_rest_verbatim() {
        let body = r#"{"id":"i1","rate":0.8333333333333334,"tally":{"n":1},"z":"last"}"#;
        let members = [("$.tally", r#"{"n":2,"rate":1.50}"#.to_owned()), ("$.verdict", r#""PASS""#.to_owned())];
        assert_eq!(
            set(body, &members).unwrap_or_else(|e| panic!("{e:?}")),
            r#"{"id":"i1","rate":0.8333333333333334,"tally":{"n":2,"rate":1.50},"z":"last","verdict":"PASS"}"#
        );
        assert!(set(body, &[("$.a.b", "1".to_owned())]).is_err(), "only top-level members");
        assert!(set("[1]", &[("$.a", "1".to_owned())]).is_err(), "only objects");
    }

    /// A member after plain ones is set without the body being read past it: what follows it
    /// here is no JSON at all, and stays as it is.
    #[test]
    fn a_member_after_plain_ones_is_set_without_reading_the_rest() {
        let body = r#"{"id":"s1","n":-1.5,"status":"PENDING",not read"#;
        let set_status = |json: &str| set(body, &[("$.status", json.to_owned())]);
        assert_eq!(
            set_status(r#""QUEUED""#).ok().as_deref(),
            Some(r#"{"id":"s1","n":-1.5,"status":"QUEUED",not read"#)
        );
        assert!(set_status("{").is_err(), "the value set is JSON");
        assert!(set(body, &[("$.other", "1".to_owned())]).is_err(), "read whole where the member is not found");
    }

    /// Where what comes before the member is not plain, the body is read whole: the first
    /// member of that name set, however its name is written, and each name written again.
    #[test]
    fn a_member_after_an_escaped_name_or_a_nested_value_is_set_by_reading_the_body_whole() {
        let status = |body: &str| set(body, &[("$.status", "3".to_owned())]).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(status(r#"{"st\u0061tus":"A","status":"B"}"#), r#"{"status":3,"status":"B"}"#);
        assert_eq!(status(r#"{"x\"status":1,"status":2}"#), r#"{"x\"status":1,"status":3}"#);
        assert_eq!(status(r#"{"a": {"status":1}, "status": 2}"#), r#"{"a":{"status":1},"status":3}"#);
    }
}
