//! Tab 2: run plan jobs, live. A real run of the seeded plan is followed until it completes;
//! statuses only the hosted service sends are fed in as fetch results.

use std::time::Duration;
use switchboard::console::tab::Tab;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use serde_json::json;
use switchboard::api::model::{RunPlanJob, RunRequest};
use switchboard::console::app::App;
use switchboard::console::message::{Effect, FailureKind, FetchError, Fetched, ListKind, Message, Request};
use switchboard::console::out::Out;
use switchboard::console::view;
use uuid::Uuid;

use crate::assert_screen;
use crate::harness::{self, Harness, now};
use crate::plans::SEEDED_PLAN;

/// Besides ids and times, a live job's durations and throughput differ from run to run.
fn live_filters() -> Vec<(&'static str, &'static str)> {
    let mut filters = harness::filters();
    filters.push((r"\b\d+[mh] \d\d[sm]\b *", "[dur] "));
    filters.push((r"\b\d+(\.\d+)?(ms|s)\b *", "[dur] "));
    filters.push((r"│ *[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]*│", "│[spark]│"));
    // What the judge makes of a real run differs from run to run too; tests/console/verdicts.rs
    // pins the verdict's views on a fixed job.
    filters.push((r"\b\d+(\.\d+)? % *", "[n] % "));
    filters.push((r"\b(PASSED|FAILED|NOT_EVALUATED|ERROR)\b", "[verdict]"));
    filters
}

macro_rules! assert_live {
    ($name:expr, $screen:expr) => {
        insta::with_settings!({ filters => live_filters(), snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $screen);
        });
    };
}

fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal
}

fn screen_of(app: &App) -> String {
    harness::screen(draw(app, 160, 48).backend())
}

/// The foreground colour of the first cell of `text` on screen.
fn colour_of(buffer: &Buffer, text: &str) -> Option<Color> {
    let width = buffer.area.width as usize;
    for y in 0..buffer.area.height {
        let symbols: Vec<&str> = (0..buffer.area.width).map(|x| buffer[(x, y)].symbol()).collect();
        for x in 0..width {
            if symbols[x..].concat().starts_with(text) {
                return buffer[(x as u16, y)].fg.into();
            }
        }
    }
    None
}

fn fetches_of(h: &Harness, id: Uuid) -> usize {
    let reads = |e: &&Effect| matches!(e, Effect::Fetch(Request::JobSummary { id: read, .. }) if *read == id);
    h.performed.iter().filter(reads).count()
}

#[tokio::test]
async fn a_run_is_followed_live_until_it_completes_then_polling_stops() {
    // 20× real time, so the job is still running when it opens and is polled more than once.
    let mut h = Harness::seeded_at(20.0).await;
    h.key("2").await;
    assert!(h.render(80, 24).contains("no jobs yet: run a plan"));
    assert_screen!("jobs_empty_80x24", h.render(80, 24));

    let plan = SEEDED_PLAN.parse().unwrap();
    let started =
        h.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.expect("the run starts");
    let id = started.simulation_run_plan_job_id;
    h.key("r").await;
    assert!(h.render(160, 48).contains("Brightsmile reschedule regression"), "{}", h.render(160, 48));
    h.key("enter").await;
    assert!(h.render(160, 48).contains(&format!("job      {id}")), "{}", h.render(160, 48));

    h.wait_until("the job completes", Duration::from_secs(60), |app| {
        screen_of(app).contains("COMPLETED · Brightsmile reschedule regression")
    })
    .await;
    assert!(fetches_of(&h, id) >= 2, "the running job was polled");

    // Gauge and counts reach the total the service reports.
    let job = h.client.get_run_plan_job(id).await.unwrap();
    let total = job.simulation_jobs.len();
    assert!(total > 0);
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("{total}/{total} ended 100%")), "{screen}");
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for sim in &job.simulation_jobs {
        *counts.entry(sim.status.as_ref().unwrap().as_str().to_string()).or_default() += 1;
    }
    for (status, n) in &counts {
        assert!(screen.contains(&format!("{status} {n}")), "{status} {n}:\n{screen}");
    }
    assert!(screen.contains("took     "), "{screen}");

    // Polling stopped: ticks ask for nothing any more.
    for _ in 0..3 {
        h.app.tick(now());
        assert!(h.app.effects.is_empty(), "a finished job is not polled: {:?}", h.app.effects);
    }
    // The verdict beside the progress is the service's: its word, score and every check.
    let verdict = job.verdict.as_ref().expect("the seeded plan has checks");
    let word = if verdict.passed { "PASSED" } else { "FAILED" };
    let score = verdict.score.map(|s| format!("{s:.0} %")).unwrap();
    assert!(screen.contains(&format!("verdict {word} · score {score}")), "{screen}");
    for check in &verdict.checks {
        let rate = check.pass_rate.map(switchboard::api::model::percent).unwrap_or_else(|| "—".into());
        let line = format!("{rate} / min {}", switchboard::api::model::percent(check.min_pass_rate));
        assert!(screen.contains(&line), "{}: {line}\n{screen}", check.name());
    }
    let outcomes = job.simulation_jobs.iter().filter(|s| s.outcome.is_some()).count();
    assert_eq!(outcomes, total, "every ended simulation has its outcome");

    // A simulation job opens its call: transcript beside metric values; esc goes back.
    h.key("enter").await;
    let call = h.render(160, 48);
    assert!(call.contains("simulation #1 ") && call.contains(" · COMPLETED · "), "counted from 1: {call}");
    assert!(call.contains("transcript [") && call.contains("metric values ["), "{call}");
    assert!(call.contains("│00:") && call.contains(" agent "), "the transcript is shown:\n{call}");
    assert!(call.contains("Call duration") && call.contains("Task completion"), "values are shown:\n{call}");
    let narrow = h.render(80, 24);
    assert!(narrow.contains("transcript") && narrow.contains("metric values"), "{narrow}");
    h.key("esc").await;
    assert!(h.render(160, 48).contains("simulation jobs ["), "esc goes back to the job");
    h.key("esc").await;
    assert_live!("jobs_list_80x24", h.render(80, 24));
    assert_live!("jobs_list_160x48", h.render(160, 48));
}

/// A job as the hosted service reports it mid-run, relative to the harness clock (12:00:00).
fn hosted_job(id: Uuid, status: &str, ended: Option<&str>, rest: &str) -> RunPlanJob {
    let persona = |name: &str| json!({ "id": Uuid::new_v4(), "displayName": name });
    let flow = |variant: &str, happy: bool| json!({ "id": Uuid::new_v4(), "title": "Reschedule a cleaning", "variantTitle": variant, "happyPath": happy });
    let endpoint =
        json!({ "id": Uuid::new_v4(), "name": "Front desk", "phoneNumber": "+15035550123", "endpointType": "PHONE" });
    let sim = |status: &str, stage: Option<&str>, started: Option<&str>, completed: Option<&str>, who: &str| {
        json!({
            "simulationJobId": Uuid::new_v4(), "status": status, "processingStatus": stage,
            "persona": persona(who), "customerFlow": flow("Patient moves to a Tuesday", true),
            "agentEndpoint": endpoint, "createdAt": "2026-11-21T11:57:50Z",
            "startedAt": started.map(|t| format!("2026-11-21T{t}Z")), "completedAt": completed.map(|t| format!("2026-11-21T{t}Z")),
        })
    };
    let mut refund = sim(rest, None, None, None, "Priya Raman");
    refund["customerFlow"] = serde_json::Value::Null;
    refund["scenario"] = json!({ "id": Uuid::new_v4(), "description": "Caller wants a refund" });
    let mut timed_out = sim("TIMED_OUT", None, Some("11:58:10"), Some("11:59:40"), "Harold Jennings");
    timed_out["customerFlow"] = flow("Caller is unsure of the date of birth", false);
    serde_json::from_value(json!({
        "simulationRunPlanJobId": id,
        "status": status,
        "createdAt": "2026-11-21T11:57:50Z",
        "startedAt": "2026-11-21T11:58:00Z",
        "endedAt": ended,
        "simulationJobs": [
            sim("COMPLETED", Some("PROCESSED"), Some("11:58:00"), Some("11:58:45"), "Dana Whitfield"),
            sim("COMPLETED", Some("PROCESSED"), Some("11:58:05"), Some("11:59:10"), "Callum Reid"),
            timed_out,
            sim("CANCELLED", None, None, None, "Neutral Caller"),
            sim(if ended.is_some() { "CANCELLED" } else { "PROCESSING" }, Some("SIMULATING"), Some("11:59:30"), None, "Hurried Caller"),
            sim(if ended.is_some() { "CANCELLED" } else { "PROCESSING" }, Some("COLLECTING_METRICS"), Some("11:59:00"), None, "Dana Whitfield"),
            sim(rest, None, None, None, "Callum Reid"),
            refund,
            sim(if ended.is_some() { "CANCELLED" } else { "PAUSED_BY_OPERATOR" }, None, Some("11:59:20"), None, "Harold Jennings"),
        ],
    }))
    .unwrap()
}

#[tokio::test]
async fn retries_of_silent_simulations_are_counted_in_the_summary() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    let id = Uuid::new_v4();
    h.app.panes[Tab::Jobs.index()].open_by_id(&id.to_string(), &mut Out::default());
    let mut job = serde_json::to_value(hosted_job(id, "RUNNING_SIMULATIONS", None, "RETRY_SCHEDULED")).unwrap();
    job["attemptSummary"] = json!({
        "attemptCount": 11, "retryCount": 2, "silentAttemptCount": 3,
        "stillSilentTestCaseCount": 1, "testCaseCount": 9
    });
    job["pendingRetries"] = json!([{
        "simulationJobId": Uuid::new_v4(), "attemptNumber": 2, "maxAttempts": 3,
        "scheduledAt": "2026-11-21T12:01:00Z"
    }]);
    feed(&mut h, id, serde_json::from_value(job).unwrap());
    let screen = h.render(160, 48);
    assert!(screen.contains("retries  2 of 11 attempts · 1 still silent · 1 waiting"), "{screen}");
    assert!(screen.contains("RETRY_SCHEDULED 2"), "{screen}");
    // A job without retries has no such line.
    let plain = hosted_job(id, "RUNNING_SIMULATIONS", None, "QUEUED");
    feed(&mut h, id, plain);
    assert!(!h.render(160, 48).contains("retries "), "{}", h.render(160, 48));
}

fn feed(h: &mut Harness, id: Uuid, job: RunPlanJob) {
    let result = Box::new(Ok(Fetched::RunPlanJob(Box::new(job))));
    h.app.update(Message::Fetched { request: Request::RunPlanJob(id), result });
}

#[tokio::test]
async fn hosted_statuses_read_well_and_polling_stops_when_the_job_ends() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    let id = Uuid::new_v4();
    // Open the job without asking the local service (it does not hold it), then answer for it.
    h.app.panes[Tab::Jobs.index()].open_by_id(&id.to_string(), &mut Out::default());
    feed(&mut h, id, hosted_job(id, "RUNNING_SIMULATIONS", None, "QUEUED"));

    let screen = h.render(160, 48);
    for shown in [
        "RUNNING_SIMULATIONS · (inline plan)",
        "4/9 ended  44%",
        "PROCESSING 2 · QUEUED 2 · COMPLETED 2 · TIMED_OUT 1 ·",
        "CANCELLED 1 · PAUSED_BY_OPERATOR 1",
        "elapsed  2m 00s · ETA 2m 30s",
        "COLLECTING_METRICS",
        "scenario: Caller wants",
        "Caller is unsure",
        "PAUSED_BY_OPERATOR ",
        "1m 30s",
    ] {
        assert!(screen.contains(shown), "{shown:?}:\n{screen}");
    }
    assert_screen!("jobs_hosted_running_160x48", screen);
    assert_screen!("jobs_hosted_running_80x24", h.render(80, 24));

    // Every status is its text in its family's colour, including one never seen before.
    let theme = &h.app.settings.theme;
    let buffer = draw(&h.app, 160, 48).backend().buffer().clone();
    for status in ["RUNNING_SIMULATIONS", "TIMED_OUT", "CANCELLED", "PAUSED_BY_OPERATOR", "QUEUED"] {
        assert_eq!(colour_of(&buffer, status), theme.status(status).fg, "{status}");
    }
    assert_ne!(theme.status("TIMED_OUT").fg, theme.status("RUNNING_SIMULATIONS").fg);

    // The hosted job carries no verdict and no outcomes: the console says so, not PASSED.
    assert!(screen.contains("No verdict: nothing in this plan is a check"), "{screen}");
    assert!(!screen.contains("PASSED"), "{screen}");
    // F shows one status at a time, in the order of the counts, then all again.
    h.key("F").await;
    let screen = h.render(160, 48);
    assert!(
        screen.contains("simulation jobs · PROCESSING only (F) · this service reports no verdict per simulation [2/9]"),
        "{screen}"
    );
    assert!(!screen.contains("Caller wants a refund"), "{screen}");
    h.keys(&["F", "F", "F", "F", "F", "F"]).await;
    assert!(h.render(160, 48).contains("simulation jobs · this service reports no verdict per simulation [9]"));
    // s sorts by verdict first, then by status.
    h.keys(&["s", "s"]).await;
    let screen = h.render(160, 48);
    let rows: Vec<&str> = screen.lines().skip_while(|l| !l.contains("STATUS ▲")).skip(1).take(2).collect();
    assert!(rows.len() == 2 && rows[0].contains("CANCELLED") && rows[1].contains("COMPLETED"), "{screen}");

    // Polled while it runs, not once it has ended.
    h.app.tick(now());
    assert_eq!(h.app.effects, vec![Effect::Fetch(Request::JobSummary { id, etag: None })]);
    h.app.effects.clear();
    feed(&mut h, id, hosted_job(id, "CANCELLED", Some("2026-11-21T11:59:55Z"), "CANCELLED"));
    h.app.tick(now());
    assert!(!h.app.effects.iter().any(|e| matches!(e, Effect::Fetch(_))), "{:?}", h.app.effects);
    assert_eq!(h.app.watching, None, "an ended job's events are not watched");
    let screen = h.render(160, 48);
    assert!(screen.contains("CANCELLED · (inline plan)") && screen.contains("took     1m 55s"), "{screen}");
    assert!(screen.contains("9/9 ended 100%"), "{screen}");
}

#[tokio::test]
async fn a_job_that_does_not_exist_says_so_and_is_not_polled() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    h.key("o").await;
    h.type_text("not-a-job").await;
    h.key("enter").await;
    assert!(h.render(160, 48).contains("is not a run plan job id"));
    let id = Uuid::new_v4();
    h.key("o").await;
    h.type_text(&id.to_string()).await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("could not load job {id}")), "{screen}");
    h.app.tick(now());
    assert!(h.app.effects.is_empty(), "{:?}", h.app.effects);
}

#[tokio::test]
async fn a_service_that_does_not_list_jobs_says_so_in_both_tabs() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    let missing = FetchError { kind: FailureKind::NotFound, message: "not found".into() };
    let request = Request::List(ListKind::RunPlanJobs);
    h.app.update(Message::Fetched { request, result: Box::new(Err(missing)) });
    let screen = h.render(80, 24);
    assert!(screen.contains("this service does not list these; press o to open one by id"), "{screen}");
    h.key("1").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("Brightsmile") && !screen.contains("never run"), "{screen}");
    h.key("enter").await;
    assert!(h.render(160, 48).contains("unknown: this service does not list run plan jobs"));
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Plans);
    assert!(h.render(160, 48).contains("open one by id in the jobs tab"), "{}", h.render(160, 48));
}

#[tokio::test]
async fn jobs_are_found_and_sorted_by_their_plans_names() {
    const COLUMNS: usize = 7;
    let mut h = Harness::seeded().await;
    let seeded = h.client.get_run_plan(SEEDED_PLAN.parse().unwrap()).await.unwrap();
    let other =
        switchboard::api::model::RunPlanInput { name: Some("Another plan".into()), ..seeded.plan.clone().as_input() };
    let other = h.client.create_run_plan(&other).await.unwrap().run_plan;
    for plan in [seeded.id, other.id] {
        h.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    }
    h.keys(&["2", "/"]).await;
    h.type_text("another").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Another plan") && !screen.contains("Brightsmile"), "found by plan name:\n{screen}");
    h.keys(&["esc", "esc"]).await;
    // Sorted by PLAN, by name: "Another plan" comes first, and last once reversed.
    for _ in 0..COLUMNS {
        if h.render(160, 48).contains("PLAN ▲") {
            break;
        }
        h.key("s").await;
    }
    h.key("g").await;
    let first = h.app.pane().selection().unwrap();
    assert_eq!(first.json["simulationRunPlanId"], other.id.to_string(), "{}", h.render(160, 48));
    h.keys(&["S", "g"]).await;
    assert!(h.render(160, 48).contains("PLAN ▼"));
    let first = h.app.pane().selection().unwrap();
    assert_eq!(first.json["simulationRunPlanId"], seeded.id.to_string());
}

/// A large job on a service that pages its simulations: the summary, then the rows on screen.
fn summary(id: Uuid, status: &str, completed: u64, total: u64) -> RunPlanJob {
    serde_json::from_value(json!({
        "simulationRunPlanJobId": id, "status": status,
        "createdAt": "2026-11-21T11:57:50Z", "startedAt": "2026-11-21T11:58:00Z",
        "simulationJobs": [], "simulationJobCount": total,
        "counts": { "total": total, "byStatus": { "COMPLETED": completed, "PENDING": total - completed }, "byOutcome": { "PASSED": completed } },
    }))
    .unwrap()
}

fn sim_row(n: u64, status: &str) -> serde_json::Value {
    json!({ "simulationJobId": Uuid::from_u128(0x5000 + n as u128), "status": status, "iteration": n,
            "createdAt": "2026-11-21T11:57:50Z", "persona": { "id": Uuid::from_u128(0x6000 + n as u128), "displayName": format!("Caller {n}") } })
}

fn window(
    from: u64,
    count: u64,
    total: u64,
    next: Option<&str>,
) -> Box<switchboard::api::model::CursorPage<switchboard::api::model::SimulationJob>> {
    let data: Vec<_> = (from..from + count).map(|n| sim_row(n, "PENDING")).collect();
    Box::new(
        serde_json::from_value(
            json!({ "data": data, "pagination": { "total": total, "hasMore": next.is_some(), "nextCursor": next } }),
        )
        .unwrap(),
    )
}

fn window_reads(h: &Harness) -> Vec<switchboard::api::ListQuery> {
    h.app
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Fetch(Request::JobWindow { query, .. }) => Some(query.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_paged_job_reads_only_its_rows_on_screen_and_follows_events() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    let id = Uuid::new_v4();
    h.app.panes[Tab::Jobs.index()].open_by_id(&id.to_string(), &mut Out::default());
    h.app.effects.clear();
    let answer = |job: Option<RunPlanJob>, etag: &str| Message::Fetched {
        request: Request::JobSummary { id, etag: None },
        result: Box::new(Ok(Fetched::JobSummary { job: job.map(Box::new), etag: Some(etag.into()) })),
    };
    // A summary with counts and no simulations: the rows on screen are asked for, a page.
    h.app.update(answer(Some(summary(id, "RUNNING_SIMULATIONS", 40, 10_000)), "\"v1\""));
    let reads = window_reads(&h);
    assert_eq!(reads.len(), 1, "{:?}", h.app.effects);
    assert!(reads[0].limit.is_some_and(|l| l <= 50) && reads[0].cursor.is_none());
    assert_eq!(reads[0].filters.get("sort").map(String::as_str), Some("createdAt"));
    h.app.effects.clear();
    h.app.update(Message::Fetched {
        request: Request::JobWindow { id, query: reads[0].clone() },
        result: Box::new(Ok(Fetched::JobWindow(window(0, 30, 10_000, Some("c30"))))),
    });
    let screen = h.render(160, 48);
    assert!(screen.contains("40/10000 ended"), "the gauge counts the whole job:\n{screen}");
    assert!(screen.contains("COMPLETED 40") && screen.contains("PENDING 9960"), "{screen}");
    assert!(screen.contains("first 30 of 10000 read (↓ reads on)"), "{screen}");
    assert!(screen.contains("Caller 0") && !screen.contains("Caller 31"), "{screen}");

    // Unchanged (304): nothing to draw, nothing more asked.
    assert!(!h.app.update(answer(None, "\"v1\"")));
    assert!(window_reads(&h).is_empty());

    // Once the event stream is open (an empty batch says so), new counts alone do not read the
    // rows again: the events say when a row read changed.
    assert!(!h.app.update(Message::Events(Vec::new())));
    h.app.update(answer(Some(summary(id, "RUNNING_SIMULATIONS", 41, 10_000)), "\"v1\""));
    assert!(window_reads(&h).is_empty(), "{:?}", h.app.effects);
    // What changed before the stream opened is read once, at the next tick.
    h.app.tick(now());
    let catch_up = window_reads(&h);
    assert_eq!(catch_up.len(), 1, "{:?}", h.app.effects);
    h.app.update(Message::Fetched {
        request: Request::JobWindow { id, query: catch_up[0].clone() },
        result: Box::new(Ok(Fetched::JobWindow(window(0, 30, 10_000, Some("c30"))))),
    });
    let polled = || Message::Fetched {
        request: Request::JobSummary { id, etag: Some("\"v1\"".into()) },
        result: Box::new(Ok(Fetched::JobSummary { job: None, etag: Some("\"v1\"".into()) })),
    };
    h.app.update(polled());
    h.app.effects.clear();
    h.app.tick(now());
    assert!(window_reads(&h).is_empty(), "once: {:?}", h.app.effects);
    h.app.update(polled());

    // Going down past the rows read asks for the next page, after the cursor.
    h.app.effects.clear();
    h.keys(&["G"]).await;
    let next: Vec<_> = h
        .performed
        .iter()
        .filter_map(|e| match e {
            Effect::Fetch(Request::JobWindow { query, .. }) => query.cursor.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(next, vec!["c30".to_string()], "{:?}", h.performed);

    // An event about a row on screen changes the row at once and asks for the summary again.
    // The stream names the job and the rows read, not every simulation of the run.
    let watching = h.app.watching.clone().unwrap_or_default();
    let named: Vec<String> = watching.resource_ids();
    assert_eq!(named.first(), Some(&id.to_string()), "{watching:?}");
    assert!(named.contains(&Uuid::from_u128(0x5003).to_string()) && named.len() <= 100, "{watching:?}");
    assert_eq!(watching.children.as_deref(), Some("none"), "{watching:?}");
    h.app.effects.clear();
    let mut done = sim_row(3, "COMPLETED");
    done["outcome"] = json!("FAILED");
    let event: switchboard::api::model::Event = serde_json::from_value(json!({
        "id": "7", "type": "SIMULATION_JOB_COMPLETED", "createdAt": "2026-11-21T11:59:00Z",
        "resourceId": Uuid::from_u128(0x5003).to_string(), "parentId": id.to_string(), "data": done,
    }))
    .unwrap();
    let other: switchboard::api::model::Event = serde_json::from_value(json!({
        "id": "8", "type": "ISSUE_OPENED", "createdAt": "2026-11-21T11:59:00Z", "resourceId": "someone-else", "data": {},
    }))
    .unwrap();
    assert!(!h.app.update(Message::Events(vec![other.clone()])), "another resource's event changes nothing");
    assert!(h.app.update(Message::Events(vec![event, other])));
    let screen = h.render(160, 48);
    let row = screen.lines().find(|l| l.contains("Caller 3")).unwrap_or_default().to_owned();
    assert!(row.contains("COMPLETED") && row.contains("FAILED"), "{row}\n{screen}");
    // The job is read again for its counts at the next tick, once however many events came.
    let summary = Effect::Fetch(Request::JobSummary { id, etag: Some("\"v1\"".into()) });
    assert!(!h.app.effects.contains(&summary), "{:?}", h.app.effects);
    h.app.tick(now());
    assert!(h.app.effects.contains(&summary), "{:?}", h.app.effects);

    // Paged, the counts are read at every tick (the events name only the rows read), each
    // read conditional: a 304 while nothing changed.
    let unchanged = || Message::Fetched {
        request: Request::JobSummary { id, etag: Some("\"v1\"".into()) },
        result: Box::new(Ok(Fetched::JobSummary { job: None, etag: Some("\"v1\"".into()) })),
    };
    h.app.update(unchanged());
    h.app.effects.clear();
    for _ in 0..3 {
        h.app.tick(now());
        h.app.update(unchanged());
    }
    let polls = h.app.effects.iter().filter(|e| **e == summary).count();
    assert_eq!(polls, 3, "{:?}", h.app.effects);

    // The events about the rows read carry each row (no read needed, as above). Events that
    // come without it (`data=none`): a change to a row read, however many events tell it, is
    // one read of the rows at the next tick.
    let watching = h.app.watching.clone().unwrap_or_default();
    assert_eq!(watching.data, None, "{watching:?}");
    let bare = |seq: u128, row: u128| -> switchboard::api::model::Event {
        serde_json::from_value(json!({
            "id": seq.to_string(), "type": "SIMULATION_JOB_STARTED", "createdAt": "2026-11-21T11:59:00Z",
            "resourceId": Uuid::from_u128(0x5000 + row).to_string(), "parentId": id.to_string(),
        }))
        .unwrap()
    };
    h.app.effects.clear();
    h.app.update(Message::Events(vec![bare(9, 4), bare(10, 5), bare(11, 6)]));
    assert!(window_reads(&h).is_empty(), "read at the tick, not per event: {:?}", h.app.effects);
    h.app.tick(now());
    let reads = window_reads(&h);
    assert_eq!(reads.len(), 1, "{:?}", h.app.effects);
    assert!(reads[0].cursor.is_none(), "the rows on screen, from the top");
    h.app.effects.clear();
    h.app.tick(now());
    assert!(window_reads(&h).is_empty(), "nothing changed since: {:?}", h.app.effects);
    // A row not read (deep in the run) costs nothing.
    h.app.update(Message::Events(vec![bare(12, 9_000)]));
    h.app.tick(now());
    assert!(window_reads(&h).is_empty(), "{:?}", h.app.effects);

    // The job's own change (it ended) is read at once, not at the next tick.
    h.app.update(Message::Fetched {
        request: Request::JobSummary { id, etag: Some("\"v1\"".into()) },
        result: Box::new(Ok(Fetched::JobSummary { job: None, etag: Some("\"v1\"".into()) })),
    });
    h.app.effects.clear();
    let ended: switchboard::api::model::Event = serde_json::from_value(json!({
        "id": "13", "type": "SIMULATION_RUN_PLAN_JOB_COMPLETED", "createdAt": "2026-11-21T11:59:00Z",
        "resourceId": id.to_string(),
    }))
    .unwrap();
    h.app.update(Message::Events(vec![ended]));
    assert!(
        h.app.effects.iter().any(|e| matches!(e, Effect::Fetch(Request::JobSummary { id: read, .. }) if *read == id)),
        "{:?}",
        h.app.effects
    );

    // With more rows read than one query names (100 ids), it names those around the selection.
    let mut next_page = reads[0].clone();
    next_page.cursor = Some("c30".into());
    h.app.update(Message::Fetched {
        request: Request::JobWindow { id, query: next_page },
        result: Box::new(Ok(Fetched::JobWindow(window(30, 120, 10_000, None)))),
    });
    // The key alone (`h.key` would also perform the reads, which this made-up job cannot answer).
    h.app.update(Message::Key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('G'))));
    let named = h.app.watching.clone().expect("still watching").resource_ids();
    let row = |n: u128| Uuid::from_u128(0x5000 + n).to_string();
    assert!(named.len() <= 100 && named.contains(&row(149)) && !named.contains(&row(3)), "{named:?}");
}

/// The jobs list watches jobs starting and ending, and reads itself again on one of them.
#[tokio::test]
async fn the_jobs_list_reads_itself_again_when_a_job_starts_or_ends() {
    let mut h = Harness::seeded().await;
    h.key("2").await;
    let query = h.app.watching.clone().expect("the list watches while it shows");
    let kinds = query.kind.clone().unwrap_or_default();
    assert!(kinds.contains("SIMULATION_RUN_PLAN_JOB_STARTED") && kinds.contains("SIMULATION_RUN_PLAN_JOB_COMPLETED"));
    assert!(query.resource_id.is_none(), "any job's");
    h.app.effects.clear();
    let event = |kind: &str| -> switchboard::api::model::Event {
        serde_json::from_value(json!({
            "id": "9", "type": kind, "createdAt": "2026-11-21T11:59:00Z",
            "resourceId": Uuid::new_v4().to_string(), "data": {},
        }))
        .unwrap()
    };
    h.app.update(Message::Events(vec![event("ISSUE_OPENED")]));
    assert!(h.app.effects.is_empty(), "{:?}", h.app.effects);
    h.app.update(Message::Events(vec![event("SIMULATION_RUN_PLAN_JOB_STARTED")]));
    assert!(h.app.effects.iter().any(|e| matches!(e, Effect::Fetch(Request::List(_)))), "{:?}", h.app.effects);
}
