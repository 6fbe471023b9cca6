//! The one table every pane uses. Only the visible rows are built, so a 100,000-row list
//! costs the same per frame as a 50-row one.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::list::{ListState, Load};
use super::text::fit;
use crate::console::theme::Theme;

/// A column: its title and how wide it may be.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub title: &'static str,
    pub width: Constraint,
}

pub const fn col(title: &'static str, width: Constraint) -> Column {
    Column { title, width }
}

/// What a table needs besides the list: its name, columns, and how to draw one row.
pub struct TableView<'a, T> {
    pub title: String,
    pub columns: &'a [Column],
    pub row: &'a dyn Fn(&T) -> Vec<Cell<'static>>,
    pub focused: bool,
    /// Shown when the list is empty and loaded.
    pub empty: &'a str,
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
    let rows: Vec<Row> = (offset..end).filter_map(|p| list.visible(p)).map(|item| Row::new((view.row)(item))).collect();
    let header = Row::new(view.columns.iter().enumerate().map(|(i, c)| {
        let marker = match list.sort {
            Some((s, false)) if s == i => " ▲",
            Some((s, true)) if s == i => " ▼",
            _ => "",
        };
        Cell::from(format!("{}{marker}", c.title))
    }))
    .style(theme.heading());
    let table = Table::new(rows, view.columns.iter().map(|c| c.width))
        .header(header)
        .column_spacing(1)
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
