//! One field of a form: a one-line `TextArea`, a choice of one among options, or a pick of
//! any number among options; with its default and limit shown beside the label. Typing into a
//! choice or a pick filters its options (←→ then move among the matching ones); a choice that
//! takes free entry uses what was typed when no option matches.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use ratatui_textarea::TextArea;

use crate::api::wire_enum::WireEnum;
use crate::console::theme::Theme;
use crate::console::widgets::text::fit;

/// The empty choice of an optional field.
pub const NONE: &str = "(none)";
/// The values of a yes/no field.
pub const YES: &str = "yes";
pub const NO: &str = "no";

/// A value sent on the wire and how it reads on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    pub value: String,
    pub label: String,
}

impl Opt {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Opt {
        Opt { value: value.into(), label: label.into() }
    }

    fn plain(value: &str) -> Opt {
        Opt::new(value, value)
    }

    /// Whether every word of `filter` (lowercase) is in the label or the value.
    fn matches(&self, filter: &str) -> bool {
        let (label, value) = (self.label.to_lowercase(), self.value.to_lowercase());
        filter.split_whitespace().all(|word| label.contains(word) || value.contains(word))
    }
}

/// The indexes of the options matching `filter`, in order.
fn matching(options: &[Opt], filter: &str) -> Vec<usize> {
    let filter = filter.to_lowercase();
    (0..options.len()).filter(|&i| options[i].matches(&filter)).collect()
}

/// The matching option after (or before) `at`, wrapping; `at` itself when nothing else matches.
fn step(options: &[Opt], filter: &str, at: usize, forward: bool) -> usize {
    let found = matching(options, filter);
    let next = match forward {
        true => found.iter().find(|&&i| i > at).or(found.first()),
        false => found.iter().rev().find(|&&i| i < at).or(found.last()),
    };
    next.copied().unwrap_or(at)
}

/// A filter key (a character, backspace, ctrl-u) applied to `filter`; false when it is none.
fn edit_filter(filter: &mut String, key: &KeyEvent) -> bool {
    match key.code {
        KeyCode::Char('u') if key.modifiers == KeyModifiers::CONTROL => filter.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) && c != ' ' => filter.push(c),
        KeyCode::Backspace if !filter.is_empty() => {
            filter.pop();
        }
        _ => return false,
    }
    true
}

enum Kind {
    Text(Box<TextArea<'static>>),
    /// One of `options`; with `free`, the `filter` typed is the value when nothing matches it.
    Choice {
        options: Vec<Opt>,
        index: usize,
        filter: String,
        free: bool,
    },
    /// Any number of `options`; `cursor` is the one ←/→ shows and space toggles.
    Pick {
        options: Vec<Opt>,
        chosen: Vec<bool>,
        cursor: usize,
        filter: String,
    },
}

/// When a field is shown: while the field `param` holds one of `values`, (a pick) has `value`
/// among its picks, or is not empty.
pub(super) enum When {
    OneOf(String, &'static [&'static str]),
    Has(String, String),
    Filled(String),
}

pub struct Field {
    /// The wire name (`status`, `flows`, or a form's own `flow:<id>.happyPath`): where
    /// validation and server errors land.
    pub param: String,
    pub label: String,
    /// Default and limit, shown beside the label ("default OPEN · one of 3").
    pub hint: String,
    kind: Kind,
    pub error: Option<String>,
    pub(super) when: Option<When>,
}

impl Field {
    pub fn text(param: impl Into<String>, label: impl Into<String>, value: &str, hint: impl Into<String>) -> Field {
        let mut input = TextArea::new(vec![value.to_string()]);
        input.move_cursor(ratatui_textarea::CursorMove::End);
        Field::of(param, label, hint, Kind::Text(Box::new(input)))
    }

    fn of(param: impl Into<String>, label: impl Into<String>, hint: impl Into<String>, kind: Kind) -> Field {
        Field { param: param.into(), label: label.into(), hint: hint.into(), kind, error: None, when: None }
    }

    /// A choice among `E`'s known values (plus `(none)` when `optional`), starting at `current`;
    /// a value this build does not know is kept as a choice of its own.
    pub fn choice<E: WireEnum>(
        param: impl Into<String>,
        label: impl Into<String>,
        current: Option<&E>,
        optional: bool,
    ) -> Field {
        let values = E::known().iter().map(|v| Opt::plain(v.text()));
        let mut field = Field::options(param, label, values.collect(), current.map(|c| c.text()), optional);
        if let Kind::Choice { options, index, .. } = &field.kind {
            field.hint = format!("default {} · one of {}", options[*index].label, E::known_list());
        }
        field
    }

    /// A choice among `options` (plus `(none)` first when `optional`), starting at the one
    /// whose value is `current` (kept as an option of its own when it is not among them).
    pub fn options(
        param: impl Into<String>,
        label: impl Into<String>,
        mut options: Vec<Opt>,
        current: Option<&str>,
        optional: bool,
    ) -> Field {
        if optional {
            options.insert(0, Opt::new("", NONE));
        }
        if let Some(c) = current
            && !options.iter().any(|o| o.value == c)
        {
            options.push(Opt::plain(c));
        }
        let index = current.and_then(|c| options.iter().position(|o| o.value == c)).unwrap_or(0);
        let hint = format!("default {}", options.get(index).map_or(NONE, |o| o.label.as_str()));
        if options.is_empty() {
            options.push(Opt::new("", NONE));
        }
        Field::of(param, label, hint, Kind::Choice { options, index, filter: String::new(), free: false })
    }

    /// Yes or no, starting at `default`.
    pub fn yes_no(param: impl Into<String>, label: impl Into<String>, default: bool, hint: &str) -> Field {
        let options = vec![Opt::plain(YES), Opt::plain(NO)];
        let current = if default { YES } else { NO };
        let mut field = Field::options(param, label, options, Some(current), false);
        field.hint = format!("default {current}{}{hint}", if hint.is_empty() { "" } else { " · " });
        field
    }

    /// Any number of `options`, none picked at first.
    pub fn pick(
        param: impl Into<String>,
        label: impl Into<String>,
        options: Vec<Opt>,
        hint: impl Into<String>,
    ) -> Field {
        let chosen = vec![false; options.len()];
        Field::of(param, label, hint, Kind::Pick { options, chosen, cursor: 0, filter: String::new() })
    }

    /// Lets a choice take what is typed when it matches none of the options (an id not listed).
    pub fn free(mut self) -> Field {
        if let Kind::Choice { free, .. } = &mut self.kind {
            *free = true;
        }
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Field {
        self.hint = hint.into();
        self
    }

    /// Shows the field only while the field `param` holds one of `values`.
    pub fn when(mut self, param: impl Into<String>, values: &'static [&'static str]) -> Field {
        self.when = Some(When::OneOf(param.into(), values));
        self
    }

    /// Shows the field only while the pick `param` has `value` among its picks.
    pub fn when_picked(mut self, param: impl Into<String>, value: impl Into<String>) -> Field {
        self.when = Some(When::Has(param.into(), value.into()));
        self
    }

    /// Shows the field only once the field `param` is not empty (the next of several rows).
    pub fn when_filled(mut self, param: impl Into<String>) -> Field {
        self.when = Some(When::Filled(param.into()));
        self
    }

    /// The text typed (trimmed), the chosen value ("" for `(none)`), or the picked values
    /// joined by commas.
    pub fn value(&self) -> String {
        match &self.kind {
            Kind::Text(input) => input.lines().join("\n").trim().to_string(),
            Kind::Choice { options, filter, free: true, .. }
                if !filter.trim().is_empty() && matching(options, filter).is_empty() =>
            {
                filter.trim().to_string()
            }
            Kind::Choice { options, index, .. } => options[*index].value.clone(),
            Kind::Pick { .. } => self.picked().join(","),
        }
    }

    /// The picked values, in the options' order (empty for other kinds).
    pub fn picked(&self) -> Vec<String> {
        match &self.kind {
            Kind::Pick { options, chosen, .. } => {
                options.iter().zip(chosen).filter(|(_, c)| **c).map(|(o, _)| o.value.clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    pub fn is_pick(&self) -> bool {
        matches!(self.kind, Kind::Pick { .. })
    }

    /// Picks (or unpicks) the option whose value is `value`; false when there is none.
    pub fn set_picked(&mut self, value: &str, on: bool) -> bool {
        let Kind::Pick { options, chosen, .. } = &mut self.kind else { return false };
        match options.iter().position(|o| o.value == value) {
            Some(i) => {
                chosen[i] = on;
                true
            }
            None => false,
        }
    }

    /// Puts `value` in the field as if typed or chosen: the text, the option whose value it is,
    /// or the comma-separated values picked; false when it fits none of the options.
    pub fn set(&mut self, value: &str) -> bool {
        match &mut self.kind {
            Kind::Text(input) => {
                let mut filled = TextArea::new(vec![value.to_string()]);
                filled.move_cursor(ratatui_textarea::CursorMove::End);
                **input = filled;
                true
            }
            Kind::Choice { options, index, .. } => match options.iter().position(|o| o.value == value) {
                Some(i) => {
                    *index = i;
                    true
                }
                None => false,
            },
            Kind::Pick { .. } => value.split(',').filter(|v| !v.is_empty()).all(|v| self.set_picked(v, true)),
        }
    }

    /// Applies an editing key; false when the field has no use for it.
    pub(super) fn key(&mut self, key: KeyEvent) -> bool {
        match &mut self.kind {
            Kind::Choice { options, index, filter, .. } => match key.code {
                KeyCode::Left => *index = step(options, filter, *index, false),
                KeyCode::Right | KeyCode::Char(' ') => *index = step(options, filter, *index, true),
                _ if edit_filter(filter, &key) => {
                    // The choice follows the filter to its first match (a free one may have none).
                    let found = matching(options, filter);
                    if !found.contains(index) {
                        *index = found.first().copied().unwrap_or(*index);
                    }
                }
                _ => return false,
            },
            Kind::Pick { options, chosen, cursor, filter } if !options.is_empty() => match key.code {
                KeyCode::Left => *cursor = step(options, filter, *cursor, false),
                KeyCode::Right => *cursor = step(options, filter, *cursor, true),
                KeyCode::Char(' ') if options[*cursor].matches(&filter.to_lowercase()) => {
                    chosen[*cursor] = !chosen[*cursor]
                }
                _ if edit_filter(filter, &key) => {
                    let found = matching(options, filter);
                    if !found.contains(cursor) {
                        *cursor = found.first().copied().unwrap_or(*cursor);
                    }
                }
                _ => return false,
            },
            Kind::Pick { .. } => return false,
            // ctrl-u clears the field, as in the prompt.
            Kind::Text(input) if key.code == KeyCode::Char('u') && key.modifiers == KeyModifiers::CONTROL => {
                **input = TextArea::default();
            }
            Kind::Text(input) => {
                return input.input(key) || matches!(key.code, KeyCode::Left | KeyCode::Right);
            }
        }
        true
    }

    /// The text input to render live, when the field is one and has the cursor.
    pub(super) fn input(&self) -> Option<&TextArea<'static>> {
        match &self.kind {
            Kind::Text(input) => Some(input),
            _ => None,
        }
    }

    /// The field's value as one line `width` wide; `focused` shows a pick's cursor and what
    /// the filter matches.
    pub(super) fn line(&self, focused: bool, width: usize, theme: &Theme) -> Line<'static> {
        match &self.kind {
            Kind::Text(input) => Line::raw(fit(&input.lines().join(" "), width)),
            Kind::Choice { options, filter, free: true, .. }
                if !filter.trim().is_empty() && matching(options, filter).is_empty() =>
            {
                let note = if focused { "  as typed: no option matches" } else { "" };
                Line::from(vec![
                    Span::styled("◂ ", theme.dim()),
                    Span::raw(fit(filter.trim(), width.saturating_sub(4 + note.chars().count()))),
                    Span::styled(" ▸", theme.dim()),
                    Span::styled(note, theme.dim()),
                ])
            }
            Kind::Choice { options, index, filter, .. } => {
                let label = &options[*index].label;
                let found = matching(options, filter).len();
                let note = match (focused, filter.is_empty(), found) {
                    (false, _, _) | (_, true, _) => String::new(),
                    (true, false, 0) => format!("  /{filter} · no match"),
                    (true, false, n) => format!("  /{filter} · {n} of {}", options.len()),
                };
                Line::from(vec![
                    Span::styled("◂ ", theme.dim()),
                    Span::styled(
                        fit(label, width.saturating_sub(4 + note.chars().count())),
                        theme.status(&options[*index].value),
                    ),
                    Span::styled(" ▸", theme.dim()),
                    Span::styled(note, theme.dim()),
                ])
            }
            Kind::Pick { options, .. } if options.is_empty() => Line::styled("nothing to pick from", theme.dim()),
            Kind::Pick { options, chosen, cursor, filter } if focused => {
                let found = matching(options, filter);
                let at = found.iter().position(|i| i == cursor).map_or(0, |p| p + 1);
                let shown = match filter.is_empty() {
                    true => format!("{at}/{}", options.len()),
                    false if found.is_empty() => format!("/{filter} · no match"),
                    false => format!("{at}/{} matching /{filter}", found.len()),
                };
                let count = format!(" ▸  {shown} · {} picked", self.picked().len());
                let mark = if chosen[*cursor] { "[x] " } else { "[ ] " };
                let room = width.saturating_sub(count.chars().count() + 6);
                let label = if found.is_empty() { "" } else { options[*cursor].label.as_str() };
                Line::from(vec![
                    Span::styled("◂ ", theme.dim()),
                    Span::styled(mark, theme.key()),
                    Span::raw(fit(label, room)),
                    Span::styled(count, theme.dim()),
                ])
            }
            Kind::Pick { options, chosen, .. } => {
                let names: Vec<&str> =
                    options.iter().zip(chosen).filter(|(_, c)| **c).map(|(o, _)| o.label.as_str()).collect();
                match names.is_empty() {
                    true => Line::styled("none picked", theme.dim()),
                    false => Line::raw(fit(&format!("{} picked: {}", names.len(), names.join(", ")), width)),
                }
            }
        }
    }

    /// Whether typing filters this field's options (a choice or a pick).
    pub fn filters(&self) -> bool {
        !matches!(self.kind, Kind::Text(_))
    }
}
