//! The issue list's columns, filters, sort and row cells.

use crate::console::widgets::table::Cell;
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};

use super::super::section::{status_cell, text_cmp};
use crate::api::model::Issue;
use crate::console::theme::Theme;
use crate::console::widgets::list::by;
use crate::console::widgets::table::{Column, col, fitted};
use crate::console::widgets::text::{ago, or_dash};

pub const COLUMNS: &[Column] = &[
    fitted("SEVERITY", 8, 10),
    fitted("STATUS", 6, 12),
    col("TITLE", Fill(1)),
    col("EVENTS", Length(6)),
    col("LAST EVENT", Length(10)),
    col("EVIDENCE", Length(8)),
];

/// `f` cycles these (None is all).
pub const STATUSES: [Option<&str>; 4] = [None, Some("OPEN"), Some("ACKNOWLEDGED"), Some("RESOLVED")];
/// `F` cycles these: any severity, one severity, or none set.
pub const SEVERITIES: [Option<Option<&str>>; 6] =
    [None, Some(Some("CRITICAL")), Some(Some("HIGH")), Some(Some("MEDIUM")), Some(Some("LOW")), Some(None)];

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

pub fn compare(a: &Issue, b: &Issue, column: usize) -> std::cmp::Ordering {
    match column {
        0 => by_severity(a, b),
        1 => text_cmp(status(a), status(b)),
        2 => text_cmp(a.title.as_deref(), b.title.as_deref()),
        3 => by(a.event_count, b.event_count),
        4 => last_event(a).cmp(&last_event(b)),
        _ => a.evidence.len().cmp(&b.evidence.len()),
    }
}

/// A row; `new` marks an issue not listed on the last visit with a `●` before its title.
pub fn cells(issue: &Issue, new: bool, theme: &Theme, now: jiff::Timestamp) -> Vec<Cell<'static>> {
    let sev = or_dash(severity(issue));
    let mut title = Vec::new();
    if new {
        title.push(Span::styled("● ", theme.highlight()));
    }
    title.push(Span::raw(or_dash(issue.title.as_deref())));
    vec![
        Cell::from(sev.clone()).style(theme.severity(&sev)),
        status_cell(theme, status(issue)),
        Cell::from(Line::from(title)),
        Cell::from(issue.event_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into())),
        Cell::from(ago(issue.last_event_at.as_ref(), now)),
        Cell::from(issue.evidence.len().to_string()),
    ]
}
