//! A call opened over the tab, from anywhere: `:call ID`, or a pane asking (`Out::open_call`,
//! a benchmark sample's source call). Its transcript and metric values stay until Esc, which
//! shows the tab again; a call the service does not have is said to be not on this service.
//! While it is open, the selection, filter and help are the call's.

use uuid::Uuid;

use super::App;
use crate::console::keymap::Action;
use crate::console::message::{FailureKind, FetchError, Fetched, Request};
use crate::console::pane::{Level, Out, Selection};
use crate::console::widgets::conversation::ConversationView;

/// What help says the call view is for.
const ABOUT: &str = "A call: its transcript beside its metric values; esc closes it.";

impl App {
    /// Opens call `id` over the current tab.
    pub(super) fn open_call(&mut self, id: Uuid) {
        let mut out = Out::default();
        self.overlay = None;
        self.call = Some(ConversationView::open(id, &mut out));
        self.apply(out);
    }

    /// A key's action for the open call; Esc closes it once nothing inside is open.
    pub(super) fn call_action(&mut self, action: Action) -> bool {
        let Some(call) = &mut self.call else { return false };
        if action == Action::Back {
            if !call.back() {
                self.call = None;
            }
            return true;
        }
        call.action(action)
    }

    /// A fetch result for the open call; true when it changed what is shown. A call the
    /// service does not have closes with a note instead of the client's error.
    pub(super) fn call_fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        if self.is_missing_call(request, result) {
            let id = self.call.take().map(|c| c.call_id).unwrap_or_default();
            self.toast(Level::Error, format!("call {id} is not on this service"));
            return true;
        }
        self.call.as_mut().is_some_and(|call| call.fetched(request, result))
    }

    /// Whether `request`'s failure is the open call's own (reported by `call_fetched`).
    pub(super) fn is_missing_call(&self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        let missing = matches!(result, Err(e) if e.kind == FailureKind::NotFound);
        missing && self.call.as_ref().is_some_and(|c| *request == Request::Conversation(c.call_id))
    }

    /// What copy, raw and marks act on: the open call's selection, else the pane's.
    pub fn selection(&self) -> Option<Selection> {
        match &self.call {
            Some(call) => call.selection(),
            None => self.pane().selection(),
        }
    }

    /// The keys of what is shown, with what they do there.
    pub fn help_keys(&self) -> Vec<(Action, &'static str)> {
        match &self.call {
            Some(call) => call.help(),
            None => self.pane().help(),
        }
    }

    /// One line on what is shown: the open call, or the tab.
    pub fn about(&self) -> &'static str {
        match &self.call {
            Some(_) => ABOUT,
            None => crate::console::panes::ABOUT.get(self.tab).copied().unwrap_or_default(),
        }
    }

    /// The `/` filter of what is shown.
    pub(super) fn filter(&self) -> String {
        match &self.call {
            Some(call) => call.filter(),
            None => self.pane().filter(),
        }
    }

    pub(super) fn set_filter(&mut self, text: &str) {
        match &mut self.call {
            Some(call) => call.set_filter(text),
            None => self.panes[self.tab].set_filter(text),
        }
    }
}
