//! Top-level members of a JSON object set in its text, the rest kept byte for byte and in its
//! order (what SQLite's `json_set` does in SQL, for the engine that has no such function).

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::error::{StoreError, StoreResult};

/// `body` with each `($.name, json)` of `members` set: replaced where the member is, appended
/// at the end where it is not.
pub fn set(body: &str, members: &[(&str, String)]) -> StoreResult<String> {
    let mut entries = ordered(body)?;
    for (path, json) in members {
        let name = path
            .strip_prefix("$.")
            .filter(|name| !name.is_empty() && !name.contains('.'))
            .ok_or_else(|| StoreError::backend(format!("store: {path:?} is not a top-level member")))?;
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
}
