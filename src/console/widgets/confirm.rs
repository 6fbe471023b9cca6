//! The yes/no dialog before a write that cannot be undone (delete, cancel), or before a form
//! with changes is thrown away: `y` or Enter goes ahead, `n` or Esc does not.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::form::centered;
use crate::console::message::Write;
use crate::console::theme::Theme;

/// A question, and the write to send when the answer is yes (none when yes only closes).
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub title: String,
    pub question: String,
    pub write: Option<Write>,
}

/// What a key did to the dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Yes(Option<Write>),
    No,
    /// Not a key the dialog uses; the dialog stays.
    Ignored,
}

impl Confirm {
    pub fn new(title: impl Into<String>, question: impl Into<String>, write: Write) -> Confirm {
        Confirm { title: title.into(), question: question.into(), write: Some(write) }
    }

    /// A question whose yes sends nothing (throw away a form's changes).
    pub fn ask(title: impl Into<String>, question: impl Into<String>) -> Confirm {
        Confirm { title: title.into(), question: question.into(), write: None }
    }

    pub fn key(&self, key: KeyEvent) -> Answer {
        match key.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => Answer::Yes(self.write.clone()),
            KeyCode::Char('n' | 'N') | KeyCode::Esc => Answer::No,
            _ => Answer::Ignored,
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.saturating_sub(4).min(60);
        let inner_width = usize::from(width.saturating_sub(2)).max(1);
        let question_lines: usize = self.question.lines().map(|l| textwrap::wrap(l, inner_width).len().max(1)).sum();
        // The question, a blank line, the keys, and the borders.
        let height = u16::try_from(question_lines + 4).unwrap_or(u16::MAX);
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        let block =
            Block::default().borders(Borders::ALL).title(format!(" {} ", self.title)).border_style(theme.warn());
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        // The keys have a row of their own, so a question that wraps more than reckoned never
        // pushes them out of the dialog.
        let [question, _, keys] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(inner);
        let text: Vec<Line> = self.question.lines().map(|l| Line::raw(l.to_string())).collect();
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), question);
        let keys_line = Line::from(vec![
            Span::styled("y", theme.key()),
            Span::styled("/enter yes   ", theme.dim()),
            Span::styled("n", theme.key()),
            Span::styled("/esc no", theme.dim()),
        ]);
        frame.render_widget(Paragraph::new(keys_line), keys);
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    /// However the question wraps, the dialog is tall enough for its keys.
    #[test]
    fn the_keys_show_under_a_question_that_wraps() {
        let question = "Apply this change?\ncreate flow/appointment-reschedule-basic\n  creates a new flow from this \
                        file; the one you opened stays as it is (the service keeps it, or its name is shared)";
        let confirm = Confirm::ask("flow/x", question);
        let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("a test terminal");
        terminal.draw(|f| confirm.draw(f, f.area(), &Theme::new("dark", true))).expect("drawn");
        let screen: String = terminal.backend().buffer().content().iter().map(|c| c.symbol()).collect();
        assert!(screen.contains("/enter yes"), "{screen}");
    }
}
