//! An alert's columns (`switchboard alert list`, the console's alerts list), and its groups'
//! (`alert get`'s GROUPS; the console's alert detail says each group in a line).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed, or_dash, text_cmp};
use crate::api::model::{AlertGroupStatus, AlertStatus};

/// A float that sorts (values are finite).
fn ordered(value: f64) -> i64 {
    (value * 1000.0) as i64
}

/// A window's value to three decimals at most: a mean such as 62.71538461538462 reads 62.715.
pub fn readable(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

fn last_window(a: &AlertStatus) -> Option<jiff::Timestamp> {
    a.last_window_start.as_ref().and_then(|t| t.parse())
}

/// OPEN first when descending, then BREACHING, then the rest; by name within a state.
fn by_state(a: &AlertStatus, b: &AlertStatus) -> std::cmp::Ordering {
    let rank = |s: &AlertStatus| match s.state.as_str() {
        "OPEN" => 2,
        "BREACHING" => 1,
        _ => 0,
    };
    rank(a).cmp(&rank(b)).then_with(|| b.name.cmp(&a.name))
}

pub const ID: Column<AlertStatus> = Column::text("ID", |a: &AlertStatus| a.id.to_string());

pub const NAME: Column<AlertStatus> = Column::new("NAME", fixed(Fill(1)), |a: &AlertStatus| a.name.clone())
    .by(|a, b| text_cmp(Some(&a.name), Some(&b.name)));

pub const STATE: Column<AlertStatus> =
    Column::new("STATE", fit(5, 9), |a: &AlertStatus| a.state.to_string()).by(by_state);

/// How many windows in a row it has been in its state.
pub const WINDOWS: Column<AlertStatus> =
    Column::new("WINDOWS", fixed(Length(4)), |a: &AlertStatus| a.consecutive_windows.to_string())
        .by(|a, b| a.consecutive_windows.cmp(&b.consecutive_windows));

/// As wide as its time (`2026-10-30 23:00:00` on a screen), so a name gives way rather than it.
pub const LAST_WINDOW: Column<AlertStatus> =
    Column::new("LAST WINDOW", fit(16, 19), |a: &AlertStatus| or_dash(a.last_window_start.as_ref()))
        .by(|a, b| by(last_window(a), last_window(b)));

pub const LAST_VALUE: Column<AlertStatus> =
    Column::new("LAST VALUE", fixed(Length(10)), |a: &AlertStatus| or_dash(a.last_value.map(readable)))
        .by(|a, b| by(a.last_value.map(ordered), b.last_value.map(ordered)));

pub const METRIC: Column<AlertStatus> =
    Column::new("METRIC", fit(6, 22), |a: &AlertStatus| or_dash(a.trigger.metric.as_deref()))
        .by(|a, b| text_cmp(a.trigger.metric.as_deref(), b.trigger.metric.as_deref()));

pub const ENABLED: Column<AlertStatus> = Column::text("ENABLED", |a: &AlertStatus| a.enabled.to_string());

/// What `alert list` prints.
pub const CLI: &[Column<AlertStatus>] = &[ID, NAME, STATE, WINDOWS, LAST_WINDOW, LAST_VALUE, ENABLED];

/// One group of an alert: one under grouping NONE, one per agent under BY_AGENT.
pub const GROUPS: &[Column<AlertGroupStatus>] = &[
    Column::text("GROUP", |g: &AlertGroupStatus| g.agent_id.clone().unwrap_or_else(|| "(all calls)".to_owned())),
    Column::text("STATE", |g: &AlertGroupStatus| g.state.to_string()),
    Column::text("WINDOWS", |g: &AlertGroupStatus| g.consecutive_windows.to_string()),
    Column::text("LAST WINDOW", |g: &AlertGroupStatus| or_dash(g.last_window_start.as_ref())),
    Column::text("LAST VALUE", |g: &AlertGroupStatus| or_dash(g.last_value.map(readable))),
    Column::text("ISSUE", |g: &AlertGroupStatus| or_dash(g.issue_id.as_ref())),
];
