//! Tab 1: run plans, everything a plan pins, and the jump to its latest job.

use std::collections::BTreeMap;
use switchboard::console::tab::Tab;

use switchboard::api::model::*;
use uuid::Uuid;

use crate::assert_screen;
use crate::harness::Harness;

pub const SEEDED_PLAN: &str = "def19c4f-3b29-5880-ab66-2113c56938c5";
const FLOW: &str = "4ac0ac43-3a5c-5293-9370-3b46530ffc59";
const EDGE_CASE: &str = "c79e3ff3-3b22-596b-a246-620ca17c95ad";
const HAROLD: &str = "f845c1c8-6b10-505f-94e5-9dab6dbc11b0";
const ENDPOINT: &str = "bcb0de1f-8846-5342-819b-3bb8440c298c";

fn id(text: &str) -> Uuid {
    text.parse().unwrap()
}

/// An older-style plan: deprecated scenarios and personas, one named edge case with its own
/// persona and values, a LIVE metric, live enrichment.
async fn legacy_plan(h: &Harness) -> Uuid {
    let vars = |k: &str, v: &str| Some(BTreeMap::from([(k.to_string(), v.to_string())]));
    let input = RunPlanInput {
        name: Some("Aardvark legacy smoke".into()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(2),
        max_simulation_duration_seconds: Some(90),
        end_call_phrases: Some(vec![]),
        scenarios: Some(vec![ScenarioSelection {
            id: Some(Uuid::from_u128(7)),
            variables: vars("city", "Lisbon"),
            ..Default::default()
        }]),
        personas: Some(vec![IdRef { id: id(HAROLD) }]),
        flows: Some(vec![FlowSelection {
            id: Some(id(FLOW)),
            happy_path: Some(false),
            edge_cases: Some(EdgeCases::List(vec![EdgeCaseSelection {
                id: Some(id(EDGE_CASE)),
                persona_override_id: Some(id(HAROLD)),
                variables: vars("dateOfBirth", "unknown"),
            }])),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: id(ENDPOINT) }]),
        metrics: Some(vec![MetricReference {
            slug: Some("call_duration".into()),
            conversation_source: Some(ConversationSource::Live),
            ..Default::default()
        }]),
        enrich_with_live_conversation: Some(true),
        auto_run: Some(false),
        ..Default::default()
    };
    h.client.create_run_plan(&input).await.expect("plan is created").run_plan.id
}

#[tokio::test]
async fn plans_list_and_detail_at_both_sizes() {
    let mut h = Harness::seeded().await;
    let list = h.render(80, 24);
    assert!(list.contains("Brightsmile reschedule regression") && list.contains("never run"), "{list}");
    assert_screen!("plans_80x24", list);
    assert_screen!("plans_160x48", h.render(160, 48));

    h.key("enter").await;
    let detail = h.render(160, 48);
    for pinned in [
        "Reschedule a cleaning with identity check",
        "+15035550123 (production)", // the endpoint by its number, not its id
        "edge cases: 2 selected",
        // Each edge case with what it pins; the persona's own name is never pinned over.
        "{{dateOfBirth}} = November 30, 1949",
        "{{patientName}} = Dana Whitfield",
        "Agent response latency",
        "conversation source: SIMULATED (default)",
        "execution mode        PARALLEL",
        "autoRun (deprecated)",
        "not run yet",
        // Every check a run judges, not only the one the plan names.
        "also judged each run",
        "Agent expectations (automatic)",
        "Keypad entry (automatic)",
    ] {
        assert!(detail.contains(pinned), "{pinned:?} is shown:\n{detail}");
    }
    assert_screen!("plans_detail_160x48", detail);
    assert_screen!("plans_detail_80x24", h.render(80, 24));

    // The detail scrolls to the options; enter on a plan that never ran says so.
    h.key("G").await;
    assert!(h.render(80, 24).contains("live enrichment"), "{}", h.render(80, 24));
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Plans);
    assert!(h.render(80, 24).contains("this plan has not run yet"));
    h.key("esc").await;
    assert!(h.render(80, 24).contains("LATEST JOB"), "esc goes back to the list");
    h.key("?").await;
    assert!(h.render(160, 48).contains("everything the plan pins"), "help lists the pane's keys");
}

#[tokio::test]
async fn an_older_plan_shows_deprecated_members_and_every_option() {
    let mut h = Harness::seeded().await;
    legacy_plan(&h).await;
    h.key("r").await;
    // Sorting by name puts the new plan first; reversing puts it last; the filter finds it.
    let row = |screen: &str, name: &str| screen.lines().position(|l| l.contains(name)).unwrap();
    h.key("s").await;
    let screen = h.render(80, 24);
    assert!(row(&screen, "Aardvark") < row(&screen, "Brightsmile"), "{screen}");
    assert!(screen.contains("NAME ▲"), "{screen}");
    h.key("S").await;
    let screen = h.render(80, 24);
    assert!(row(&screen, "Aardvark") > row(&screen, "Brightsmile"), "{screen}");
    h.key("/").await;
    h.type_text("aard").await;
    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("Aardvark") && !screen.contains("Brightsmile"), "{screen}");

    h.key("enter").await;
    let detail = h.render(160, 48);
    for pinned in [
        "happy path: no",
        "edge cases: 1 selected",
        "Caller is unsure which date of birth",
        "persona override: Harold Jennings",
        "{{dateOfBirth}} = unknown",
        "conversation source: LIVE",
        "end call phrases      — (off)",
        "live enrichment       yes",
        "held open up to 15m",
        "silence timeout       30 s",
        "scenario (deprecated)",
        "{{city}} = Lisbon",
        "personas (deprecated)  Harold Jennings",
        "autoRun (deprecated)   no",
    ] {
        assert!(detail.contains(pinned), "{pinned:?} is shown:\n{detail}");
    }
    assert_screen!("plans_legacy_detail_160x48", detail);
}

#[tokio::test]
async fn a_plans_latest_job_shows_and_enter_opens_it_in_the_jobs_tab() {
    let mut h = Harness::seeded().await;
    let started = h
        .client
        .run(&RunRequest { plan_id: Some(id(SEEDED_PLAN)), ..Default::default() })
        .await
        .expect("the run starts");
    h.key("r").await;
    let list = h.render(80, 24);
    assert!(!list.contains("never run") && list.contains(" ago"), "{list}");
    // The VERDICT column: the latest run's verdict and score once it has ended.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        h.key("r").await;
        let list = h.render(80, 24);
        let row = list.lines().find(|l| l.contains("Brightsmile reschedule")).unwrap_or_default().to_string();
        if row.contains("PASSED") || row.contains("FAILED") {
            assert!(row.contains(" %"), "the score beside the verdict: {row}");
            assert!(list.contains("VERDICT"), "{list}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no verdict in the plans list:\n{list}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    h.key("enter").await;
    let detail = h.render(160, 48);
    assert!(detail.contains(&started.simulation_run_plan_job_id.to_string()), "{detail}");
    assert!(detail.contains("enter opens it in the jobs tab"), "{detail}");
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Jobs, "enter jumps to the jobs tab");
    let job = h.render(160, 48);
    assert!(job.contains(&format!("job      {}", started.simulation_run_plan_job_id)), "{job}");
    assert!(job.contains("simulation jobs") && job.contains("Brightsmile reschedule regression"), "{job}");
    h.key("esc").await;
    assert!(h.render(160, 48).contains("run plan jobs"), "esc leaves the job for the jobs list");
}

#[tokio::test]
async fn plans_open_by_id() {
    let mut h = Harness::seeded().await;
    let id = legacy_plan(&h).await;
    h.key("o").await;
    h.type_text(&id.to_string()).await;
    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("┌ Aardvark legacy smoke"), "the plan opened by id is shown:\n{screen}");
    h.key("esc").await;
    h.key("o").await;
    h.type_text("not-an-id").await;
    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("not an id") && screen.contains("LATEST JOB"), "{screen}");
}

#[tokio::test]
async fn the_latest_job_column_sorts_by_each_plans_newest_job() {
    let mut h = Harness::seeded().await;
    let seeded = h.client.get_run_plan(SEEDED_PLAN.parse().unwrap()).await.unwrap();
    // Made after the seeded plan but run before it: sorting by when plans changed would put it
    // last, sorting by their newest jobs puts it first.
    let ran_first = RunPlanInput { name: Some("Ran first".into()), ..seeded.plan.clone().as_input() };
    let ran_first = h.client.create_run_plan(&ran_first).await.unwrap().run_plan;
    let first = h.client.run(&RunRequest { plan_id: Some(ran_first.id), ..Default::default() }).await.unwrap();
    let first = h.client.get_run_plan_job(first.simulation_run_plan_job_id).await.unwrap();
    // The second run must be made in a later millisecond than the first.
    let made = first.created_at.and_then(|t| t.parse()).unwrap();
    while jiff::Timestamp::now() <= made + jiff::SignedDuration::from_millis(1) {
        tokio::task::yield_now().await;
    }
    h.client.run(&RunRequest { plan_id: Some(seeded.id), ..Default::default() }).await.unwrap();
    h.keys(&["1", "r"]).await;
    for _ in 0..7 {
        if h.render(160, 48).contains("LATEST JOB ▲") {
            break;
        }
        h.key("s").await;
    }
    h.key("g").await;
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(ran_first.id.to_string()), "{}", h.render(160, 48));
    h.key("G").await;
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(seeded.id.to_string()), "{}", h.render(160, 48));
}
