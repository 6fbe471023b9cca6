//! How a job's values look: the job and its filters above, then the values, the per-metric
//! summary or one value's detail; a call's transcript over all of it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use super::{JobValues, Mode};
use crate::api::model::ValueStatusFilter;
use crate::console::keymap::Action;
use crate::console::pane::ViewCtx;
use crate::console::panes::metrics::lists::progress_line;
use crate::console::widgets::detail;
use crate::console::widgets::stats;
use crate::console::widgets::table::{self, Columns, Context};
use crate::console::widgets::values;

impl JobValues {
    pub fn help(&self) -> Vec<(Action, &'static str)> {
        if let Some(c) = &self.conversation {
            return c.help();
        }
        let filters = [
            (Action::ToggleAll, "successful values only, or all (refetches)"),
            (Action::StatusFilter, "cycle the capture status shown"),
            (Action::SecondFilter, "cycle the metric shown"),
        ];
        match self.mode {
            Mode::Detail => vec![
                (Action::Down, "scroll the reasoning"),
                (Action::Open, "the call's transcript"),
                (Action::Right, "the call's transcript"),
                (Action::Back, "back to the values"),
            ],
            Mode::Summary => {
                let mut keys = vec![
                    (Action::Open, "show this metric's values"),
                    (Action::Summary, "back to the values"),
                    (Action::Sort, "sort by the next column"),
                    (Action::SortReverse, "reverse the sort"),
                ];
                keys.extend(filters);
                keys.push((Action::Back, "back to the values"));
                keys
            }
            Mode::Table => {
                let mut keys = vec![
                    (Action::Open, "the value's reasoning and segments"),
                    (Action::Right, "the value's call transcript"),
                    (Action::Summary, "per-metric summary"),
                ];
                keys.extend(filters);
                keys.extend([
                    (Action::Sort, "sort by the next column"),
                    (Action::SortReverse, "reverse the sort"),
                    (Action::Back, "back to the jobs"),
                ]);
                keys
            }
        }
    }

    /// Why no value is shown.
    fn empty(&self) -> &'static str {
        match (self.rows.fetching, self.status.is_some() || self.metric.is_some()) {
            (true, _) => "loading…",
            (false, true) => "no values match the status and metric filters (f, F)",
            (false, false) => "this job produced no values",
        }
    }

    /// Where the view is, for the section bar.
    pub fn crumb(&self) -> String {
        let at = match (&self.conversation, self.mode) {
            (Some(_), _) => " › call transcript",
            (None, Mode::Summary) => " › summary",
            (None, Mode::Detail) => " › value",
            (None, Mode::Table) => "",
        };
        format!("› job {} values{at}", &self.job.id.to_string()[..8])
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        if let Some(conversation) = &self.conversation {
            return conversation.draw(frame, area, ctx);
        }
        let theme = ctx.theme;
        let [head, body] = Layout::vertical([Constraint::Length(2), Constraint::Fill(1)]).areas(area);
        let job = &self.job;
        let status = job.status.as_ref().map_or("—", |s| s.as_str()).to_string();
        let mut first = vec![
            Span::styled(format!(" job {} ", &job.id.to_string()[..8]), theme.heading()),
            Span::styled(status.clone(), theme.status(&status)),
            Span::raw(" "),
        ];
        first.extend(progress_line(job, theme).spans);
        first.push(Span::styled(
            format!(
                " items · {} failed · {}",
                job.failed_items.unwrap_or(0),
                job.triggered_by.as_ref().map_or("—", |t| t.as_str())
            ),
            theme.dim(),
        ));
        let set = |on: bool| if on { theme.highlight() } else { theme.dim() };
        let scope = if self.scope == ValueStatusFilter::All { "all values" } else { "successful values" };
        let status_style = self.status.as_deref().map_or(theme.dim(), |s| theme.status(s));
        let second = vec![
            Span::styled(" showing ", theme.dim()),
            Span::styled(scope, set(self.scope == ValueStatusFilter::All)),
            Span::styled(" · status ", theme.dim()),
            Span::styled(self.status.clone().unwrap_or_else(|| "any".into()), status_style),
            Span::styled(" · metric ", theme.dim()),
            Span::styled(self.metric.as_ref().map_or("any".into(), |m| m.name.clone()), set(self.metric.is_some())),
        ];
        frame.render_widget(ratatui::widgets::Paragraph::new(vec![Line::from(first), Line::from(second)]), head);
        if self.mode == Mode::Detail
            && let Some(row) = self.rows.selected()
        {
            let mut lines = values::detail(row, theme);
            if let Some(call) = row.value.call_id {
                lines.push(Line::raw(""));
                lines.push(Line::styled(format!("enter or l: the transcript of call {call}"), theme.dim()));
            }
            detail::draw(frame, body, &format!("{} · value", row.metric.name), lines, &self.scroll, theme, true);
            return;
        }
        // Narrow screens drop the last column (computed at, what is not captured) so the
        // values and their capture statuses keep room to be read: the columns say so.
        let context = Context::new(theme, ctx.now, ctx.marks, &());
        match self.mode {
            Mode::Summary => {
                let title = "per-metric summary".into();
                let (columns, empty) = (stats::SUMMARY_COLUMNS, "no values to sum up");
                table::draw_columns(
                    frame,
                    body,
                    &self.summary,
                    Columns { title, columns, context, focused: true, empty },
                );
            }
            _ => {
                let (title, columns, empty) = ("metric values".into(), values::COLUMNS, self.empty());
                table::draw_columns(frame, body, &self.rows, Columns { title, columns, context, focused: true, empty });
            }
        }
    }
}
