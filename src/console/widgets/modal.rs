//! The form or confirm dialog open over the console. A pane opens one through `Out::modal`;
//! the app keeps it, hands it every key, sends the write a key returns, and closes it on
//! success or keeps
//! the form (with what was typed and the service's errors under their fields) on failure.
//! Esc on a form with changes asks before throwing them away.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::confirm::{Answer, Confirm};
use super::form::{Form, FormEvent};
use crate::console::message::{Write, WriteError, Written};
use crate::console::theme::Theme;

/// What a key on the modal comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// Nothing was open: the key is not the modal's.
    Closed,
    /// The modal changed (typed, moved, asked, closed): draw again.
    Redraw,
    /// Submitted: send this write (the modal waits for its answer in `written`).
    Send(Write),
}

/// Builds the write from a valid form.
pub type Build = Box<dyn Fn(&Form) -> Write>;

enum Open {
    /// A form, and the question over it while Esc asks whether to throw its changes away.
    Form(Form, Build, Option<Confirm>),
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
        self.open = Some(Open::Form(form, Box::new(build), None));
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
            Some(Open::Form(form, ..)) => Some(form),
            _ => None,
        }
    }

    /// Whether a form is asking to throw its changes away.
    pub fn asking(&self) -> bool {
        matches!(&self.open, Some(Open::Form(_, _, Some(_))))
    }

    /// A key while open: what it answers, for the app to act on (the modal knows nothing of
    /// the app or the panes).
    pub fn key(&mut self, key: KeyEvent) -> Answered {
        let mut sent = None;
        match &mut self.open {
            Some(Open::Form(_, _, Some(discard))) => match discard.key(key) {
                Answer::Yes(_) => self.open = None,
                Answer::No => {
                    if let Some(Open::Form(_, _, asking)) = &mut self.open {
                        *asking = None;
                    }
                }
                Answer::Ignored => {}
            },
            Some(Open::Form(form, build, asking)) => match form.key(key) {
                FormEvent::Cancel if form.changed() => {
                    let question = format!("Throw away what you changed in “{}”? (n keeps editing)", form.title);
                    *asking = Some(Confirm::ask("discard changes", question));
                }
                FormEvent::Cancel => self.open = None,
                FormEvent::Submit => {
                    let write = build(form);
                    self.pending = Some(write.clone());
                    sent = Some(write);
                }
                FormEvent::Changed | FormEvent::Ignored => {}
            },
            Some(Open::Confirm(confirm)) => match confirm.key(key) {
                Answer::Yes(write) => {
                    self.open = None;
                    if let Some(write) = write {
                        self.pending = Some(write.clone());
                        sent = Some(write);
                    }
                }
                Answer::No => self.open = None,
                Answer::Ignored => {}
            },
            None => return Answered::Closed,
        }
        match sent {
            Some(write) => Answered::Send(write),
            None => Answered::Redraw,
        }
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
            (Err(error), Some(Open::Form(form, ..))) => form.failed(error),
            _ => {}
        }
        true
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        match &self.open {
            Some(Open::Form(form, _, asking)) => {
                form.draw(frame, area, theme);
                if let Some(question) = asking {
                    question.draw(frame, area, theme);
                }
            }
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
    use crate::console::widgets::form::Field;

    /// Presses `code`, keeping what the modal asks to send.
    fn press(modal: &mut Modal, code: KeyCode, sent: &mut Vec<Write>) {
        if let Answered::Send(write) = modal.key(KeyEvent::new(code, KeyModifiers::NONE)) {
            sent.push(write);
        }
    }

    #[test]
    fn a_form_sends_once_stays_on_failure_and_closes_on_success() {
        let mut modal = Modal::default();
        let form = Form::new("t", vec![Field::text("name", "name", "x", "")], |_| vec![]);
        modal.form(form, |_| Write::DeletePersona(Uuid::nil()));
        let mut sent = Vec::new();
        press(&mut modal, KeyCode::Enter, &mut sent);
        press(&mut modal, KeyCode::Enter, &mut sent);
        assert_eq!(sent, vec![Write::DeletePersona(Uuid::nil())]);

        let write = Write::DeletePersona(Uuid::nil());
        let refused = WriteError {
            missing_route: false,
            unreachable: false,
            forbidden: false,
            message: "no".into(),
            fields: vec![("name".into(), "taken".into())],
        };
        assert!(modal.written(&write, &Err(refused)));
        let form = modal.current_form().expect("kept");
        assert_eq!(form.fields[0].error.as_deref(), Some("taken"));
        assert_eq!(form.value("name"), "x");

        press(&mut modal, KeyCode::Enter, &mut sent);
        assert!(modal.written(&write, &Ok(Written::Deleted(Uuid::nil()))));
        assert!(!modal.is_open());
        assert!(!modal.written(&write, &Ok(Written::Deleted(Uuid::nil()))), "not waiting any more");
    }

    #[test]
    fn esc_on_a_changed_form_asks_first_and_n_keeps_editing() {
        let mut modal = Modal::default();
        let mut sent = Vec::new();
        modal.form(Form::new("t", vec![Field::text("name", "name", "", "")], |_| vec![]), |_| {
            Write::DeletePersona(Uuid::nil())
        });
        press(&mut modal, KeyCode::Esc, &mut sent);
        assert!(!modal.is_open(), "nothing changed: Esc closes at once");
        let key = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(modal.key(key), Answered::Closed, "a closed modal leaves the key to others");

        modal.form(Form::new("t", vec![Field::text("name", "name", "", "")], |_| vec![]), |_| {
            Write::DeletePersona(Uuid::nil())
        });
        press(&mut modal, KeyCode::Char('x'), &mut sent);
        press(&mut modal, KeyCode::Esc, &mut sent);
        assert!(modal.is_open() && modal.asking(), "a change: Esc asks");
        press(&mut modal, KeyCode::Char('n'), &mut sent);
        assert!(!modal.asking());
        assert_eq!(modal.current_form().map(|f| f.value("name")).as_deref(), Some("x"), "still as typed");
        press(&mut modal, KeyCode::Esc, &mut sent);
        press(&mut modal, KeyCode::Char('y'), &mut sent);
        assert!(!modal.is_open(), "y throws the changes away");
        assert!(sent.is_empty(), "nothing was sent");
    }
}
