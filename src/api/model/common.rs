//! Shapes shared by every resource group: timestamps, id references, units and paging.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

/// A timestamp exactly as the service sent it. The spec only says "string", so the text
/// is kept verbatim and parsed on demand, never rejected on decode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = String, format = DateTime, description = "An RFC 3339 date-time.")]
pub struct Timestamp(pub String);

impl Timestamp {
    /// The current time in RFC 3339, UTC, millisecond precision.
    pub fn now() -> Self {
        Self::from(jiff::Timestamp::now())
    }

    /// The instant, when the text is RFC 3339 or a civil date-time (read as UTC).
    pub fn parse(&self) -> Option<jiff::Timestamp> {
        let text = self.0.trim();
        text.parse::<jiff::Timestamp>().ok().or_else(|| {
            let civil: jiff::civil::DateTime = text.parse().ok()?;
            civil.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp())
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is an RFC 3339 date-time (`2024-05-01T09:30:00Z`, `…+02:00`), the
    /// only form inputs accept: a bare date or a date-time without an offset is not one.
    pub fn is_rfc3339(&self) -> bool {
        rfc3339::fields(&self.0).is_some()
    }

    /// The instant of an RFC 3339 date-time. Every valid one has an instant here: those past
    /// the range the clock library represents (about ±1 day around years 0 and 9999, where an
    /// offset moves them out of 0000–9999) are clamped to its ends, so a filter on them still
    /// means "before everything" or "after everything".
    pub fn parse_rfc3339(&self) -> Option<jiff::Timestamp> {
        let fields = rfc3339::fields(&self.0)?;
        // A leap second is valid RFC 3339; the instant is the second before it.
        let text = if fields.second == 60 { rfc3339::without_leap_second(&self.0) } else { self.0.clone() };
        match text.parse::<jiff::Timestamp>() {
            Ok(ts) => Some(ts),
            Err(_) if fields.year >= 5000 => Some(jiff::Timestamp::MAX),
            Err(_) => Some(jiff::Timestamp::MIN),
        }
    }
}

/// The grammar of RFC 3339 section 5.6 (`date-time`), with calendar checks.
mod rfc3339 {
    pub struct Fields {
        pub year: u32,
        pub second: u32,
    }

    pub fn fields(text: &str) -> Option<Fields> {
        let b = text.as_bytes();
        let digits = |from: usize, len: usize| -> Option<u32> {
            let part = b.get(from..from + len)?;
            part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
        };
        let at = |i: usize, allowed: &[u8]| b.get(i).is_some_and(|c| allowed.contains(c));
        let year = digits(0, 4)?;
        let month = digits(5, 2)?;
        let day = digits(8, 2)?;
        let hour = digits(11, 2)?;
        let minute = digits(14, 2)?;
        let second = digits(17, 2)?;
        let separators = at(4, b"-") && at(7, b"-") && at(10, b"Tt") && at(13, b":") && at(16, b":");
        if !separators || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        let mut i = 19;
        if at(i, b".") {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let offset_ok = match b.get(i) {
            Some(b'Z' | b'z') => i + 1 == b.len(),
            Some(b'+' | b'-') => {
                let (h, m) = (digits(i + 1, 2)?, digits(i + 4, 2)?);
                at(i + 3, b":") && h <= 23 && m <= 59 && i + 6 == b.len()
            }
            _ => false,
        };
        offset_ok.then_some(Fields { year, second })
    }

    fn days_in_month(year: u32, month: u32) -> u32 {
        match month {
            2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }

    /// The same date-time with second 60 read as 59.
    pub fn without_leap_second(text: &str) -> String {
        format!("{}59{}", &text[..17], &text[19..])
    }

    #[cfg(test)]
    mod tests {
        use super::super::Timestamp;

        #[test]
        fn every_valid_date_time_is_accepted_and_others_are_not() {
            for ok in [
                "9999-12-31T23:59:59Z",
                "0000-01-01T00:00:00Z",
                "2024-02-29T12:00:00.123456789+14:00",
                "2016-12-31t23:59:60z",
                "9999-12-31T23:59:59-23:59",
            ] {
                let ts = Timestamp(ok.into());
                assert!(ts.is_rfc3339(), "{ok}");
                assert!(ts.parse_rfc3339().is_some(), "{ok}");
            }
            for bad in [
                "2024-05-01",
                "2024-05-01T09:30:00",
                "2023-02-29T00:00:00Z",
                "2024-13-01T00:00:00Z",
                "2024-05-01T24:00:00Z",
                "2024-05-01T09:30:00.Z",
                "2024-05-01T09:30:00+24:00",
                "2024-05-01 09:30:00Z",
                "2024-05-01T09:30:00Zjunk",
                "",
            ] {
                assert!(!Timestamp(bad.into()).is_rfc3339(), "{bad}");
            }
            assert_eq!(Timestamp("9999-12-31T23:59:59Z".into()).parse_rfc3339(), Some(jiff::Timestamp::MAX));
        }
    }
}

impl From<jiff::Timestamp> for Timestamp {
    /// Always three digits of milliseconds (`…T09:30:00.000Z`, as the hosted service writes
    /// them), so that the service's own timestamps sort as text in the order of their instants.
    fn from(ts: jiff::Timestamp) -> Self {
        Timestamp(ts.round(jiff::Unit::Millisecond).unwrap_or(ts).strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
    }
}

/// Timestamps order by their instants (a service may write `…:47Z` and `…:47.5Z`, which order
/// the other way round as text), then by their text; text that is not a date-time comes after
/// every date-time, in its own order.
impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        use std::cmp::Ordering::{Greater, Less};
        // Two UTC times to the millisecond (what this service and the hosted one write) order
        // as text: no parsing on a sort's every comparison.
        if is_utc_millis(&self.0) && is_utc_millis(&other.0) {
            return self.0.cmp(&other.0);
        }
        match (self.parse(), other.parse()) {
            (Some(a), Some(b)) => a.cmp(&b).then_with(|| self.0.cmp(&other.0)),
            (Some(_), None) => Less,
            (None, Some(_)) => Greater,
            (None, None) => self.0.cmp(&other.0),
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ` with a second below 60, whose text order is its time order (a
/// leap second takes the comparison by instant). Only the shape is checked: a day that does
/// not exist in this shape (`02-30`) orders by its text too, where `parse` would put it after
/// every date; no service writes one.
fn is_utc_millis(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 24
        && b[17] <= b'5'
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `{id}`: how inputs and some objects point at another resource.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub struct IdRef {
    pub id: Uuid,
}

impl From<Uuid> for IdRef {
    fn from(id: Uuid) -> Self {
        IdRef { id }
    }
}

/// A metric's unit.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Unit {
    #[schema(max_length = 50)]
    pub name: Option<String>,
    #[schema(max_length = 50)]
    pub symbol: Option<String>,
}

/// Cursor paging: `{total, hasMore, nextCursor, limit}` (`limit`, the page size, as the hosted
/// interface adds it).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CursorPagination {
    #[serde(default)]
    pub total: u64,
    #[serde(default)]
    pub has_more: bool,
    #[serialize_always]
    pub next_cursor: Option<String>,
    pub limit: Option<u64>,
}

/// Offset paging: `{limit, offset, total, hasMore}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OffsetPagination {
    pub limit: u64,
    pub offset: u64,
    pub total: u64,
    pub has_more: bool,
}

/// `{data}`: the envelope of every single-resource response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Data<T> {
    pub data: T,
}

/// `{data, pagination}`: one page of a cursor-paged list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CursorPage<T> {
    pub data: Vec<T>,
    #[serde(default)]
    pub pagination: CursorPagination,
}

/// Limits on free text shared by every input; each input's own module adds the rest.
/// The OpenAPI schema repeats these numbers (utoipa takes only literals), and
/// `tests/service_openapi.rs` compares them.
pub mod text_limits {
    /// Names of things: personas, plans, metrics, policies, thresholds.
    pub const NAME_MAX: usize = 200;
    /// Descriptions, backstories' neighbours and other prose.
    pub const DESCRIPTION_MAX: usize = 2_000;
    /// Prompts handed to the judge or the simulated caller.
    pub const PROMPT_MAX: usize = 10_000;
    /// Short text: labels, phrases, keys, values, environments, phone numbers' neighbours.
    pub const SHORT_MAX: usize = 200;
    /// Slugs and the aliases that name them.
    pub const SLUG_MAX: usize = 100;
    /// Lists of plain values (enum lists, id lists) that are not otherwise limited.
    pub const LIST_MAX: usize = 50;
}

/// Extra members of an input, kept so `validate()` can name them instead of dropping them.
pub type UnknownFields = serde_json::Map<String, serde_json::Value>;

#[cfg(test)]
mod ordering_tests {
    use super::Timestamp;

    #[test]
    fn made_timestamps_have_three_digits_of_milliseconds() {
        let whole: jiff::Timestamp = "2026-11-26T07:51:47Z".parse().unwrap();
        assert_eq!(Timestamp::from(whole).0, "2026-11-26T07:51:47.000Z");
        let tenth: jiff::Timestamp = "2026-11-26T07:51:47.1004Z".parse().unwrap();
        assert_eq!(Timestamp::from(tenth).0, "2026-11-26T07:51:47.100Z");
    }

    #[test]
    fn timestamps_order_by_instant_not_text() {
        let t = |s: &str| Timestamp(s.to_owned());
        // As text, `47Z` > `47.5Z` and `.1Z` > `.15Z`.
        assert!(t("2026-11-26T07:51:47Z") < t("2026-11-26T07:51:47.5Z"));
        assert!(t("2026-11-26T07:51:47.1Z") < t("2026-11-26T07:51:47.15Z"));
        assert!(t("2026-11-26T09:00:00+02:00") < t("2026-11-26T08:00:00Z"));
        // The same instant written twice orders by text, so the order agrees with equality.
        assert!(t("2026-11-26T07:51:47Z") > t("2026-11-26T07:51:47.000Z"));
        assert!(t("not a date") > t("9999-12-31T23:59:59Z"));
        // The canonical form orders as text, and with the other forms by instant.
        assert!(t("2026-11-26T07:51:47.100Z") < t("2026-11-26T07:51:47.150Z"));
        assert!(t("2026-11-26T07:51:47.500Z") > t("2026-11-26T07:51:47Z"));
        assert!(t("2026-11-26T07:51:47.500Z") < t("2026-11-26T07:51:48Z"));
        let mut v = vec![t("b"), t("2026-01-01T00:00:00Z"), t("a"), t("2025-01-01T00:00:00.5Z")];
        v.sort();
        assert_eq!(v, vec![t("2025-01-01T00:00:00.5Z"), t("2026-01-01T00:00:00Z"), t("a"), t("b")]);
    }
}
