//! Verdicts on every run screen: the jobs list, the live job, its simulations, a simulation's
//! call and a plan's detail, each at 80×24, 120×40 and 200×50.

use std::time::Duration;
use switchboard::console::tab::Tab;

use serde_json::json;
use switchboard::api::model::*;
use switchboard::console::message::{Fetched, Message, Request};
use switchboard::console::out::Out;
use uuid::Uuid;

use crate::harness::{self, Harness};
use crate::plans::SEEDED_PLAN;
use crate::support::eventually;

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 50)];
const TASK: &str = "b542a012-c004-5627-9520-a83a39bd9723";
const KEYPAD: &str = "bfaa5048-8dd9-5e6b-8c4d-db3289c8daee";
const EXPECTATIONS: &str = "748339a7-b098-50a1-97b1-68c73664775a";
const IDENTITY: &str = "331a6b72-ab56-591f-8939-4d3528128948";
/// A seeded dental call (Kevin Park) whose identity check came out false.
const KEVIN: &str = "3fb5aeb0-c5ff-5e6e-b1eb-3aadf53eeb7c";

/// Durations differ from run to run, besides ids and times.
fn filters() -> Vec<(&'static str, &'static str)> {
    let mut filters = harness::filters();
    filters.push((r"\b\d+[mh] \d\d[sm]\b *", "[dur] "));
    filters.push((r"\b\d+(\.\d+)?(ms|s)\b *", "[dur] "));
    filters
}

macro_rules! assert_sizes {
    ($h:expr, $name:expr) => {
        for (width, height) in SIZES {
            let name = format!("{}_{width}x{height}", $name);
            insta::with_settings!({ filters => filters(), snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(name, $h.render(width, height));
            });
        }
    };
}

/// A threshold on call duration that every call meets (`> 0`) or none does (`< 0.001`).
async fn duration_check(h: &Harness, always: bool) -> MetricDefinition {
    crate::support::duration_check(&h.client, always).await
}

/// Runs the seeded plan's flow (happy path only) judged by exactly `metrics`, to its end.
async fn run(h: &Harness, name: &str, metrics: Vec<MetricReference>) -> RunPlanJob {
    let seeded = h.client.get_run_plan(SEEDED_PLAN.parse().unwrap()).await.unwrap().plan.as_input();
    let mut flows = seeded.flows.clone().unwrap();
    flows[0].edge_cases = None;
    let input = RunPlanInput {
        name: Some(name.into()),
        iteration_count: Some(2),
        flows: Some(flows),
        metrics: Some(metrics),
        include_flow_metrics: Some(false),
        include_automatic_metrics: Some(false),
        ..seeded
    };
    let plan = h.client.create_run_plan(&input).await.unwrap().run_plan.id;
    let started = h.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    eventually(Duration::from_secs(60), || async {
        let job = h.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await
}

#[tokio::test]
async fn the_jobs_list_says_which_runs_passed_and_filters_by_verdict() {
    let mut h = Harness::seeded().await;
    let (passes, fails) = (duration_check(&h, true).await, duration_check(&h, false).await);
    let by_id = |d: &MetricDefinition, rate: Option<f64>| MetricReference {
        id: Some(d.id),
        min_pass_rate: rate,
        ..Default::default()
    };
    run(&h, "Always passes", vec![by_id(&passes, None)]).await;
    run(&h, "Fails its instant check", vec![by_id(&passes, Some(100.0)), by_id(&fails, Some(50.0))]).await;
    run(&h, "Nothing to judge", vec![MetricReference::by_slug("call_duration")]).await;
    h.key("2").await;
    let screen = h.render(200, 50);
    for (plan, verdict, score) in [
        ("Always passes", "PASSED", "100 %"),
        ("Fails its instant check", "FAILED", "50 %"),
        ("Nothing to judge", "—", "—"),
    ] {
        let row = screen.lines().find(|l| l.contains(plan)).unwrap_or_else(|| panic!("{plan}:\n{screen}"));
        assert!(row.contains(&format!(" {verdict} ")) && row.contains(&format!(" {score} ")), "{row}");
    }
    assert_sizes!(h, "verdicts_jobs");

    // f shows one verdict at a time; F still filters by status.
    h.key("f").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("run plan jobs · FAILED only (f) [1/3]"), "{screen}");
    assert!(screen.contains("Fails its instant check") && !screen.contains("Always passes"), "{screen}");
    h.keys(&["f", "f"]).await;
    assert!(h.render(200, 50).contains("run plan jobs · — only (f) [1/3]"), "{}", h.render(200, 50));
    h.key("f").await;
    assert!(h.render(200, 50).contains("run plan jobs [3]"), "{}", h.render(200, 50));
    h.key("F").await;
    assert!(h.render(200, 50).contains("· COMPLETED only (F) [3]"), "{}", h.render(200, 50));
}

/// A finished job judged FAILED: seven simulations with every outcome, on the seeded plan.
fn judged_job(id: Uuid) -> RunPlanJob {
    let persona = |name: &str| json!({ "id": Uuid::new_v4(), "displayName": name });
    let flow = |variant: &str, happy: bool| json!({ "id": Uuid::new_v4(), "title": "Reschedule a cleaning with identity check", "variantTitle": variant, "happyPath": happy });
    let sim = |i: u64, outcome: &str, who: &str, variant: &str, extra: serde_json::Value| {
        let mut sim = json!({
            "simulationJobId": Uuid::from_u128(i as u128 + 1), "status": "COMPLETED", "processingStatus": "PROCESSED",
            "persona": persona(who), "customerFlow": flow(variant, variant == "Patient moves to a Tuesday"),
            "createdAt": "2026-11-21T11:50:00Z", "startedAt": "2026-11-21T11:50:00Z",
            "completedAt": format!("2026-11-21T11:5{}:30Z", i % 10), "callId": KEVIN, "iteration": i, "outcome": outcome,
        });
        sim.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        sim
    };
    let task_failed = json!({ "failedChecks": [{
        "metricDefinitionId": TASK, "metricName": "Task completion", "value": 0,
        "valueReasoning": "Not met: the agent said \"you're all set for Tuesday\" at 41.2 s, then \"sorry, that slot did not save\" at 47.0 s, and never rebooked."
    }]});
    let keypad_failed = json!({ "failedChecks": [
        { "metricDefinitionId": KEYPAD, "metricName": "Keypad entry", "value": 0,
          "valueReasoning": "The caller pressed 2 for another time at 22.4 s; the agent booked the original slot anyway." },
        { "metricDefinitionId": TASK, "metricName": "Task completion", "value": 0,
          "valueReasoning": "Not met: the caller asked for another time and left with the original one." }
    ]});
    let tuesday = "Patient moves to a Tuesday";
    let keypad = "Caller presses 2 to choose another time";
    let unsure = "Caller is unsure which date of birth is on file";
    serde_json::from_value(json!({
        "simulationRunPlanJobId": id, "simulationRunPlanId": SEEDED_PLAN, "status": "COMPLETED",
        "createdAt": "2026-11-21T11:49:50Z", "startedAt": "2026-11-21T11:50:00Z", "endedAt": "2026-11-21T11:59:40Z",
        "simulationJobs": [
            sim(0, "PASSED", "Dana Whitfield", tuesday, json!({})),
            sim(1, "FAILED", "Dana Whitfield", tuesday, task_failed),
            sim(2, "PASSED", "Dana Whitfield", tuesday, json!({})),
            sim(3, "FAILED", "Harold Jennings", keypad, keypad_failed),
            sim(4, "ERROR", "Harold Jennings", keypad, json!({ "status": "FAILED", "errorMessage": "the agent's endpoint answered 503 three times" })),
            sim(5, "NOT_EVALUATED", "Neutral Caller", unsure, json!({ "invalidation": {
                "reason": "AGENT_NEVER_SPOKE", "detail": "the agent answered and never said a word" } })),
            sim(6, "PASSED", "Neutral Caller", unsure, json!({})),
        ],
        "verdict": {
            "passed": false, "score": 72.2,
            "checks": [
                { "metricDefinitionId": TASK, "metricName": "Task completion", "evaluatedSims": 5, "passedSims": 3,
                  "passRate": 60.0, "minPassRate": 90, "inherited": false, "passed": false },
                { "metricDefinitionId": EXPECTATIONS, "metricName": "Agent expectations", "evaluatedSims": 5, "passedSims": 5,
                  "passRate": 100.0, "minPassRate": 80, "inherited": true, "passed": true },
                { "metricDefinitionId": KEYPAD, "metricName": "Keypad entry", "evaluatedSims": 3, "passedSims": 2,
                  "passRate": 66.7, "minPassRate": 80, "inherited": true, "passed": false },
                { "metricDefinitionId": IDENTITY, "metricName": "Identity verified before PHI", "evaluatedSims": 5, "passedSims": 5,
                  "passRate": 100.0, "minPassRate": 80, "inherited": true, "passed": true }
            ],
            "failures": [
                { "type": "INCOMPLETE_COVERAGE", "evaluatedCalls": 5, "expectedCalls": 6 },
                { "type": "METRIC_BELOW_MIN_PASS_RATE", "metricDefinitionId": TASK, "metricName": "Task completion",
                  "passRate": 60.0, "minPassRate": 90, "inherited": false },
                { "type": "METRIC_BELOW_MIN_PASS_RATE", "metricDefinitionId": KEYPAD, "metricName": "Keypad entry",
                  "passRate": 66.7, "minPassRate": 80, "inherited": true }
            ]
        }
    }))
    .unwrap()
}

/// The jobs tab with `judged_job` open, as if the service had answered with it.
async fn open_judged(h: &mut Harness) -> Uuid {
    open_job(h, judged_job).await
}

/// The jobs tab with the job `make` gives open, as if the service had answered with it.
async fn open_job(h: &mut Harness, make: impl FnOnce(Uuid) -> RunPlanJob) -> Uuid {
    h.key("2").await;
    let id = Uuid::new_v4();
    h.app.panes[Tab::Jobs.index()].open_by_id(&id.to_string(), &mut Out::default());
    let result = Box::new(Ok(Fetched::RunPlanJob(Box::new(make(id)))));
    h.app.update(Message::Fetched { request: Request::RunPlanJob(id), result });
    h.settle().await;
    id
}

/// A simulation the service could not score and gave no invalidation or error for: its WHY
/// names each check left without a value, with the judge's words, beside the checks that
/// passed (one check not scored hides no other).
#[tokio::test]
async fn a_simulation_left_unscored_says_which_check_had_no_value_and_why() {
    let mut h = Harness::seeded().await;
    open_job(&mut h, |id| {
        let mut job = judged_job(id);
        let unsure = &mut job.simulation_jobs[5];
        unsure.invalidation = None;
        unsure.unscored_checks = serde_json::from_value(json!([{
            "metricDefinitionId": TASK, "metricName": "Task completion", "captureStatus": "DATA_MISSING",
            "reasoning": "Cannot tell: the caller hung up before the agent confirmed a time."
        }]))
        .unwrap();
        unsure.judged_checks = serde_json::from_value(json!([
            {"metricDefinitionId": Uuid::from_u128(0xe1), "metricName": "Agent expectations", "passed": true}
        ]))
        .unwrap();
        job
    })
    .await;
    let screen = h.render(200, 50);
    let row = screen.lines().find(|l| l.contains("NOT_EVALUATED")).unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("passed: Agent expectations; not scored: Task completion (Cannot tell:"), "{row}");
    insta::with_settings!({ filters => filters(), snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("verdicts_unscored_why_120x40", h.render(120, 40));
    });
}

fn selected_iteration(h: &Harness) -> u64 {
    h.app.pane().selection().unwrap().json["iteration"].as_u64().unwrap()
}

#[tokio::test]
async fn a_live_job_shows_its_verdict_and_the_failing_simulations_are_a_key_away() {
    let mut h = Harness::seeded().await;
    open_judged(&mut h).await;
    let screen = h.render(200, 50);
    for shown in [
        "verdict FAILED · score 72 %",
        "Task completion passed 60 % of simulations, below its minimum of 90 %",
        "Keypad entry passed 66.7 % of simulations, below its minimum of 80 %",
        "Only 5 of 6 simulations were scored",
        "60 % / min 90 % ✗",
        "100 % / min 80 % ✓",
        "Task completion: Not met: the agent said",
        "Keypad entry (+1 more): The caller pressed 2",
        "the agent's endpoint answered 503 three times",
        "AGENT_NEVER_SPOKE: the agent answered and never",
    ] {
        assert!(screen.contains(shown), "{shown:?}:\n{screen}");
    }
    assert_sizes!(h, "verdicts_live_job");

    // ] and [ go from failing simulation to failing simulation (FAILED and ERROR), wrapping.
    assert_eq!(selected_iteration(&h), 0);
    h.key("]").await;
    assert_eq!(selected_iteration(&h), 1);
    h.key("]").await;
    assert_eq!(selected_iteration(&h), 3);
    h.key("]").await;
    assert_eq!(selected_iteration(&h), 4, "an error counts as failing");
    h.key("]").await;
    assert_eq!(selected_iteration(&h), 1, "wraps around past the passing ones");
    h.key("[").await;
    assert_eq!(selected_iteration(&h), 4);

    // f shows one outcome at a time; s sorts failing first.
    h.key("f").await;
    let screen = h.render(200, 50);
    assert!(screen.contains("simulation jobs · ERROR only (f) [1/7]"), "{screen}");
    h.key("f").await;
    assert!(h.render(200, 50).contains("simulation jobs · FAILED only (f) [2/7]"));
    h.keys(&["f", "f", "f"]).await;
    assert!(h.render(200, 50).contains("simulation jobs [7]"));
    h.keys(&["s", "g"]).await;
    let screen = h.render(200, 50);
    assert!(screen.contains("VERDICT ▲"), "{screen}");
    assert_eq!(h.app.pane().selection().unwrap().json["outcome"], "FAILED");
}

#[tokio::test]
async fn a_failed_simulation_opens_on_its_failed_checks_readable_at_every_width() {
    let mut h = Harness::seeded().await;
    open_judged(&mut h).await;
    h.keys(&["]", "]", "enter"]).await;
    let screen = h.render(200, 50);
    assert!(screen.contains("simulation #4 FAILED · COMPLETED"), "iteration 3, counted from 1: {screen}");
    assert!(screen.contains("failed checks [2]"), "{screen}");
    assert!(screen.contains("✗ Keypad entry — The caller pressed 2 for another time at 22.4 s"), "{screen}");
    // The third turn is long: selected, it is in view whole at every size.
    h.keys(&["j", "j"]).await;
    for (width, height) in SIZES {
        let screen = h.render(width, height);
        // Metric names and values are never cut below a readable width.
        assert!(screen.contains("Identity verified before PHI") && screen.contains("false"), "{width}:\n{screen}");
        assert!(screen.contains("failed checks [2]") && screen.contains("transcript ["), "{width}:\n{screen}");
        // A long turn wraps instead of being cut.
        assert!(screen.contains("dollars from your last visit."), "{width}:\n{screen}");
        // The footer offers marking the call and filing an issue, at every size.
        let footer = screen.lines().nth(height as usize - 1).unwrap();
        assert!(footer.contains("space mark the call") && footer.contains("I file an issue"), "{footer}");
        // Simulations count from 1; a header cut for width says so with `…`.
        let head = screen.lines().nth(2).unwrap();
        assert!(head.contains("simulation #4 "), "{head}");
        assert!(width > 120 || head.ends_with('…'), "{head}");
    }
    assert_sizes!(h, "verdicts_simulation");

    // z zooms the focused side to the whole view, and back.
    h.key("z").await;
    let zoomed = h.render(120, 40);
    assert!(zoomed.contains("transcript [") && !zoomed.contains("metric values ["), "{zoomed}");
    h.keys(&["z", "l", "z"]).await;
    let zoomed = h.render(120, 40);
    assert!(!zoomed.contains("transcript [") && zoomed.contains("metric values ["), "{zoomed}");
    assert!(zoomed.contains("failed checks [2]"), "{zoomed}");
}

#[tokio::test]
async fn an_open_simulation_follows_its_failed_checks_as_the_job_is_read_again() {
    let mut h = Harness::seeded().await;
    let id = open_judged(&mut h).await;
    h.keys(&["]", "]", "enter"]).await;
    assert!(h.render(200, 50).contains("failed checks [2]"), "{}", h.render(200, 50));
    // The service judged it again (a re-scored value): only the task check fails now.
    let mut job = judged_job(id);
    job.simulation_jobs[3].failed_checks.retain(|c| c.metric_name.as_deref() == Some("Task completion"));
    let result = Box::new(Ok(Fetched::RunPlanJob(Box::new(job))));
    h.app.update(Message::Fetched { request: Request::RunPlanJob(id), result });
    let screen = h.render(200, 50);
    assert!(screen.contains("failed checks [1]") && !screen.contains("✗ Keypad entry"), "{screen}");
}

#[tokio::test]
async fn a_plans_detail_marks_its_checks_and_their_bars() {
    let mut h = Harness::seeded().await;
    let seeded = h.client.get_run_plan(SEEDED_PLAN.parse().unwrap()).await.unwrap().plan.as_input();
    let input = RunPlanInput {
        name: Some("A judged plan".into()),
        metrics: Some(vec![
            MetricReference { min_pass_rate: Some(90.0), ..MetricReference::by_slug("task_completion") },
            MetricReference::by_slug("keypad_entry"),
            MetricReference::by_slug("call_duration"),
        ]),
        ..seeded
    };
    h.client.create_run_plan(&input).await.unwrap();
    h.keys(&["1", "r", "/"]).await;
    h.type_text("a judged plan").await;
    h.keys(&["esc", "enter"]).await;
    let screen = h.render(200, 50);
    for shown in [
        "judged: check · passes at ≥ 90 % of simulations",
        "judged: check · passes at ≥ 80 % (default) of simulations",
        "judged: observation, not a check",
    ] {
        assert!(screen.contains(shown), "{shown:?}:\n{screen}");
    }
    assert_sizes!(h, "verdicts_plan_detail");
}
