//! Every read prints as a table, JSON, JSON lines or plain text from one definition: a
//! resource says its columns and row once (`Tabular`), and `list`/`item` do the rest. JSON is
//! the interface's own shapes (`{data, pagination}`, `{data}`), so the service docs' `jq`
//! recipes work on it.

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

use clap::ValueEnum;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use super::exit::Failure;
use crate::api::model::{CursorPagination, one_line};
use crate::columns::{self, Column};

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// A table on a terminal, JSON when piped.
    #[default]
    Auto,
    Table,
    Json,
    /// One JSON object a line: each item of a list.
    Jsonl,
    /// Tab-separated values without a header, nothing cut: for `cut` and `while read`.
    Plain,
    /// A Markdown report, where a command writes one (`diff`, `flaky`); a table elsewhere.
    Markdown,
}

impl Format {
    /// `auto` decided by whether stdout is a terminal.
    pub fn resolve(self) -> Format {
        match self {
            Format::Auto if std::io::stdout().is_terminal() => Format::Table,
            Format::Auto => Format::Json,
            other => other,
        }
    }

    pub fn is_machine(self) -> bool {
        matches!(self.resolve(), Format::Json | Format::Jsonl)
    }
}

/// `--json FIELDS` and `--jq EXPR`: what of a JSON document to print.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Members kept of each item (of `data`, or of the document); empty keeps them all.
    pub fields: Vec<String>,
    pub jq: Option<String>,
}

/// How this process prints: set once from the command line, before the command runs.
#[derive(Debug, Default)]
struct Settings {
    selection: Option<Selection>,
    colour: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Sets the selection and colour every document and text this process prints follows.
pub fn configure(selection: Option<Selection>, colour: bool) {
    let _ = SETTINGS.set(Settings { selection, colour });
}

/// Whether `--json FIELDS` or `--jq` chose the JSON (errors then stay in words).
pub fn selecting() -> bool {
    settings().selection.is_some()
}

fn settings() -> &'static Settings {
    SETTINGS.get_or_init(Settings::default)
}

/// A resource as a row of a table: its columns, from `crate::columns` where the console shows
/// the same resource.
pub trait Tabular: Sized {
    fn columns() -> Vec<Column<Self>>;

    fn row(&self) -> Vec<String> {
        columns::row(&Self::columns(), self)
    }
}

/// A list page in the interface's shape.
#[derive(Serialize)]
struct ListBody<'a, T> {
    data: &'a [T],
    pagination: &'a CursorPagination,
}

#[derive(Serialize)]
struct ItemBody<'a, T> {
    data: &'a T,
}

/// Prints a list in `format`.
pub fn list<T: Tabular + Serialize>(format: Format, items: &[T], pagination: &CursorPagination) -> Result<(), Failure> {
    let text = match format.resolve() {
        Format::Json => json(&ListBody { data: items, pagination })?,
        Format::Jsonl => jsonl(items)?,
        Format::Plain => plain(items.iter().map(Tabular::row)),
        Format::Table | Format::Auto | Format::Markdown => {
            let columns = T::columns();
            let mut text = table(&columns::titles(&columns), items.iter().map(|i| columns::row(&columns, i)).collect());
            if pagination.has_more {
                text.push_str(&format!(
                    "… more: {} in all (raise --limit, or pass --cursor {})\n",
                    pagination.total,
                    pagination.next_cursor.as_deref().unwrap_or("")
                ));
            }
            text
        }
    };
    emit(&text)
}

/// Prints one resource: `{data}` in JSON, its columns as `NAME  value` lines in a table.
pub fn item<T: Tabular + Serialize>(format: Format, item: &T) -> Result<(), Failure> {
    item_with(format, item, |_| Vec::new())
}

/// Like `item`, with sections after the key/value lines in a table (a job's simulations).
pub fn item_with<T: Tabular + Serialize>(
    format: Format,
    item: &T,
    more: impl FnOnce(&T) -> Vec<String>,
) -> Result<(), Failure> {
    let text = match format.resolve() {
        Format::Json => json(&ItemBody { data: item })?,
        Format::Jsonl => jsonl(std::slice::from_ref(item))?,
        Format::Plain => plain([item.row()].into_iter()),
        Format::Table | Format::Auto | Format::Markdown => {
            let mut text = details(&columns::titles(&T::columns()), &item.row());
            for section in more(item) {
                text.push('\n');
                text.push_str(&section);
            }
            text
        }
    };
    emit(&text)
}

/// Prints a JSON value as sent (for `switchboard api`): pretty JSON; with jsonl each item of a
/// list's `data` on its own line; with table a list's items as rows (members as columns) and
/// one resource as `NAME  value` lines.
pub fn value(format: Format, value: &serde_json::Value) -> Result<(), Failure> {
    let data = value.get("data");
    let text = match (format.resolve(), data) {
        (Format::Jsonl, Some(serde_json::Value::Array(items))) => jsonl(items)?,
        (Format::Jsonl, _) => jsonl(std::slice::from_ref(value))?,
        (Format::Table, Some(serde_json::Value::Array(items))) => {
            let columns: Vec<String> =
                items.first().and_then(|i| i.as_object()).map(|o| o.keys().cloned().collect()).unwrap_or_default();
            let rows = items.iter().map(|item| columns.iter().map(|c| cell(item.get(c))).collect()).collect();
            table(&columns.iter().map(String::as_str).collect::<Vec<_>>(), rows)
        }
        (Format::Table, Some(serde_json::Value::Object(members))) => {
            let columns: Vec<&str> = members.keys().map(String::as_str).collect();
            details(&columns, &members.values().map(|v| cell(Some(v))).collect::<Vec<_>>())
        }
        _ => json(value)?,
    };
    emit(&text)
}

/// A JSON member as a table cell: text bare, nothing as `—`, anything nested as compact JSON.
fn cell(value: Option<&serde_json::Value>) -> String {
    match value {
        None | Some(serde_json::Value::Null) => "—".into(),
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// `n` and the noun, plural unless `n` is 1 (`1 simulation`, `3 simulations`, `1 test case`).
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// Writes to stdout, verdict words in colour where colour is on; a closed pipe (`| head`) ends
/// quietly.
pub fn emit(text: &str) -> Result<(), Failure> {
    let painted;
    let text = if settings().colour {
        painted = super::colour::paint(text);
        painted.as_str()
    } else {
        text
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::io("cannot write to stdout", e)),
        _ => Ok(()),
    }
}

fn encode(error: serde_json::Error) -> Failure {
    Failure::new(super::exit::Exit::Internal, "encode", format!("cannot encode the output as JSON: {error}"))
}

/// A JSON document as printed: pretty, or as `--json FIELDS` and `--jq` select.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    let Some(selection) = &settings().selection else {
        return Ok(format!("{}\n", serde_json::to_string_pretty(value).map_err(encode)?));
    };
    let mut document = serde_json::to_value(value).map_err(encode)?;
    super::fields::keep(&mut document, &selection.fields)?;
    match &selection.jq {
        Some(expr) => super::jq::filter(expr, &document),
        None => Ok(format!("{}\n", serde_json::to_string_pretty(&document).map_err(encode)?)),
    }
}

fn jsonl<T: Serialize>(items: &[T]) -> Result<String, Failure> {
    let mut text = String::new();
    for item in items {
        text.push_str(&serde_json::to_string(item).map_err(encode)?);
        text.push('\n');
    }
    Ok(text)
}

fn plain(rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut text = String::new();
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| c.replace(['\t', '\n'], " ")).collect();
        text.push_str(&cells.join("\t"));
        text.push('\n');
    }
    text
}

/// The terminal's width, when stdout is one.
fn terminal_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    crossterm::terminal::size().ok().map(|(w, _)| w as usize).filter(|w| *w > 20)
}

/// `items` as rows of `columns` under their titles, as `table` sets them.
pub fn table_of<'a, T: 'a>(columns: &[Column<T>], items: impl IntoIterator<Item = &'a T>) -> String {
    table(&columns::titles(columns), items.into_iter().map(|item| columns::row(columns, item)).collect())
}

/// Aligned columns under a header (a command prints a column list, with `table_of`); on a terminal the widest columns are cut with … to fit.
fn table(columns: &[&str], rows: Vec<Vec<String>>) -> String {
    if rows.is_empty() {
        return "(none)\n".into();
    }
    let rows: Vec<Vec<String>> = rows.into_iter().map(|r| r.into_iter().map(|c| one_line(&c)).collect()).collect();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.width()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate().take(widths.len()) {
            widths[i] = widths[i].max(cell.width());
        }
    }
    if let Some(available) = terminal_width() {
        // A cut id cannot be copied into the next command: columns of ids stay whole.
        let ids: Vec<bool> =
            (0..widths.len()).map(|i| rows.iter().all(|r| r.get(i).is_some_and(|c| is_id(c)))).collect();
        fit_widths(&mut widths, &ids, available);
    }
    let mut text = line(&columns.iter().map(|c| c.to_string()).collect::<Vec<_>>(), &widths);
    for row in &rows {
        text.push_str(&line(row, &widths));
    }
    text
}

/// The narrowest a cut column gets: enough for a few characters and the `…`.
const MIN_CUT: usize = 8;

/// Column widths cut to fit `available` (with two spaces between columns): every column wider
/// than one cap is cut to that cap, the widest the line allows, so a long column (a reason) is
/// cut as far as the next long one and never alone down to a stub while the others stay whole.
/// The columns marked `whole` (ids) are never cut.
fn fit_widths(widths: &mut [usize], whole: &[bool], available: usize) {
    let gaps = 2 * widths.len().saturating_sub(1);
    let kept = |i: usize| whole.get(i).copied().unwrap_or(false);
    let capped = |i: usize, w: usize, cap: usize| if kept(i) { w } else { w.min(cap) };
    let total = |cap: usize| widths.iter().enumerate().map(|(i, w)| capped(i, *w, cap)).sum::<usize>() + gaps;
    let widest = widths.iter().copied().max().unwrap_or(0);
    if total(widest) <= available {
        return;
    }
    let cap = (MIN_CUT..widest).rev().find(|cap| total(*cap) <= available).unwrap_or(MIN_CUT);
    for (i, width) in widths.iter_mut().enumerate() {
        *width = capped(i, *width, cap);
    }
}

/// A cell that is an id (a UUID as the interface writes it).
fn is_id(cell: &str) -> bool {
    cell.len() == 36 && uuid::Uuid::try_parse(cell).is_ok()
}

fn line(cells: &[String], widths: &[usize]) -> String {
    let last = widths.len().saturating_sub(1);
    let mut text = String::new();
    for (i, width) in widths.iter().enumerate() {
        let cell = fit(cells.get(i).map(String::as_str).unwrap_or(""), *width);
        text.push_str(&cell);
        if i < last {
            text.push_str(&" ".repeat(width.saturating_sub(cell.width()) + 2));
        }
    }
    text.push('\n');
    text
}

/// `text` cut to `width` columns with … where cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + c.to_string().width() + 1 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// `NAME  value` lines: one resource in a table.
pub fn details(columns: &[&str], row: &[String]) -> String {
    let width = columns.iter().map(|c| c.width()).max().unwrap_or(0);
    let mut text = String::new();
    for (column, cell) in columns.iter().zip(row) {
        text.push_str(&format!("{column:<width$}  {cell}\n"));
    }
    text
}

pub use crate::columns::or_dash;

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_said_in_the_singular() {
        assert_eq!(super::counted(1u64, "simulation"), "1 simulation");
        assert_eq!(super::counted(0u64, "simulation"), "0 simulations");
        assert_eq!(super::counted(3u64, "test case"), "3 test cases");
    }

    use super::*;

    #[test]
    fn a_cell_wider_than_its_column_never_underflows() {
        assert_eq!(line(&["αβγδεζηθ".to_string(), "x".into()], &[3, 1]), "αβ…  x\n");
        assert_eq!(fit("wide", 0), "…");
    }

    #[test]
    fn a_narrow_terminal_cuts_the_widest_columns_evenly() {
        // The gate's simulations at 120 columns: VERDICT, STATUS, TEST CASE, WHY, ID. The long
        // reason is cut as far as the test case, not alone down to a stub.
        // The ids stay whole: a cut id cannot be copied.
        let mut widths = [7, 9, 150, 900, 36];
        fit_widths(&mut widths, &[false, false, false, false, true], 120);
        assert_eq!(widths, [7, 9, 30, 30, 36]);
        let mut no_ids = [7, 9, 150, 900, 36];
        fit_widths(&mut no_ids, &[], 120);
        assert_eq!(no_ids, [7, 9, 32, 32, 32]);
        // What fits is left alone; nothing is cut under MIN_CUT however narrow the line.
        let mut fits = [7, 9, 40];
        fit_widths(&mut fits, &[], 120);
        assert_eq!(fits, [7, 9, 40]);
        let mut narrow = [20, 30, 5];
        fit_widths(&mut narrow, &[], 10);
        assert_eq!(narrow, [MIN_CUT, MIN_CUT, 5]);
        assert!(is_id("2d1b3558-660c-4b6c-ad50-076b19f6f95e") && !is_id("Reschedule a cleaning"));
    }

    #[test]
    fn tables_align_and_plain_is_tab_separated() {
        let rows = vec![vec!["a".to_string(), "long value".to_string()], vec!["bbb".into(), "x".into()]];
        assert_eq!(table(&["ID", "NAME"], rows.clone()), "ID   NAME\na    long value\nbbb  x\n");
        assert_eq!(plain(rows.into_iter()), "a\tlong value\nbbb\tx\n");
        assert_eq!(fit("abcdefgh", 5), "abcd…");
    }
}
