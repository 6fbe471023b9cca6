//! How a form is drawn: its fields three rows each (label and hint, value, error), scrolled
//! to keep the focused one in view, and a footer with its keys or what to fix.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{Field, Form};
use crate::console::theme::Theme;
use crate::console::widgets::text::fit;

impl Form {
    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.saturating_sub(4).min(if self.fields.len() > 8 { 116 } else { 72 });
        let shown = self.shown();
        let height = (shown.len() as u16 * 3 + 3).min(area.height);
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        // A long form scrolls to keep the focused field in view.
        let rows = (popup.height.saturating_sub(3) / 3).max(1) as usize;
        let at = shown.iter().position(|&i| i == self.focus).unwrap_or(0);
        let first = (at + 1).saturating_sub(rows).min(shown.len().saturating_sub(rows));
        let more = match (first, shown.len().saturating_sub(first + rows)) {
            (0, 0) => String::new(),
            (above, below) => format!(" ↑{above} ↓{below} fields "),
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .title(format!(" {} ", self.title))
            .title(Line::styled(more, theme.dim()).right_aligned())
            .border_style(theme.title());
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let w = inner.width as usize;
        for (row, &i) in shown.iter().skip(first).take(rows).enumerate() {
            self.draw_field(frame, i, Rect { y: inner.y + row as u16 * 3, height: 3, ..inner }, theme);
        }
        let footer = match (&self.error, self.sending) {
            (_, true) => Span::styled("sending…", theme.warn()),
            (Some(error), _) => Span::styled(fit(&format!("✗ {error}"), w), theme.error()),
            (None, _) if self.has_errors() => {
                // Named, because in a long form some of them are scrolled out of view.
                let marked: Vec<&str> = shown
                    .iter()
                    .filter(|&&i| self.fields[i].error.is_some())
                    .map(|&i| self.fields[i].label.trim())
                    .collect();
                Span::styled(fit(&format!("fix ✗ {} · esc cancels", marked.join(", ")), w), theme.dim())
            }
            (None, _) => {
                // Short enough for 80 columns; F1 lists every key.
                let mut keys = vec!["enter sends"];
                keys.push(if self.fields.iter().any(Field::filters) {
                    "←→/type choose"
                } else {
                    "tab/↑↓ field"
                });
                if self.fields.iter().any(Field::is_pick) {
                    keys.push("space picks");
                }
                keys.extend(["esc cancels", "F1 keys"]);
                let keys = keys.join(" · ");
                Span::styled(fit(&keys, w), theme.dim())
            }
        };
        let y = inner.y + inner.height.saturating_sub(1);
        frame.render_widget(Paragraph::new(footer), Rect { y, height: 1, ..inner });
    }

    /// Field `i` in its three rows: label and hint, value, error.
    fn draw_field(&self, frame: &mut Frame, i: usize, area: Rect, theme: &Theme) {
        let field = &self.fields[i];
        let focused = i == self.focus;
        let label_style = if focused { theme.key().add_modifier(Modifier::BOLD) } else { theme.heading() };
        let label_width = field.label.chars().count() + 2;
        let label = Line::from(vec![
            Span::styled(format!("{} ", if focused { "▸" } else { " " }), theme.key()),
            Span::styled(field.label.clone(), label_style),
            Span::styled(
                fit(&format!("  {}", field.hint), (area.width as usize).saturating_sub(label_width)),
                theme.dim(),
            ),
        ]);
        frame.render_widget(Paragraph::new(label), Rect { height: 1, ..area });
        let input_area = Rect { x: area.x + 2, y: area.y + 1, width: area.width.saturating_sub(2), height: 1 };
        match field.input() {
            Some(input) if focused && !self.sending => frame.render_widget(input, input_area),
            _ => frame.render_widget(Paragraph::new(field.line(focused, input_area.width as usize, theme)), input_area),
        }
        if let Some(error) = &field.error {
            let line = Span::styled(fit(&format!("✗ {error}"), input_area.width as usize), theme.error());
            frame.render_widget(Paragraph::new(line), Rect { y: area.y + 2, ..input_area });
        }
    }
}

/// A `width`×`height` box in the middle of `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}
