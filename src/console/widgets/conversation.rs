//! A call's (or chat's) transcript beside its metric values: opened from a simulation job, an
//! issue's evidence, or a metric value. h/l move between the two sides; Enter opens a value's reasoning.

use crate::console::widgets::table::Cell;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use uuid::Uuid;

use super::detail::{self, Scroll};
use super::list::{ListState, Load, Shape};
use super::table::{self, Column, TableView, col};
use super::text::{duration_ms, offset_ms, or_dash, when};
use super::values::{self, ValueRow};
use crate::api::model::TranscriptEntry;
use crate::console::keymap::Action;
use crate::console::marks::MARKER;
use crate::console::message::{Conversation, FetchError, Fetched, Request};
use crate::console::pane::{Out, Selection, ViewCtx};

const TRANSCRIPT: &[Column] =
    &[col("AT", Constraint::Length(8)), col("SPEAKER", Constraint::Length(9)), col("TEXT", Constraint::Fill(1))];

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
}

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
            values_shape: Shape::new(values::haystack, values::compare),
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
                    values::rows(metrics),
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

    pub fn action(&mut self, action: Action) -> bool {
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
                self.values.cycle_sort(values::COLUMNS.len());
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
        vec![
            (Action::Right, "focus the metric values"),
            (Action::Left, "focus the transcript"),
            (Action::Open, "a value's reasoning and segments"),
            (Action::Sort, "sort the values"),
            (Action::Back, "back"),
        ]
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
        frame.render_widget(
            Line::from(vec![
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
            ]),
            summary,
        );
        let wide = body.width >= 120;
        let [left, right] = if wide {
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body)
        } else {
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body)
        };
        let transcript_row = |e: &TranscriptEntry| {
            let role = e.role.as_ref().map(|r| r.as_str().to_string()).unwrap_or_else(|| "—".into());
            let style = if role == "AGENT" {
                theme.agent()
            } else if role.contains("CUSTOMER") {
                theme.customer()
            } else {
                theme.dim()
            };
            vec![
                Cell::from(offset_ms(e.start_offset_ms)),
                Cell::from(role.to_lowercase()).style(style),
                Cell::from(e.text.clone()),
            ]
        };
        table::draw(
            frame,
            left,
            &self.transcript,
            TableView {
                title: "transcript".into(),
                columns: TRANSCRIPT,
                row: &transcript_row,
                focused: self.side == Side::Transcript,
                empty: "no transcript",
            },
            theme,
        );
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
        let value_row = |r: &ValueRow| values::cells(r, theme, ctx.marks);
        table::draw(
            frame,
            right,
            &self.values,
            TableView {
                title: "metric values".into(),
                columns: values::COLUMNS,
                row: &value_row,
                focused: self.side == Side::Values,
                empty: "no metric values for this conversation",
            },
            theme,
        );
    }
}
