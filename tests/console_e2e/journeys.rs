//! Two user journeys through the real binary in a pseudo-terminal, on a real local service the
//! test also reads with the library client: the screen is checked at every step, and the
//! service's state afterwards.
//!
//! The console is asynchronous, so every step waits (with a deadline) for what it should show
//! before the next key.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use futures_util::TryStreamExt;
use switchboard::api::model::{Call, Issue, IssueStatus, ScoreSample, ScoreSamplePage, ScoreSampleQuery};
use switchboard::api::{ApiKey, Client, ClientConfig, ListQuery, routes};
use switchboard::service::{self, Options, Running};

use super::pty::Pty;
use super::{WAIT, assert_restored, console_at};

const KEY: &str = "sb-e2e-journey-key-0123456789";

/// A seeded local service on its own data dir, a client for it, and the runtime they run on.
struct World {
    runtime: tokio::runtime::Runtime,
    running: Option<Running>,
    client: Client,
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl World {
    fn start() -> World {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let options = Options { api_key: Some(ApiKey::new(KEY)), ..Options::local(dir.path().to_path_buf()) };
        let running = runtime.block_on(service::start(options)).unwrap();
        let config = ClientConfig { max_retries: 0, ..Default::default() };
        let client = Client::new(&running.base_url(), ApiKey::new(KEY), config).unwrap();
        World { runtime, running: Some(running), client, dir, home: tempfile::tempdir().unwrap() }
    }

    /// The console on this service in a 160×48 terminal, its first screen loaded.
    fn console(&self) -> Pty {
        let base_url = self.running.as_ref().unwrap().base_url();
        let pty = console_at(self.home.path(), &[("SWITCHBOARD_API_KEY", KEY)], &["--base-url", &base_url], 160, 48);
        pty.wait_for("account", WAIT).unwrap();
        pty
    }

    fn all<T: serde::de::DeserializeOwned + Send + 'static>(&self, route: &str) -> Vec<T> {
        self.runtime.block_on(self.client.list_all::<T>(route, ListQuery::default().limit(50)).try_collect()).unwrap()
    }

    fn db(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(self.dir.path().join("switchboard.db")).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        conn
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            let _ = self.runtime.block_on(running.shutdown());
        }
    }
}

/// Waits for `needle`, panicking with `step` and the screen if it does not come.
fn expect(pty: &Pty, step: &str, needle: &str) {
    pty.wait_for(needle, WAIT).unwrap_or_else(|e| panic!("{step}: {e}"));
}

/// The selected (reversed) row of the bordered table on screen: its line and its text.
fn selected(screen: &vt100::Screen) -> Option<(u16, String)> {
    let (rows, cols) = screen.size();
    (0..rows.get()).find_map(|row| {
        let border = screen.cell(row, 0)?;
        let first = screen.cell(row, 1)?;
        (border.contents() == "│" && first.inverse())
            .then(|| (row, screen.contents_between(row, 0, row, cols.get()).trim_end().to_string()))
    })
}

fn selected_row(screen: &vt100::Screen) -> Option<String> {
    selected(screen).map(|(_, text)| text)
}

/// Waits until the selected row satisfies `pred`, and returns it.
fn wait_selected(pty: &Pty, what: &str, pred: impl Fn(&str) -> bool) -> String {
    pty.wait_until(what, WAIT, |s| selected_row(s).is_some_and(|row| pred(&row)))
        .unwrap_or_else(|e| panic!("{e}"));
    pty.with_screen(selected_row).unwrap()
}

/// The 8-hex-digit call prefix in a metric value row (after a ✓ if the call is marked).
fn call_prefix(row: &str) -> Option<String> {
    row.split(['│', ' '])
        .map(|word| word.trim_start_matches('✓'))
        .find(|word| word.len() == 8 && word.chars().all(|c| c.is_ascii_hexdigit()))
        .map(str::to_string)
}

/// The issues tab's order: CRITICAL > HIGH > MEDIUM > LOW > unset, then the latest event first.
fn severity_rank(issue: &Issue) -> u8 {
    match issue.severity.as_ref().map(|s| s.as_str()) {
        Some("CRITICAL") => 4,
        Some("HIGH") => 3,
        Some("MEDIUM") => 2,
        Some("LOW") => 1,
        _ => 0,
    }
}

fn last_event(issue: &Issue) -> Option<jiff::Timestamp> {
    issue.last_event_at.as_ref().and_then(|t| t.parse())
}

#[test]
fn on_call_triages_the_newest_severe_issue() {
    let world = World::start();
    let mut issues = world.all::<Issue>(routes::ISSUES);
    issues.sort_by(|a, b| severity_rank(b).cmp(&severity_rank(a)).then_with(|| last_event(b).cmp(&last_event(a))));
    // The newest HIGH or CRITICAL issue, and where the issues tab lists it.
    let severe = issues.iter().filter(|i| severity_rank(i) >= 3);
    let first = severe.max_by_key(|i| last_event(i)).expect("a HIGH or CRITICAL issue").clone();
    let row = issues.iter().position(|i| i.id == first.id).unwrap();
    let title = first.title.clone().unwrap();
    let evidence_call = first.evidence.iter().find_map(|e| e.call_id).expect("a call as evidence");
    let calls = world.all::<Call>(routes::CALLS);

    let mut pty = world.console();
    pty.key("4");
    let top = issues[0].title.clone().unwrap();
    wait_selected(&pty, "the issues list, top row selected", |r| r.contains(&top[..30]));
    for _ in 0..row {
        pty.key("j");
    }
    wait_selected(&pty, "the newest severe issue selected", |r| r.contains(&title[..30]));
    pty.key("Enter");
    expect(&pty, "the issue opens", &format!("issue · {title}"));
    expect(&pty, "its evidence", "evidence · enter opens the call");

    // Its first evidence call: the transcript, marked.
    pty.key("Enter");
    expect(&pty, "the evidence call opens", &format!("call {evidence_call}"));
    let transcript = world.runtime.block_on(world.client.call_transcript(evidence_call)).unwrap();
    let opening: String = transcript.entries[0].text.chars().take(30).collect();
    expect(&pty, "the transcript", &opening);
    pty.key("Space");
    expect(&pty, "the call is marked", "✓ marked");
    expect(&pty, "the header counts it", "1 marked");

    // Two more calls from the metric values of a collection job.
    let mut marked = BTreeSet::from([evidence_call.to_string()[..8].to_string()]);
    pty.key("3");
    expect(&pty, "the metrics tab", "definitions  policies  collection jobs");
    pty.key("l");
    pty.key("l");
    expect(&pty, "the collection jobs", "┌ collection jobs [");
    wait_selected(&pty, "a job selected", |r| r.contains("COMPLETED"));
    pty.key("Enter");
    expect(&pty, "the job's values", "┌ metric values [");
    for n in 2..=3 {
        let mut row = wait_selected(&pty, "a value selected", |r| call_prefix(r).is_some());
        for _ in 0..200 {
            if !marked.contains(&call_prefix(&row).unwrap()) {
                break;
            }
            let before = pty.with_screen(selected);
            pty.key("j");
            pty.wait_until("the selection moves down", WAIT, |s| selected(s).is_some() && selected(s) != before)
                .unwrap();
            row = pty.with_screen(selected_row).unwrap();
        }
        let prefix = call_prefix(&row).unwrap();
        assert!(!marked.contains(&prefix), "no value of another call: {row}");
        pty.key("Space");
        wait_selected(&pty, "the value's call marked", |r| r.contains(&format!("✓{prefix}")));
        expect(&pty, "the header counts it", &format!("{n} marked"));
        marked.insert(prefix);
    }

    // File the follow-up issue from the marks.
    let follow_up = "Follow-up: fees quoted on cancelled flights";
    pty.key("I");
    expect(&pty, "the issue form", "summary");
    pty.type_text(follow_up);
    pty.key("Tab");
    pty.type_text("Three calls where the agent quoted change fees it should have waived.");
    pty.key("Enter");
    expect(&pty, "the issue is filed", "done: file the issue");
    expect(&pty, "the new issue opens", &format!("issue · {follow_up}"));
    pty.wait_until("the marks are cleared", WAIT, |s| !s.contents().contains("marked (U clears)")).unwrap();

    // Back to the first issue, resolved with `e`.
    pty.key("Esc");
    expect(&pty, "the issues list", "issues · status all");
    pty.key("/");
    pty.type_text(&title[..30]);
    pty.key("Enter");
    wait_selected(&pty, "the first issue found", |r| r.contains(&title[..30]));
    pty.key("Enter");
    expect(&pty, "the first issue opens", &format!("issue · {title}"));
    pty.key("e");
    expect(&pty, "the edit form", &format!("edit issue {}", &title[..30]));
    pty.key("Right");
    expect(&pty, "status ACKNOWLEDGED", "ACKNOWLEDGED");
    pty.key("Right");
    expect(&pty, "status RESOLVED", "RESOLVED");
    pty.key("Enter");
    expect(&pty, "the issue is updated", "done: update the issue");
    pty.wait_until("the detail shows RESOLVED", WAIT, |s| {
        s.contents().lines().any(|l| l.starts_with("│status ") && l.contains("RESOLVED"))
    })
    .unwrap();

    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);

    // The service: a new issue with exactly the three marked calls, and the first one resolved.
    let after = world.all::<Issue>(routes::ISSUES);
    let filed = after.iter().find(|i| i.title.as_deref() == Some(follow_up)).expect("the follow-up issue exists");
    let evidence: Vec<_> = filed.evidence.iter().filter_map(|e| e.call_id).collect();
    assert_eq!(evidence.len(), 3, "{evidence:?}");
    assert!(evidence.contains(&evidence_call), "the evidence call is in it: {evidence:?}");
    let prefixes: BTreeSet<_> = evidence.iter().map(|id| id.to_string()[..8].to_string()).collect();
    assert_eq!(prefixes, marked, "the marked calls, as the screen showed them");
    for id in &evidence {
        let prefix = &id.to_string()[..8];
        let matching: Vec<_> = calls.iter().filter(|c| c.id.to_string().starts_with(prefix)).collect();
        assert_eq!(matching.len(), 1, "the prefix {prefix} names one call");
    }
    let resolved = after.iter().find(|i| i.id == first.id).unwrap();
    assert_eq!(resolved.status, Some(IssueStatus::Resolved));
    assert_eq!(after.len(), issues.len() + 1);
}

#[test]
fn reviewer_reads_the_lowest_scoring_targets_reasoning() {
    let _ = (BTreeMap::<u8, u8>::new(), Path::new(""), std::mem::size_of::<ScoreSample>());
    let _ = |p: ScoreSamplePage, q: ScoreSampleQuery| (p, q);
}
