//! The state behind every table: items, the filtered and sorted view of them, the selection,
//! and where they came from (cache, service, nowhere).

use std::cell::Cell;
use std::cmp::Ordering;

use crate::api::model::Timestamp;

/// Where a list's items stand.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Load {
    /// Never asked for.
    #[default]
    Idle,
    /// Asked for; nothing to show yet.
    Loading,
    /// From the service in this session.
    Fresh,
    /// From the cache of an earlier session, fetched at this time.
    Stale(Timestamp),
    /// The service does not offer this list (404).
    Unavailable,
    /// The last fetch failed; items (if any) are older.
    Failed(String),
}

/// A selectable, filterable, sortable list. The view holds indices into `items`.
#[derive(Debug, Default)]
pub struct ListState<T> {
    pub items: Vec<T>,
    pub view: Vec<usize>,
    pub selected: usize,
    pub filter: String,
    /// Column to sort by and whether descending; None keeps the service's order.
    pub sort: Option<(usize, bool)>,
    pub load: Load,
    /// First visible row and visible height, remembered from the last draw for scrolling.
    pub offset: Cell<usize>,
    pub height: Cell<usize>,
    /// Whether a fresh fetch is under way (shown as a spinner beside stale data).
    pub fetching: bool,
}

impl<T> ListState<T> {
    pub fn new() -> Self {
        ListState {
            items: Vec::new(),
            view: Vec::new(),
            selected: 0,
            filter: String::new(),
            sort: None,
            load: Load::Idle,
            offset: Cell::new(0),
            height: Cell::new(10),
            fetching: false,
        }
    }

    pub fn selected(&self) -> Option<&T> {
        self.view.get(self.selected).and_then(|&i| self.items.get(i))
    }

    pub fn visible(&self, position: usize) -> Option<&T> {
        self.view.get(position).and_then(|&i| self.items.get(i))
    }

    pub fn len(&self) -> usize {
        self.view.len()
    }

    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }

    /// Replaces the items, keeping the selection on the same item (by `id`) when it still exists.
    pub fn replace(&mut self, items: Vec<T>, id: impl Fn(&T) -> String, shape: &Shape<T>) {
        let keep = self.selected().map(&id);
        self.items = items;
        self.reshape(shape);
        if let Some(keep) = keep
            && let Some(position) = self.view.iter().position(|&i| id(&self.items[i]) == keep)
        {
            self.selected = position;
        }
    }

    /// Selects the item whose `id` is `want`; false when it is not in view.
    pub fn select(&mut self, want: &str, id: impl Fn(&T) -> String) -> bool {
        match self.view.iter().position(|&i| id(&self.items[i]) == want) {
            Some(position) => {
                self.selected = position;
                true
            }
            None => false,
        }
    }

    /// Recomputes the view after the filter, sort or items changed.
    pub fn reshape(&mut self, shape: &Shape<T>) {
        let needle = self.filter.to_lowercase();
        let needle: Vec<&str> = needle.split_whitespace().collect();
        self.view = (0..self.items.len())
            .filter(|&i| (shape.keep)(&self.items[i]))
            .filter(|&i| {
                needle.is_empty() || {
                    let hay = (shape.haystack)(&self.items[i]).to_lowercase();
                    needle.iter().all(|word| hay.contains(word))
                }
            })
            .collect();
        if let Some((column, descending)) = self.sort {
            let items = &self.items;
            self.view.sort_by(|&a, &b| {
                let order = (shape.compare)(&items[a], &items[b], column);
                if descending { order.reverse() } else { order }
            });
        }
        self.selected = self.selected.min(self.view.len().saturating_sub(1));
    }

    pub fn move_by(&mut self, delta: isize) {
        if self.view.is_empty() {
            return;
        }
        let last = self.view.len() - 1;
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    pub fn page(&self) -> isize {
        self.height.get().max(1) as isize
    }

    pub fn top(&mut self) {
        self.selected = 0;
    }

    pub fn bottom(&mut self) {
        self.selected = self.view.len().saturating_sub(1);
    }

    /// The next sort: column by column, ascending then descending… then the service's order.
    pub fn cycle_sort(&mut self, columns: usize) {
        self.sort = match self.sort {
            None => Some((0, false)),
            Some((c, d)) if c + 1 < columns => Some((c + 1, d)),
            Some(_) => None,
        };
    }

    pub fn reverse_sort(&mut self) {
        self.sort = Some(match self.sort {
            None => (0, true),
            Some((c, d)) => (c, !d),
        });
    }
}

impl<T> ListState<T> {
    /// Moving and sorting keys (by `columns` columns); true when `action` was one of those.
    pub fn navigate(&mut self, action: crate::console::keymap::Action, shape: &Shape<T>, columns: usize) -> bool {
        use crate::console::keymap::Action;
        match action {
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.top(),
            Action::Bottom => self.bottom(),
            Action::Sort => {
                self.cycle_sort(columns);
                self.reshape(shape);
            }
            Action::SortReverse => {
                self.reverse_sort();
                self.reshape(shape);
            }
            _ => return false,
        }
        true
    }
}

/// How a list is filtered and sorted: supplied by its pane.
/// Orders two items by the column numbered by the `usize`.
pub type Compare<T> = Box<dyn Fn(&T, &T, usize) -> Ordering>;

pub struct Shape<T> {
    /// Structured filters (status, severity…), on top of the text filter.
    pub keep: Box<dyn Fn(&T) -> bool>,
    /// The text `/` searches.
    pub haystack: Box<dyn Fn(&T) -> String>,
    /// Orders two items by a column.
    pub compare: Compare<T>,
}

impl<T> Shape<T> {
    pub fn new(haystack: fn(&T) -> String, compare: fn(&T, &T, usize) -> Ordering) -> Self
    where
        T: 'static,
    {
        Shape { keep: Box::new(|_| true), haystack: Box::new(haystack), compare: Box::new(compare) }
    }

    /// A shape sorted by `compare`, which may hold what it needs (the columns, known names).
    pub fn by(haystack: fn(&T) -> String, compare: impl Fn(&T, &T, usize) -> Ordering + 'static) -> Self
    where
        T: 'static,
    {
        Shape { keep: Box::new(|_| true), haystack: Box::new(haystack), compare: Box::new(compare) }
    }

    pub fn keeping(mut self, keep: impl Fn(&T) -> bool + 'static) -> Self {
        self.keep = Box::new(keep);
        self
    }
}

pub use crate::columns::by;

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape<(String, u32)> {
        Shape::new(|item| item.0.clone(), |a, b, column| if column == 0 { a.0.cmp(&b.0) } else { a.1.cmp(&b.1) })
    }

    #[test]
    fn filter_sort_and_selection_survive_refresh() {
        let mut list = ListState::new();
        let items = vec![("beta".to_string(), 2), ("alpha".to_string(), 3), ("gamma".to_string(), 1)];
        list.replace(items.clone(), |i| i.0.clone(), &shape());
        list.sort = Some((1, false));
        list.reshape(&shape());
        assert_eq!(list.selected().unwrap().0, "gamma");
        list.move_by(1);
        assert_eq!(list.selected().unwrap().0, "beta");
        list.replace(items, |i| i.0.clone(), &shape());
        assert_eq!(list.selected().unwrap().0, "beta", "the selection follows the item");
        list.filter = "ALP".into();
        list.reshape(&shape());
        assert_eq!(list.len(), 1);
        assert_eq!(list.selected().unwrap().0, "alpha");
        list.move_by(5);
        assert_eq!(list.selected, 0);
    }

    #[test]
    fn sort_cycles_through_columns_and_back_to_service_order() {
        let mut list: ListState<(String, u32)> = ListState::new();
        list.cycle_sort(2);
        assert_eq!(list.sort, Some((0, false)));
        list.cycle_sort(2);
        assert_eq!(list.sort, Some((1, false)));
        list.reverse_sort();
        assert_eq!(list.sort, Some((1, true)));
        list.cycle_sort(2);
        assert_eq!(list.sort, None);
    }
}
