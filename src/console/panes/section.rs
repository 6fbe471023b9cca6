//! One fetched list inside a pane: its state, how it is filtered and sorted, and how it
//! reacts to fetches, the cache and navigation keys. Panes compose these.

use crate::console::widgets::table::Cell;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::cmp::Ordering;
use std::rc::Rc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::Cache;
use crate::columns::Column;
use crate::console::keymap::Action;
use crate::console::message::{FailureKind, FetchError, Fetched, ListKind, Listed, Request, Selection};
use crate::console::out::Out;
use crate::console::theme::Theme;
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::table::{self, Columns, Context, Shown};

pub struct Section<T: 'static, X: 'static = ()> {
    pub kind: ListKind,
    pub title: &'static str,
    pub columns: &'static [Shown<T, X>],
    pub list: ListState<T>,
    pub shape: Shape<T>,
    id: fn(&T) -> String,
    /// Orders that replace a column's own, for columns sorted by what the pane learns later.
    orders: Vec<Option<Rc<Order<T>>>>,
}

/// An order that may hold what it knows (plan names, each plan's latest job).
type Order<T> = dyn Fn(&T, &T) -> Ordering;

impl<T: Listed + Clone + PartialEq + Serialize + DeserializeOwned + 'static, X> Section<T, X> {
    /// The section of `T`'s list kind, sorted by its columns' orders.
    pub fn new(
        title: &'static str,
        columns: &'static [Shown<T, X>],
        id: fn(&T) -> String,
        haystack: fn(&T) -> String,
    ) -> Self {
        let shape = Shape::by(haystack, move |a, b, at| table::compare(columns, a, b, at));
        let orders = vec![None; columns.len()];
        Section { kind: T::KIND, title, columns, list: ListState::new(), shape, id, orders }
    }

    /// Sorts `column` by `order` from now on, in place of its own order, and re-sorts.
    pub fn order(&mut self, column: &Column<T>, order: impl Fn(&T, &T) -> Ordering + 'static) {
        let Some(at) = self.columns.iter().position(|c| c.column.title == column.title) else { return };
        self.orders[at] = Some(Rc::new(order));
        let (columns, orders) = (self.columns, self.orders.clone());
        self.shape.compare = Box::new(move |a, b, at| match orders.get(at) {
            Some(Some(order)) => order(a, b),
            _ => table::compare(columns, a, b, at),
        });
        self.reshape();
    }

    /// Asks for the list unless it was asked for in this session already.
    pub fn ensure(&mut self, out: &mut Out) {
        if matches!(self.list.load, Load::Idle | Load::Stale(_)) && !self.list.fetching {
            self.request(out);
        }
    }

    pub fn request(&mut self, out: &mut Out) {
        if self.list.load == Load::Idle {
            self.list.load = Load::Loading;
        }
        self.list.fetching = true;
        out.fetch(Request::List(self.kind));
    }

    pub fn restore(&mut self, cache: &Cache) {
        if let Some((items, at)) = cache.list::<T>(self.kind.cache_key()) {
            self.list.replace(items, self.id, &self.shape);
            self.list.load = Load::Stale(at);
        }
    }

    /// Takes a fetch result meant for this list (or one item opened by id); true when it was.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        match (request, result) {
            (Request::List(kind), Ok(Fetched::List(listing, _))) if *kind == self.kind => {
                // A poll that brings the same list changes nothing on screen: no redraw.
                let mut changed = self.list.load != Load::Fresh || self.list.fetching;
                if let Some(items) = T::take(listing)
                    && items != self.list.items.as_slice()
                {
                    self.list.replace(items.clone(), self.id, &self.shape);
                    changed = true;
                }
                self.list.load = Load::Fresh;
                self.list.fetching = false;
                changed
            }
            (Request::List(kind), Err(error)) if *kind == self.kind => {
                self.list.fetching = false;
                self.list.load = match error.kind {
                    FailureKind::NotFound => Load::Unavailable,
                    _ => Load::Failed(error.message.clone()),
                };
                true
            }
            (Request::Item(kind, _), Ok(Fetched::Item(listing))) if *kind == self.kind => {
                if let Some(found) = T::take(listing) {
                    self.upsert(found);
                    if let Some(first) = found.first() {
                        let id = (self.id)(first);
                        if let Some(p) =
                            (0..self.list.len()).find(|&p| self.list.visible(p).map(self.id) == Some(id.clone()))
                        {
                            self.list.selected = p;
                        }
                    }
                    if self.list.load == Load::Unavailable {
                        self.list.load = Load::Fresh;
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// Puts `found` into the list, replacing items with the same id (a fresher copy fetched
    /// on its own, such as a polled job).
    pub fn upsert(&mut self, found: &[T]) {
        let mut items = self.list.items.clone();
        for item in found {
            let id = (self.id)(item);
            match items.iter().position(|i| (self.id)(i) == id) {
                Some(at) => items[at] = item.clone(),
                None => items.push(item.clone()),
            }
        }
        self.list.replace(items, self.id, &self.shape);
    }

    /// Selects the item with this id; false when it is not in view.
    pub fn select(&mut self, id: &str) -> bool {
        self.list.select(id, self.id)
    }

    /// Navigation and sorting keys; true when used.
    pub fn action(&mut self, action: Action) -> bool {
        self.list.navigate(action, &self.shape, self.columns.len())
    }

    pub fn set_filter(&mut self, text: &str) {
        self.list.filter = text.to_string();
        self.list.reshape(&self.shape);
    }

    /// Replaces the structured filter and re-applies it.
    pub fn keep(&mut self, keep: impl Fn(&T) -> bool + 'static) {
        self.shape.keep = Box::new(keep);
        self.list.reshape(&self.shape);
    }

    pub fn reshape(&mut self) {
        self.list.reshape(&self.shape);
    }

    pub fn selected(&self) -> Option<&T> {
        self.list.selected()
    }

    pub fn selection(&self) -> Option<Selection> {
        self.selected().map(|item| {
            let id = (self.id)(item);
            Selection::of(&id, item).at(T::KIND.item_path(&id))
        })
    }

    /// Draws the list under its columns, their cells drawn in `context`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, context: Context<'_, X>, focused: bool) {
        let view = Columns {
            title: self.title.to_string(),
            columns: self.columns,
            context,
            focused,
            empty: "nothing here yet",
        };
        table::draw_columns(frame, area, &self.list, view);
    }
}

pub use crate::columns::text_cmp;

/// A cell with a status in its family's colour.
pub fn status_cell(theme: &Theme, status: Option<&str>) -> Cell<'static> {
    let text = status.unwrap_or("—").to_string();
    let style = theme.status(&text);
    Cell::from(text).style(style)
}
