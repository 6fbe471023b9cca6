//! Filling a store with many documents at once (a benchmark's million issues): on PostgreSQL
//! one `COPY` (a stream, not a round trip a row), on SQLite one prepared insert a row. The
//! documents only, with the counts their triggers keep: no events, since a fill is not a change
//! anyone is watching.

use super::Doc;
use super::StoreResult;
use super::db::{Arg, Dialect, Tx, storable};
use crate::args;

/// Inserts `docs` (none of which may exist yet) in the transaction.
pub fn fill(tx: &Tx, docs: &[Doc]) -> StoreResult<()> {
    for doc in docs {
        storable(&columns(doc))?;
    }
    match tx.dialect() {
        Dialect::Sqlite => {
            for doc in docs {
                tx.execute(
                    "INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    &columns(doc),
                )?;
            }
        }
        Dialect::Postgres => {
            let mut data = Vec::with_capacity(docs.iter().map(|d| d.body.len() + 128).sum());
            for doc in docs {
                copy_row(&mut data, &columns(doc));
            }
            tx.copy_in("COPY docs (kind, id, body, status, parent_id, created_at) FROM STDIN", &data)?;
        }
    }
    Ok(())
}

fn columns(doc: &Doc) -> Vec<Arg<'_>> {
    args![doc.kind.as_str(), &doc.id, &doc.body, doc.status.as_deref(), doc.parent_id.as_deref(), &doc.created_at]
        .to_vec()
}

/// One row in `COPY`'s text format: tab-separated, `\N` for NULL, the backslash and the
/// characters that would end a field or a row escaped. An array (`Arg::Texts`) is written as
/// PostgreSQL's array literal (`{"a",NULL}`), then escaped as any field is.
pub(super) fn copy_row(out: &mut Vec<u8>, fields: &[Arg]) {
    for (n, field) in fields.iter().enumerate() {
        if n > 0 {
            out.push(b'\t');
        }
        match field {
            Arg::Text(text) => copy_escaped(out, text.as_bytes()),
            Arg::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Arg::Real(x) => out.extend_from_slice(x.to_string().as_bytes()),
            Arg::Null => out.extend_from_slice(b"\\N"),
            Arg::Texts(texts) => copy_escaped(out, array_literal(texts).as_bytes()),
        }
    }
    out.push(b'\n');
}

/// A field's bytes with `COPY`'s escapes: the backslash, and what would end a field or a row.
fn copy_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// A text array as PostgreSQL's literal: every element quoted (so commas, braces, blanks and
/// the word NULL stay text), its `"` and `\` escaped; an absent element is `NULL`.
fn array_literal(texts: &[Option<&str>]) -> String {
    let mut literal = String::from("{");
    for (n, text) in texts.iter().enumerate() {
        if n > 0 {
            literal.push(',');
        }
        match text {
            None => literal.push_str("NULL"),
            Some(text) => {
                literal.push('"');
                for c in text.chars() {
                    if matches!(c, '"' | '\\') {
                        literal.push('\\');
                    }
                    literal.push(c);
                }
                literal.push('"');
            }
        }
    }
    literal.push('}');
    literal
}
