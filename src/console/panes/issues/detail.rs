//! An issue's detail: its facts and summary (scrollable) above its evidence (selectable), and
//! the frame around an evidence call opened from it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use uuid::Uuid;

use crate::api::model::{AlertStatus, Evidence, Issue};
use crate::columns::{self, Column, fixed, issue};
use crate::console::pane::ViewCtx;
use crate::console::theme::Theme;
use crate::console::widgets::conversation::ConversationView;
use crate::console::widgets::detail::{self, Lines, Scroll};
use crate::console::widgets::list::{ListState, Load};
use crate::console::widgets::series;
use crate::console::widgets::table::{self, Cell, Columns, Context, Shown};
use crate::console::widgets::text::{ago, duration_ms, fit, number, or_dash, when};

use super::alerts;
use super::evidence::{self, EvidenceCalls};

use Constraint::{Fill, Length};

/// An entry reads as its call: when, which agent, how long, its value of the alert's metric
/// (the breaching value) and its worst failing metric; then its id and when it was seen. The
/// call's columns come from the calls the issue view read on the side; the evidence keeps the
/// order it came in.
fn evidence_columns<'a>() -> [Shown<Evidence, IssueView<'a>>; 8] {
    [
        Shown::plain(issue::EVIDENCE_KIND),
        Shown::drawn(Column::screen_only("CALL STARTED", fixed(Length(19))), |e, cx| {
            Cell::from(cx.of.calls.get(e.call_id).map(|c| when(c.started_at.as_ref())).unwrap_or_else(|| unread(e)))
        }),
        Shown::drawn(Column::screen_only("AGENT", fixed(Fill(1))), |e, cx| {
            let call = cx.of.calls.get(e.call_id);
            let agent = call.and_then(|c| c.agents.first()).and_then(|a| a.name.clone());
            Cell::from(agent.or_else(|| call.map(|_| "—".into())).unwrap_or_else(|| unread(e)))
        }),
        Shown::drawn(Column::screen_only("TOOK", fixed(Length(7))), |e, cx| {
            let took = cx.of.calls.get(e.call_id).and_then(|c| c.duration_ms);
            Cell::from(took.map(duration_ms).unwrap_or_else(|| unread(e)))
        }),
        Shown::drawn(Column::screen_only("VALUE", fixed(Length(7))), value_cell),
        Shown::drawn(Column::screen_only("WORST FAILING", columns::fit(13, 34)), |e, cx| {
            let judged: Vec<&AlertStatus> = cx.of.alert.into_iter().collect();
            Cell::from(match cx.of.calls.values(e.call_id) {
                Some(groups) => {
                    evidence::worst_failing(groups, &judged).map_or("—".into(), |(slug, v)| format!("{slug} {v}"))
                }
                None => unread(e),
            })
        }),
        Shown::drawn(issue::EVIDENCE_ID, |e, cx| {
            let id = e.call_id.or(e.chat_id).map_or_else(|| "—".to_string(), |id| id.to_string()[..8].to_string());
            match cx.marks.contains(e.call_id.or(e.chat_id)) {
                true => Cell::from(format!("{} {id}", crate::console::marks::MARKER)),
                false => Cell::from(id),
            }
        }),
        Shown::drawn(issue::EVIDENCE_OBSERVED, |e, cx| {
            Cell::from(ago(e.observed_at.as_ref(), cx.now)).style(cx.theme.dim())
        }),
    ]
}

/// What stands in for a call not read yet (`…`); a chat has no call to describe (`—`).
fn unread(e: &Evidence) -> String {
    if e.call_id.is_some() { "…" } else { "—" }.into()
}

/// The evidence call's value of the alert's metric (the breaching value).
fn value_cell(e: &Evidence, cx: &Context<'_, IssueView<'_>>) -> Cell<'static> {
    let metric = cx.of.alert.and_then(|a| a.trigger.metric.as_deref());
    Cell::from(match (cx.of.calls.values(e.call_id), metric) {
        (Some(groups), Some(slug)) => evidence::value_of(groups, slug).map(number).unwrap_or_else(|| "—".into()),
        (None, Some(_)) => unread(e),
        (_, None) => "—".into(),
    })
}

/// What the issue detail draws.
pub struct IssueView<'a> {
    pub issue: &'a Issue,
    /// Not listed on the last visit.
    pub new: bool,
    pub evidence: &'a ListState<Evidence>,
    pub calls: &'a EvidenceCalls,
    pub scroll: &'a Scroll,
    /// The alert that raised the issue, once read.
    pub alert: Option<&'a AlertStatus>,
    /// The service has no such alert.
    pub alert_missing: bool,
}

pub fn evidence_id(e: &Evidence) -> String {
    e.id.or(e.call_id).or(e.chat_id).map(|id| id.to_string()).unwrap_or_default()
}

pub fn evidence_haystack(e: &Evidence) -> String {
    format!(
        "{} {} {}",
        e.call_id.map(|id| id.to_string()).unwrap_or_default(),
        e.chat_id.map(|id| id.to_string()).unwrap_or_default(),
        e.observed_at.as_ref().map(|t| t.to_string()).unwrap_or_default()
    )
}

fn facts(view: &IssueView<'_>, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let (issue, new, alert) = (view.issue, view.new, view.alert);
    let theme = ctx.theme;
    let mut lines = Lines::new(theme);
    if new {
        lines.line(Line::styled("● new since your last visit", theme.highlight()));
    }
    let severity = or_dash(issue.severity.as_ref().map(|s| s.as_str()));
    lines.line(Line::from(vec![
        Span::styled(format!("{:<21} ", "severity"), theme.dim()),
        Span::styled(severity.clone(), theme.severity(&severity)),
    ]));
    lines.status("status", issue.status.as_ref().map(|s| s.as_str()));
    let events = issue.event_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into());
    lines.kv(
        "events",
        format!(
            "{events} · last {} ({})",
            ago(issue.last_event_at.as_ref(), ctx.now),
            when(issue.last_event_at.as_ref())
        ),
    );
    lines.kv("opened", when(issue.opened_at.as_ref()));
    lines.opt("resolved", issue.resolved_at.as_ref().map(|t| when(Some(t))));
    match (issue.alert_id, alert) {
        (Some(_), Some(alert)) => {
            lines
                .section("trigger · a: open the alert")
                .kv("alert", format!("{} · {}", alert.name, alert.state.as_str()))
                .kv("threshold", alerts::trigger_text(&alert.trigger));
        }
        (Some(_), None) if view.alert_missing => {
            lines.section("trigger").text("the alert is not on this service");
        }
        (Some(_), None) => {
            lines.section("trigger").text("reading the alert…");
        }
        _ => {}
    }
    lines.section("summary").text(&or_dash(issue.summary.as_deref()));
    lines
        .section("record")
        .kv("source", or_dash(issue.source.as_ref().map(|s| s.as_str())))
        .kv("assignee", super::edit::assignee(issue.assignee_user_id))
        .opt("fingerprint", issue.fingerprint.as_ref())
        .opt("alert", issue.alert_id)
        .kv("id", issue.id.to_string())
        .kv("updated", when(issue.updated_at.as_ref()));
    lines.lines
}

/// The issue's facts above its evidence table.
pub fn draw(frame: &mut Frame, area: Rect, view: IssueView<'_>, ctx: &ViewCtx) {
    let theme = ctx.theme;
    // The evidence table gets its rows (plus border and header), up to half the height.
    let wanted = view.evidence.len().max(1) as u16 + 3;
    // An alert-born issue shows its group's windows between its facts and its evidence.
    let group = view.alert.and_then(|a| alerts::group_for(a, view.issue.fingerprint.as_deref()));
    let chart = view.alert.zip(group).and_then(|(a, g)| alerts::series(a, g));
    let chart_height = if chart.is_some() { (area.height / 4).max(5) } else { 0 };
    let [top, middle, bottom] =
        Layout::vertical([Fill(1), Length(chart_height), Length(wanted.min(area.height / 3).max(4))]).areas(area);
    let title = format!("{}issue · {}", if view.new { "● " } else { "" }, or_dash(view.issue.title.as_deref()));
    let title = fit(&title, top.width.saturating_sub(4) as usize);
    detail::draw(frame, top, &title, facts(&view, ctx), view.scroll, theme, false);
    if let Some(chart) = &chart {
        series::draw(frame, middle, chart, theme);
    }
    let columns = evidence_columns();
    let (title, empty) = ("evidence · enter opens the call".to_string(), "no evidence attached");
    let list = view.evidence;
    let context = Context::new(theme, ctx.now, ctx.marks, &view);
    table::draw_columns(frame, bottom, list, Columns { title, columns: &columns, context, focused: true, empty });
}

/// An evidence call with a line saying which issue it came from.
pub fn draw_call(frame: &mut Frame, area: Rect, issue: &str, conversation: &ConversationView, ctx: &ViewCtx) {
    let [crumb, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
    let text = fit(&format!(" evidence of issue · {issue}"), crumb.width.saturating_sub(14) as usize);
    frame.render_widget(
        Line::from(vec![Span::styled(text, ctx.theme.dim()), Span::styled("  esc: back", ctx.theme.key())]),
        crumb,
    );
    conversation.draw(frame, body, ctx);
}

/// An issue opened by id that is not (yet) here.
pub fn draw_missing(frame: &mut Frame, area: Rect, id: Uuid, load: &Load, theme: &Theme) {
    let text = match load {
        Load::Loading => format!("loading issue {id}…"),
        _ => format!("issue {id} is not loaded; esc goes back to the list"),
    };
    detail::draw(frame, area, "issue", vec![Line::styled(text, theme.dim())], &Scroll::default(), theme, true);
}
