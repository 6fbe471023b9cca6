//! What a pane or the app's own forms ask of the app while handling something: effects,
//! toasts, a jump to another tab, a modal to open. Below the panes, the marks and the app, so
//! each can fill one without knowing the others.

use super::message::{Effect, Level, Request, Write};
use super::tab::Tab;
use super::widgets::modal::Modal;

/// What a pane asks of the app while handling something.
#[derive(Debug, Default)]
pub struct Out {
    pub effects: Vec<Effect>,
    pub toasts: Vec<(Level, String)>,
    /// Switch to this tab after handling.
    pub goto: Option<Tab>,
    /// With `goto`: then open this id there (`Pane::open_by_id`), for jumps between tabs.
    pub open: Option<String>,
    /// A form or dialog to open over the console (the app keeps it and sends its write).
    pub modal: Modal,
    /// A call to open over the tab (when the service has it), as `:call ID` does.
    pub call: Option<uuid::Uuid>,
}

impl Out {
    pub fn fetch(&mut self, request: Request) {
        self.effects.push(Effect::Fetch(request));
    }

    /// Ask for a change on the service; the answer comes back through `Pane::written`.
    pub fn write(&mut self, write: Write) {
        self.effects.push(Effect::Write(write));
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.toasts.push((Level::Info, text.into()));
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.toasts.push((Level::Error, text.into()));
    }

    /// Open call `id` over the tab; the app says so when the service does not have it.
    pub fn open_call(&mut self, id: uuid::Uuid) {
        self.call = Some(id);
    }

    /// Go to tab `tab` and open `id` there (a plan's latest job in the jobs tab).
    pub fn jump(&mut self, tab: Tab, id: impl ToString) {
        self.goto = Some(tab);
        self.open = Some(id.to_string());
    }
}
