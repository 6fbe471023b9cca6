//! Markdown tables (`gate --markdown`, `diff -o markdown`) from the column lists the terminal's
//! tables print: the same columns, titled as a sentence, numbers set on the right.

use std::fmt::Write;

use crate::api::model::one_line;
use crate::columns::{Align, Column};

/// `items` as a Markdown table under `columns`, its header even when there are none.
pub fn table<'a, T: 'a>(columns: &[Column<T>], items: impl IntoIterator<Item = &'a T>) -> String {
    let mut md = String::from("|");
    for column in columns {
        match title(column.title) {
            title if title.is_empty() => md.push_str(" |"),
            title => {
                let _ = write!(md, " {title} |");
            }
        }
    }
    md.push_str("\n|");
    for column in columns {
        md.push_str(match column.align {
            Align::Left => " --- |",
            Align::Right => " ---: |",
            Align::Centre => " :---: |",
        });
    }
    md.push('\n');
    for item in items {
        md.push('|');
        for column in columns {
            let _ = write!(md, " {} |", cell(&(column.text)(item)));
        }
        md.push('\n');
    }
    md
}

/// Text safe inside a table cell: one line, its `|` escaped.
pub fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// A terminal's `TEST CASE` as a Markdown page writes it: `Test case`.
fn title(title: &str) -> String {
    let mut chars = title.chars();
    chars.next().map(|first| first.to_string() + &chars.as_str().to_lowercase()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: Column<(&str, f64)> = Column::text("TEST CASE", |i: &(&str, f64)| i.0.to_string());
    const RATE: Column<(&str, f64)> = Column::text("PASS RATE", |i: &(&str, f64)| format!("{} %", i.1)).right();
    const MARK: Column<(&str, f64)> = Column::text("", |i: &(&str, f64)| if i.1 > 50.0 { "✅" } else { "" }.into());

    #[test]
    fn a_table_titles_its_columns_as_a_sentence_and_sets_numbers_right() {
        let md = table(&[NAME, RATE, MARK.centred()], &[("Renew  a | card", 75.0), ("Δ", 0.0)]);
        assert_eq!(
            md,
            "| Test case | Pass rate | |\n| --- | ---: | :---: |\n| Renew a \\| card | 75 % | ✅ |\n| Δ | 0 % |  |\n"
        );
        assert_eq!(table(&[NAME], &[]), "| Test case |\n| --- |\n", "the header alone");
    }
}
