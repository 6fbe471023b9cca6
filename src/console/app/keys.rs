//! Keys and pastes: the prompt and the open form get them first, then overlays, then the
//! global actions; everything else goes to the open call or the current pane.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Connection, Overlay, Prompt, RawSource};
use crate::console::keymap::Action;
use crate::console::marks;
use crate::console::message::{Effect, Level, Request};
use crate::console::out::Out;
use crate::console::tab::Tab;
use crate::console::widgets::modal::Answered;

impl App {
    pub(super) fn key(&mut self, key: KeyEvent) -> bool {
        if key.kind == crossterm::event::KeyEventKind::Release {
            return false;
        }
        if self.prompt.is_some() {
            return self.prompt_key(key);
        }
        if self.overlay.is_none() && self.modal.is_open() {
            return self.form_key(key);
        }
        let Some(action) = self.settings.keymap.action(&key) else { return false };
        if self.settings.read_only && action.is_write() {
            self.toast(Level::Error, format!("read-only: {} is off", action.help()));
            return true;
        }
        if self.overlay.is_some() {
            return self.overlay_key(action);
        }
        let mut out = Out::default();
        let handled = match self.global_action(action, &mut out) {
            Some(handled) => handled,
            None if self.call.is_some() => self.call_action(action),
            None => self.tab_action(action, &mut out),
        };
        self.apply(out);
        handled
    }

    /// A key while a form or dialog is open: Ctrl-C still quits, F1 shows the form's keys
    /// (`?` is text there), and the modal has the rest.
    fn form_key(&mut self, key: KeyEvent) -> bool {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return true;
        }
        if key.code == KeyCode::F(1) {
            self.overlay = Some(Overlay::Help);
            return true;
        }
        self.modal_key(key)
    }

    /// The actions that mean the same on every tab and over an open call; `None` for the rest.
    fn global_action(&mut self, action: Action, out: &mut Out) -> Option<bool> {
        if let Some(tab) = action.tab() {
            self.show_tab(tab);
            return Some(true);
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.overlay = Some(Overlay::Help),
            Action::Log => self.overlay = Some(Overlay::Log { scroll: 0 }),
            Action::Command => self.prompt = Some(Prompt::Command(String::new())),
            Action::Filter => self.prompt = Some(Prompt::Filter(self.filter())),
            Action::OpenById => self.prompt = Some(Prompt::OpenById(String::new())),
            Action::NextTab => self.show_tab(self.tab.next()),
            Action::PrevTab => self.show_tab(self.tab.previous()),
            Action::Copy => self.copy(),
            Action::Raw => self.open_raw(out),
            Action::Mark | Action::Unmark | Action::FileIssue | Action::Collect => {
                return Some(self.marks_action(action, out));
            }
            Action::Refresh => self.refresh_shown(out),
            _ => return None,
        }
        Some(true)
    }

    /// `v`: the selection's JSON, fetched whole when it has a route (so members this build
    /// does not know show too).
    fn open_raw(&mut self, out: &mut Out) {
        let Some(selection) = self.selection() else { return out.error("nothing is selected") };
        let text = serde_json::to_string_pretty(&selection.json).unwrap_or_default();
        let source = match selection.path {
            Some(path) => {
                self.request(Request::Raw(path.clone()));
                RawSource::Loading(path)
            }
            None => RawSource::Decoded,
        };
        self.overlay = Some(Overlay::Raw { title: selection.id, text, scroll: 0, source });
    }

    /// `r`: what is shown, again; and health, when the service was lost or refused the key.
    fn refresh_shown(&mut self, out: &mut Out) {
        if matches!(self.connection, Connection::Disconnected { .. } | Connection::Rejected { .. }) {
            self.request(Request::Health);
        }
        match &mut self.call {
            Some(call) => call.refresh(out),
            None => self.panes[self.tab.index()].refresh(out),
        }
    }

    /// An action for the tab on screen: Esc closes its innermost view (then clears its
    /// filter), `e` and `c` open the editor where it has something to edit, the pane has the rest.
    fn tab_action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::Back => {
                let pane = &mut self.panes[self.tab.index()];
                if !pane.back() && !pane.filter().is_empty() {
                    pane.set_filter("");
                }
                true
            }
            Action::Edit if self.pane().editable().is_some() => {
                if let Some(editable) = self.pane().editable() {
                    self.start_edit(editable.kind, &editable.name, &editable.config);
                }
                true
            }
            Action::Create if self.pane().creatable().is_some() => {
                if let Some((kind, template)) = self.pane().creatable() {
                    self.start_create(kind, template);
                }
                true
            }
            other => self.panes[self.tab.index()].action(other, out),
        }
    }

    /// A key for the open form or dialog; sends the write it submits.
    fn modal_key(&mut self, key: KeyEvent) -> bool {
        match self.modal.key(key) {
            Answered::Closed => false,
            Answered::Redraw => true,
            Answered::Send(write) => {
                let mut out = Out::default();
                out.write(write);
                self.apply(out);
                true
            }
        }
    }

    /// A key's action while the help, raw or log overlay is open.
    fn overlay_key(&mut self, action: Action) -> bool {
        let Some(overlay) = &mut self.overlay else { return false };
        match (action, overlay) {
            (Action::Quit, _) => self.quit = true,
            (Action::Back | Action::Help, _) | (Action::Raw, Overlay::Raw { .. }) => self.overlay = None,
            (Action::Log, Overlay::Log { .. }) => self.overlay = None,
            (Action::Down, Overlay::Raw { scroll, .. } | Overlay::Log { scroll }) => *scroll += 1,
            (Action::Up, Overlay::Raw { scroll, .. } | Overlay::Log { scroll }) => *scroll = scroll.saturating_sub(1),
            (Action::PageDown, Overlay::Raw { scroll, .. } | Overlay::Log { scroll }) => *scroll += 10,
            (Action::PageUp, Overlay::Raw { scroll, .. } | Overlay::Log { scroll }) => {
                *scroll = scroll.saturating_sub(10)
            }
            (Action::Top, Overlay::Raw { scroll, .. } | Overlay::Log { scroll }) => *scroll = 0,
            (Action::Copy, Overlay::Raw { .. }) => self.copy(),
            _ => return false,
        }
        true
    }

    /// Marks, and the writes made from them; a pane may use the keys first (the metrics tab's
    /// `C` on a policy).
    fn marks_action(&mut self, action: Action, out: &mut Out) -> bool {
        if self.call.is_none() && self.panes[self.tab.index()].action(action, out) {
            return true;
        }
        let on_policy = self.tab == Tab::Metrics && self.call.is_none();
        if action == Action::Collect {
            let policy = self.selection().filter(|_| on_policy).and_then(|s| marks::policy(&s));
            self.collecting = Some(marks::Collecting::start(policy, out));
            return true;
        }
        let target = match &self.call {
            Some(call) => call.selection(),
            None => self.pane().mark_target(),
        };
        marks::action(action, &mut self.marks, target.as_ref(), out);
        true
    }

    fn copy(&mut self) {
        match self.selection() {
            Some(selection) => {
                self.effects.push(Effect::Copy(selection.id.clone()));
                self.toast(Level::Info, format!("copied {}", selection.id));
            }
            None => self.toast(Level::Error, "nothing is selected to copy".into()),
        }
    }

    pub(super) fn paste(&mut self, text: &str) -> bool {
        if self.prompt.is_none() && self.overlay.is_none() && self.modal.is_open() {
            // Into the form's field, one character at a time (newlines would submit it).
            for c in text.chars().filter(|c| !c.is_control()) {
                self.modal_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            }
            return true;
        }
        match &mut self.prompt {
            Some(Prompt::Command(line) | Prompt::OpenById(line)) => line.push_str(text.trim()),
            Some(Prompt::Filter(line)) => {
                line.push_str(text.trim());
                let line = line.clone();
                self.set_filter(&line);
            }
            None => return false,
        }
        true
    }
}
