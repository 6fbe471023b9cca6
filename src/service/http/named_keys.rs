//! A key per person: the file `serve --api-keys-file` reads. One key a line, `NAME KEY`, or
//! `NAME KEY read-only` for a key that can read but not write; `#` starts a comment. Each key is
//! limited on its own, and one is revoked alone by taking its line out (and restarting the
//! replicas, one at a time).

use std::path::Path;

use crate::api::ApiKey;

/// Keys shorter than this are refused: a guessable key is no key.
pub const MIN_KEY_CHARS: usize = 16;

/// One person's (or one pipeline's) key.
#[derive(Debug, Clone)]
pub struct NamedKey {
    pub name: String,
    pub key: ApiKey,
    pub read_only: bool,
}

/// Reads the keys of `path`; an error names the line and what is wrong with it, never a key.
pub fn read(path: &Path) -> Result<Vec<NamedKey>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> Result<Vec<NamedKey>, String> {
    let mut keys: Vec<NamedKey> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.split_once('#').map_or(line, |(before, _)| before).trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, key, read_only) = match words.as_slice() {
            [name, key] => (*name, *key, false),
            [name, key, "read-only"] => (*name, *key, true),
            [_, _, other] => return Err(format!("line {number}: {other:?} is not `read-only`")),
            _ => return Err(format!("line {number}: expected `NAME KEY` or `NAME KEY read-only`")),
        };
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || "._@-".contains(c)) {
            return Err(format!("line {number}: the name {name:?} may hold letters, digits and . _ @ - only"));
        }
        if key.chars().count() < MIN_KEY_CHARS {
            return Err(format!("line {number}: {name}'s key is shorter than {MIN_KEY_CHARS} characters"));
        }
        if let Some(earlier) = keys.iter().position(|k| k.name == name) {
            return Err(format!("line {number}: the name {name:?} is on line {} too", earlier + 1));
        }
        if keys.iter().any(|k| k.key.expose() == key) {
            return Err(format!("line {number}: {name}'s key is another name's too"));
        }
        keys.push(NamedKey { name: name.to_owned(), key: ApiKey::new(key), read_only });
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn each_line_names_a_key_and_an_error_names_its_line_without_the_key() {
        let keys = parse(
            "# the QA team\nalice sk-alice-0123456789abcdef\nci sk-ci-0123456789abcdefgh read-only # nightly\n\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let read: Vec<_> = keys.iter().map(|k| (k.name.as_str(), k.read_only)).collect();
        assert_eq!(read, [("alice", false), ("ci", true)]);
        for (text, error) in [
            ("alice", "line 1: expected `NAME KEY` or `NAME KEY read-only`"),
            ("alice sk-short", "line 1: alice's key is shorter than 16 characters"),
            ("alice sk-alice-0123456789abcdef admin", "line 1: \"admin\" is not `read-only`"),
            ("a/b sk-alice-0123456789abcdef", "line 1: the name \"a/b\" may hold letters, digits and . _ @ - only"),
            ("a sk-alice-0123456789abcdef\n#\na sk-other-0123456789abcdef", "line 3: the name \"a\" is on line 1 too"),
            ("a sk-alice-0123456789abcdef\nb sk-alice-0123456789abcdef", "line 2: b's key is another name's too"),
        ] {
            let found = parse(text).err().unwrap_or_default();
            assert_eq!(found, error, "{text:?}");
            assert!(!found.contains("0123456789"), "an error never shows a key: {found}");
        }
    }
}
