//! Alerts in the issues tab: `:alerts` lists them with their state (a list refreshed as the
//! others are), and an alert opens (Enter on the list, `a` on an alert-born issue) on its state,
//! trigger, groups, actions and latest windows against the threshold. What an alert-born issue
//! shows of its alert (the trigger, the series) is drawn here too.

use std::collections::{HashMap, HashSet};

use ratatui::Frame;
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::layout::{Layout, Rect};
use ratatui::text::Line;
use uuid::Uuid;

use super::super::section::{Section, status_cell};
use crate::api::model::config::{AlertOperator, AlertTriggerConfig};
use crate::api::model::{AlertGroupStatus, AlertStatus};
use crate::columns::alert;
use crate::console::message::{FailureKind, FetchError, Fetched, ListKind, Listing, Request};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;
use crate::console::widgets::detail::{self, Lines, Scroll};
use crate::console::widgets::series::{self, Series};
use crate::console::widgets::table::{Cell, Shown};
use crate::console::widgets::text::{number, or_dash, when};

/// The alert, its state and its latest window stay; the metric is left out first (the alert's
/// detail names it) when the screen is narrow.
pub const COLUMNS: &[Shown<AlertStatus>] = &[
    Shown::plain(alert::NAME.titled("ALERT")),
    Shown::drawn(alert::STATE, |a, cx| status_cell(cx.theme, Some(a.state.as_str()))),
    Shown::plain(alert::WINDOWS.titled("RUN")),
    Shown::drawn(alert::LAST_VALUE, |a, _| Cell::from(a.last_value.map(number).unwrap_or_else(|| "—".into()))),
    Shown::drawn(alert::LAST_WINDOW, |a, _| Cell::from(when(a.last_window_start.as_ref()))),
    Shown::drawn(alert::METRIC, |a, cx| Cell::from(or_dash(a.trigger.metric.as_deref())).style(cx.theme.dim()))
        .at_least(100),
];

/// The alerts listed, and those read one at a time (with their windows).
pub struct Alerts {
    pub list: Section<AlertStatus>,
    read: HashMap<Uuid, AlertStatus>,
    asked: HashSet<Uuid>,
    /// Alerts the service answered 404 for.
    missing: HashSet<Uuid>,
}

impl Default for Alerts {
    fn default() -> Self {
        let mut list = Section::new(
            "alerts",
            COLUMNS,
            |a: &AlertStatus| a.id.to_string(),
            |a| format!("{} {} {}", a.name, a.state.as_str(), a.trigger.metric.as_deref().unwrap_or("")),
        );
        list.list.sort = Some((1, true));
        Alerts { list, read: HashMap::new(), asked: HashSet::new(), missing: HashSet::new() }
    }
}

impl Alerts {
    /// Reads alert `id` (with its windows) unless it was read already.
    pub fn ask(&mut self, id: Uuid, out: &mut Out) {
        if self.asked.insert(id) {
            out.fetch(Request::Item(ListKind::Alerts, id.to_string()));
        }
    }

    /// Reads alert `id` again.
    pub fn reread(&mut self, id: Uuid, out: &mut Out) {
        self.asked.insert(id);
        out.fetch(Request::Item(ListKind::Alerts, id.to_string()));
    }

    /// The alert as last read on its own, else as listed.
    pub fn get(&self, id: Uuid) -> Option<&AlertStatus> {
        self.read.get(&id).or_else(|| self.list.list.items.iter().find(|a| a.id == id))
    }

    /// Takes a read of the list or of one alert; true when it was one.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        let mine = match (request, result) {
            (Request::Item(ListKind::Alerts, id), Ok(Fetched::Item(Listing::Alerts(found)))) => {
                for alert in found {
                    self.read.insert(alert.id, alert.clone());
                }
                id.parse().is_ok_and(|id| self.missing.remove(&id) | true)
            }
            (Request::Item(ListKind::Alerts, id), Err(error)) if error.kind == FailureKind::NotFound => {
                id.parse().is_ok_and(|id| self.missing.insert(id) | true)
            }
            _ => false,
        };
        self.list.fetched(request, result) | mine
    }

    /// Whether the service said it has no alert `id`.
    pub fn is_missing(&self, id: Uuid) -> bool {
        self.missing.contains(&id)
    }
}

/// `>` for GT and so on.
fn symbol(operator: Option<&AlertOperator>) -> &str {
    match operator {
        Some(AlertOperator::Gt) => ">",
        Some(AlertOperator::Gte) => "≥",
        Some(AlertOperator::Lt) => "<",
        Some(AlertOperator::Lte) => "≤",
        Some(AlertOperator::Unknown(other)) => other,
        None => "?",
    }
}

/// The trigger in one line: `MEAN of longest_silence over 60 min > 9000`.
pub fn trigger_text(t: &AlertTriggerConfig) -> String {
    let aggregation = t.aggregation.as_ref().map_or("?", |a| a.as_str());
    let window = t.window_minutes.map_or("?".into(), |m| m.to_string());
    let threshold = t.threshold_value.map_or("?".into(), number);
    format!(
        "{aggregation} of {} over {window} min {} {threshold}",
        t.metric.as_deref().unwrap_or("?"),
        symbol(t.operator.as_ref())
    )
}

/// The group an issue belongs to (by its fingerprint), else the most pressing one.
pub fn group_for<'a>(alert: &'a AlertStatus, fingerprint: Option<&str>) -> Option<&'a AlertGroupStatus> {
    let matching = alert.groups.iter().find(|g| fingerprint.is_some() && g.fingerprint.as_deref() == fingerprint);
    matching.or_else(|| alert.groups.iter().find(|g| g.state == alert.state)).or(alert.groups.first())
}

/// The group's windows against the alert's threshold, when it has a threshold.
pub fn series<'a>(alert: &AlertStatus, group: &'a AlertGroupStatus) -> Option<Series<'a>> {
    let threshold = alert.trigger.threshold_value?;
    let valued = group.windows.iter().filter(|w| w.value.is_some()).count();
    let title = format!("last {valued} windows · {}", trigger_text(&alert.trigger));
    Some(Series { title, windows: &group.windows, threshold })
}

fn facts(alert: &AlertStatus, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut lines = Lines::new(ctx.theme);
    lines.status("state", Some(alert.state.as_str()));
    lines.kv("consecutive windows", alert.consecutive_windows.to_string());
    lines.kv(
        "last window",
        format!(
            "{} · value {}",
            when(alert.last_window_start.as_ref()),
            alert.last_value.map(number).unwrap_or("—".into())
        ),
    );
    lines.kv("enabled", if alert.enabled { "yes" } else { "no" });
    let t = &alert.trigger;
    lines.section("trigger").kv("threshold", trigger_text(t));
    let count = |n: Option<i64>| n.unwrap_or(1).to_string();
    lines
        .kv("opens after", format!("{} breaching windows", count(t.consecutive_open)))
        .kv("resolves after", format!("{} clean windows", count(t.consecutive_resolve)))
        .kv("min sample size", count(t.min_sample_size))
        .kv("grouping", t.grouping.as_ref().map_or("NONE", |g| g.as_str()));
    lines.section("groups");
    for g in &alert.groups {
        let issue = g.issue_id.map(|id| format!(" · issue {}", &id.to_string()[..8])).unwrap_or_default();
        let value = g.last_value.map(number).unwrap_or_else(|| "—".into());
        let label =
            g.agent_id.as_deref().map_or("all calls".to_string(), |a| format!("agent {}", &a[..8.min(a.len())]));
        lines.kv(&label, format!("{} · {} windows · last {value}{issue}", g.state.as_str(), g.consecutive_windows));
    }
    let actions = alert.actions.as_ref();
    // Only the hosts: a webhook URL may carry a token in its path or query.
    let hosts: Vec<String> = actions
        .and_then(|a| a.webhooks.as_ref())
        .into_iter()
        .flatten()
        .map(|u| {
            reqwest::Url::parse(u).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_else(|| "?".into())
        })
        .collect();
    let slack = actions.and_then(|a| a.slack.as_ref()).map_or(0, Vec::len);
    lines
        .section("actions")
        .kv("webhooks", if hosts.is_empty() { "none".into() } else { hosts.join(", ") })
        .kv("slack", if slack == 0 { "none".into() } else { format!("{slack} channel(s), not delivered locally") })
        .kv("id", alert.id.to_string());
    lines.lines
}

/// An alert's facts above its most pressing group's windows.
pub fn draw_detail(frame: &mut Frame, area: Rect, alerts: &Alerts, id: Uuid, scroll: &Scroll, ctx: &ViewCtx) {
    let Some(alert) = alerts.get(id) else {
        let text = match alerts.is_missing(id) {
            true => format!("alert {id} is not on this service (deleted, or named by a hand-filed issue)"),
            false => format!("loading alert {id}…"),
        };
        let text = Line::styled(text, ctx.theme.dim());
        return detail::draw(frame, area, "alert", vec![text], scroll, ctx.theme, true);
    };
    let chart = group_for(alert, None).and_then(|g| series(alert, g));
    let height = if chart.is_some() { (area.height / 3).max(6) } else { 0 };
    let [top, bottom] = Layout::vertical([Fill(1), Length(height)]).areas(area);
    detail::draw(frame, top, &format!("alert · {}", alert.name), facts(alert, ctx), scroll, ctx.theme, true);
    if let Some(chart) = chart {
        series::draw(frame, bottom, &chart, ctx.theme);
    }
}
