//! The section a pane shows, whatever its items: a pane with sections (the catalog, metrics)
//! picks the shown one once and goes through this trait, rather than matching on which
//! section it is in every operation.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::section::Section;
use crate::console::keymap::Action;
use crate::console::message::{Listed, Selection};
use crate::console::out::Out;

/// What a pane asks of whichever section is shown.
pub trait ShownSection {
    /// Asks for the list unless it was asked for in this session already.
    fn ensure(&mut self, out: &mut Out);
    /// Asks for the list again.
    fn request(&mut self, out: &mut Out);
    /// Navigation and sorting keys; true when used.
    fn navigate(&mut self, action: Action) -> bool;
    fn filter(&self) -> String;
    fn set_filter(&mut self, text: &str);
    /// Selects the item with this id; false when it is not in view.
    fn select(&mut self, id: &str) -> bool;
    fn selection(&self) -> Option<Selection>;
}

impl<T: Listed + Clone + PartialEq + Serialize + DeserializeOwned + 'static, X> ShownSection for Section<T, X> {
    fn ensure(&mut self, out: &mut Out) {
        Section::ensure(self, out);
    }

    fn request(&mut self, out: &mut Out) {
        Section::request(self, out);
    }

    fn navigate(&mut self, action: Action) -> bool {
        Section::action(self, action)
    }

    fn filter(&self) -> String {
        self.list.filter.clone()
    }

    fn set_filter(&mut self, text: &str) {
        Section::set_filter(self, text);
    }

    fn select(&mut self, id: &str) -> bool {
        Section::select(self, id)
    }

    fn selection(&self) -> Option<Selection> {
        Section::selection(self)
    }
}

/// The section after `current` in `all` (or before it), round the ends: `l` and `h`.
pub fn step_round<T: Copy + PartialEq>(all: &[T], current: T, forward: bool) -> T {
    let at = all.iter().position(|p| *p == current).unwrap_or(0);
    let by = if forward { 1 } else { all.len() - 1 };
    all[(at + by) % all.len()]
}
