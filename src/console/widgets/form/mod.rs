//! The one form every write uses: labelled fields (`field.rs`: a one-line `TextArea`, a choice,
//! or a pick of several), each showing its default and limit, checked on every keystroke with
//! the input type's own `validate()`, and showing the service's errors under the field its
//! `param` names (`draw.rs` draws it). The pane owns the form and builds its input from
//! `value(param)`.

mod draw;
mod field;

use crossterm::event::{KeyCode, KeyEvent};

pub use draw::centered;
use field::When;
pub use field::{Field, NO, NONE, Opt, YES};

use crate::api::validate::{Checks, Violation};
use crate::console::message::WriteError;

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

/// Where an error's `param` belongs when it is not a field's own name (a form whose fields
/// stand for array elements says which element is which field).
type Rename = Box<dyn Fn(&Form, &str) -> Option<String>>;

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
    rename: Option<Rename>,
    /// Every field's value as the form opened, to tell whether anything was changed.
    initial: Vec<String>,
}

impl Form {
    pub fn new(
        title: impl Into<String>,
        fields: Vec<Field>,
        check: impl Fn(&Form) -> Vec<Violation> + 'static,
    ) -> Form {
        let mut form = Form {
            title: title.into(),
            fields,
            focus: 0,
            sending: false,
            error: None,
            check: Box::new(check),
            rename: None,
            initial: Vec::new(),
        };
        form.initial = form.fields.iter().map(Field::value).collect();
        form.revalidate();
        form
    }

    /// Whether any field holds something else than when the form opened (Esc then asks).
    pub fn changed(&self) -> bool {
        self.fields.iter().map(Field::value).ne(self.initial.iter().cloned())
    }

    /// Sends each error's `param` through `rename` first (`flows[1].happyPath` → the field
    /// standing for that flow); an error it does not rename finds its field as usual.
    pub fn with_rename(mut self, rename: impl Fn(&Form, &str) -> Option<String> + 'static) -> Form {
        self.rename = Some(Box::new(rename));
        self.revalidate();
        self
    }

    /// The value of the field named `param` ("" when there is none or it is hidden).
    pub fn value(&self, param: &str) -> String {
        match self.fields.iter().position(|f| f.param == param) {
            Some(i) if self.visible(i) => self.fields[i].value(),
            _ => String::new(),
        }
    }

    /// The field named `param`, shown or not.
    pub fn field(&self, param: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.param == param)
    }

    pub fn field_mut(&mut self, param: &str) -> Option<&mut Field> {
        self.fields.iter_mut().find(|f| f.param == param)
    }

    /// Whether field `i` is shown: its condition holds on the other field's value (so a field
    /// that depends on a hidden one is hidden too).
    pub fn visible(&self, i: usize) -> bool {
        match &self.fields[i].when {
            None => true,
            Some(When::OneOf(param, values)) => values.contains(&self.value(param).as_str()),
            Some(When::Has(param, value)) => self.value(param).split(',').any(|v| v == value),
            Some(When::Filled(param)) => !self.value(param).is_empty(),
        }
    }

    /// The indexes of the fields shown, in order.
    fn shown(&self) -> Vec<usize> {
        (0..self.fields.len()).filter(|&i| self.visible(i)).collect()
    }

    /// Moves the focus one shown field on or back (wrapping).
    fn step_focus(&mut self, forward: bool) {
        let shown = self.shown();
        let at = shown.iter().position(|&i| i == self.focus).unwrap_or(0);
        let next = if forward { (at + 1) % shown.len() } else { (at + shown.len() - 1) % shown.len() };
        self.focus = shown[next];
    }

    /// Puts the focus on the field named `param`.
    pub fn focus_on(&mut self, param: &str) {
        if let Some(i) = self.fields.iter().position(|f| f.param == param) {
            self.focus = i;
        }
    }

    /// `Some(value)` when the field is not empty.
    pub fn opt(&self, param: &str) -> Option<String> {
        Some(self.value(param)).filter(|v| !v.is_empty())
    }

    /// The whole number typed into `param` (None when empty), or a violation saying it is not one.
    pub fn integer(&self, param: &str, c: &mut Checks) -> Option<i64> {
        let text = self.opt(param)?;
        match text.parse() {
            Ok(n) => Some(n),
            Err(_) => {
                c.invalid(param, format!("{param} must be a whole number"));
                None
            }
        }
    }

    pub fn has_errors(&self) -> bool {
        self.error.is_some() || self.fields.iter().any(|f| f.error.is_some())
    }

    /// Runs `validate()` again and puts each violation under its field.
    pub fn revalidate(&mut self) {
        let violations = (self.check)(self);
        self.show_errors(violations.into_iter().map(|v| (v.param, v.message)).collect());
    }

    /// The service refused the write: what was typed stays, its errors go under their fields.
    pub fn failed(&mut self, error: &WriteError) {
        self.sending = false;
        self.show_errors(error.fields.clone());
        if !self.fields.iter().any(|f| f.error.is_some()) {
            self.error = Some(error.message.clone());
        }
    }

    /// The shown field `param` belongs to: itself, or the field it is a member or element of
    /// (`traits.age` and `metrics[0]` belong to `traits` / `metrics`).
    fn owner(&self, param: &str) -> Option<usize> {
        let owned_by = |p: &str| {
            (0..self.fields.len()).find(|&i| {
                let own = self.fields[i].param.as_str();
                self.visible(i) && (p == own || p.strip_prefix(own).is_some_and(|rest| rest.starts_with(['.', '['])))
            })
        };
        let renamed = self.rename.as_ref().and_then(|rename| rename(self, param));
        renamed.and_then(|p| owned_by(&p)).or_else(|| owned_by(param))
    }

    fn show_errors(&mut self, errors: Vec<(String, String)>) {
        let owners: Vec<Option<usize>> = errors.iter().map(|(param, _)| self.owner(param)).collect();
        self.error = None;
        for field in &mut self.fields {
            field.error = None;
        }
        for ((param, message), owner) in errors.into_iter().zip(owners) {
            match owner {
                Some(i) => {
                    let message = labelled(&self.fields[i].label, &param, message);
                    self.fields[i].error.get_or_insert(message);
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
                if !field.key(key) {
                    return FormEvent::Ignored;
                }
                self.revalidate();
            }
        }
        FormEvent::Changed
    }
}

/// An error that opens with its `param` (as `validate()`'s do) told with the field's label
/// first and the interface name after it: `Max duration (maxSimulationDurationSeconds) must be
/// at least 1`. A label that is the name itself is not repeated.
fn labelled(label: &str, param: &str, message: String) -> String {
    let Some(rest) = message.strip_prefix(param).filter(|rest| rest.is_empty() || rest.starts_with(' ')) else {
        return message;
    };
    let label = label.trim().trim_start_matches('↳').trim();
    let mut chars = label.chars();
    let label: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    match label.to_lowercase().replace(' ', "") == param.to_lowercase() || label.is_empty() {
        true => format!("{}{rest}", if label.is_empty() { param.to_string() } else { label }),
        false => format!("{label} ({param}){rest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::IssueStatus;
    use crossterm::event::KeyModifiers;

    use crate::api::validate::Validate;

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
            missing_route: false,
            unreachable: false,
            forbidden: false,
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

    #[test]
    fn typing_filters_a_pick_and_a_free_choice_takes_what_matches_nothing() {
        let options =
            vec![Opt::new("1", "Brightsmile Dental"), Opt::new("2", "SkyBridge Air"), Opt::new("3", "Skyline")];
        let fields = vec![
            Field::pick("agents", "agents", options.clone(), ""),
            Field::options("owner", "owner", options, None, true).free(),
        ];
        let mut form = Form::new("t", fields, |_| vec![]);
        for c in "sky".chars() {
            press(&mut form, KeyCode::Char(c));
        }
        press(&mut form, KeyCode::Right);
        press(&mut form, KeyCode::Char(' '));
        assert_eq!(form.value("agents"), "3", "→ moved among the two that match, space picked the second");
        press(&mut form, KeyCode::Right);
        press(&mut form, KeyCode::Char(' '));
        assert_eq!(form.value("agents"), "2,3", "wrapping to the first match");
        press(&mut form, KeyCode::Tab);
        for c in "bright".chars() {
            press(&mut form, KeyCode::Char(c));
        }
        assert_eq!(form.value("owner"), "1", "the first match is chosen");
        press(&mut form, KeyCode::Char('x'));
        assert_eq!(form.value("owner"), "brightx", "nothing matches: taken as typed");
        press(&mut form, KeyCode::Backspace);
        assert_eq!(form.value("owner"), "1");
        assert!(form.changed());
    }

    #[test]
    fn errors_read_with_the_label_then_the_interface_name() {
        assert_eq!(
            labelled(
                "max duration",
                "maxSimulationDurationSeconds",
                "maxSimulationDurationSeconds must be at least 1".into()
            ),
            "Max duration (maxSimulationDurationSeconds) must be at least 1"
        );
        assert_eq!(
            labelled("agent endpoints", "agentEndpoints", "agentEndpoints is required".into()),
            "Agent endpoints is required"
        );
        assert_eq!(labelled("  ↳ flow: happy path", "flows[0].happyPath", "select one".into()), "select one");
        assert_eq!(labelled("name", "nameX", "nameX is required".into()), "Name (nameX) is required");
    }
}
