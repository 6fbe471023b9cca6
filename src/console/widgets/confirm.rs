//! The yes/no dialog before a write that cannot be undone (delete, cancel), or before a form
//! with changes is thrown away: `y` or Enter goes ahead, `n` or Esc does not.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
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
        let lines = textwrap_lines(&self.question, width.saturating_sub(2) as usize);
        let popup = centered(area, width, lines + 4);
        frame.render_widget(Clear, popup);
        let block =
            Block::default().borders(Borders::ALL).title(format!(" {} ", self.title)).border_style(theme.warn());
        let mut text: Vec<Line> = self.question.lines().map(|l| Line::raw(l.to_string())).collect();
        text.extend([
            Line::raw(""),
            Line::from(vec![
                Span::styled("y", theme.key()),
                Span::styled("/enter yes   ", theme.dim()),
                Span::styled("n", theme.key()),
                Span::styled("/esc no", theme.dim()),
            ]),
        ]);
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).block(block), popup);
    }
}

/// Roughly how many lines `text` takes wrapped at `width` (for the dialog's height).
fn textwrap_lines(text: &str, width: usize) -> u16 {
    let wrapped = |line: &str| unicode_width::UnicodeWidthStr::width(line).div_ceil(width.max(1)).max(1);
    text.lines().map(wrapped).sum::<usize>().max(1) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    #[test]
    fn yes_gives_the_write_and_other_keys_do_nothing() {
        let write = Write::CancelJob(uuid::Uuid::nil());
        let dialog = Confirm::new("cancel", "Cancel job?", write.clone());
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(dialog.key(key(KeyCode::Char('y'))), Answer::Yes(Some(write)));
        assert_eq!(Confirm::ask("discard", "Discard?").key(key(KeyCode::Enter)), Answer::Yes(None));
        assert_eq!(dialog.key(key(KeyCode::Esc)), Answer::No);
        assert_eq!(dialog.key(key(KeyCode::Char('q'))), Answer::Ignored);
    }
}
