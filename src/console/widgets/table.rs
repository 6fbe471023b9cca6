//! The one table every pane uses. Only the visible rows are built, so a 100,000-row list
//! costs the same per frame as a 50-row one. Columns that `fit` take the width of their widest
//! visible value (within limits), so short values never hold room the names need; a value cut
//! to its column ends in `…`, and the sorted column's title always keeps its ▲/▼.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthStr;

use super::list::{ListState, Load, Shape};
use super::text::{fit, fit_line};
use crate::console::marks::Marks;
use crate::console::theme::Theme;

/// Cells between columns.
const SPACING: u16 = 1;

use crate::columns::Column;
pub use crate::columns::Width;

/// A column's heading: its title and how wide it may be.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    pub title: &'static str,
    pub width: Width,
}

/// A column of a fixed constraint (a `Fill` for names, a `Length` for fixed-size values).
pub const fn col(title: &'static str, width: Constraint) -> Head {
    Head { title, width: Width::Fixed(width) }
}

/// A column as wide as its widest visible value, between `min` and `max` cells.
pub const fn fitted(title: &'static str, min: u16, max: u16) -> Head {
    Head { title, width: Width::Fit { min, max } }
}

/// What a row's cells may draw on besides their item: the theme, the time, the marked calls,
/// the table's width and the pane (or whatever `X` the table is drawn for).
pub struct Context<'a, X> {
    pub theme: &'a Theme,
    pub now: jiff::Timestamp,
    pub marks: &'a Marks,
    /// The table's whole width (borders included): set by the table as it draws.
    pub width: u16,
    pub of: &'a X,
}

impl<'a, X> Context<'a, X> {
    /// A context for drawing `of`'s table; the table sets the width.
    pub fn new(theme: &'a Theme, now: jiff::Timestamp, marks: &'a Marks, of: &'a X) -> Self {
        Context { theme, now, marks, width: 0, of }
    }
}

/// A table width no screen reaches: a column `at_least(NEVER)` keeps its place for sorting and
/// is never drawn.
pub const NEVER: u16 = u16::MAX;

/// How a console column draws its cell.
pub type Draw<T, X> = fn(&T, &Context<'_, X>) -> Cell<'static>;

/// A resource's column as the console shows it: its plain text, or a cell of its own (styled,
/// timed, named) where `cell` says so. A column may need a screen of some width (`from`), so
/// narrow screens drop the least needed columns first while keeping every column's place for
/// sorting, and may be headed otherwise on wide screens (`wider`).
pub struct Shown<T, X = ()> {
    pub column: Column<T>,
    pub cell: Option<Draw<T, X>>,
    /// The narrowest table (its whole width) that shows this column.
    pub from: u16,
    /// From this table width on, this heading (a longer title, room for longer values).
    pub wide: Option<(u16, Head)>,
}

impl<T, X> Shown<T, X> {
    /// The column's text as it is.
    pub const fn plain(column: Column<T>) -> Self {
        Shown { column, cell: None, from: 0, wide: None }
    }

    /// The column drawn by `cell`.
    pub const fn drawn(column: Column<T>, cell: Draw<T, X>) -> Self {
        Shown { column, cell: Some(cell), from: 0, wide: None }
    }

    /// The same column, shown only in tables at least `width` cells wide.
    pub const fn at_least(self, width: u16) -> Self {
        Shown { from: width, ..self }
    }

    /// The same column, headed `head` in tables at least `width` cells wide.
    pub const fn wider(self, width: u16, head: Head) -> Self {
        Shown { wide: Some((width, head)), ..self }
    }

    /// Whether a table `width` cells wide shows this column.
    pub fn shows_at(&self, width: u16) -> bool {
        width >= self.from
    }

    /// The heading in a table `width` cells wide.
    pub fn head_at(&self, width: u16) -> Head {
        match self.wide {
            Some((from, head)) if width >= from => head,
            _ => Head { title: self.column.title, width: self.column.width },
        }
    }

    pub fn draw(&self, item: &T, row: &Context<'_, X>) -> Cell<'static> {
        match self.cell {
            Some(cell) => cell(item, row),
            None => Cell::from((self.column.text)(item)),
        }
    }
}

// Not derived: a derive would ask `T: Clone`, and a column only holds pointers.
impl<T, X> Clone for Shown<T, X> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, X> Copy for Shown<T, X> {}

/// Every column of `columns` as its plain text.
pub const fn plain<T, X, const N: usize>(columns: [Column<T>; N]) -> [Shown<T, X>; N] {
    let mut shown = [Shown::plain(columns[0]); N];
    let mut at = 1;
    while at < N {
        shown[at] = Shown::plain(columns[at]);
        at += 1;
    }
    shown
}

/// The places (in `columns`) of the columns a table `width` cells wide shows.
pub fn shown_at<T, X>(columns: &[Shown<T, X>], width: u16) -> Vec<usize> {
    (0..columns.len()).filter(|&at| columns[at].shows_at(width)).collect()
}

/// `item`'s cells under the columns at `places`.
pub fn cells<T, X>(columns: &[Shown<T, X>], places: &[usize], item: &T, row: &Context<'_, X>) -> Vec<Cell<'static>> {
    places.iter().map(|&at| columns[at].draw(item, row)).collect()
}

/// How `a` and `b` stand in column `at` of `columns`.
pub fn compare<T, X>(columns: &[Shown<T, X>], a: &T, b: &T, at: usize) -> std::cmp::Ordering {
    columns.get(at).map_or(std::cmp::Ordering::Equal, |c| c.column.compare(a, b))
}

// The table knows its columns and the list only a comparison: the shape a table sorts by its
// columns is made here, so the list does not look up at the table.
impl<T: 'static> Shape<T> {
    /// A shape sorted by `columns`' own orders.
    pub fn columns<X: 'static>(haystack: fn(&T) -> String, columns: &'static [Shown<T, X>]) -> Self {
        Shape::by(haystack, move |a, b, at| compare(columns, a, b, at))
    }
}

/// A table of `columns` for the items of a list: its title, whether focused, what an empty
/// list says.
pub struct Columns<'a, T, X> {
    pub title: String,
    pub columns: &'a [Shown<T, X>],
    pub context: Context<'a, X>,
    pub focused: bool,
    pub empty: &'a str,
}

/// Draws `list` under those of `view`'s columns that fit `area`; the sort marker goes on the
/// sorted column wherever it now stands, and on none when that column is left out.
pub fn draw_columns<T, X>(frame: &mut Frame, area: Rect, list: &ListState<T>, view: Columns<'_, T, X>) {
    let context = Context { width: area.width, ..view.context };
    let places = shown_at(view.columns, area.width);
    let heads: Vec<Head> = places.iter().map(|&at| view.columns[at].head_at(area.width)).collect();
    let sort = list.sort.and_then(|(at, down)| places.iter().position(|&p| p == at).map(|p| (p, down)));
    let row = |item: &T| cells(view.columns, &places, item, &context);
    let table =
        TableView { title: view.title, columns: &heads, row: &row, sort, focused: view.focused, empty: view.empty };
    draw(frame, area, list, table, context.theme);
}

/// One cell: a line of text and the style of its whole area. The table cuts the line to its
/// column, so the line is kept whole here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cell<'a> {
    line: Line<'a>,
    style: Style,
}

impl<'a, T: Into<Line<'a>>> From<T> for Cell<'a> {
    fn from(content: T) -> Self {
        Cell { line: content.into(), style: Style::default() }
    }
}

impl<'a> Cell<'a> {
    pub fn style(mut self, style: impl Into<Style>) -> Self {
        self.style = style.into();
        self
    }

    /// Cells the whole value takes.
    pub fn width(&self) -> usize {
        self.line.width()
    }

    /// The ratatui cell, cut to `width` cells with `…`.
    fn cut(self, width: u16) -> ratatui::widgets::Cell<'a> {
        ratatui::widgets::Cell::from(fit_line(self.line, width as usize)).style(self.style)
    }
}

/// What a table needs besides the list: its name, columns, and how to draw one row.
pub struct TableView<'a, T> {
    pub title: String,
    pub columns: &'a [Head],
    pub row: &'a dyn Fn(&T) -> Vec<Cell<'static>>,
    /// The sorted column's place among `columns`, and whether descending.
    pub sort: Option<(usize, bool)>,
    pub focused: bool,
    /// Shown when the list is empty and loaded.
    pub empty: &'a str,
}

/// The sort marker of column `i`, if the list is sorted by it.
fn marker(sort: Option<(usize, bool)>, i: usize) -> &'static str {
    match sort {
        Some((s, false)) if s == i => " ▲",
        Some((s, true)) if s == i => " ▼",
        _ => "",
    }
}

/// The columns' widths in `width` cells: each `fit` column sized to its title (with the sort
/// marker) and the widest of `rows`, then laid out as the table lays them out.
pub fn widths(columns: &[Head], rows: &[Vec<Cell>], sort: Option<(usize, bool)>, width: u16) -> Vec<u16> {
    let constraints = columns.iter().enumerate().map(|(i, column)| match column.width {
        Width::Fixed(constraint) => constraint,
        Width::Fit { min, max } => {
            let title = column.title.width() + marker(sort, i).width();
            let widest = rows.iter().filter_map(|r| r.get(i)).map(Cell::width).max().unwrap_or(0);
            Constraint::Length((title.max(widest) as u16).clamp(min, max.max(min)))
        }
    });
    let layout = Layout::horizontal(constraints).flex(Flex::Start).spacing(SPACING);
    layout.split(Rect::new(0, 0, width, 1)).iter().map(|r| r.width).collect()
}

/// A column's title in `width` cells: cut with `…` before the sort marker is.
fn header_cell(title: &str, marker: &str, width: u16) -> ratatui::widgets::Cell<'static> {
    let room = (width as usize).saturating_sub(marker.width());
    let title = if marker.is_empty() || room > 0 { fit(title, room) } else { String::new() };
    ratatui::widgets::Cell::from(format!("{title}{marker}"))
}

/// Draws `list` into `area`: a bordered table with the load state in its title.
pub fn draw<T>(frame: &mut Frame, area: Rect, list: &ListState<T>, view: TableView<'_, T>, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if view.focused { theme.title() } else { theme.dim() })
        .title(title_line(list, &view, theme));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 2 || inner.width < 4 {
        return;
    }
    let height = inner.height as usize - 1; // the header row
    list.height.set(height);

    let message = match &list.load {
        Load::Unavailable => Some("this service does not list these; press o to open one by id".to_string()),
        Load::Loading | Load::Idle if list.items.is_empty() => Some("loading…".to_string()),
        Load::Failed(message) if list.items.is_empty() => Some(format!("could not load: {message}")),
        _ if list.is_empty() && !list.filter.is_empty() => Some(format!("nothing matches /{}", list.filter)),
        _ if list.is_empty() => Some(view.empty.to_string()),
        _ => None,
    };
    if let Some(message) = message {
        let style = if matches!(list.load, Load::Failed(_)) { theme.error() } else { theme.dim() };
        frame.render_widget(Paragraph::new(Line::styled(message, style)).wrap(Default::default()), inner);
        return;
    }

    // Keep the selection in view, moving the window as little as possible.
    let mut offset = list.offset.get().min(list.len().saturating_sub(1));
    if list.selected < offset {
        offset = list.selected;
    } else if list.selected >= offset + height {
        offset = list.selected + 1 - height;
    }
    list.offset.set(offset);

    let end = (offset + height).min(list.len());
    let cells: Vec<Vec<Cell>> = (offset..end).filter_map(|p| list.visible(p)).map(|item| (view.row)(item)).collect();
    let widths = widths(view.columns, &cells, view.sort, inner.width);
    let rows: Vec<Row> =
        cells.into_iter().map(|row| Row::new(row.into_iter().zip(&widths).map(|(cell, w)| cell.cut(*w)))).collect();
    let header = Row::new(
        view.columns.iter().zip(&widths).enumerate().map(|(i, (c, w))| header_cell(c.title, marker(view.sort, i), *w)),
    )
    .style(theme.heading());
    let table = Table::new(rows, widths.iter().map(|w| Constraint::Length(*w)))
        .header(header)
        .column_spacing(SPACING)
        .row_highlight_style(if view.focused { theme.selected() } else { theme.heading() });
    let mut state = TableState::default().with_selected(Some(list.selected - offset));
    frame.render_stateful_widget(table, inner, &mut state);
}

fn title_line<T>(list: &ListState<T>, view: &TableView<'_, T>, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(format!(" {} ", view.title), theme.title())];
    let count = if list.view.len() == list.items.len() {
        format!("{}", list.items.len())
    } else {
        format!("{}/{}", list.view.len(), list.items.len())
    };
    if !matches!(list.load, Load::Unavailable | Load::Idle) {
        spans.push(Span::styled(format!("[{count}] "), theme.dim()));
    }
    if !list.filter.is_empty() {
        spans.push(Span::styled(format!("/{} ", fit(&list.filter, 20)), theme.highlight()));
    }
    match &list.load {
        Load::Stale(_) => spans.push(Span::styled("stale (cached) ", theme.stale())),
        Load::Failed(_) if !list.items.is_empty() => spans.push(Span::styled("refresh failed ", theme.error())),
        _ => {}
    }
    if list.fetching && !matches!(list.load, Load::Loading) {
        spans.push(Span::styled("⟳ ", theme.dim()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Constraint::{Fill, Length};

    fn row(values: &[&'static str]) -> Vec<Cell<'static>> {
        values.iter().map(|v| Cell::from(*v)).collect()
    }

    #[test]
    fn fit_columns_take_their_widest_value_and_leave_the_rest_to_names() {
        let columns = [fitted("STATUS", 4, 18), col("NAME", Fill(1)), col("N", Length(3))];
        let rows = [row(&["RUNNING", "a long name", "1"]), row(&["OK", "b", "2"])];
        let w = widths(&columns, &rows, None, 40);
        assert_eq!(w[0], 7, "the widest value, not the maximum");
        assert_eq!(w[2], 3);
        assert_eq!(w[1], 40 - 7 - 3 - 2, "the name gets the rest");
        let sorted = widths(&columns, &rows, Some((0, false)), 40);
        assert_eq!(sorted[0], 8, "room for the title and its marker: STATUS ▲");
        let long = [row(&["AN_EXTREMELY_LONG_STATUS_VALUE", "x", "1"])];
        assert_eq!(widths(&columns, &long, None, 40)[0], 18, "never past the maximum");
    }

    #[test]
    fn a_shown_column_draws_its_text_or_its_own_cell_and_sorts_by_its_order() {
        use crate::columns::{Column, fit};
        const SIZE: Column<u32> = Column::new("SIZE", fit(4, 8), |n: &u32| n.to_string()).by(|a, b| b.cmp(a));
        const SHOWN: [Shown<u32, &str>; 2] =
            [Shown::plain(SIZE), Shown::drawn(SIZE, |n, cx| Cell::from(format!("{n} {} {}", cx.of, cx.width)))];
        let (theme, marks) = (Theme::new("default", true), Marks::default());
        let context = Context { width: 9, ..Context::new(&theme, jiff::Timestamp::UNIX_EPOCH, &marks, &"KB") };
        assert_eq!(cells(&SHOWN, &[0, 1], &3, &context), [Cell::from("3"), Cell::from("3 KB 9")]);
        assert_eq!(SHOWN[1].head_at(9).title, "SIZE");
        assert_eq!(compare(&SHOWN, &1, &2, 1), std::cmp::Ordering::Greater, "the column's own order: largest first");
        assert_eq!(compare(&SHOWN, &1, &2, 9), std::cmp::Ordering::Equal, "no such column");
    }

    #[test]
    fn narrow_tables_leave_out_the_columns_that_need_room_and_wide_ones_head_them_otherwise() {
        use crate::columns::{Column, fit};
        const N: Column<u32> = Column::new("N", fit(1, 3), |n: &u32| n.to_string());
        const SHOWN: [Shown<u32>; 3] = [
            Shown::plain(N),
            Shown::plain(N.titled("WIDE")).at_least(100),
            Shown::plain(N.titled("M")).wider(120, fitted("MORE", 4, 9)),
        ];
        assert_eq!(shown_at(&SHOWN, 99), [0, 2], "the middle column needs 100 cells");
        assert_eq!(shown_at(&SHOWN, 100), [0, 1, 2]);
        assert_eq!(SHOWN[2].head_at(119).title, "M");
        assert_eq!(SHOWN[2].head_at(120).title, "MORE");
        let never: Shown<u32> = Shown::plain(N).at_least(NEVER);
        assert!(!never.shows_at(u16::MAX - 1));
    }

    #[test]
    fn cut_values_end_in_an_ellipsis_and_the_marker_survives() {
        let cell = Cell::from(Line::from(vec![Span::raw("Brightsmile "), Span::raw("reschedule")])).cut(14);
        let mut buffer = ratatui::buffer::Buffer::empty(Rect::new(0, 0, 14, 1));
        ratatui::widgets::Widget::render(Table::new([Row::new([cell])], [Length(14)]), buffer.area, &mut buffer);
        let text: String = (0..14).map(|x| buffer[(x, 0)].symbol().to_string()).collect();
        assert_eq!(text, "Brightsmile r…");
        let header = header_cell("LATEST JOB", " ▼", 8);
        let mut buffer = ratatui::buffer::Buffer::empty(Rect::new(0, 0, 8, 1));
        ratatui::widgets::Widget::render(Table::new([Row::new([header])], [Length(8)]), buffer.area, &mut buffer);
        let text: String = (0..8).map(|x| buffer[(x, 0)].symbol().to_string()).collect();
        assert_eq!(text, "LATES… ▼");
    }
}
