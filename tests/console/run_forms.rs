//! Runs, thresholds and metric edits as forms: each changes the seeded service for real.

use std::time::Duration;

use switchboard::api::model::RunVariables;
use switchboard::console::message::{Effect, Write};
use uuid::Uuid;

use crate::assert_screen;
use crate::harness::Harness;
use crate::plans::SEEDED_PLAN;

fn writes(h: &Harness) -> usize {
    h.performed.iter().filter(|e| matches!(e, Effect::Write(_))).count()
}

/// The plans list filtered down to the seeded plan.
async fn seeded_plan(h: &mut Harness) {
    h.keys(&["1", "/"]).await;
    h.type_text(SEEDED_PLAN).await;
    h.key("enter").await;
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(SEEDED_PLAN.to_string()));
}

/// The seeded plan's newest job, as the service lists it.
async fn newest_job(h: &Harness) -> Uuid {
    use futures_util::TryStreamExt;
    use switchboard::api::model::RunPlanJob;
    let query = switchboard::api::ListQuery::default();
    let jobs: Vec<RunPlanJob> =
        h.client.list_all(switchboard::api::routes::RUN_PLAN_JOBS, query).try_collect().await.unwrap();
    let mine = jobs.into_iter().filter(|j| j.simulation_run_plan_id.is_some_and(|p| p.to_string() == SEEDED_PLAN));
    mine.max_by_key(|j| j.created_at.clone().map(|t| t.to_string())).expect("a job").simulation_run_plan_job_id
}

#[tokio::test]
async fn run_a_plan_with_variables_then_watch_its_job() {
    let mut h = Harness::seeded().await;
    seeded_plan(&mut h).await;
    h.key("R").await;
    assert!(h.app.pane().capturing());
    h.type_text("region=emea, tier").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ \"tier\" is not key=value"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "an invalid form is not sent");
    h.type_text("=gold").await;
    assert_screen!("run_form_80x24", h.render(80, 24));
    assert_screen!("run_form_160x48", h.render(160, 48));
    h.key("enter").await;
    assert_eq!(writes(&h), 1);
    h.wait_until("the jobs tab", Duration::from_secs(5), |app| app.tab == 1).await;
    let job_id = newest_job(&h).await;
    let job = h.client.get_run_plan_job(job_id).await.expect("the job exists");
    assert_eq!(job.simulation_run_plan_id.map(|id| id.to_string()).as_deref(), Some(SEEDED_PLAN));
    // The service does not echo runtime variables: check what was sent with the run.
    let sent = h.performed.iter().find_map(|e| match e {
        Effect::Write(Write::Run(request)) => Some(request.clone()),
        _ => None,
    });
    let sent = sent.expect("a run was sent");
    assert_eq!(sent.plan_id.map(|id| id.to_string()).as_deref(), Some(SEEDED_PLAN));
    let Some(RunVariables::Flat(vars)) = sent.variables else { panic!("flat variables") };
    assert_eq!(vars.get("region").map(String::as_str), Some("emea"));
    assert_eq!(vars.get("tier").map(String::as_str), Some("gold"));
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("job      {job_id}")), "the new job is open: {screen}");
}

#[tokio::test]
async fn read_only_blocks_running() {
    let mut h = Harness::seeded().await;
    h.app.settings.read_only = true;
    seeded_plan(&mut h).await;
    h.key("R").await;
    assert!(!h.app.pane().capturing());
    assert_eq!(writes(&h), 0);
}
