//! Input rules, stated once next to the types they limit and used by both the local
//! service (to answer 400s) and the console's forms (to validate as the user types).

use std::fmt;

use serde::Serialize;

use super::model::common::UnknownFields;

/// Why a value broke a rule; maps onto the error body's `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationCode {
    MissingRequiredField,
    InvalidParameter,
}

impl ViolationCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationCode::MissingRequiredField => "missing_required_field",
            ViolationCode::InvalidParameter => "invalid_parameter",
        }
    }
}

/// One broken rule, with the parameter path at fault (`metrics[0].slug`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub param: String,
    pub code: ViolationCode,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.param, self.message)
    }
}

/// Something whose rules can be checked without any other state.
pub trait Validate {
    /// Every violation, in field order; empty when the value is acceptable.
    fn validate(&self) -> Vec<Violation> {
        let mut checks = Checks::default();
        self.check(&mut checks, "");
        checks.into_violations()
    }

    /// Adds this value's violations under the path `at` (empty at the top level).
    fn check(&self, checks: &mut Checks, at: &str);
}

/// Joins a parent path and a member name: `("metrics[0]", "slug")` → `metrics[0].slug`.
pub fn join(at: &str, member: &str) -> String {
    match (at.is_empty(), member.is_empty()) {
        (true, _) => member.to_owned(),
        (false, true) => at.to_owned(),
        (false, false) => format!("{at}.{member}"),
    }
}

/// How much of a caller's text an error message repeats.
pub const ECHO_CHARS: usize = 40;

/// A caller's text as an error message repeats it: quoted, quotes and control characters
/// escaped, and cut after `ECHO_CHARS` characters (a 100 KB value is not sent back whole).
pub fn quote(text: &str) -> String {
    format!("\"{}\"", escaped(text, ECHO_CHARS, true))
}

/// `text` with control characters escaped (`\n`, `\u{0}`) and cut after `max` characters,
/// ending with `…` when it was cut: what an error may carry of anything a caller sent.
pub fn clip(text: &str, max: usize) -> String {
    escaped(text, max, false)
}

fn escaped(text: &str, max: usize, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len().min(max * 2));
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if c.is_control() || (quotes && matches!(c, '"' | '\\')) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Path of the `index`th element of the array at `at`.
pub fn index(at: &str, index: usize) -> String {
    format!("{at}[{index}]")
}

/// Collects violations; each helper checks one kind of rule.
#[derive(Debug, Default)]
pub struct Checks {
    violations: Vec<Violation>,
}

impl Checks {
    pub fn into_violations(self) -> Vec<Violation> {
        self.violations
    }

    pub fn is_empty(&self) -> bool {
        self.violations.is_empty()
    }

    /// Whether a violation already names `param` (so a broader rule need not say it again).
    pub fn has(&self, param: &str) -> bool {
        self.violations.iter().any(|v| v.param == param)
    }

    pub fn invalid(&mut self, param: impl Into<String>, message: impl Into<String>) {
        self.violations.push(Violation {
            param: param.into(),
            code: ViolationCode::InvalidParameter,
            message: message.into(),
        });
    }

    pub fn missing(&mut self, param: impl Into<String>) {
        let param = param.into();
        let message = format!("{param} is required");
        self.violations.push(Violation { param, code: ViolationCode::MissingRequiredField, message });
    }

    /// Members of `not_null` that were sent as `null` (`nulls`, from `with_null_members`): the
    /// schema types them non-nullable, so null is refused rather than read as "keep".
    pub fn not_null(&mut self, at: &str, not_null: &[&str], nulls: &[String]) {
        for member in nulls.iter().filter(|m| not_null.contains(&m.as_str())) {
            let param = join(at, member);
            self.invalid(&param, format!("{param} may not be null: leave it out to keep it"));
        }
    }

    /// A required member: reports it missing when absent, and hands it back otherwise.
    pub fn required<'v, T>(&mut self, at: &str, member: &str, value: &'v Option<T>) -> Option<&'v T> {
        if value.is_none() {
            self.missing(join(at, member));
        }
        value.as_ref()
    }

    /// A string whose length in characters must lie in `min..=max`.
    pub fn length(&mut self, at: &str, member: &str, value: Option<&str>, min: usize, max: Option<usize>) {
        let Some(value) = value else { return };
        let len = value.chars().count();
        if len < min {
            let message = if min == 1 {
                format!("{} must not be empty", join(at, member))
            } else {
                format!("{} must be at least {min} characters", join(at, member))
            };
            self.invalid(join(at, member), message);
        } else if let Some(max) = max.filter(|max| len > *max) {
            let message = format!("{} must be at most {max} characters (it has {len})", join(at, member));
            self.invalid(join(at, member), message);
        }
    }

    /// An integer that must lie in `min..=max`.
    pub fn range(&mut self, at: &str, member: &str, value: Option<i64>, min: Option<i64>, max: Option<i64>) {
        let Some(value) = value else { return };
        let param = join(at, member);
        match (min, max) {
            (Some(min), Some(max)) if value < min || value > max => {
                self.invalid(&param, format!("{param} must be between {min} and {max} (got {value})"))
            }
            (Some(min), None) if value < min => {
                self.invalid(&param, format!("{param} must be at least {min} (got {value})"))
            }
            (None, Some(max)) if value > max => {
                self.invalid(&param, format!("{param} must be at most {max} (got {value})"))
            }
            _ => {}
        }
    }

    /// A number that must lie in `min..=max` (both inclusive).
    pub fn range_f64(&mut self, at: &str, member: &str, value: Option<f64>, min: f64, max: f64) {
        let Some(value) = value else { return };
        if !(min..=max).contains(&value) {
            let param = join(at, member);
            self.invalid(&param, format!("{param} must be between {min} and {max} (got {value})"));
        }
    }

    /// An array whose item count must lie in `min..=max`.
    pub fn items<T>(&mut self, at: &str, member: &str, value: Option<&[T]>, min: usize, max: Option<usize>) {
        let Some(value) = value else { return };
        let param = join(at, member);
        if value.len() < min {
            self.invalid(&param, format!("{param} must have at least {min} item{}", plural(min)));
        } else if let Some(max) = max.filter(|max| value.len() > *max) {
            let message = format!("{param} must have at most {max} items (it has {})", value.len());
            self.invalid(&param, message);
        }
    }

    /// Each element of an array, checked under its indexed path.
    pub fn each<T: Validate>(&mut self, at: &str, member: &str, value: Option<&[T]>) {
        for (i, item) in value.unwrap_or_default().iter().enumerate() {
            item.check(self, &index(&join(at, member), i));
        }
    }

    /// Every entry of a list of strings must have text.
    pub fn entries_not_blank(&mut self, at: &str, member: &str, value: Option<&[String]>) {
        for (i, entry) in value.unwrap_or_default().iter().enumerate() {
            if entry.trim().is_empty() {
                let param = index(&join(at, member), i);
                self.invalid(&param, format!("{param} must not be empty"));
            }
        }
    }

    /// An enum member must hold a value this build knows (inputs do not take future values).
    pub fn known<E: super::wire_enum::WireEnum>(&mut self, at: &str, member: &str, value: Option<&E>) {
        if let Some(value) = value.filter(|v| !v.is_known_value()) {
            let param = join(at, member);
            let hint = super::suggest::did_you_mean(value.text(), E::known().iter().map(E::text));
            let message = format!("{param} {} is not one of {}{hint}", quote(value.text()), E::known_list());
            self.invalid(&param, message);
        }
    }

    /// An enum value that must be one of `allowed` (a subset of the values this build knows).
    pub fn one_of<E: super::wire_enum::WireEnum>(&mut self, at: &str, member: &str, value: Option<&E>, allowed: &[E]) {
        if let Some(value) = value.filter(|v| !allowed.contains(v)) {
            let param = join(at, member);
            let list = allowed.iter().map(|v| v.text()).collect::<Vec<_>>().join(", ");
            self.invalid(&param, format!("{param} {} is not one of {list}", quote(value.text())));
        }
    }

    /// Every element of an enum list must be a value this build knows.
    pub fn known_each<E: super::wire_enum::WireEnum>(&mut self, at: &str, member: &str, value: Option<&[E]>) {
        for (i, item) in value.unwrap_or_default().iter().enumerate() {
            self.known(at, &index(member, i), Some(item));
        }
    }

    /// Free text: at most `max` characters, and each entry of the list likewise.
    pub fn each_length(&mut self, at: &str, member: &str, value: Option<&[String]>, max: usize) {
        for (i, entry) in value.unwrap_or_default().iter().enumerate() {
            self.length(at, &index(member, i), Some(entry), 0, Some(max));
        }
    }

    /// Members the input does not define.
    pub fn unknown(&mut self, at: &str, fields: &UnknownFields) {
        self.unknown_among(at, fields, &[], &[]);
    }

    /// Members `T` does not define, each with the member of `T` it was likely meant to be
    /// (`unknown field flows[0].happyPaht; did you mean `happyPath`?`).
    pub fn unknown_of<T: utoipa::PartialSchema>(&mut self, at: &str, fields: &UnknownFields) {
        self.unknown_named::<T>(at, fields, &[]);
    }

    /// As `unknown_of`, and a member the other plan format names differently is answered with
    /// its name here (`iterations` is the bundle's name; in a plan file it is `iterationCount`).
    pub fn unknown_named<T: utoipa::PartialSchema>(
        &mut self,
        at: &str,
        fields: &UnknownFields,
        elsewhere: &[super::suggest::NamedElsewhere],
    ) {
        if !fields.is_empty() {
            self.unknown_among(at, fields, &super::suggest::members::<T>(), elsewhere);
        }
    }

    /// Members the input does not define, each with its name here when the other format names
    /// it so, else the closest of `members` when one is close.
    fn unknown_among(
        &mut self,
        at: &str,
        fields: &UnknownFields,
        members: &[String],
        elsewhere: &[super::suggest::NamedElsewhere],
    ) {
        for name in fields.keys() {
            let param = join(at, name);
            let hint = match elsewhere.iter().find(|e| e.there == name) {
                Some(renamed) => format!(": {renamed}"),
                None => super::suggest::did_you_mean(name, members.iter().map(String::as_str)),
            };
            self.invalid(&param, format!("unknown field {param}{hint}"));
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A JSON object decoded into `T`, with the names of its members sent as `null` (which `T`'s
/// `Option`s cannot tell from absent ones).
pub fn with_null_members<'de, D, T>(deserializer: D) -> Result<(T, Vec<String>), D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::Deserialize;
    let members = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
    let nulls = members.iter().filter(|(_, v)| v.is_null()).map(|(k, _)| k.clone()).collect();
    // The member at fault stays named in the message (the outer decoder sees only the root).
    let value = serde_path_to_error::deserialize(serde_json::Value::Object(members)).map_err(|e| {
        let path = e.path().to_string();
        serde::de::Error::custom(format!("{path}: {}", e.into_inner()))
    })?;
    Ok((value, nulls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callers_text_is_repeated_short_and_escaped() {
        assert_eq!(quote("MAYBE"), "\"MAYBE\"");
        assert_eq!(quote("a\u{0}b\r\n\"q\""), "\"a\\u{0}b\\r\\n\\\"q\\\"\"");
        let long = "x".repeat(100_000);
        assert_eq!(quote(&long), format!("\"{}…\"", "x".repeat(ECHO_CHARS)));
        assert_eq!(clip("say \"hi\"\u{1b}[2J", 100), "say \"hi\"\\u{1b}[2J");
        assert_eq!(clip("ééé", 2), "éé…");
    }

    #[test]
    fn an_unknown_enum_value_gets_the_known_one_it_was_likely_meant_to_be() {
        use crate::api::model::Direction;
        let mut checks = Checks::default();
        checks.known("", "direction", Some(&Direction::from("INBUOND")));
        checks.known("", "direction", Some(&Direction::from("SIDEWAYS")));
        let messages: Vec<String> = checks.into_violations().into_iter().map(|v| v.message).collect();
        assert_eq!(
            messages,
            [
                "direction \"INBUOND\" is not one of INBOUND, OUTBOUND; did you mean `INBOUND`?",
                "direction \"SIDEWAYS\" is not one of INBOUND, OUTBOUND",
            ]
        );
    }

    #[test]
    fn paths_join_members_and_indexes() {
        assert_eq!(join("", "name"), "name");
        assert_eq!(join(&index("metrics", 0), "slug"), "metrics[0].slug");
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let mut checks = Checks::default();
        checks.length("", "title", Some("ééé"), 1, Some(3));
        assert!(checks.is_empty());
        checks.length("", "title", Some("éééé"), 1, Some(3));
        let v = checks.into_violations();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].param, "title");
        assert_eq!(v[0].code, ViolationCode::InvalidParameter);
    }
}
