//! What every tab implements. The app routes keys, fetch results and ticks to panes through
//! this trait; panes answer with effects and notes in an `Out` (`out.rs`).

use ratatui::Frame;
use ratatui::layout::Rect;

use super::keymap::Action;

use super::message::{FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written};
use super::out::Out;
use super::theme::Theme;
use crate::cache::Cache;

/// A resource the editor can open: its bundle kind, its name there, and its members.
#[derive(Debug, Clone, PartialEq)]
pub struct Editable {
    pub kind: &'static str,
    pub name: String,
    pub config: serde_json::Value,
}

/// Facts every view may use.
pub struct ViewCtx<'a> {
    pub theme: &'a Theme,
    pub now: jiff::Timestamp,
    pub keys: &'a super::keymap::KeyMap,
    /// The marked calls and chats, drawn beside their rows.
    pub marks: &'a super::marks::Marks,
}

/// One tab of the console.
pub trait Pane {
    /// The tab became visible; load what it needs and has not loaded.
    fn show(&mut self, out: &mut Out);
    /// `r`: fetch everything shown again.
    fn refresh(&mut self, out: &mut Out);
    /// A key's action; false when the pane has no use for it.
    fn action(&mut self, action: Action, out: &mut Out) -> bool;
    /// A fetch finished; true when something the pane shows changed.
    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool;
    /// A write finished (any pane's); true when something the pane shows changed.
    fn written(&mut self, _write: &Write, _result: &Result<Written, WriteError>, _out: &mut Out) -> bool {
        false
    }
    /// The poll timer; true when a redraw is needed.
    /// Changes the service announced on the event stream this pane asked to watch.
    fn events(&mut self, _events: &[crate::api::model::Event], _out: &mut Out) -> bool {
        false
    }

    /// The events this pane wants to hear of now (the app keeps the watch in step).
    fn watching(&self) -> Option<crate::api::model::EventQuery> {
        None
    }

    fn tick(&mut self, _now: jiff::Timestamp, _out: &mut Out) -> bool {
        false
    }
    /// The lists on screen now, which the app asks for again at every poll while they show
    /// (k9s' habit); none while a detail is open.
    fn visible_lists(&self) -> Vec<ListKind> {
        Vec::new()
    }
    /// Esc: close the innermost view; false when already at the top.
    fn back(&mut self) -> bool;
    /// The `/` filter of the focused list.
    fn filter(&self) -> String;
    fn set_filter(&mut self, text: &str);
    fn selection(&self) -> Option<Selection>;
    /// The id of the row selected in the pane's list (not of what a detail shows), kept for
    /// the next launch.
    fn listed(&self) -> Option<String> {
        None
    }
    /// Selects the row with this id in the pane's list; false when it is not there.
    fn reselect(&mut self, _id: &str) -> bool {
        false
    }
    /// What `space` marks here: the selection, unless the pane shows a call or chat beside
    /// another selection (an issue's evidence entry under the issue).
    fn mark_target(&self) -> Option<Selection> {
        self.selection()
    }
    /// Open a resource of this pane by id (for services that do not list it).
    fn open_by_id(&mut self, _id: &str, out: &mut Out) -> bool {
        out.error("this tab cannot open resources by id");
        false
    }
    /// `:WORD ID` (`:issue ID`, `:alert ID`): opens that resource of this pane; by default
    /// as `o` opens one by id.
    fn open_named(&mut self, _word: &str, id: &str, out: &mut Out) -> bool {
        self.open_by_id(id, out)
    }
    /// A `:` alias that names a part of this pane (`:agents` in the catalog); true when used.
    fn action_alias(&mut self, _alias: &str, _out: &mut Out) -> bool {
        false
    }
    /// What `e` opens in the editor here (the selected resource in its bundle shape), if
    /// anything; panes without one keep their own `e`.
    fn editable(&self) -> Option<Editable> {
        None
    }
    /// What `c` creates here from a template in the editor: the bundle kind and its template.
    fn creatable(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// Keys this pane uses where it is now, with what they do here.
    fn help(&self) -> Vec<(Action, &'static str)>;
    /// Lists from the last session, shown as stale until fresh ones arrive.
    fn restore(&mut self, _cache: &Cache) {}
    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx);
}
