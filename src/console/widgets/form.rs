//! The one form every write uses: labelled fields (a one-line `TextArea` or a choice among an
//! enum's known values), each showing its default and limit, checked on every keystroke with
//! the input type's own `validate()`, and showing the service's errors under the field its
//! `param` names. The pane owns the form and builds its input from `value(param)`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui_textarea::TextArea;

use crate::api::validate::Violation;
use crate::api::wire_enum::WireEnum;
use crate::console::message::WriteError;
use crate::console::theme::Theme;
use crate::console::widgets::text::fit;

/// The empty choice of an optional enum field.
pub const NONE: &str = "(none)";

enum Kind {
    Text(Box<TextArea<'static>>),
    Choice { values: Vec<String>, index: usize },
}

pub struct Field {
    /// The wire name (`status`, `name`): where validation and server errors land.
    pub param: &'static str,
    pub label: &'static str,
    /// Default and limit, shown beside the label ("default OPEN · one of 3").
    pub hint: String,
    kind: Kind,
    pub error: Option<String>,
    /// Shown only while the field `.0` holds one of `.1` (a hidden field's value is "").
    when: Option<(&'static str, &'static [&'static str])>,
}

impl Field {
    pub fn text(param: &'static str, label: &'static str, value: &str, hint: impl Into<String>) -> Field {
        let mut input = TextArea::new(vec![value.to_string()]);
        input.move_cursor(ratatui_textarea::CursorMove::End);
        Field { param, label, hint: hint.into(), kind: Kind::Text(Box::new(input)), error: None, when: None }
    }

    /// A choice among `E`'s known values (plus `(none)` when `optional`), starting at `current`;
    /// a value this build does not know is kept as a choice of its own.
    pub fn choice<E: WireEnum>(param: &'static str, label: &'static str, current: Option<&E>, optional: bool) -> Field {
        let mut values: Vec<String> = optional.then(|| NONE.to_string()).into_iter().collect();
        values.extend(E::known().iter().map(|v| v.text().to_string()));
        let current = current.map(|c| c.text().to_string());
        if let Some(c) = &current
            && !values.contains(c)
        {
            values.push(c.clone());
        }
        let index = current.and_then(|c| values.iter().position(|v| *v == c)).unwrap_or(0);
        let hint = format!("default {} · one of {}", values[index], E::known_list());
        Field { param, label, hint, kind: Kind::Choice { values, index }, error: None, when: None }
    }

    /// Shows the field only while the field `param` holds one of `values`.
    pub fn when(mut self, param: &'static str, values: &'static [&'static str]) -> Field {
        self.when = Some((param, values));
        self
    }

    /// The text typed (trimmed), or the chosen value ("" for `(none)`).
    pub fn value(&self) -> String {
        match &self.kind {
            Kind::Text(input) => input.lines().join("\n").trim().to_string(),
            Kind::Choice { values, index } if values[*index] == NONE => String::new(),
            Kind::Choice { values, index } => values[*index].clone(),
        }
    }
}

/// The input type's `validate()` over a form's values.
type Check = Box<dyn Fn(&Form) -> Vec<Violation>>;

/// What a key did to the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormEvent {
    Ignored,
    Changed,
    /// Enter with no errors: the owner sends the write (the form is now `sending`).
    Submit,
    Cancel,
}

pub struct Form {
    pub title: String,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// A write is out: Enter is refused until the answer.
    pub sending: bool,
    /// An error that names no field.
    pub error: Option<String>,
    /// The input type's `validate()` over the form's values.
    check: Check,
}

impl Form {
    pub fn new(
        title: impl Into<String>,
        fields: Vec<Field>,
        check: impl Fn(&Form) -> Vec<Violation> + 'static,
    ) -> Form {
        let mut form =
            Form { title: title.into(), fields, focus: 0, sending: false, error: None, check: Box::new(check) };
        form.revalidate();
        form
    }

    /// The value of the field named `param` ("" when there is none or it is hidden).
    pub fn value(&self, param: &str) -> String {
        match self.fields.iter().position(|f| f.param == param) {
            Some(i) if self.visible(i) => self.fields[i].value(),
            _ => String::new(),
        }
    }

    /// Whether field `i` is shown: its `when` condition holds (conditions do not chain).
    pub fn visible(&self, i: usize) -> bool {
        match self.fields[i].when {
            None => true,
            Some((param, values)) => {
                let value = self.fields.iter().find(|f| f.param == param).map(Field::value).unwrap_or_default();
                values.contains(&value.as_str())
            }
        }
    }

    /// The indexes of the fields shown, in order.
    fn shown(&self) -> Vec<usize> {
        (0..self.fields.len()).filter(|&i| self.visible(i)).collect()
    }

    /// Moves the focus `step` shown fields on (wrapping).
    fn step_focus(&mut self, forward: bool) {
        let shown = self.shown();
        let at = shown.iter().position(|&i| i == self.focus).unwrap_or(0);
        let next = if forward { (at + 1) % shown.len() } else { (at + shown.len() - 1) % shown.len() };
        self.focus = shown[next];
    }

    /// `Some(value)` when the field is not empty.
    pub fn opt(&self, param: &str) -> Option<String> {
        Some(self.value(param)).filter(|v| !v.is_empty())
    }

    pub fn has_errors(&self) -> bool {
        self.error.is_some() || self.fields.iter().any(|f| f.error.is_some())
    }

    /// Runs `validate()` again and puts each violation under its field.
    pub fn revalidate(&mut self) {
        let violations = (self.check)(self);
        self.show_errors(violations.into_iter().map(|v| (v.param, v.message)));
    }

    /// The service refused the write: what was typed stays, its errors go under their fields.
    pub fn failed(&mut self, error: &WriteError) {
        self.sending = false;
        self.show_errors(error.fields.iter().cloned());
        if !self.fields.iter().any(|f| f.error.is_some()) {
            self.error = Some(error.message.clone());
        }
    }

    fn show_errors(&mut self, errors: impl Iterator<Item = (String, String)>) {
        self.error = None;
        for field in &mut self.fields {
            field.error = None;
        }
        for (param, message) in errors {
            // `traits.age` and `metrics[0]` belong to the field `traits` / `metrics`.
            let owner = self.fields.iter_mut().find(|f| {
                param == f.param || param.strip_prefix(f.param).is_some_and(|rest| rest.starts_with(['.', '[']))
            });
            match owner {
                Some(field) => {
                    field.error.get_or_insert(message);
                }
                None => {
                    self.error.get_or_insert(format!("{param}: {message}"));
                }
            }
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> FormEvent {
        match key.code {
            KeyCode::Esc => return FormEvent::Cancel,
            // Validation errors block; a refusal from the service may be sent again as it is.
            KeyCode::Enter if self.sending || !(self.check)(self).is_empty() => return FormEvent::Ignored,
            KeyCode::Enter => {
                self.sending = true;
                return FormEvent::Submit;
            }
            KeyCode::Tab | KeyCode::Down => self.step_focus(true),
            KeyCode::BackTab | KeyCode::Up => self.step_focus(false),
            _ if self.sending => return FormEvent::Ignored,
            _ => {
                let Some(field) = self.fields.get_mut(self.focus) else { return FormEvent::Ignored };
                match &mut field.kind {
                    Kind::Choice { values, index } => match key.code {
                        KeyCode::Left => *index = (*index + values.len() - 1) % values.len(),
                        KeyCode::Right | KeyCode::Char(' ') => *index = (*index + 1) % values.len(),
                        _ => return FormEvent::Ignored,
                    },
                    // ctrl-u clears the field, as in the prompt.
                    Kind::Text(input) if key.code == KeyCode::Char('u') && key.modifiers == KeyModifiers::CONTROL => {
                        **input = TextArea::default();
                    }
                    Kind::Text(input) => {
                        if !input.input(key) && !matches!(key.code, KeyCode::Left | KeyCode::Right) {
                            return FormEvent::Ignored;
                        }
                    }
                }
                self.revalidate();
            }
        }
        FormEvent::Changed
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.saturating_sub(4).min(72);
        let shown = self.shown();
        let height = (shown.len() as u16 * 3 + 3).min(area.height);
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        let block =
            Block::default().borders(Borders::ALL).title(format!(" {} ", self.title)).border_style(theme.title());
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let w = inner.width as usize;
        for (row, &i) in shown.iter().enumerate() {
            let field = &self.fields[i];
            let y = inner.y + row as u16 * 3;
            if y + 2 >= inner.y + inner.height {
                break;
            }
            let focused = i == self.focus;
            let label_style = if focused { theme.key().add_modifier(Modifier::BOLD) } else { theme.heading() };
            let label = Line::from(vec![
                Span::styled(format!("{} ", if focused { "▸" } else { " " }), theme.key()),
                Span::styled(field.label, label_style),
                Span::styled(fit(&format!("  {}", field.hint), w.saturating_sub(field.label.len() + 2)), theme.dim()),
            ]);
            frame.render_widget(Paragraph::new(label), Rect { y, height: 1, ..inner });
            let input_area = Rect { x: inner.x + 2, y: y + 1, width: inner.width.saturating_sub(2), height: 1 };
            match &field.kind {
                Kind::Text(input) => {
                    if focused && !self.sending {
                        frame.render_widget(input.as_ref(), input_area);
                    } else {
                        let text = fit(&input.lines().join(" "), input_area.width as usize);
                        frame.render_widget(Paragraph::new(text), input_area);
                    }
                }
                Kind::Choice { values, index } => {
                    let value = &values[*index];
                    let line = Line::from(vec![
                        Span::styled("◂ ", theme.dim()),
                        Span::styled(value.clone(), theme.status(value)),
                        Span::styled(" ▸", theme.dim()),
                    ]);
                    frame.render_widget(Paragraph::new(line), input_area);
                }
            }
            if let Some(error) = &field.error {
                let line = Span::styled(fit(&format!("✗ {error}"), input_area.width as usize), theme.error());
                frame.render_widget(Paragraph::new(line), Rect { y: y + 2, ..input_area });
            }
        }
        let footer = match (&self.error, self.sending) {
            (_, true) => Span::styled("sending…", theme.warn()),
            (Some(error), _) => Span::styled(fit(&format!("✗ {error}"), w), theme.error()),
            (None, _) if self.has_errors() => Span::styled("fix the fields marked ✗ · esc cancels", theme.dim()),
            (None, _) => Span::styled(fit("enter sends · tab/↑↓ field · ←→ choice · esc cancels", w), theme.dim()),
        };
        let y = inner.y + inner.height.saturating_sub(1);
        frame.render_widget(Paragraph::new(footer), Rect { y, height: 1, ..inner });
    }
}

/// A `width`×`height` box in the middle of `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::IssueStatus;
    use crate::api::validate::{Checks, Validate};

    fn check(form: &Form) -> Vec<Violation> {
        struct Named(Option<String>);
        impl Validate for Named {
            fn check(&self, c: &mut Checks, at: &str) {
                c.required(at, "name", &self.0);
            }
        }
        Named(form.opt("name")).validate()
    }

    fn press(form: &mut Form, code: KeyCode) -> FormEvent {
        form.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn validates_as_you_type_and_refuses_enter_until_valid() {
        let fields = vec![
            Field::text("name", "name", "", "required"),
            Field::choice("status", "status", Some(&IssueStatus::Open), false),
        ];
        let mut form = Form::new("new", fields, check);
        assert!(form.fields[0].error.is_some());
        assert_eq!(press(&mut form, KeyCode::Enter), FormEvent::Ignored);
        press(&mut form, KeyCode::Char('q'));
        assert_eq!(form.value("name"), "q");
        assert!(form.fields[0].error.is_none());
        press(&mut form, KeyCode::Tab);
        press(&mut form, KeyCode::Right);
        assert_eq!(form.value("status"), "ACKNOWLEDGED");
        assert_eq!(press(&mut form, KeyCode::Enter), FormEvent::Submit);
        assert_eq!(press(&mut form, KeyCode::Enter), FormEvent::Ignored, "sent once");
        form.failed(&WriteError {
            unreachable: false,
            message: "bad".into(),
            fields: vec![("status".into(), "no".into())],
        });
        assert_eq!(form.fields[1].error.as_deref(), Some("no"));
        assert_eq!(form.value("name"), "q", "what was typed stays");
    }

    #[test]
    fn a_field_shows_only_while_another_holds_a_value() {
        use crate::api::model::AggregationMode;
        let fields = vec![
            Field::choice("aggregationMode", "aggregation", Some(&AggregationMode::Each), false),
            Field::text("countThreshold", "count", "3", "").when("aggregationMode", &["COUNT"]),
            Field::text("name", "name", "", ""),
        ];
        let mut form = Form::new("t", fields, |_| vec![]);
        assert!(!form.visible(1));
        assert_eq!(form.value("countThreshold"), "", "a hidden field gives nothing");
        press(&mut form, KeyCode::Tab);
        assert_eq!(form.focus, 2, "tab skips the hidden field");
        press(&mut form, KeyCode::Tab);
        while form.value("aggregationMode") != "COUNT" {
            press(&mut form, KeyCode::Right);
        }
        assert!(form.visible(1));
        assert_eq!(form.value("countThreshold"), "3");
        press(&mut form, KeyCode::Tab);
        assert_eq!(form.focus, 1);
    }
}
