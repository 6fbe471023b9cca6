//! PostgreSQL's migration 9 (issue 33: its CPU a simulation): `sb_set_members` writes the
//! bytes `members::set` writes, and the counts and revisions kept a statement at a time are the
//! ones migration 8's row trigger kept, on a database migrated from 8 with data in it.

use ::postgres::{Client, NoTls};

use super::*;
use crate::service::store::postgres::migrations::migrate_to;

/// `sb_set_members` in SQL, as the claim and the fold call it.
fn set_in_sql(store: &Store, body: &str, members: &[(&str, &str)]) -> String {
    let members: Vec<[&str; 2]> = members.iter().map(|(name, json)| [*name, *json]).collect();
    let members = serde_json::to_string(&members).unwrap_or_else(|e| panic!("{e}"));
    read(store, |c| c.value("SELECT sb_set_members(CAST(?1 AS JSON), CAST(?2 AS JSONB))", args![body, &members]))
        .unwrap_or_else(|| panic!("sb_set_members answered nothing for {body}"))
}

#[test]
fn members_set_in_sql_are_the_bytes_members_set_writes() {
    let store = postgres_store();
    let cases: &[(&str, &[(&str, &str)])] = &[
        // Nested objects and arrays kept verbatim; a nested member is not a top-level one.
        (r#"{"a":{"status":"X","b":[1,{"c":null}]},"status":"PENDING"}"#, &[("status", r#""QUEUED""#)]),
        (r#"{"a":{"b":1}}"#, &[("a", r#"{"b":2,"c":[true,false]}"#)]),
        // null, in the body and as the value set.
        (r#"{"tally":null,"n":1}"#, &[("tally", r#"{"n":1}"#)]),
        (r#"{"tally":{"n":1},"n":1}"#, &[("tally", "null")]),
        // Absent members appended in the order given.
        (r#"{"id":"j1"}"#, &[("verdict", r#""PASS""#), ("attempt", "2")]),
        ("{}", &[("a", "1")]),
        (r#"{"id":"j1"}"#, &[]),
        // Unicode in keys and values, escaped and not; a key that needs escaping.
        (r#"{"naïve":"café ☕","\u00e9t\u00e9":"\u2603","q\"k":"\n\t"}"#, &[("naïve", r#""thé 🍵""#)]),
        (r#"{"a":1}"#, &[("new\nline \"quoted\" ünï", r#""\u0001""#)]),
        // Numbers keep their text (no rounding, no reformatting), in the body and as set.
        (r#"{"rate":0.8333333333333334,"big":12345678901234567890,"e":1E+3,"z":-0,"f":1.50}"#, &[("f", "2.50")]),
        (
            r#"{"completedItems":7,"failedItems":0}"#,
            &[("completedItems", "8"), ("updatedAt", r#""2026-11-28T00:00:00Z""#)],
        ),
        // A name given twice: the last value, in the first's place.
        (r#"{"a":1,"b":2}"#, &[("a", "3"), ("c", "4"), ("a", "5"), ("c", "6")]),
        // A key the body has twice: only the first is set.
        (r#"{"a":1,"b":2,"a":3}"#, &[("a", "9")]),
        // Set in place (migration 17) after plain members: strings, numbers, literals, unicode.
        (
            r#"{"id":"s1","n":-1.5E+3,"ok":true,"no":null,"naïve":"café","status":"PENDING","p":{"status":1}}"#,
            &[("status", r#""QUEUED""#)],
        ),
        (r#"{"status":"PENDING"}"#, &[("status", r#""QUEUED""#), ("status", "null"), ("status", r#""X""#)]),
        (r#"{"a":1,"status":2,"status":3}"#, &[("status", "4")]),
        // What is not set in place: the same name written with escapes first, a name whose
        // escaped quote ends in the name set, the name inside a string before it, whitespace,
        // a nested value to replace, and a member after an absent one.
        (r#"{"st\u0061tus":"A","status":"B"}"#, &[("status", r#""C""#)]),
        (r#"{"x\"status":1,"status":2}"#, &[("status", "3")]),
        (r#"{"a":"\"status\":1","status":2}"#, &[("status", "3")]),
        (r#"{"a": 1, "status": 2 }"#, &[("status", "3")]),
        (r#"{"a":1,"status":{"b":[2]},"c":3}"#, &[("status", "4")]),
        (r#"{"a":[1,2],"status":2}"#, &[("status", "3")]),
        (r#"{"a":1,"status":2}"#, &[("new", "5"), ("status", "3"), ("a", "6")]),
    ];
    for (body, members) in cases {
        let owned: Vec<(String, String)> =
            members.iter().map(|(name, json)| (format!("$.{name}"), (*json).to_owned())).collect();
        let paths: Vec<(&str, String)> = owned.iter().map(|(path, json)| (path.as_str(), json.clone())).collect();
        let in_rust = members::set(body, &paths).unwrap_or_else(|e| panic!("{body}: {e:?}"));
        assert_eq!(set_in_sql(&store, body, members), in_rust, "{body} with {members:?}");
    }
}

/// Bodies put together from names and values written every way JSON allows that matters to
/// setting a member in place (escaped names, the name inside strings and nested objects, long
/// values, whitespace), each given members set: the bytes `members::set` writes, every time.
#[test]
fn members_set_in_sql_are_the_bytes_members_set_writes_for_any_body() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let long = format!(r#""{}""#, "y".repeat(400));
    let names = [r#""status""#, r#""st\u0061tus""#, r#""x\"status""#, r#""id""#, r#""naïve""#, r#""a""#];
    let values = [
        r#""PENDING""#,
        r#""\"status\":1""#,
        r#""x\\""#,
        "1E+3",
        "-0",
        "null",
        "true",
        r#"{"status":"X"}"#,
        r#"[1,{"status":2}]"#,
        " 7",
        &long,
    ];
    let set_names = ["status", "id", "new", "naïve"];
    let set_values = [r#""QUEUED""#, r#"{"n":[1]}"#, "2", &long];
    let body = prop::collection::vec((0..names.len(), 0..values.len()), 0..7).prop_map(|members| {
        let members: Vec<String> = members.iter().map(|&(n, v)| format!("{}:{}", names[n], values[v])).collect();
        format!("{{{}}}", members.join(","))
    });
    let members = prop::collection::vec((0..set_names.len(), 0..set_values.len()), 0..4);

    let store = postgres_store();
    let mut runner = TestRunner::new(Config { cases: 400, ..Config::default() });
    runner
        .run(&(body, members), |(body, members)| {
            let members: Vec<(&str, &str)> = members.iter().map(|&(n, v)| (set_names[n], set_values[v])).collect();
            let paths: Vec<(String, String)> =
                members.iter().map(|(name, json)| (format!("$.{name}"), (*json).to_owned())).collect();
            let paths: Vec<(&str, String)> = paths.iter().map(|(path, json)| (path.as_str(), json.clone())).collect();
            let in_rust = members::set(&body, &paths).unwrap_or_else(|e| panic!("{body}: {e:?}"));
            // What the body holds is what reading it whole and writing it again gives.
            let read_whole = members::rewritten(&body, &paths).unwrap_or_else(|e| panic!("{body}: {e:?}"));
            let held = |text: &str| members::read_back(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            prop_assert_eq!(held(&in_rust), held(&read_whole), "{} with {:?}", body, members);
            prop_assert_eq!(set_in_sql(&store, &body, &members), in_rust, "{} with {:?}", body, members);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

/// What no caller sends, answered as migration 9's `sb_set_members` did: no members, the body;
/// a member without a value (SQL's NULL), passed over.
#[test]
fn members_set_in_sql_pass_over_what_is_not_given() {
    let store = postgres_store();
    let answer = |members: Option<&str>| -> String {
        read(&store, |c| {
            c.value("SELECT sb_set_members(CAST(?1 AS JSON), CAST(?2 AS JSONB))", args![r#"{"a":1,"b":2}"#, members])
        })
        .unwrap_or_else(|| panic!("sb_set_members answered nothing for {members:?}"))
    };
    assert_eq!(answer(None), r#"{"a":1,"b":2}"#);
    assert_eq!(answer(Some(r#"[["a",null],["c",null],["b","3"]]"#)), r#"{"a":1,"b":3}"#);
}

/// A database of the test server left at schema `version`, and a client on it.
pub(super) fn database_at(version: i64) -> (String, Client) {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let mut client = Client::connect(&url, NoTls).unwrap_or_else(|e| panic!("{e}"));
    migrate_to(&mut client, version).unwrap_or_else(|e| panic!("{e:?}"));
    (url, client)
}

/// Every kept count and revision, summed over the shards (as they are read), and what a scan
/// of the live documents counts.
pub(super) fn kept(client: &mut Client) -> Vec<String> {
    let queries = [
        "SELECT kind || '/' || status || '=' || sum(live) FROM doc_counts GROUP BY kind, status ORDER BY 1",
        "SELECT parent_id || '/' || kind || '/' || status || '=' || sum(live) FROM child_counts \
         GROUP BY parent_id, kind, status ORDER BY 1",
        "SELECT parent_id || '@' || sum(revision) FROM child_revisions GROUP BY parent_id ORDER BY 1",
        "SELECT 'scan ' || kind || '/' || coalesce(status, '') || '=' || count(*) FROM docs \
         WHERE deleted_at IS NULL GROUP BY kind, status ORDER BY 1",
        "SELECT 'scan ' || parent_id || '/' || kind || '/' || coalesce(status, '') || '=' || count(*) FROM docs \
         WHERE deleted_at IS NULL AND parent_id IS NOT NULL GROUP BY parent_id, kind, status ORDER BY 1",
    ];
    queries
        .iter()
        .flat_map(|sql| client.query(*sql, &[]).unwrap_or_else(|e| panic!("{sql}: {e}")))
        .map(|row| row.get::<_, String>(0))
        .collect()
}

/// The writes a run makes, in one statement or many: inserts, status changes, a rewrite that
/// changes nothing counted, a lease, a move to another parent, a kind changed, soft and hard
/// deletes, and a statement that touches no row.
const WRITES: &[&str] = &[
    "INSERT INTO docs (kind, id, body, status, parent_id, created_at) SELECT 'simulation_job', 'n' || g, \
     CAST('{\"n\":' || g || '}' AS JSON), 'PENDING', 'j' || (g % 3), 't' FROM generate_series(1, 30) AS g",
    "INSERT INTO docs (kind, id, body, status, parent_id, created_at) VALUES ('run_plan_job', 'j9', '{}', NULL, NULL, 't')",
    "UPDATE docs SET status = 'QUEUED' WHERE id IN ('n1', 'n2', 'n3', 'n4', 'old1')",
    "UPDATE docs SET status = 'PROCESSING' WHERE id = 'n1'",
    "UPDATE docs SET body = '{\"n\":2,\"x\":1}' WHERE id = 'n2'",
    "UPDATE docs SET lease_owner = 'r1', lease_until = 5 WHERE parent_id = 'j1'",
    "UPDATE docs SET parent_id = 'j2' WHERE id IN ('n3', 'n4')",
    "UPDATE docs SET parent_id = NULL WHERE id = 'n5'",
    "UPDATE docs SET kind = 'call' WHERE id = 'n6'",
    "UPDATE docs SET status = 'PENDING', parent_id = 'j0' WHERE id = 'n7'",
    "UPDATE docs SET deleted_at = 'now' WHERE id IN ('n8', 'n9', 'old2')",
    "UPDATE docs SET deleted_at = NULL, status = 'DONE' WHERE id = 'n8'",
    "DELETE FROM docs WHERE id IN ('n9', 'n10', 'old3')",
    "UPDATE docs SET status = 'X' WHERE id = 'nobody'",
    "DELETE FROM docs WHERE id = 'nobody'",
];

#[test]
fn migration_9_keeps_the_counts_and_revisions_migration_8_kept() {
    let (_, mut stays) = database_at(8);
    let (url, mut moves) = database_at(8);
    // Data written under migration 8's triggers, in both.
    for client in [&mut stays, &mut moves] {
        client
            .batch_execute(
                "INSERT INTO docs (kind, id, body, status, parent_id, created_at) SELECT 'simulation_job', \
                 'old' || g, '{}', CASE WHEN g % 2 = 0 THEN 'COMPLETED' ELSE 'FAILED' END, 'j' || (g % 2), 't' \
                 FROM generate_series(1, 8) AS g; \
                 UPDATE docs SET status = 'CANCELLED' WHERE id = 'old5'; \
                 UPDATE docs SET deleted_at = 'then' WHERE id = 'old7'",
            )
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let before = kept(&mut stays);
    migrate_to(&mut moves, postgres::migrations::SCHEMA_VERSION).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(kept(&mut moves), before, "the migration leaves the counts and revisions as they were");

    for sql in WRITES {
        stays.batch_execute(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        moves.batch_execute(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        assert_eq!(kept(&mut moves), kept(&mut stays), "after {sql}");
    }
    // The kept counts are the documents': what a scan counts.
    let after = kept(&mut moves);
    let (counted, scanned): (Vec<&String>, Vec<&String>) = after.iter().partition(|line| !line.starts_with("scan "));
    let nonzero = |line: &&String| !line.ends_with("=0") && line.contains('=');
    let counted: Vec<String> = counted.into_iter().filter(nonzero).cloned().collect();
    let scanned: Vec<String> = scanned.into_iter().map(|line| line["scan ".len()..].to_owned()).collect();
    let mut both = counted.clone();
    both.retain(|line| scanned.contains(line));
    assert_eq!(both.len(), counted.len(), "every count a scan's: {counted:?} against {scanned:?}");
    assert_eq!(counted.len(), scanned.len(), "every scan's count kept: {counted:?} against {scanned:?}");

    // And the store opens the migrated database and reads them.
    let store = Store::open(&Location::Postgres(url)).unwrap_or_else(|e| panic!("{e:?}"));
    let queued = read(&store, |c| count_children(c, Kind::SimulationJob, "j2", &["QUEUED"]));
    assert_eq!(queued, 3, "n2, and n3 and n4 moved to j2 while QUEUED");
}
