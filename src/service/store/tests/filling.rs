//! A fill (`store::fill`): the documents as written, whatever their text holds, counted like
//! any insert, on both engines.

use super::*;

#[test]
fn a_fill_keeps_every_document_verbatim_and_counted() {
    for (_dir, store) in engines() {
        let awkward = serde_json::json!({ "id": "i2", "title": "tab\there, line\nthere, \\N and a \\ and \"quotes\"" });
        let docs = vec![
            issue("i1", "OPEN"),
            Doc::new(Kind::Issue, "i2", &awkward, "2026-01-01T00:00:00Z")
                .unwrap_or_else(|e| panic!("{e:?}"))
                .status(Some("RESOLVED")),
            issue("i3", "OPEN"),
        ];
        let bodies: Vec<String> = docs.iter().map(|d| d.body.clone()).collect();
        write(&store, |tx| fill::fill(tx, &docs));
        for (id, body) in ["i1", "i2", "i3"].iter().zip(&bodies) {
            assert_eq!(read(&store, |c| get_raw(c, Kind::Issue, id)).as_ref(), Some(body), "{:?}", store.dialect());
        }
        let (total, open, scanned, scanned_open) = totals(&store);
        assert_eq!((total, open), (3, 2), "{:?}: the kept counts", store.dialect());
        assert_eq!((scanned, scanned_open), (3, 2));

        // Text the store cannot keep is refused, naming it, and nothing of the fill is kept.
        let nul = Doc::new(Kind::Issue, "i4", &serde_json::json!({ "title": "a\u{0}b" }), "2026-01-01T00:00:00Z")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let both = [issue("i5", "OPEN"), nul];
        let refused = store.write_blocking(|tx| fill::fill(tx, &both));
        assert!(matches!(refused, Err(StoreError::Unstorable)), "{:?}", store.dialect());
        assert!(!read(&store, |c| exists(c, Kind::Issue, "i5")));
    }
}

#[test]
fn a_fill_row_writes_a_text_array_as_postgresql_reads_it_back() {
    let store = postgres_store();
    // What an array literal or `COPY` would otherwise take for syntax: quotes, backslashes,
    // commas, braces, blanks, the word NULL, a tab and a line break.
    let texts = [
        Some("plain"),
        None,
        Some("NULL"),
        Some("a,b {c}"),
        Some("say \"hi\""),
        Some("back\\slash \\N"),
        Some("tab\there\nline\r"),
        Some(""),
        Some(" padded "),
    ];
    let mut row = Vec::new();
    fill::copy_row(&mut row, &[Arg::Text("t1"), Arg::Texts(&texts)]);
    let read_back: String = write(&store, |tx| {
        tx.execute_batch("CREATE TEMP TABLE arrays (id TEXT, texts TEXT[]) ON COMMIT DROP")?;
        tx.copy_in("COPY arrays (id, texts) FROM STDIN", &row)?;
        let json = tx.value("SELECT CAST(array_to_json(texts) AS TEXT) FROM arrays WHERE id = ?1", args!["t1"])?;
        json.ok_or_else(|| StoreError::backend("the array was not copied"))
    });
    let read_back: Vec<Option<String>> =
        serde_json::from_str(&read_back).unwrap_or_else(|e| panic!("{e}: {read_back}"));
    assert_eq!(read_back, texts.map(|t| t.map(str::to_owned)));
}
