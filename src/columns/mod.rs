//! The columns of every resource that is shown as a table, written once: the console's tables
//! and the CLI's `-o table` both build their column lists from these. A column says its title,
//! how wide it may be on a screen, its value as plain text and how it orders two items, so
//! sorting by a column is the column's own order, never a match on its number.

pub mod agreement;
pub mod alert;
pub mod bench;
pub mod call;
pub mod catalog;
pub mod diff;
pub mod flaky;
pub mod flow;
pub mod health;
pub mod issue;
pub mod job;
pub mod metric;
pub mod plan;
pub mod simulation;
pub mod verdict;

use std::cmp::Ordering;

use ratatui::layout::Constraint;

/// How wide a column is on a screen (the CLI sizes its columns to their values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// A layout constraint (`Length`, `Fill`, …), whatever the rows hold.
    Fixed(Constraint),
    /// As wide as its title and its widest visible value, but within `min..=max` cells.
    Fit { min: u16, max: u16 },
}

/// As wide as the values: what a column the console never shows says.
pub const AUTO: Width = Width::Fit { min: 0, max: u16::MAX };

/// Where a column's values sit in a Markdown table (a terminal's tables set every column left).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Numbers and rates, so their digits line up.
    Right,
    /// A mark (✅, ❌).
    Centre,
}

/// Orders two items by one column.
pub type Order<T> = fn(&T, &T) -> Ordering;

/// One column of a resource's table.
pub struct Column<T> {
    pub title: &'static str,
    pub width: Width,
    /// The value as plain text: what `-o table` prints.
    pub text: fn(&T) -> String,
    /// How the column sorts; None keeps the order the items came in.
    pub order: Option<Order<T>>,
    pub align: Align,
}

// Not derived: a derive would ask `T: Clone`, and a column only holds pointers.
impl<T> Clone for Column<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Column<T> {}

impl<T> Column<T> {
    /// A column of this width and text, unsorted until `by` says how.
    pub const fn new(title: &'static str, width: Width, text: fn(&T) -> String) -> Self {
        Column { title, width, text, order: None, align: Align::Left }
    }

    /// A column the CLI prints: as wide as its values.
    pub const fn text(title: &'static str, text: fn(&T) -> String) -> Self {
        Column::new(title, AUTO, text)
    }

    /// A column only a screen shows: its cells come from what the screen knows besides the
    /// item (a call read on the side, the alert that judged it), so it has no text of its own.
    pub const fn screen_only(title: &'static str, width: Width) -> Self {
        Column::new(title, width, no_text::<T>)
    }

    /// The same column, sorted by `order`.
    pub const fn by(self, order: Order<T>) -> Self {
        Column { order: Some(order), ..self }
    }

    /// The same column, its values on the right of a Markdown table.
    pub const fn right(self) -> Self {
        Column { align: Align::Right, ..self }
    }

    /// The same column, its values in the middle of a Markdown table.
    pub const fn centred(self) -> Self {
        Column { align: Align::Centre, ..self }
    }

    /// The same column under another title (the CLI's `PLAN ID` of a job's `PLAN`).
    pub const fn titled(self, title: &'static str) -> Self {
        Column { title, ..self }
    }

    /// How `a` and `b` stand in this column; equal when it has no order.
    pub fn compare(&self, a: &T, b: &T) -> Ordering {
        self.order.map_or(Ordering::Equal, |order| order(a, b))
    }
}

/// A surface's row that holds an item of a resource (the console numbers its samples, the CLI
/// flattens a metric's values): what lets one column list be read from another row type.
pub trait Holds<T> {
    fn item(&self) -> &T;
}

/// A column of `T` read from the rows `$row` (which `Holds<T>`): the same title, width, text,
/// order and alignment. A macro because a column holds plain `fn`s, which cannot capture the column.
#[macro_export]
macro_rules! column_on {
    ($column:expr, $row:ty) => {
        $crate::columns::Column {
            title: $column.title,
            width: $column.width,
            text: |r: &$row| ($column.text)($crate::columns::Holds::item(r)),
            order: match $column.order {
                Some(_) => Some(|a: &$row, b: &$row| {
                    $column.compare($crate::columns::Holds::item(a), $crate::columns::Holds::item(b))
                }),
                None => None,
            },
            align: $column.align,
        }
    };
}

/// The text of a column the CLI never prints.
fn no_text<T>(_: &T) -> String {
    String::new()
}

/// A fixed-constraint width (a `Fill` for names, a `Length` for fixed-size values).
pub const fn fixed(constraint: Constraint) -> Width {
    Width::Fixed(constraint)
}

/// As wide as the widest visible value, between `min` and `max` cells.
pub const fn fit(min: u16, max: u16) -> Width {
    Width::Fit { min, max }
}

/// Compares optional values with missing ones last.
pub fn by<K: PartialOrd>(a: Option<K>, b: Option<K>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Text compare, case-insensitive, missing last.
pub fn text_cmp(a: Option<&str>, b: Option<&str>) -> Ordering {
    by(a.map(str::to_lowercase), b.map(str::to_lowercase))
}

/// An optional value as text: the value, or `—`.
pub fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).filter(|v| !v.is_empty()).unwrap_or_else(|| "—".into())
}

/// The titles of `columns`, in order.
pub fn titles<T>(columns: &[Column<T>]) -> Vec<&'static str> {
    columns.iter().map(|c| c.title).collect()
}

/// `item`'s row of plain text under `columns`.
pub fn row<T>(columns: &[Column<T>], item: &T) -> Vec<String> {
    columns.iter().map(|c| (c.text)(item)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: Column<(&str, u32)> = Column::text("NAME", |i: &(&str, u32)| i.0.to_string());
    const SIZE: Column<(&str, u32)> = Column::text("SIZE", |i: &(&str, u32)| i.1.to_string()).by(|a, b| a.1.cmp(&b.1));

    #[test]
    fn a_column_sorts_by_its_own_order_and_one_without_keeps_the_order() {
        let (small, big) = (("b", 1), ("a", 2));
        assert_eq!(SIZE.compare(&small, &big), Ordering::Less);
        assert_eq!(SIZE.titled("BYTES").compare(&big, &small), Ordering::Greater, "a new title keeps the order");
        assert_eq!(NAME.compare(&small, &big), Ordering::Equal, "no order: as the items came");
        let screen: Column<(&str, u32)> = Column::screen_only("SEEN", fit(2, 4));
        assert_eq!(((screen.text)(&small), screen.width), (String::new(), fit(2, 4)), "a screen draws it");
    }

    /// A row of another surface: the item with its place.
    struct Placed(u32, (&'static str, u32));

    impl Holds<(&'static str, u32)> for Placed {
        fn item(&self) -> &(&'static str, u32) {
            &self.1
        }
    }

    const PLACED_SIZE: Column<Placed> = crate::column_on!(SIZE, Placed);
    const PLACED_NAME: Column<Placed> = crate::column_on!(NAME, Placed);

    #[test]
    fn a_column_read_from_another_row_keeps_its_title_text_and_order() {
        let (small, big) = (Placed(2, ("b", 1)), Placed(1, ("a", 20)));
        assert_eq!(titles(&[PLACED_NAME, PLACED_SIZE]), ["NAME", "SIZE"]);
        assert_eq!(row(&[PLACED_NAME, PLACED_SIZE], &big), ["a", "20"]);
        assert!(small.0 > big.0);
        assert_eq!(PLACED_SIZE.compare(&small, &big), Ordering::Less, "by the item's size, not the place");
        assert!(PLACED_NAME.order.is_none(), "no order stays none");
    }

    #[test]
    fn a_row_is_each_columns_text_under_its_title() {
        let columns = [NAME, SIZE.titled("BYTES")];
        assert_eq!(titles(&columns), ["NAME", "BYTES"]);
        assert_eq!(row(&columns, &("x", 7)), ["x", "7"]);
        assert_eq!(or_dash(Some("")), "—");
        assert_eq!(text_cmp(Some("B"), Some("a")), Ordering::Greater);
        assert_eq!(by(None, Some(1)), Ordering::Greater, "missing last");
    }
}
