//! An issue's columns (`switchboard issue list|get`, the console's issues list).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed, or_dash, text_cmp};
use crate::api::model::{Evidence, Issue};

pub fn severity(issue: &Issue) -> Option<&str> {
    issue.severity.as_ref().map(|s| s.as_str())
}

pub fn status(issue: &Issue) -> Option<&str> {
    issue.status.as_ref().map(|s| s.as_str())
}

fn last_event(issue: &Issue) -> Option<jiff::Timestamp> {
    issue.last_event_at.as_ref().and_then(|t| t.parse())
}

/// Severity rank, then recency, ascending: the list shows it descending (worst, newest first;
/// unset severity and missing times last).
fn by_severity(a: &Issue, b: &Issue) -> std::cmp::Ordering {
    let rank = |i: &Issue| i.severity.as_ref().map_or(0, |s| s.rank());
    rank(a).cmp(&rank(b)).then_with(|| last_event(a).cmp(&last_event(b)))
}

pub const ID: Column<Issue> = Column::text("ID", |i: &Issue| i.id.to_string());

pub const SEVERITY: Column<Issue> =
    Column::new("SEVERITY", fit(8, 10), |i: &Issue| or_dash(severity(i))).by(by_severity);

pub const STATUS: Column<Issue> =
    Column::new("STATUS", fit(6, 12), |i: &Issue| or_dash(status(i))).by(|a, b| text_cmp(status(a), status(b)));

/// The title as sent (empty when it has none; the console shows `—`).
pub const TITLE: Column<Issue> = Column::new("TITLE", fixed(Fill(1)), |i: &Issue| i.title.clone().unwrap_or_default())
    .by(|a, b| text_cmp(a.title.as_deref(), b.title.as_deref()));

pub const EVENTS: Column<Issue> = Column::new("EVENTS", fixed(Length(6)), |i: &Issue| or_dash(i.event_count))
    .by(|a, b| by(a.event_count, b.event_count));

pub const LAST_EVENT: Column<Issue> =
    Column::new("LAST EVENT", fixed(Length(10)), |i: &Issue| or_dash(i.last_event_at.as_ref()))
        .by(|a, b| last_event(a).cmp(&last_event(b)));

pub const EVIDENCE: Column<Issue> = Column::new("EVIDENCE", fixed(Length(8)), |i: &Issue| i.evidence.len().to_string())
    .by(|a, b| a.evidence.len().cmp(&b.evidence.len()));

pub const OPENED: Column<Issue> =
    Column::text("OPENED", |i: &Issue| or_dash(i.opened_at.as_ref().or(i.created_at.as_ref())));

/// What `issue list` and `issue get` print.
pub const CLI: &[Column<Issue>] = &[ID, SEVERITY, STATUS, TITLE, EVIDENCE, OPENED];

/// `call` or `chat`: what the evidence is.
pub const EVIDENCE_KIND: Column<Evidence> = Column::new("KIND", fixed(Length(4)), |e: &Evidence| {
    match (e.call_id, e.chat_id) {
        (Some(_), _) => "call",
        (None, Some(_)) => "chat",
        _ => "—",
    }
    .to_string()
});

/// The call's or chat's id (empty when it names neither).
pub const EVIDENCE_ID: Column<Evidence> = Column::new("ID", fixed(Length(10)), |e: &Evidence| {
    e.call_id.or(e.chat_id).map(|id| id.to_string()).unwrap_or_default()
});

/// When it was observed, as sent (a screen says how long ago).
pub const EVIDENCE_OBSERVED: Column<Evidence> =
    Column::new("OBSERVED", fixed(Length(8)), |e: &Evidence| or_dash(e.observed_at.as_ref()));

/// What `issue get` prints of the evidence.
pub const EVIDENCE_CLI: &[Column<Evidence>] = &[EVIDENCE_KIND, EVIDENCE_ID, EVIDENCE_OBSERVED];
