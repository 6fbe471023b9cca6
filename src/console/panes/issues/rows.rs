//! The issue list's columns and filters.

use ratatui::text::{Line, Span};

use super::super::section::status_cell;
use super::Issues;
use crate::api::model::Issue;
use crate::columns::issue;
pub use crate::columns::issue::{severity, status};
use crate::console::theme::Theme;
use crate::console::widgets::table::{Cell, Shown};
use crate::console::widgets::text::{ago, or_dash};

/// The issues list's columns, drawn for the issues pane (which knows what is new).
pub const COLUMNS: &[Shown<Issue, Issues>] = &[
    Shown::drawn(issue::SEVERITY, |i, cx| {
        let sev = or_dash(severity(i));
        Cell::from(sev.clone()).style(cx.theme.severity(&sev))
    }),
    Shown::drawn(issue::STATUS, |i, cx| status_cell(cx.theme, status(i))),
    Shown::drawn(issue::TITLE, |i, cx| title(i, cx.of.is_new(i), cx.theme)),
    Shown::drawn(issue::EVENTS, |i, _| Cell::from(i.event_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into()))),
    Shown::drawn(issue::LAST_EVENT, |i, cx| Cell::from(ago(i.last_event_at.as_ref(), cx.now))),
    Shown::plain(issue::EVIDENCE),
];

/// `f` cycles these (None is all).
pub const STATUSES: [Option<&str>; 4] = [None, Some("OPEN"), Some("ACKNOWLEDGED"), Some("RESOLVED")];
/// `F` cycles these: any severity, one severity, or none set.
pub const SEVERITIES: [Option<Option<&str>>; 6] =
    [None, Some(Some("CRITICAL")), Some(Some("HIGH")), Some(Some("MEDIUM")), Some(Some("LOW")), Some(None)];

/// The title; `new` marks an issue not listed on the last visit with a `●` before it.
fn title(issue: &Issue, new: bool, theme: &Theme) -> Cell<'static> {
    let mut title = Vec::new();
    if new {
        title.push(Span::styled("● ", theme.highlight()));
    }
    title.push(Span::raw(or_dash(issue.title.as_deref())));
    Cell::from(Line::from(title))
}
