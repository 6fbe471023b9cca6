//! Shapes shared by every resource group: timestamps, id references, units and paging.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

/// A timestamp exactly as the service sent it. The spec only says "string", so the text
/// is kept verbatim and parsed on demand, never rejected on decode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
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
}

impl From<jiff::Timestamp> for Timestamp {
    fn from(ts: jiff::Timestamp) -> Self {
        Timestamp(ts.round(jiff::Unit::Millisecond).unwrap_or(ts).to_string())
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
    pub name: Option<String>,
    pub symbol: Option<String>,
}

/// Cursor paging: `{total, hasMore, nextCursor}`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CursorPagination {
    #[serde(default)]
    pub total: u64,
    #[serde(default)]
    pub has_more: bool,
    pub next_cursor: Option<String>,
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

/// Extra members of an input, kept so `validate()` can name them instead of dropping them.
pub type UnknownFields = serde_json::Map<String, serde_json::Value>;
