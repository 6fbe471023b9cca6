//! Detail views: labelled facts and sections as lines, drawn wrapped and scrollable.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::console::keymap::Action;
use crate::console::theme::Theme;

/// Builds the lines of a detail view.
pub struct Lines<'t> {
    pub theme: &'t Theme,
    pub lines: Vec<Line<'static>>,
}

impl<'t> Lines<'t> {
    pub fn new(theme: &'t Theme) -> Self {
        Lines { theme, lines: Vec::new() }
    }

    /// `label  value`, the label padded so values line up.
    pub fn kv(&mut self, label: &str, value: impl Into<String>) -> &mut Self {
        self.lines
            .push(Line::from(vec![Span::styled(format!("{label:<21} "), self.theme.dim()), Span::raw(value.into())]));
        self
    }

    /// Like `kv` when there is a value; nothing otherwise.
    pub fn opt(&mut self, label: &str, value: Option<impl ToString>) -> &mut Self {
        if let Some(value) = value {
            let value = value.to_string();
            if !value.is_empty() {
                self.kv(label, value);
            }
        }
        self
    }

    /// A status as text in its family's colour.
    pub fn status(&mut self, label: &str, status: Option<&str>) -> &mut Self {
        let status = status.unwrap_or("—").to_string();
        let style = self.theme.status(&status);
        self.lines.push(Line::from(vec![
            Span::styled(format!("{label:<21} "), self.theme.dim()),
            Span::styled(status, style),
        ]));
        self
    }

    pub fn section(&mut self, title: &str) -> &mut Self {
        if !self.lines.is_empty() {
            self.lines.push(Line::raw(""));
        }
        self.lines.push(Line::styled(title.to_string(), self.theme.heading()));
        self
    }

    pub fn text(&mut self, text: &str) -> &mut Self {
        for line in text.lines() {
            self.lines.push(Line::raw(format!("  {line}")));
        }
        self
    }

    pub fn line(&mut self, line: Line<'static>) -> &mut Self {
        self.lines.push(line);
        self
    }

    pub fn list(&mut self, label: &str, items: impl IntoIterator<Item = impl ToString>) -> &mut Self {
        let items: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
        self.kv(label, if items.is_empty() { "—".to_string() } else { items.join(", ") })
    }
}

/// Scroll position of a detail view.
#[derive(Debug, Default)]
pub struct Scroll {
    pub top: u16,
    /// Lines in view at the last draw, for paging.
    pub height: Cell<u16>,
}

impl Scroll {
    /// Moves by an action; true when it was a scrolling action.
    pub fn action(&mut self, action: Action) -> bool {
        let page = self.height.get().max(1);
        match action {
            Action::Down => self.top = self.top.saturating_add(1),
            Action::Up => self.top = self.top.saturating_sub(1),
            Action::PageDown => self.top = self.top.saturating_add(page),
            Action::PageUp => self.top = self.top.saturating_sub(page),
            Action::Top => self.top = 0,
            Action::Bottom => self.top = u16::MAX / 2,
            _ => return false,
        }
        true
    }
}

/// Draws `lines` in a bordered, wrapped, scrolled block.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    scroll: &Scroll,
    theme: &Theme,
    focused: bool,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {title} "), theme.title()))
        .border_style(if focused { theme.title() } else { theme.dim() });
    let inner = block.inner(area);
    scroll.height.set(inner.height);
    let paragraph = Paragraph::new(Text::from(lines)).wrap(Wrap { trim: false });
    let total = paragraph.line_count(inner.width) as u16;
    let top = scroll.top.min(total.saturating_sub(inner.height));
    frame.render_widget(paragraph.block(block).scroll((top, 0)), area);
}

impl Lines<'_> {
    /// Every member of a JSON object as facts, nested objects indented: for resources whose
    /// every field matters (a persona's traits) and for members this build does not know.
    pub fn json_fields(&mut self, value: &serde_json::Value, skip: &[&str]) -> &mut Self {
        self.json_at(value, 0, skip);
        self
    }

    fn json_at(&mut self, value: &serde_json::Value, depth: usize, skip: &[&str]) {
        let serde_json::Value::Object(map) = value else { return };
        let indent = "  ".repeat(depth);
        for (key, value) in map {
            if depth == 0 && skip.contains(&key.as_str()) {
                continue;
            }
            let label = format!("{indent}{}", words(key));
            match value {
                serde_json::Value::Object(inner) if !inner.is_empty() => {
                    self.lines.push(Line::styled(label, self.theme.dim()));
                    self.json_at(value, depth + 1, skip);
                }
                serde_json::Value::Array(items) if items.iter().any(|i| i.is_object()) => {
                    self.lines.push(Line::styled(format!("{label} ({})", items.len()), self.theme.dim()));
                    for item in items {
                        self.json_at(item, depth + 1, skip);
                    }
                }
                other => {
                    self.kv(&label, scalar(other));
                }
            }
        }
    }
}

/// `backgroundNoise` → `background noise`.
pub fn words(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_uppercase() {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else if c == '_' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

fn scalar(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".into(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}
