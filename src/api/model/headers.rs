//! Request headers a resource keeps (a webhook's, an HTTP request definition's): the checks
//! every header map passes, which headers hold secrets, and how a secret is shown on reads
//! (masked, to every key). Written once here so the service and the console agree.

use std::collections::BTreeMap;

use crate::api::validate::{Checks, index, join};

/// Limits of a header map, the same for webhooks and HTTP request definitions.
pub mod header_limits {
    /// Headers in one map.
    pub const HEADERS_MAX: usize = 20;
    /// Characters in one header name.
    pub const HEADER_NAME_MAX: usize = 256;
    /// Characters in one header value.
    pub const HEADER_VALUE_MAX: usize = 1024;
    /// Names in `secretHeaders`.
    pub const SECRET_HEADERS_MAX: usize = 20;
}

/// An RFC 9110 token (a header name), as the OpenAPI document states it.
pub const HEADER_NAME_PATTERN: &str = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/// A header value: printable ASCII (spaces allowed), no control characters.
pub const HEADER_VALUE_PATTERN: &str = "^[ -~]*$";

/// A header value in an update, where a mask as reads show it keeps the stored value.
pub const HEADER_VALUE_OR_MASK_PATTERN: &str = "^([ -~]*|••••[ -~]{0,4})$";

/// What a read shows in place of a secret value.
pub const MASK: &str = "••••";

/// Values at least this long show their last four characters after the mask; shorter ones
/// show none, so that a short secret is never half shown.
const TAIL_SHOWN_FROM: usize = 12;
const TAIL: usize = 4;

/// Names whose values are secrets whatever the user says (compared ignoring case).
const SECRET_NAMES: &[&str] = &["authorization", "proxy-authorization", "cookie", "set-cookie"];
/// Endings of names whose values are secrets (`X-Api-Key`, `X-Auth-Token`, `api_key`).
const SECRET_ENDINGS: &[&str] = &["-key", "_key", "-token", "_token"];
/// Words that make any name containing them a secret's (`X-Webhook-Secret`).
const SECRET_WORDS: &[&str] = &["secret", "password"];

/// Whether the header `name` holds a secret: a well-known credential header, a name ending in
/// `-key`/`-token` or containing `secret`/`password`, or one the user listed in `marked`
/// (`secretHeaders`). Names are compared ignoring case, as HTTP compares them.
pub fn is_secret(name: &str, marked: &[String]) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.contains(&lower.as_str())
        || SECRET_ENDINGS.iter().any(|end| lower.ends_with(end))
        || SECRET_WORDS.iter().any(|word| lower.contains(word))
        || marked.iter().any(|m| m.eq_ignore_ascii_case(name))
}

/// A secret value as reads show it: the mask, and its last four characters when it is long
/// enough that they give nothing away.
pub fn mask(value: &str) -> String {
    let count = value.chars().count();
    if count < TAIL_SHOWN_FROM {
        return MASK.to_owned();
    }
    let tail: String = value.chars().skip(count - TAIL).collect();
    format!("{MASK}{tail}")
}

/// Whether a value is a mask as a read shows it: sent back (a read, edited, put back), it
/// stands for the value kept, which it leaves unchanged.
pub fn is_mask(value: &str) -> bool {
    value.strip_prefix(MASK).is_some_and(|tail| tail.chars().count() <= TAIL && is_printable(tail))
}

/// Whether `name` is an RFC 9110 token: what a header name may be.
pub fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Printable ASCII, spaces included, and nothing else (no CR, LF, tab or other control).
fn is_printable(value: &str) -> bool {
    value.bytes().all(|b| (b' '..=b'~').contains(&b))
}

/// Whether masked values may stand for kept ones: not in a creation, which keeps nothing yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Masks {
    Refused,
    /// An update: a mask keeps the value stored under that name.
    KeepStored,
}

/// Checks a header map at `at.headers`: at most `HEADERS_MAX` entries; each name an RFC 9110
/// token of at most `HEADER_NAME_MAX` characters, not in `reserved` (lower case; `why` says who
/// sets them), and not named twice ignoring case; each value printable ASCII of at most
/// `HEADER_VALUE_MAX` characters, or a mask where `masks` allows one.
pub fn check_headers(
    c: &mut Checks,
    at: &str,
    headers: Option<&BTreeMap<String, String>>,
    reserved: &[&str],
    why: &str,
    masks: Masks,
) {
    use header_limits::*;
    let Some(headers) = headers else { return };
    let member = join(at, "headers");
    if headers.len() > HEADERS_MAX {
        c.invalid(&member, format!("headers holds at most {HEADERS_MAX} entries (it has {})", headers.len()));
        // Each of ten thousand would only say the same thing again.
        return;
    }
    let mut seen: Vec<String> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let param = join(&member, name);
        let lower = name.to_ascii_lowercase();
        if !is_token(name) || name.chars().count() > HEADER_NAME_MAX {
            c.invalid(
                &param,
                format!("{name:?} is not a header name (an RFC 9110 token of at most {HEADER_NAME_MAX} characters)"),
            );
        } else if reserved.contains(&lower.as_str()) {
            c.invalid(&param, format!("{name} {why}"));
        } else if seen.contains(&lower) {
            c.invalid(&param, format!("{name} is named twice (header names ignore case)"));
        }
        seen.push(lower);
        check_value(c, &param, name, value, masks);
    }
}

fn check_value(c: &mut Checks, param: &str, name: &str, value: &str, masks: Masks) {
    use header_limits::HEADER_VALUE_MAX;
    if is_mask(value) {
        if masks == Masks::Refused {
            c.invalid(param, format!("the value of {name} is a mask ({MASK}), which stands for a value already kept; send the value itself"));
        }
    } else if !is_printable(value) || value.chars().count() > HEADER_VALUE_MAX {
        c.invalid(
            param,
            format!(
                "the value of {name} must be printable ASCII without control characters (no CR or LF), at most {HEADER_VALUE_MAX} characters"
            ),
        );
    }
}

/// Checks `secretHeaders` (a local extension): at most `SECRET_HEADERS_MAX` header names.
pub fn check_secret_headers(c: &mut Checks, at: &str, marked: Option<&[String]>) {
    use header_limits::*;
    c.items(at, "secretHeaders", marked, 0, Some(SECRET_HEADERS_MAX));
    for (i, name) in marked.unwrap_or_default().iter().enumerate() {
        if !is_token(name) || name.chars().count() > HEADER_NAME_MAX {
            let param = index(&join(at, "secretHeaders"), i);
            c.invalid(
                &param,
                format!("{name:?} is not a header name (an RFC 9110 token of at most {HEADER_NAME_MAX} characters)"),
            );
        }
    }
}

/// The headers as reads show them: each secret's value masked.
pub fn masked(headers: &BTreeMap<String, String>, marked: &[String]) -> BTreeMap<String, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let shown = if is_secret(name, marked) && !is_mask(value) { mask(value) } else { value.clone() };
            (name.clone(), shown)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::validate::Validate;

    #[test]
    fn credentials_and_marked_names_are_secret_and_others_are_not() {
        let marked = vec!["X-Tenant".to_owned()];
        for name in ["Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api_key"] {
            assert!(is_secret(name, &[]), "{name}");
        }
        for name in ["X-Auth-Token", "X-Webhook-Secret", "client-secret-id", "X-PASSWORD", "x-tenant"] {
            assert!(is_secret(name, &marked), "{name}");
        }
        for name in ["Content-Type", "Accept", "X-Tenant", "X-Keyboard", "X-Tokens-Used"] {
            assert!(!is_secret(name, &[]), "{name}");
        }
    }

    #[test]
    fn a_mask_shows_the_last_four_only_of_a_long_value() {
        assert_eq!(mask("Bearer tok_abcdefghijklmnop"), "••••mnop");
        assert_eq!(mask("team-42"), "••••");
        assert_eq!(mask("elevenchars"), "••••", "eleven characters show nothing");
        assert_eq!(mask("twelve-chars"), "••••hars");
        assert!(is_mask("••••mnop") && is_mask("••••"));
        assert!(!is_mask("••••toolong") && !is_mask("mnop") && !is_mask("••••\r\n"));
    }

    #[test]
    fn header_maps_are_checked_name_by_name() {
        struct Probe(BTreeMap<String, String>, Masks);
        impl Validate for Probe {
            fn check(&self, c: &mut Checks, at: &str) {
                check_headers(c, at, Some(&self.0), &["host"], "is the transport's", self.1);
            }
        }
        let probe = |pairs: &[(&str, &str)], masks| {
            let map = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            Probe(map, masks).validate().into_iter().map(|v| v.param).collect::<Vec<_>>()
        };
        assert!(probe(&[("Authorization", "Bearer x"), ("X-Empty", "")], Masks::Refused).is_empty());
        assert_eq!(probe(&[("X-Bad", "v\r\nInjected: 1")], Masks::Refused), vec!["headers.X-Bad"]);
        assert_eq!(probe(&[("X Bad", "v")], Masks::Refused), vec!["headers.X Bad"]);
        assert_eq!(probe(&[("Host", "example.com")], Masks::Refused), vec!["headers.Host"]);
        assert_eq!(probe(&[("X-Tab", "a\tb")], Masks::Refused), vec!["headers.X-Tab"]);
        assert_eq!(probe(&[("X-A", "1"), ("x-a", "2")], Masks::Refused), vec!["headers.x-a"]);
        assert_eq!(probe(&[("Authorization", "••••mnop")], Masks::Refused), vec!["headers.Authorization"]);
        assert!(probe(&[("Authorization", "••••mnop")], Masks::KeepStored).is_empty());
        let many: Vec<(String, String)> = (0..10_000).map(|n| (format!("X-{n}"), "v".to_owned())).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(probe(&many, Masks::Refused), vec!["headers"], "one violation, not ten thousand");
    }
}
