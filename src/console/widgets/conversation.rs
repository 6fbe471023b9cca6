//! A call's (or chat's) transcript beside its metric values: opened from a simulation job, an
//! issue's evidence, or a metric value. h/l move between the two sides; Enter opens a value's
//! reasoning; z zooms the focused side; + / - label the selected value right or wrong. Side by side where both fit at a readable width, one
//! above the other below that; a simulation's failed checks come first, with their reasoning.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use uuid::Uuid;

use super::detail::{self, Scroll};
use super::list::{ListState, Load, Shape};
use super::table::{self, Cell, Columns, Context, NEVER, Shown};
use super::text::{duration_ms, fit_line, or_dash, when};
use super::values::{self, ValueRow};
use crate::api::model::{AnnotationInput, AnnotationLabel, CaptureStatus, FailedCheck, TranscriptEntry};
use crate::console::keymap::Action;
use crate::console::marks::MARKER;
use crate::console::message::{Conversation, FetchError, Fetched, Request, Selection};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;

/// Side by side from this width; the values then take a share of it within these bounds.
const SIDE_BY_SIDE: u16 = 130;
const VALUES_MIN: u16 = 56;
const VALUES_MAX: u16 = 96;

/// The values of one call beside its transcript, by the width of that side: the metric (with
/// its turn and label, which the view knows) and its value always, then role and confidence,
/// then context; the call is the view's own, and when a value was computed is in its detail.
pub const CALL_COLUMNS: &[Shown<ValueRow, ConversationView>] = &[
    Shown::drawn(values::METRIC, metric_cell),
    Shown::plain(values::CONVERSATION).at_least(NEVER),
    Shown::plain(values::CONTEXT).at_least(92),
    Shown::plain(values::ROLE).at_least(62),
    Shown::drawn(values::VALUE, values::value_cell),
    Shown::plain(values::CONF).at_least(62),
    Shown::plain(values::COMPUTED).at_least(NEVER),
];

/// A value's metric as the call view names it: with the person's label on it, else with the
/// script step it judged, else with the transcript turn it points at when the metric has
/// several values here.
fn metric_cell(r: &ValueRow, cx: &Context<'_, ConversationView>) -> Cell<'static> {
    let view = cx.of;
    if let Some((label, local)) = view.labels.get(&(r.metric.id, r.index)) {
        let (mark, style) =
            if *label == AnnotationLabel::Right { ("✓", cx.theme.ok()) } else { ("✗", cx.theme.error()) };
        let local = if *local { " (local)" } else { "" };
        return Cell::from(format!("{mark} {}{local}", r.metric.name)).style(style);
    }
    if let Some(step) = values::step_name(r) {
        return Cell::from(step);
    }
    match view.turn_of(r) {
        Some(turn) => Cell::from(format!("{} · turn {turn}", r.metric.name)),
        None => Cell::from(r.metric.name.clone()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Transcript,
    Values,
}

pub struct ConversationView {
    pub call_id: Uuid,
    pub call: Option<crate::api::model::Call>,
    pub chat: Option<crate::api::model::Chat>,
    /// Whether `call_id` names a chat rather than a call.
    is_chat: bool,
    pub transcript: ListState<TranscriptEntry>,
    pub values: ListState<ValueRow>,
    side: Side,
    /// The selected value's detail is open.
    detail: bool,
    scroll: Scroll,
    transcript_shape: Shape<TranscriptEntry>,
    values_shape: Shape<ValueRow>,
    /// The checks the simulation failed (empty outside a simulation): shown first, with reasons.
    pub failed_checks: Vec<FailedCheck>,
    /// The focused side fills the view.
    zoom: bool,
    /// People's labels on this conversation's values, by (metric, index): the label, and
    /// whether it is kept only in the local cache (the service has no labels route).
    pub labels: HashMap<(Uuid, usize), (AnnotationLabel, bool)>,
}

/// Where a label is kept, as the call view says it.
pub const LOCAL_LABEL_NOTE: &str = "kept in the local cache only (this service has no labels route)";

impl ConversationView {
    /// Opens call `call_id` and asks for it.
    pub fn open(call_id: Uuid, out: &mut Out) -> Self {
        Self::start(call_id, false, out)
    }

    /// Opens chat `chat_id` and asks for it.
    pub fn open_chat(chat_id: Uuid, out: &mut Out) -> Self {
        Self::start(chat_id, true, out)
    }

    fn start(call_id: Uuid, is_chat: bool, out: &mut Out) -> Self {
        let mut view = ConversationView {
            call_id,
            call: None,
            chat: None,
            is_chat,
            transcript: ListState::new(),
            values: ListState::new(),
            side: Side::Transcript,
            detail: false,
            scroll: Scroll::default(),
            transcript_shape: Shape::new(|e| e.text.clone(), |a, b, _| a.start_offset_ms.cmp(&b.start_offset_ms)),
            values_shape: Shape::columns(values::haystack, CALL_COLUMNS),
            failed_checks: Vec::new(),
            zoom: false,
            labels: HashMap::new(),
        };
        view.refresh(out);
        view
    }

    pub fn refresh(&mut self, out: &mut Out) {
        if self.call.is_none() && self.chat.is_none() {
            self.transcript.load = Load::Loading;
            self.values.load = Load::Loading;
        }
        out.fetch(self.request());
    }

    fn request(&self) -> Request {
        if self.is_chat { Request::ChatConversation(self.call_id) } else { Request::Conversation(self.call_id) }
    }

    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        match (request, result) {
            (request, Ok(Fetched::Conversation(c))) if *request == self.request() => {
                let Conversation { call, chat, transcript, metrics } = c.as_ref();
                self.call = call.clone();
                self.chat = chat.clone();
                self.transcript.replace(
                    transcript.entries.clone(),
                    |e| e.start_offset_ms.to_string(),
                    &self.transcript_shape,
                );
                self.values.replace(
                    self.failed_first(values::rows(metrics)),
                    |r| format!("{}{:?}", r.metric.id, r.value.computed_at),
                    &self.values_shape,
                );
                self.transcript.load = Load::Fresh;
                self.values.load = Load::Fresh;
                true
            }
            (request, Err(error)) if *request == self.request() => {
                self.transcript.load = Load::Failed(error.message.clone());
                self.values.load = Load::Failed(error.message.clone());
                true
            }
            _ => false,
        }
    }

    /// The values of the failed checks first, the rest in the service's order.
    fn failed_first(&self, rows: Vec<ValueRow>) -> Vec<ValueRow> {
        let failed = |r: &ValueRow| {
            r.value.value == Some(0.0) && self.failed_checks.iter().any(|f| f.metric_definition_id == r.metric.id)
        };
        let (mut first, rest): (Vec<ValueRow>, Vec<ValueRow>) = rows.into_iter().partition(failed);
        first.extend(rest);
        first
    }

    pub fn action(&mut self, action: Action) -> bool {
        if action == Action::Zoom {
            self.zoom = !self.zoom;
            return true;
        }
        if self.detail {
            return self.scroll.action(action);
        }
        let list_move = |list: &mut dyn FnMut(isize), action| match action {
            Action::Up => list(-1),
            Action::Down => list(1),
            Action::PageUp => list(-20),
            Action::PageDown => list(20),
            Action::Top => list(isize::MIN / 2),
            Action::Bottom => list(isize::MAX / 2),
            _ => {}
        };
        match action {
            Action::Left => self.side = Side::Transcript,
            Action::Right => self.side = Side::Values,
            Action::Open if self.side == Side::Values && self.values.selected().is_some() => {
                self.detail = true;
                self.scroll = Scroll::default();
            }
            Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {
                match self.side {
                    Side::Transcript => list_move(&mut |d| self.transcript.move_by(d), action),
                    Side::Values => list_move(&mut |d| self.values.move_by(d), action),
                }
            }
            Action::Sort if self.side == Side::Values => {
                self.values.cycle_sort(CALL_COLUMNS.len());
                self.values.reshape(&self.values_shape);
            }
            Action::SortReverse if self.side == Side::Values => {
                self.values.reverse_sort();
                self.values.reshape(&self.values_shape);
            }
            _ => return false,
        }
        true
    }

    /// `+` / `-`: the label for the selected value, or why it cannot be labelled.
    pub fn label(&self, right: bool) -> Result<AnnotationInput, String> {
        if self.is_chat {
            return Err("labels are for call values".into());
        }
        let row = match (self.side, self.values.selected()) {
            (Side::Values, Some(row)) => row,
            _ => return Err("select a metric value first (l focuses the values)".into()),
        };
        let status = row.value.capture_status.clone().unwrap_or(CaptureStatus::Success);
        if status != CaptureStatus::Success {
            return Err(format!("{} is {status}: only a value the judge gave can be labelled", row.metric.name));
        }
        Ok(AnnotationInput {
            call_id: Some(self.call_id),
            metric_definition_id: Some(row.metric.id),
            value_index: Some(row.index as i64),
            label: Some(if right { AnnotationLabel::Right } else { AnnotationLabel::Wrong }),
            ..Default::default()
        })
    }

    /// A label was kept (on the service, or only locally).
    pub fn labelled(&mut self, metric: Uuid, index: usize, label: AnnotationLabel, local: bool) {
        self.labels.insert((metric, index), (label, local));
    }

    /// Esc: closes a value's detail; false when there is none open.
    pub fn back(&mut self) -> bool {
        std::mem::take(&mut self.detail)
    }

    pub fn filter(&self) -> String {
        match self.side {
            Side::Transcript => self.transcript.filter.clone(),
            Side::Values => self.values.filter.clone(),
        }
    }

    pub fn set_filter(&mut self, text: &str) {
        match self.side {
            Side::Transcript => {
                self.transcript.filter = text.into();
                self.transcript.reshape(&self.transcript_shape);
            }
            Side::Values => {
                self.values.filter = text.into();
                self.values.reshape(&self.values_shape);
            }
        }
    }

    /// The selected value on the values side, else the call.
    pub fn selection(&self) -> Option<Selection> {
        if self.side == Side::Values
            && let Some(row) = self.values.selected()
        {
            return Some(Selection::of(row.metric.id, row));
        }
        match (&self.call, &self.chat) {
            (Some(call), _) => Some(Selection::of(call.id, call)),
            (_, Some(chat)) => Some(Selection::of(chat.id, chat)),
            _ => None,
        }
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        if self.detail {
            return vec![(Action::Down, "scroll the reasoning"), (Action::Back, "back to the values")];
        }
        // Marking and filing come first, so the footer offers them at 80 columns too.
        vec![
            (Action::Open, "a value's reasoning"),
            (Action::Mark, "mark the call"),
            (Action::FileIssue, "file an issue"),
            (Action::Right, "focus the metric values"),
            (Action::Left, "focus the transcript"),
            (Action::Sort, "sort the values"),
            (Action::Zoom, "zoom the focused side to the whole view (again: both)"),
            (Action::LabelRight, "label the value right"),
            (Action::LabelWrong, "label it wrong"),
            (Action::Back, "back"),
        ]
    }

    /// The transcript turn (from 1) a value points at, when its metric has several values on
    /// this conversation, so repeated rows (a latency per agent turn) tell themselves apart.
    fn turn_of(&self, row: &ValueRow) -> Option<usize> {
        let start = row.value.segment.as_ref().or(row.value.from_segment.as_ref())?.start_offset_ms?;
        let repeated = self.values.items.iter().filter(|r| r.metric.id == row.metric.id).nth(1).is_some();
        let entries = &self.transcript.items;
        let turn = entries.iter().rposition(|e| e.start_offset_ms <= start).or((!entries.is_empty()).then_some(0))?;
        repeated.then_some(turn + 1)
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let [summary, body] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        let call = self.call.as_ref();
        let chat_status = self.chat.as_ref().and_then(|c| c.status.as_ref());
        let status = call
            .and_then(|c| c.status.as_ref())
            .or(chat_status)
            .map(|s| s.as_str().to_string())
            .unwrap_or_else(|| "…".into());
        let noun = if self.is_chat { "chat" } else { "call" };
        let started =
            call.and_then(|c| c.started_at.as_ref()).or(self.chat.as_ref().and_then(|c| c.started_at.as_ref()));
        let line = Line::from(vec![
            Span::styled(format!(" {noun} {} ", self.call_id), theme.heading()),
            Span::styled(
                if ctx.marks.contains(Some(self.call_id)) { format!("{} marked ", MARKER) } else { String::new() },
                theme.key(),
            ),
            Span::styled(status.clone(), theme.status(&status)),
            Span::styled(
                format!(
                    "  {} · {} · ended {}",
                    call.and_then(|c| c.duration_ms).map(duration_ms).unwrap_or_else(|| "—".into()),
                    when(started),
                    or_dash(call.and_then(|c| c.ended_status.as_ref()).map(|s| s.as_str())),
                ),
                theme.dim(),
            ),
        ]);
        frame.render_widget(fit_line(line, summary.width as usize), summary);
        let (transcript, failed, right) = self.layout(body, ctx.theme);
        if let Some(area) = transcript {
            super::transcript::draw(frame, area, &self.transcript, self.side == Side::Transcript, theme);
        }
        if let Some(area) = failed {
            self.draw_failed_checks(frame, area, ctx);
        }
        let Some(right) = right else { return };
        if self.detail
            && let Some(row) = self.values.selected()
        {
            detail::draw(
                frame,
                right,
                &format!("{} · value", row.metric.name),
                values::detail(row, theme),
                &self.scroll,
                theme,
                true,
            );
            return;
        }
        let context = Context::new(theme, ctx.now, ctx.marks, self);
        let view = Columns {
            title: "metric values".into(),
            columns: CALL_COLUMNS,
            context,
            focused: self.side == Side::Values,
            empty: "no metric values for this conversation",
        };
        table::draw_columns(frame, right, &self.values, view);
    }

    /// Where the transcript, the failed checks and the values go: the transcript beside the
    /// checks-and-values column when both fit at a readable width, else all three stacked;
    /// zoomed, the focused side takes it all. The failed checks get the lines their reasons
    /// need, up to two fifths of their column.
    fn layout(&self, body: Rect, theme: &crate::console::theme::Theme) -> (Option<Rect>, Option<Rect>, Option<Rect>) {
        let failed_height = |area: Rect| {
            let lines = self.failed_lines(theme);
            if lines.is_empty() || self.detail {
                return 0;
            }
            let width = area.width.saturating_sub(2).max(1) as usize;
            let needed: usize = lines.iter().map(|l| l.width().div_ceil(width).max(1)).sum();
            (needed as u16 + 2).min(area.height * 2 / 5).max(3.min(area.height))
        };
        let split = |area: Rect| {
            let [failed, values] =
                Layout::vertical([Constraint::Length(failed_height(area)), Constraint::Fill(1)]).areas(area);
            ((failed.height > 0).then_some(failed), Some(values))
        };
        if self.zoom {
            return match self.side {
                Side::Transcript => (Some(body), None, None),
                Side::Values => {
                    let (failed, values) = split(body);
                    (None, failed, values)
                }
            };
        }
        if body.width >= SIDE_BY_SIDE {
            let values = (body.width * 2 / 5).clamp(VALUES_MIN, VALUES_MAX);
            let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Length(values)]).areas(body);
            let (failed, values) = split(right);
            (Some(left), failed, values)
        } else {
            let failed = failed_height(body);
            let [top, middle, bottom] =
                Layout::vertical([Constraint::Percentage(55), Constraint::Length(failed), Constraint::Percentage(45)])
                    .areas(body);
            ((Some(top)), (failed > 0).then_some(middle), Some(bottom))
        }
    }

    /// A line per failed check: its name, then the judge's reason.
    fn failed_lines(&self, theme: &crate::console::theme::Theme) -> Vec<Line<'static>> {
        self.failed_checks
            .iter()
            .map(|check| {
                let name = check.name();
                let mut spans = vec![Span::styled("✗ ", theme.error()), Span::styled(name, theme.heading())];
                if let Some(reason) = &check.value_reasoning {
                    spans.push(Span::styled(" — ", theme.dim()));
                    spans.push(Span::raw(reason.clone()));
                }
                Line::from(spans)
            })
            .collect()
    }

    /// The simulation's failed checks with the judge's reasoning.
    fn draw_failed_checks(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let title = Span::styled(format!(" failed checks [{}] ", self.failed_checks.len()), theme.error());
        let block = Block::default().borders(Borders::ALL).border_style(theme.dim()).title(title);
        frame.render_widget(Paragraph::new(self.failed_lines(theme)).wrap(Wrap { trim: true }).block(block), area);
    }
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
