//! The form or confirm dialog open over the console. A pane opens one through `Out::modal`;
//! the app keeps it, hands it every key, sends its write, and closes it on success or keeps
//! the form (with what was typed and the service's errors under their fields) on failure.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::confirm::{Answer, Confirm};
use super::form::{Form, FormEvent};
use crate::console::message::{Write, WriteError, Written};
use crate::console::pane::Out;
use crate::console::theme::Theme;

/// Builds the write from a valid form.
pub type Build = Box<dyn Fn(&Form) -> Write>;

enum Open {
    Form(Form, Build),
    Confirm(Confirm),
}

/// The one form or dialog open over the console. A pane opens one by filling `Out::modal`;
/// the app keeps it, gives it every key and draws it over the pane.
#[derive(Default)]
pub struct Modal {
    open: Option<Open>,
    /// The write this modal sent and is waiting for.
    pending: Option<Write>,
}

impl std::fmt::Debug for Modal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Modal").field("open", &self.is_open()).field("pending", &self.pending).finish()
    }
}

impl Modal {
    /// Takes over what `other` opened, still waiting for a write this one sent.
    pub fn adopt(&mut self, other: Modal) {
        if other.is_open() {
            self.open = other.open;
            self.pending = other.pending.or(self.pending.take());
        }
    }

    pub fn form(&mut self, form: Form, build: impl Fn(&Form) -> Write + 'static) {
        self.open = Some(Open::Form(form, Box::new(build)));
    }

    pub fn confirm(&mut self, confirm: Confirm) {
        self.open = Some(Open::Confirm(confirm));
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The open form, if any (for tests and titles).
    pub fn current_form(&self) -> Option<&Form> {
        match &self.open {
            Some(Open::Form(form, _)) => Some(form),
            _ => None,
        }
    }

    /// A key while open; always true (the modal redraws).
    pub fn key(&mut self, key: KeyEvent, out: &mut Out) -> bool {
        match &mut self.open {
            Some(Open::Form(form, build)) => match form.key(key) {
                FormEvent::Cancel => self.open = None,
                FormEvent::Submit => {
                    let write = build(form);
                    self.pending = Some(write.clone());
                    out.write(write);
                }
                FormEvent::Changed | FormEvent::Ignored => {}
            },
            Some(Open::Confirm(confirm)) => match confirm.key(key) {
                Answer::Yes(write) => {
                    self.open = None;
                    self.pending = Some(write.clone());
                    out.write(write);
                }
                Answer::No => self.open = None,
                Answer::Ignored => {}
            },
            None => return false,
        }
        true
    }

    /// A write finished; true when it was this modal's. Success closes the form; a failure
    /// keeps it open with the errors under their fields (the app toasts the message).
    pub fn written(&mut self, write: &Write, result: &Result<Written, WriteError>) -> bool {
        if self.pending.as_ref() != Some(write) {
            return false;
        }
        self.pending = None;
        match (result, &mut self.open) {
            (Ok(_), Some(Open::Form(..))) => self.open = None,
            (Err(error), Some(Open::Form(form, _))) => form.failed(error),
            _ => {}
        }
        true
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        match &self.open {
            Some(Open::Form(form, _)) => form.draw(frame, area, theme),
            Some(Open::Confirm(confirm)) => confirm.draw(frame, area, theme),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyModifiers};
    use uuid::Uuid;

    use super::*;
    use crate::console::message::Effect;
    use crate::console::widgets::form::Field;

    fn press(modal: &mut Modal, code: KeyCode, out: &mut Out) {
        modal.key(KeyEvent::new(code, KeyModifiers::NONE), out);
    }

    #[test]
    fn a_form_sends_once_stays_on_failure_and_closes_on_success() {
        let mut modal = Modal::default();
        let form = Form::new("t", vec![Field::text("name", "name", "x", "")], |_| vec![]);
        modal.form(form, |_| Write::DeletePersona(Uuid::nil()));
        let mut out = Out::default();
        press(&mut modal, KeyCode::Enter, &mut out);
        press(&mut modal, KeyCode::Enter, &mut out);
        assert_eq!(out.effects, vec![Effect::Write(Write::DeletePersona(Uuid::nil()))]);

        let write = Write::DeletePersona(Uuid::nil());
        let refused =
            WriteError { unreachable: false, message: "no".into(), fields: vec![("name".into(), "taken".into())] };
        assert!(modal.written(&write, &Err(refused)));
        let form = modal.current_form().expect("kept");
        assert_eq!(form.fields[0].error.as_deref(), Some("taken"));
        assert_eq!(form.value("name"), "x");

        press(&mut modal, KeyCode::Enter, &mut out);
        assert!(modal.written(&write, &Ok(Written::Deleted(Uuid::nil()))));
        assert!(!modal.is_open());
        assert!(!modal.written(&write, &Ok(Written::Deleted(Uuid::nil()))), "not waiting any more");
    }
}
