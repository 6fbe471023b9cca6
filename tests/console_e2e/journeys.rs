//! Three user journeys through the real binary in a pseudo-terminal, on a real local service the
//! test also reads with the library client: the screen is checked at every step, and the
//! service's state afterwards.
//!
//! The console is asynchronous, so every step waits (with a deadline) for what it should show
//! before the next key.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::TryStreamExt;
use switchboard::api::model::{
    AgentEndpoint, AggregationMode, Call, CaptureStatus, CustomerFlow, EdgeCases, Issue, IssueStatus, MetricDefinition,
    RunPlan, RunPlanJob, RunPlanJobStatus, ScoreSample, ScoreSamplePage, ScoreSampleQuery, SimulationJob,
    SimulationOutcome, ThresholdInput, ThresholdOperator, ValueStatusFilter, percent,
};
use switchboard::api::{ApiKey, Client, ClientConfig, ListQuery, routes};
use switchboard::service::{self, Options, Running, SimSpeed};

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
        World::start_at(SimSpeed::default())
    }

    /// A world whose simulated calls run `sim_speed` times faster than wall time.
    fn start_at(sim_speed: SimSpeed) -> World {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let local = Options::local(dir.path().to_path_buf());
        let options = Options { api_key: Some(ApiKey::new(KEY)), sim_speed, ..local };
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
    pty.wait_until(what, WAIT, |s| selected_row(s).is_some_and(|row| pred(&row))).unwrap_or_else(|e| panic!("{e}"));
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
    let short: String = title.chars().take(30).collect();
    let evidence_call = first.evidence.iter().find_map(|e| e.call_id).expect("a call as evidence");
    let calls = world.all::<Call>(routes::CALLS);

    let mut pty = world.console();
    pty.key("4");
    let top: String = issues[0].title.clone().unwrap().chars().take(30).collect();
    wait_selected(&pty, "the issues list, top row selected", |r| r.contains(&top));
    for _ in 0..row {
        pty.key("j");
    }
    wait_selected(&pty, "the newest severe issue selected", |r| r.contains(&short));
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
    expect(&pty, "the issue form", "file an issue · 3 marked as evidence");
    pty.type_text(follow_up);
    expect(&pty, "the title typed", follow_up);
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
    pty.type_text(&short);
    pty.key("Enter");
    wait_selected(&pty, "the first issue found", |r| r.contains(&short));
    pty.key("Enter");
    expect(&pty, "the first issue opens", &format!("issue · {title}"));
    pty.key("e");
    expect(&pty, "the edit form", &format!("edit issue {}", &short));
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

/// Adds `count` samples to the first (condition, metric) cell of `target` in `suite`
/// `version`, straight into the service's store: the seed has at most two samples per cell, and
/// reading a narrowed target page by page needs more than a page of them.
fn add_samples(world: &World, target: &str, suite: &str, version: &str, count: usize) {
    let db = world.db();
    let body: String = db
        .query_row(
            "SELECT body FROM score_samples WHERE target_key = ?1 AND suite = ?2 AND suite_version = ?3
             ORDER BY seq LIMIT 1",
            [target, suite, version],
            |row| row.get(0),
        )
        .unwrap();
    let template: serde_json::Value = serde_json::from_str(&body).unwrap();
    let condition = template["conditionKey"].as_str().unwrap().to_string();
    let metric = template["metricKey"].as_str().unwrap().to_string();
    for n in 1..=count {
        let mut sample = template.clone();
        sample["reasoning"] = format!(
            "Added sample {n:02} for {condition}/{metric}: the caller asked twice before the agent answered, \
             and the agent then confirmed the request back."
        )
        .into();
        db.execute(
            "INSERT INTO score_samples (target_key, suite, suite_version, condition_key, metric_key, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            [target, suite, version, &condition, &metric, &sample.to_string()],
        )
        .unwrap();
    }
}

/// The opening of a reasoning: whole words, short enough to sit on the reasoning's first line.
fn opening(reasoning: &str) -> String {
    let mut out = String::new();
    for word in reasoning.split_whitespace() {
        if out.len() + word.len() + 1 > 45 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Waits until the samples view shows `bar` (its page and narrowing), loaded, with sample
/// `index` of `total` selected and the opening of its reasoning drawn (all on the same screen).
fn expect_sample(pty: &Pty, bar: &str, index: u64, total: u64, sample: &ScoreSample) {
    let title = format!("sample {index} of {total} · reasoning");
    let text = opening(sample.reasoning.as_deref().expect("a reasoning"));
    pty.wait_until(&format!("{bar:?}, {title:?} and {text:?}"), WAIT, |s| {
        let screen = s.contents();
        screen.contains(bar) && screen.contains(&title) && screen.contains(&text) && !screen.contains("⟳ loading")
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn reviewer_reads_the_lowest_scoring_targets_reasoning() {
    let world = World::start();
    let suites = world.runtime.block_on(world.client.list_benchmark_suites()).unwrap();
    let suite = suites[0].suite.clone();
    let targets = world.runtime.block_on(world.client.list_benchmark_targets(&suite)).unwrap();
    let lowest = targets.iter().min_by(|a, b| a.score.partial_cmp(&b.score).unwrap()).unwrap().clone();
    let (key, version) = (lowest.target_key.clone(), lowest.suite_version.clone().unwrap());
    let name = lowest.target_name.clone().unwrap();
    add_samples(&world, &key, &suite, &version, 30);

    let query = |condition: Option<&str>, metric: Option<&str>, limit: i64, offset: i64| ScoreSampleQuery {
        suite: Some(suite.clone()),
        suite_version: Some(version.clone()),
        condition_key: condition.map(Into::into),
        metric_key: metric.map(Into::into),
        limit: Some(limit),
        offset: Some(offset),
    };
    let fetch = |q: ScoreSampleQuery| -> ScoreSamplePage {
        world.runtime.block_on(world.client.list_score_samples(&key, &q)).unwrap()
    };
    // Every sample of the target: the keys `f`/`F` cycle through (sorted), and the fullest cell.
    let everything = fetch(query(None, None, 100, 0));
    assert!(!everything.pagination.has_more);
    let conditions: BTreeSet<String> = everything.data.iter().filter_map(|s| s.condition_key.clone()).collect();
    let metrics: BTreeSet<String> = everything.data.iter().filter_map(|s| s.metric_key.clone()).collect();
    // The console learns the keys from the pages it loads; the first page already has them all,
    // so `f`/`F` cycle through all of them as soon as it shows.
    let first_page = fetch(query(None, None, 20, 0));
    let seen: BTreeSet<_> = first_page.data.iter().filter_map(|s| s.condition_key.clone()).collect();
    assert_eq!(seen, conditions, "the first page holds every condition");
    let seen: BTreeSet<_> = first_page.data.iter().filter_map(|s| s.metric_key.clone()).collect();
    assert_eq!(seen, metrics, "the first page holds every metric");
    let mut cells: BTreeMap<(String, String), usize> = BTreeMap::new();
    for s in &everything.data {
        *cells.entry((s.condition_key.clone().unwrap(), s.metric_key.clone().unwrap())).or_default() += 1;
    }
    let ((condition, metric), _) = cells.iter().max_by_key(|(_, n)| **n).unwrap();
    let pages =
        [fetch(query(Some(condition), Some(metric), 20, 0)), fetch(query(Some(condition), Some(metric), 20, 20))];
    let total = pages[0].pagination.total;
    assert!(total > 20 && total <= 40, "two pages: {total}");
    assert_eq!(pages[0].data.len(), 20);
    assert_eq!(pages[1].data.len() as u64, total - 20);

    let mut pty = world.console();
    pty.key("7");
    expect(&pty, "the suites", &suite);
    pty.key("/");
    pty.type_text(&suite);
    pty.key("Enter");
    wait_selected(&pty, "the suite found", |r| r.contains(&suite));
    pty.key("Enter");
    expect(&pty, "its targets", &format!("targets of {suite}"));
    wait_selected(&pty, "the targets listed", |r| r.contains("CURRENT") || r.contains("SUPERSEDED"));
    pty.key("s");
    expect(&pty, "sorted by score", "SCORE ▲");
    wait_selected(&pty, "the lowest target on top", |r| r.contains(&name) && r.contains(&version));
    pty.key("Enter");
    expect(&pty, "its samples", &format!("› {name} {version}"));
    let all_total = everything.pagination.total;
    expect_sample(
        &pty,
        &format!("samples 1–20 of {all_total} · condition all · metric all"),
        1,
        all_total,
        &first_page.data[0],
    );

    // Narrow to the fullest cell: `f` until its condition, `F` until its metric.
    let steps = conditions.iter().position(|c| c == condition).unwrap() + 1;
    for (n, key) in conditions.iter().take(steps).enumerate() {
        pty.key("f");
        let bar = format!("· condition {key} · metric all");
        pty.wait_until(&format!("condition {key} (press {})", n + 1), WAIT, |s| {
            s.contents().contains(&bar) && !s.contents().contains("⟳ loading")
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let steps = metrics.iter().position(|m| m == metric).unwrap() + 1;
    for key in metrics.iter().take(steps) {
        pty.key("F");
        let bar = format!("· condition {condition} · metric {key}");
        pty.wait_until(&format!("metric {key}"), WAIT, |s| {
            s.contents().contains(&bar) && !s.contents().contains("⟳ loading")
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }

    // Read every sample with `n`, across into the second page.
    let bars = [
        format!("samples 1–20 of {total} · condition {condition} · metric {metric}"),
        format!("samples 21–{total} of {total} · condition {condition} · metric {metric}"),
    ];
    let mut index = 0;
    for (page, bar) in pages.iter().zip(&bars) {
        for sample in &page.data {
            index += 1;
            if index > 1 {
                pty.key("n");
            }
            expect_sample(&pty, bar, index, total, sample);
        }
    }
    pty.key("n");
    expect(&pty, "n stops at the last sample", "this is the last sample");
    // And back with `p`, across into the first page again.
    for i in (0..pages[1].data.len() - 1).rev() {
        pty.key("p");
        expect_sample(&pty, &bars[1], 21 + i as u64, total, &pages[1].data[i]);
    }
    pty.key("p");
    expect_sample(&pty, &bars[0], 20, total, &pages[0].data[19]);
    pty.key("p");
    expect_sample(&pty, &bars[0], 19, total, &pages[0].data[18]);
    // Enter opens the sample's source call when this service has it; these calls were made
    // elsewhere, so it says so above the reasoning and offers copying the call id instead.
    let call = pages[0].data[18].source_call_id.clone().expect("a source call");
    pty.key("Enter");
    expect(&pty, "the call is not here", "its call is not on this service");
    expect(&pty, "what is possible instead", "y copy the call id");
    assert!(world.runtime.block_on(world.client.get_call(call.parse().unwrap())).is_err(), "{call} is not here");

    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);

    // What the screen showed is what the service gives for those queries: the lowest target,
    // and samples that all belong to the narrowed cell.
    let targets = world.runtime.block_on(world.client.list_benchmark_targets(&suite)).unwrap();
    assert!(targets.iter().all(|t| t.score >= lowest.score), "{name} is the lowest");
    let again =
        [fetch(query(Some(condition), Some(metric), 20, 0)), fetch(query(Some(condition), Some(metric), 20, 20))];
    assert_eq!(again, pages, "the pages read are the service's");
    for sample in pages.iter().flat_map(|p| &p.data) {
        assert_eq!((sample.condition_key.as_ref(), sample.metric_key.as_ref()), (Some(condition), Some(metric)));
    }
}

/// Presses Right until a focused pick's cursor is on option `to` (0-based) of `of`, then Space
/// to pick it; waits for each step. `from` is where the cursor is, `picked` how many were picked.
fn pick(pty: &mut Pty, what: &str, from: usize, to: usize, of: usize, picked: usize) {
    for at in from..to {
        pty.key("Right");
        expect(pty, &format!("{what}: cursor on {}", at + 2), &format!(" {}/{of} · {picked} picked", at + 2));
    }
    pty.key("Space");
    expect(pty, &format!("{what}: picked"), "[x] ");
    expect(pty, &format!("{what}: counted"), &format!(" {}/{of} · {} picked", to + 1, picked + 1));
}

/// The selected (reversed) row of the bordered table whose left border is in the right half
/// of the screen: the metric values beside a transcript.
fn selected_on_the_right(screen: &vt100::Screen) -> Option<String> {
    let (rows, cols) = screen.size();
    let half = cols.get() / 2;
    (0..rows.get()).find_map(|row| {
        (half..cols.get() - 1).find_map(|col| {
            let border = screen.cell(row, col)?;
            let first = screen.cell(row, col + 1)?;
            (border.contents() == "│" && first.inverse())
                .then(|| screen.contents_between(row, col, row, cols.get()).trim_end().to_string())
        })
    })
}

#[test]
fn qa_creates_a_plan_runs_it_and_reads_the_failed_simulation() {
    // Simulated calls at 50× wall time: the dental edge cases (20–40 simulated seconds) end
    // in about a second, yet the live view still polls a running job.
    let world = World::start_at(SimSpeed::Factor(50.0));
    // The seed has no threshold: QA's own, on the seeded task-completion metric. In the dental
    // flow's edge case where the caller is unsure of their date of birth, the plan gives no
    // date of birth the desk can match, so the agent rightly never reads the appointment out
    // and the caller's question goes unanswered: the threshold fails there, by design. The
    // "presses 2" caller is moved to another slot and passes it.
    let threshold = ThresholdInput {
        name: Some("Request completed".into()),
        operator: Some(ThresholdOperator::Equals),
        value: Some("true".into()),
        aggregation_mode: Some(AggregationMode::Each),
        ..Default::default()
    };
    let threshold = world.runtime.block_on(world.client.create_threshold("task_completion", &threshold)).unwrap();
    let threshold_slug = threshold.slug.clone().unwrap();

    // Where the form offers what QA picks: the lists as their tabs list them (the service's
    // order; flows by title).
    let endpoints = world.all::<AgentEndpoint>(routes::AGENT_ENDPOINTS);
    let mut flows = world.all::<CustomerFlow>(routes::FLOWS);
    flows.sort_by_key(|f| f.title.clone().unwrap_or_default().to_lowercase());
    let metrics = world.all::<MetricDefinition>(routes::METRIC_DEFINITIONS);
    let flow_at = flows.iter().position(|f| f.title.as_deref() == Some("Reschedule a cleaning with identity check"));
    let flow_at = flow_at.expect("the seeded dental reschedule flow");
    let flow = flows[flow_at].clone();
    assert_eq!(flow.edge_cases.len(), 2, "the dental flow's two edge cases");
    let dentist = flow.agents.first().map(|a| a.id).expect("the flow's agent");
    let endpoint_at = endpoints.iter().position(|e| e.agent_id == Some(dentist)).expect("the dentist's endpoint");
    let slug_at = |slug: &str| metrics.iter().position(|m| m.slug.as_deref() == Some(slug)).unwrap();
    let (threshold_at, source_at) = (slug_at(&threshold_slug), slug_at("task_completion"));
    let (first, second) = (threshold_at.min(source_at), threshold_at.max(source_at));

    let name = "QA request completion check";
    let mut pty = world.console();
    pty.key("1");
    wait_selected(&pty, "the plans list", |r| r.contains("Brightsmile reschedule regression"));
    pty.key("E"); // the form; `c` opens a template in $EDITOR
    expect(&pty, "the new plan form", "new run plan");
    expect(&pty, "the name has the focus", "▸ name");
    pty.type_text(name);
    expect(&pty, "the name typed", name);
    pty.key("Tab");
    expect(&pty, "description", "▸ description");
    pty.key("Tab");
    expect(&pty, "direction, INBOUND by default", "▸ direction");
    expect(&pty, "INBOUND", "◂ INBOUND ▸");
    pty.key("Tab");
    expect(&pty, "the endpoints", &format!(" 1/{} · 0 picked", endpoints.len()));
    pick(&mut pty, "the dentist's endpoint", 0, endpoint_at, endpoints.len(), 0);
    pty.key("Tab");
    expect(&pty, "the flows", &format!(" 1/{} · 0 picked", flows.len()));
    pick(&mut pty, "the dental flow", 0, flow_at, flows.len(), 0);
    // The flow's own fields: no happy path (the run is the two edge cases, one of which
    // fails the threshold by design), and ALL its edge cases.
    let title = flow.title.clone().unwrap();
    pty.key("Tab");
    expect(&pty, "its happy path", &format!("▸   ↳ {title}: happy path"));
    pty.key("Right");
    expect(&pty, "no happy path", "◂ no ▸");
    pty.key("Tab");
    expect(&pty, "its edge cases", &format!("▸   ↳ {title}: edge cases"));
    pty.key("Right");
    expect(&pty, "every edge case", "◂ ALL (every edge case");
    pty.key("Tab");
    expect(&pty, "its persona override", &format!("▸   ↳ {title}: persona override"));
    assert!(!pty.screen_text().contains("which edge cases"), "only asked for with picked ones");
    pty.key("Tab");
    expect(&pty, "its variables", &format!("▸   ↳ {title}: variables"));
    pty.key("Tab");
    expect(&pty, "the metrics", &format!(" 1/{} · 0 picked", metrics.len()));
    pick(&mut pty, "the first metric", 0, first, metrics.len(), 0);
    pick(&mut pty, "the second metric", first, second, metrics.len(), 1);
    // Each picked metric's conversation source (SIMULATED) and, both being checks, its min pass
    // rate (left at the default 80 %); iterations, concurrency, then the max duration (600 s
    // unless typed).
    let sub = ["conversation source", "min pass rate"];
    for field in [sub[0], sub[1], sub[0], sub[1], "iterations", "concurrency", "max duration"] {
        pty.key("Tab");
        expect(&pty, field, &format!("▸ {}", if sub.contains(&field) { "  ↳ " } else { field }));
    }
    pty.type_text("300");
    expect(&pty, "the duration typed", "300");
    pty.key("Enter");
    expect(&pty, "the plan is created", &format!("created the plan {name} · R runs it"));
    wait_selected(&pty, "the new plan selected", |r| r.contains(name));

    // Run it: the jobs tab opens the job live, until it ends.
    pty.key("R");
    expect(&pty, "the run form", &format!("run {name}"));
    pty.key("Enter");
    expect(&pty, "the live job", &format!(" · {name} "));
    expect(&pty, "its simulation jobs", "┌ simulation jobs");
    expect(&pty, "the job completes", &format!("COMPLETED · {name} "));
    expect(&pty, "every simulation ended", "2/2 ended 100%");
    expect(&pty, "both counted", "COMPLETED 2");

    // The service: which simulation's threshold failed, and what its call holds.
    let plans = world.all::<RunPlan>(routes::RUN_PLANS);
    let plan = plans.iter().find(|p| p.plan.name.as_deref() == Some(name)).expect("the plan was saved");
    let jobs = world.all::<RunPlanJob>(routes::RUN_PLAN_JOBS);
    let job = jobs.iter().find(|j| j.simulation_run_plan_id == Some(plan.id)).expect("a job of the plan");
    let job = world.runtime.block_on(world.client.get_run_plan_job(job.simulation_run_plan_job_id)).unwrap();
    let value_of = |sim: &SimulationJob| {
        let groups = world.runtime.block_on(world.client.call_metrics(sim.call_id.unwrap(), ValueStatusFilter::All));
        let group =
            groups.unwrap().into_iter().find(|g| g.metric_definition_id == threshold.id).expect("the threshold");
        assert_eq!(group.values.len(), 1, "one value per call");
        group.values[0].clone()
    };
    let values: Vec<_> = job.simulation_jobs.iter().map(|s| (s.clone(), value_of(s))).collect();
    let failed: Vec<_> = values.iter().filter(|(_, v)| v.value == Some(0.0)).collect();
    let (sim, value) = failed.first().cloned().cloned().expect("a simulation whose threshold failed");
    assert_eq!(value.capture_status, Some(CaptureStatus::Success));
    let persona = sim.persona.as_ref().map(|p| p.label()).expect("the simulation's persona");
    let call = sim.call_id.unwrap();
    let transcript = world.runtime.block_on(world.client.call_transcript(call)).unwrap();
    let reasoning = value.value_reasoning.clone().expect("the threshold's reasoning");

    // The run's verdict is the first thing the live view shows: the service's word and score,
    // and each check against its own minimum.
    let verdict = job.verdict.clone().expect("a plan with checks has a verdict");
    assert!(!verdict.passed, "the threshold fails on one edge case: {verdict:?}");
    let score = verdict.score.map(|s| format!("{s:.0} %")).expect("a score");
    expect(&pty, "the run's verdict", &format!("verdict FAILED · score {score}"));
    for check in &verdict.checks {
        let rate = check.pass_rate.map(percent).unwrap_or_else(|| "—".into());
        expect(&pty, "a check against its bar", &format!("{rate} / min {}", percent(check.min_pass_rate)));
    }
    let threshold_check = verdict.checks.iter().find(|c| c.metric_definition_id == threshold.id);
    assert!(threshold_check.is_some_and(|c| !c.passed), "the threshold is a check that failed: {verdict:?}");

    // ] goes to a failing simulation: the one whose threshold failed is a key or two away.
    // Its row names its persona and edge case (both cut to their columns).
    let variant = sim.customer_flow.as_ref().and_then(|f| f.variant_title.clone()).expect("an edge case");
    let (short, variant): (String, String) = (persona.chars().take(10).collect(), variant.chars().take(14).collect());
    let this_one = |r: &str| r.contains(&short) && r.contains(&variant);
    // The live view lists the simulations in the service's order, the first selected; each ]
    // selects the next failing one after the selection. Step through them, each in its turn.
    let failing: Vec<usize> = (0..job.simulation_jobs.len())
        .filter(|&i| {
            matches!(job.simulation_jobs[i].outcome, Some(SimulationOutcome::Failed | SimulationOutcome::Error))
        })
        .collect();
    let target = job.simulation_jobs.iter().position(|s| s.simulation_job_id == sim.simulation_job_id).unwrap();
    assert!(failing.contains(&target), "the simulation whose threshold failed is failing");
    // When the target is the first row, ] goes round the others and back to it.
    let mut stops: Vec<usize> = failing.iter().copied().filter(|&i| i > 0 && (target == 0 || i <= target)).collect();
    if target == 0 {
        stops.push(0);
    }
    for stop in stops {
        let stop_sim = &job.simulation_jobs[stop];
        let who: String = stop_sim.persona.as_ref().map(|p| p.label()).unwrap_or_default().chars().take(10).collect();
        let what = stop_sim.customer_flow.as_ref().and_then(|f| f.variant_title.clone()).unwrap_or_default();
        let what: String = what.chars().take(14).collect();
        pty.key("]");
        wait_selected(&pty, "] on the next failing simulation", |r| r.contains(&who) && r.contains(&what));
    }
    wait_selected(&pty, "the failed simulation found with ]", |r| r.contains("FAILED") && this_one(r));
    pty.key("Enter");
    expect(&pty, "the simulation opens", &format!("call {call}"));
    expect(&pty, "its head", &format!("FAILED · COMPLETED · {persona}"));
    expect(&pty, "its failed checks first", "┌ failed checks [");
    expect(&pty, "the threshold among them", "✗ Request completed");
    expect(&pty, "its transcript", "┌ transcript");
    for entry in &transcript.entries {
        let opening: String = entry.text.chars().take(25).collect();
        expect(&pty, "a transcript line", &opening);
    }
    expect(&pty, "its metric values", "┌ metric values");
    pty.key("l");
    pty.wait_until("the values focused", WAIT, |s| selected_on_the_right(s).is_some())
        .unwrap_or_else(|e| panic!("{e}"));
    let name_start: String = "Request completed".chars().take(12).collect();
    for _ in 0..40 {
        let row = pty.with_screen(selected_on_the_right);
        if row.as_deref().is_some_and(|r| r.contains(&name_start)) {
            break;
        }
        pty.key("j");
        pty.wait_until("the value selection moves", WAIT, |s| {
            selected_on_the_right(s).is_some() && selected_on_the_right(s) != row
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let row = pty.with_screen(selected_on_the_right).unwrap();
    assert!(row.contains(&name_start), "the threshold's value is selected: {row}");
    pty.key("Enter");
    expect(&pty, "the value's detail", "Request completed · value");
    pty.wait_until("the failed value and why", WAIT, |s| {
        let screen = s.contents();
        screen.lines().any(|l| l.contains("│value ") && l.contains(" false"))
            && screen.contains("SUCCESS")
            && screen.contains(&reasoning)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    pty.key("Esc");
    expect(&pty, "back to the values", "┌ metric values");

    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);

    // The service: the plan as typed and picked, its one job COMPLETED, and the simulation
    // opened is one whose threshold is false.
    let input = &plan.plan;
    let picked_flows = input.flows.as_ref().expect("flows");
    assert_eq!(picked_flows.len(), 1);
    assert_eq!(picked_flows[0].id, Some(flow.id));
    assert_eq!(picked_flows[0].happy_path, Some(false));
    assert_eq!(picked_flows[0].edge_cases, Some(EdgeCases::All));
    let picked_endpoints: Vec<_> = input.agent_endpoints.iter().flatten().map(|e| e.id).collect();
    assert_eq!(picked_endpoints, vec![endpoints[endpoint_at].id]);
    let slugs: BTreeSet<_> = input.metrics.iter().flatten().filter_map(|m| m.slug.clone()).collect();
    assert_eq!(slugs, BTreeSet::from([threshold_slug.clone(), "task_completion".to_string()]));
    assert_eq!(input.max_simulation_duration_seconds, Some(300));
    let of_plan: Vec<_> = jobs.iter().filter(|j| j.simulation_run_plan_id == Some(plan.id)).collect();
    assert_eq!(of_plan.len(), 1, "run once");
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.error_message);
    assert_eq!(job.simulation_jobs.len(), 2, "the two edge cases");
    let opened = values.iter().filter(|(s, _)| s.persona.as_ref().map(|p| p.label()) == Some(persona.clone()));
    let opened: Vec<_> = opened.collect();
    assert_eq!(opened.len(), 1, "the persona names one simulation");
    assert_eq!(opened[0].0.simulation_job_id, sim.simulation_job_id);
    assert_eq!(opened[0].1.value, Some(0.0), "its threshold is false on the service");
    let unsure = flow.edge_cases.iter().find(|e| e.title.as_deref().is_some_and(|t| t.starts_with("Caller is unsure")));
    assert_eq!(
        sim.customer_flow.as_ref().and_then(|f| f.variant_id),
        unsure.map(|e| e.id),
        "the caller unsure of their date of birth is the one left without an answer"
    );
    assert!(values.iter().any(|(_, v)| v.value == Some(1.0)), "the other edge case passes: {values:?}");
}
