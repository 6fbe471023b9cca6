//! Comparing runs in the console (`m` marks the base in the jobs list, `=` on another opens
//! the comparison, Enter the pair side by side) on the seeded nightly history, whose newest
//! night regressed on the "presses 2" edge case; and `+` / `-` labels on a call's values, kept
//! on the service, or in the local cache with a note when the service has no labels route.

use std::time::Duration;

use switchboard::api::ListQuery;
use switchboard::api::model::*;
use switchboard::console::message::{Message, Write, WriteError};
use uuid::Uuid;

use crate::assert_screen;
use crate::harness::Harness;
use crate::support::{self, eventually, start_with};

const NIGHTLY: &str = "Brightsmile reschedule regression";
const PRESSES_2: &str = "Caller presses 2 to choose another time";
/// The seeded CRITICAL issue's first evidence call (Kevin Park).
const CALL: &str = "3fb5aeb0-c5ff-5e6e-b1eb-3aadf53eeb7c";

/// The console on a service with the nightly history, once the three nights have ended; their
/// ids, oldest first.
async fn with_history() -> (Harness, Vec<Uuid>) {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { seed_history: true, ..support::options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let plan =
        support::seeded("run_plans", |p| p["name"] == NIGHTLY)[0]["id"].as_str().unwrap().parse::<Uuid>().unwrap();
    let nights = eventually(Duration::from_secs(120), || async {
        let listed: Vec<RunPlanJob> = futures_util::TryStreamExt::try_collect(
            service.client.list_all("/v1/simulation/plan/jobs", ListQuery::default()),
        )
        .await
        .unwrap();
        let mut jobs: Vec<RunPlanJob> = listed.into_iter().filter(|j| j.simulation_run_plan_id == Some(plan)).collect();
        jobs.sort_by_key(|j| j.created_at.as_ref().and_then(Timestamp::parse));
        (jobs.len() == 3 && jobs.iter().all(RunPlanJob::has_ended))
            .then(|| jobs.iter().map(|j| j.simulation_run_plan_job_id).collect::<Vec<_>>())
    })
    .await;
    let mut h = Harness::on(service, None).await;
    h.key("2").await;
    (h, nights)
}

/// Moves the jobs list's selection to job `id`.
async fn select(h: &mut Harness, id: Uuid) {
    h.key("g").await;
    for _ in 0..50 {
        let at = h.app.pane().selection().and_then(|s| s.json["simulationRunPlanJobId"].as_str().map(str::to_owned));
        if at.as_deref() == Some(id.to_string().as_str()) {
            return;
        }
        h.key("j").await;
    }
    panic!("job {id} is not in the list:\n{}", h.render(160, 48));
}

fn toasts(h: &Harness) -> Vec<String> {
    h.app.toasts.iter().map(|t| t.text.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marking_a_night_and_comparing_the_next_puts_the_regression_first_and_opens_the_pair() {
    let (mut h, nights) = with_history().await;

    // = before anything is marked says what to do.
    h.key("=").await;
    assert!(toasts(&h).iter().any(|t| t.contains("mark the base job first")), "{:?}", toasts(&h));

    select(&mut h, nights[1]).await;
    h.key("m").await;
    assert!(h.render(200, 50).contains("◆ base · Brightsmile reschedule regression"));
    select(&mut h, nights[2]).await;
    h.key("=").await;
    let screen = h.render(200, 50);
    let first_row = screen.lines().find(|l| l.contains("REGRESSED") && l.contains("pts")).unwrap_or_default();
    assert!(first_row.contains(PRESSES_2), "the regression comes first:\n{screen}");
    assert!(
        first_row.contains("Task completion") && first_row.contains("100 % (3/3)") && first_row.contains("0 % (0/3)")
    );
    assert!(screen.contains("REGRESSED 2"), "the counts: {screen}");
    // At 80 columns the counts come first and the names are cut with `…`.
    let narrow = h.render(80, 24);
    let head = narrow.lines().nth(2).unwrap();
    assert!(head.contains("REGRESSED 2") && head.contains("UNCHANGED") && head.ends_with('…'), "{head}");
    for (width, height) in [(80, 24), (120, 40), (200, 50)] {
        assert_screen!(format!("compare_table_{width}x{height}"), h.render(width, height));
    }

    // Enter: the pair, base (passed) beside head (failed), with the judges' words.
    h.key("enter").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("base · the judge's reasoning") && screen.contains("head · the judge's reasoning"));
    assert!(screen.contains("✓ passed Task completion") && screen.contains("✗ failed Task completion"), "{screen}");
    assert!(screen.contains("can't change it"), "the head judge's reason: {screen}");
    assert!(screen.matches("┌ transcript").count() == 2, "two transcripts: {screen}");
    for (width, height) in [(120, 40), (200, 50)] {
        assert_screen!(format!("compare_pair_{width}x{height}"), h.render(width, height));
    }

    // Esc: the table again; Esc again: the jobs list, the base still marked.
    h.key("esc").await;
    assert!(h.render(200, 50).contains("worst first"));
    h.key("esc").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("run plan jobs") && screen.contains("◆ base"), "{screen}");
}

/// Opens the seeded call and focuses its first SUCCESS value.
async fn open_call_on_a_value(h: &mut Harness) {
    h.key(":").await;
    h.type_text(&format!("call {CALL}")).await;
    h.key("enter").await;
    h.key("l").await;
    for _ in 0..30 {
        let ok = h.app.call.as_ref().and_then(|c| c.values.selected()).is_some_and(|r| {
            r.value.capture_status.as_ref().is_none_or(|s| *s == CaptureStatus::Success) && r.value.value.is_some()
        });
        if ok {
            return;
        }
        h.key("j").await;
    }
    panic!("no judged value on the call:\n{}", h.render(160, 48));
}

/// Every test case × check the header counts has its row: a FIXED check shows even where the
/// same test case has a FLAKY one; a base newer than the head is warned of.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_check_has_its_row_and_a_backwards_comparison_is_warned_of() {
    let (mut h, nights) = with_history().await;
    select(&mut h, nights[2]).await;
    h.key("m").await;
    select(&mut h, nights[1]).await;
    h.key("=").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("FIXED 2"), "the counts: {screen}");
    let fixed = screen.lines().find(|l| l.contains("FIXED") && l.contains(PRESSES_2)).unwrap_or_default();
    assert!(
        fixed.contains("Task completion") && fixed.contains("0 % (0/3)") && fixed.contains("100 % (3/3)"),
        "the fixed check's row:\n{screen}"
    );
    assert!(fixed.contains("better 100"), "WORSE BY says it got better: {fixed}");
    assert!(screen.contains("the base ran after the head"), "the comparison is backwards:\n{screen}");
}

#[tokio::test]
async fn plus_labels_a_value_right_on_the_service_and_minus_relabels_it_wrong() {
    let mut h = Harness::seeded().await;
    open_call_on_a_value(&mut h).await;
    let (metric, name) = {
        let row = h.app.call.as_ref().unwrap().values.selected().unwrap();
        (row.metric.id, row.metric.name.clone())
    };
    h.key("+").await;
    assert!(toasts(&h).contains(&"labelled right".to_string()), "{:?}", toasts(&h));
    assert!(h.render(160, 48).contains(&format!("✓ {name}")), "{}", h.render(160, 48));
    h.key("-").await;
    assert!(h.render(160, 48).contains(&format!("✗ {name}")));
    let kept: Vec<Annotation> = futures_util::TryStreamExt::try_collect(
        h.client.list_all("/v1/metric/annotations", ListQuery::default().filter("callId", CALL)),
    )
    .await
    .unwrap();
    assert_eq!(kept.len(), 1, "one label per value, replaced: {kept:#?}");
    assert_eq!((kept[0].metric_definition_id, kept[0].label.clone()), (metric, AnnotationLabel::Wrong));

    // The metrics pane's AGREEMENT column: one label, on a value the judge got wrong.
    h.key("esc").await;
    h.key("3").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("AGREEMENT"), "{screen}");
    let line = screen.lines().find(|l| l.contains(&name)).unwrap_or_default();
    assert!(line.contains("0 % · 1"), "agreement 0 % of 1 label on {name}: {line}\n{screen}");
    let others = screen.lines().filter(|l| l.contains(" · 1") && !l.contains(&name)).count();
    assert_eq!(others, 0, "only the labelled metric has a figure:\n{screen}");
}

#[tokio::test]
async fn without_a_labels_route_the_label_is_kept_in_the_local_cache_and_said_so() {
    let cache_dir = tempfile::tempdir().unwrap();
    let (cache, _) = switchboard::cache::Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let service = support::start(true).await;
    let mut h = Harness::on(service, Some(cache)).await;
    open_call_on_a_value(&mut h).await;
    let view = h.app.call.as_ref().unwrap();
    let input = view.label(true).unwrap();
    let (metric, name) =
        (view.values.selected().unwrap().metric.id, view.values.selected().unwrap().metric.name.clone());
    // What a service without the route answers, as the client reports it.
    let refused = WriteError {
        unreachable: false,
        forbidden: false,
        missing_route: true,
        message: "404 Not Found: no route POST /v1/metric/annotations".into(),
        fields: Vec::new(),
    };
    h.app.update(Message::Written { write: Write::Annotate(Box::new(input)), result: Box::new(Err(refused)) });
    h.settle().await;
    assert!(
        toasts(&h).iter().any(|t| t.contains("labelled right") && t.contains("kept in the local cache only")),
        "{:?}",
        toasts(&h)
    );
    assert!(h.render(160, 48).contains(&format!("✓ {name} (local)")), "{}", h.render(160, 48));
    let kept: Vec<Annotation> = h.app.cache.as_ref().unwrap().mark("judge-labels").unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].metric_definition_id, kept[0].label.clone()), (metric, AnnotationLabel::Right));
    assert_eq!(kept[0].call_id.to_string(), CALL);
    assert!(kept[0].judge_value.is_some(), "the judge's value is kept with the label");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bang_on_the_nightly_plan_lists_its_flaky_checks_worst_first_and_n_reads_more_runs() {
    let (mut h, _nights) = with_history().await;
    let plan = support::seeded("run_plans", |p| p["name"] == NIGHTLY)[0]["id"].as_str().unwrap().to_owned();
    h.key("1").await;
    h.key("g").await;
    for _ in 0..50 {
        if h.app.pane().selection().is_some_and(|s| s.id == plan) {
            break;
        }
        h.key("j").await;
    }
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(plan.clone()), "{}", h.render(160, 48));

    h.key("!").await;
    let screen = h.render(200, 50);
    assert!(
        screen
            .contains("flaky Brightsmile reschedule regression · 5 of 11 unsteady · the last 3 ended runs (asked 10)"),
        "{screen}"
    );
    assert!(screen.contains("test cases of Reschedule a cleaning with identity check × check"), "{screen}");
    // Worst first: a test case whose iterations disagree every night leads; "presses 2",
    // which flipped once when the build regressed, comes after it.
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains(" of ") && l.contains(" %")).collect();
    assert!(!rows.is_empty(), "{screen}");
    assert!(rows[0].contains("3 of 3"), "the first row's iterations disagreed in all three runs: {screen}");
    let presses_2 = rows.iter().position(|l| l.contains(PRESSES_2) && l.contains("Task completion"));
    assert!(presses_2.is_some_and(|at| at > 0), "{screen}");
    assert!(rows[presses_2.unwrap()].contains("3/3 3/3 0/3") && rows[presses_2.unwrap()].contains("1 of 2"));
    for (width, height) in [(80, 24), (160, 48)] {
        assert_screen!(format!("flaky_{width}x{height}"), h.render(width, height));
    }
    // The selection is the test case × check, for copy and raw JSON.
    let selected = h.app.pane().selection().unwrap();
    assert!(selected.json["history"].is_array(), "{:#}", selected.json);

    // Sorted by MIXED RUNS, which a narrow screen leaves out, no header there claims the sort;
    // sorted by HISTORY, which moves left when MIXED RUNS goes, its own header has the marker.
    let header = |screen: String| screen.lines().find(|l| l.contains("STABILITY")).unwrap_or_default().to_owned();
    for _ in 0..5 {
        h.key("s").await;
    }
    assert!(header(h.render(160, 48)).contains("MIXED R… ▲"), "{}", h.render(160, 48));
    let narrow = header(h.render(80, 24));
    assert!(!narrow.contains('▲') && !narrow.contains("MIXED"), "{narrow}");
    h.key("s").await;
    let narrow = header(h.render(80, 24));
    assert!(narrow.contains("HISTORY ▲") && narrow.contains("FLIPS   HISTORY"), "{narrow}");
    assert_screen!("flaky_sorted_by_history_80x24", h.render(80, 24));
    h.keys(&["s"]).await;

    // a: the steady checks too; again: the unsteady only.
    let unsteady = rows.len();
    h.key("a").await;
    let all = h.render(200, 50).lines().filter(|l| l.contains(" of ") && l.contains(" %")).count();
    assert!(all > unsteady, "steady checks are listed with a: {all} vs {unsteady}");
    h.key("a").await;

    // n asks for five more runs (the plan has only three ended, so the same three come back).
    h.key("n").await;
    assert!(h.render(200, 50).contains("the last 3 ended runs (asked 15)"), "{}", h.render(200, 50));
    h.key("p").await;
    h.key("p").await;
    h.key("p").await;
    assert!(h.render(200, 50).contains("(asked 2)"), "never fewer than two runs: {}", h.render(200, 50));

    // Esc: the plans again.
    h.key("esc").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("run plans") && !screen.contains("least steady first"), "{screen}");
}
