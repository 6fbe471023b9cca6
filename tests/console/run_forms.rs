//! Runs, thresholds and metric edits as forms: each changes the seeded service for real.

use std::time::Duration;
use switchboard::console::tab::Tab;

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
    assert!(h.app.modal.is_open());
    // One field per {{variable}} the plan's flow uses, filled with the value the plan pins.
    let form = h.app.modal.current_form().unwrap();
    let listed: Vec<&str> = form.fields.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(listed, vec!["patientName", "dateOfBirth", "currentAppointment", "other variables"]);
    assert_eq!(form.value("variables.currentAppointment"), "Thursday, October 8 at 9:00 AM");
    // The appointment moves: a value with commas and spaces is typed as it is.
    h.keys(&["tab", "tab", "ctrl-u"]).await;
    h.type_text("Friday, October 9 at 10:30 AM").await;
    h.key("tab").await;
    h.type_text("tier").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ \"tier\" is not key=value"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "an invalid form is not sent");
    h.key("ctrl-u").await;
    h.type_text("region=emea, tier=gold").await;
    assert_screen!("run_form_80x24", h.render(80, 24));
    assert_screen!("run_form_160x48", h.render(160, 48));
    h.key("enter").await;
    assert_eq!(writes(&h), 1);
    h.wait_until("the jobs tab", Duration::from_secs(5), |app| app.tab == Tab::Jobs).await;
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
    assert_eq!(vars.get("currentAppointment").map(String::as_str), Some("Friday, October 9 at 10:30 AM"));
    assert_eq!(vars.get("region").map(String::as_str), Some("emea"));
    assert_eq!(vars.get("tier").map(String::as_str), Some("gold"));
    assert_eq!(vars.len(), 3, "the plan's own values are not sent again: {vars:?}");
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("job      {job_id}")), "the new job is open: {screen}");
    // Esc: back on the list at the new job, so `m`, `=` and Enter act on it.
    h.key("esc").await;
    let selected = h.app.pane().selection().map(|s| s.id);
    assert_eq!(selected, Some(job_id.to_string()), "{}", h.render(160, 48));
}

#[tokio::test]
async fn read_only_blocks_running_thresholds_and_edits() {
    let mut h = Harness::seeded().await;
    h.app.settings.read_only = true;
    seeded_plan(&mut h).await;
    h.key("R").await;
    assert!(!h.app.modal.is_open());
    definition(&mut h, "empathy_rating").await;
    for key in ["T", "e"] {
        h.key(key).await;
        assert!(!h.app.modal.is_open(), "{key} is blocked");
    }
    h.key("?").await;
    let help = h.render(160, 48);
    assert!(!help.contains("threshold on this metric") && !help.contains("edit the metric"), "{help}");
    assert_eq!(writes(&h), 0);
}

/// The metric definitions list filtered down to `slug`.
async fn definition(h: &mut Harness, slug: &str) {
    h.keys(&["3", "/"]).await;
    h.type_text(slug).await;
    h.key("enter").await;
    assert!(h.app.pane().selection().is_some_and(|s| s.json["slug"] == slug), "{slug} is selected");
}

#[tokio::test]
async fn a_threshold_form_shows_count_only_for_count_and_creates_it() {
    let mut h = Harness::seeded().await;
    // A CALL-only metric: no participant role to pick.
    definition(&mut h, "call_duration").await;
    h.key("T").await;
    assert!(!h.render(160, 48).contains("participant role"));
    h.keys(&["esc", "esc"]).await;

    definition(&mut h, "interruption_count").await;
    h.key("T").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("participant role"), "TURN metrics name a role: {screen}");
    assert!(!screen.contains("required for COUNT"), "no count field for EACH: {screen}");
    h.type_text("Too many interruptions").await;
    h.keys(&["tab", "tab"]).await;
    h.type_text("3").await;
    h.keys(&["tab", "right"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("required for COUNT"), "COUNT shows the count field: {screen}");
    assert!(screen.contains("✗ Count (countThreshold) is required"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "COUNT without a count is not sent");
    h.key("tab").await;
    h.type_text("2").await;
    assert_screen!("threshold_form_80x24", h.render(80, 24));
    assert_screen!("threshold_form_160x48", h.render(160, 48));
    h.key("enter").await;
    assert_eq!(writes(&h), 1);
    assert!(!h.app.modal.is_open(), "success closes the form");
    let created = h.client.get_metric_definition("too_many_interruptions").await.expect("created");
    let threshold = created.threshold.expect("a threshold");
    let json = serde_json::to_value(&threshold).unwrap().to_string();
    assert!(json.contains("COUNT") && json.contains("GREATER_THAN"), "{json}");
}

#[tokio::test]
async fn editing_a_metric_makes_a_new_version() {
    let mut h = Harness::seeded().await;
    definition(&mut h, "empathy_rating").await;
    let before = h.client.get_metric_definition("empathy_rating").await.unwrap();
    h.key("E").await;
    assert_screen!("edit_metric_80x24", h.render(80, 24));
    assert_screen!("edit_metric_160x48", h.render(160, 48));
    h.key("ctrl-u").await;
    h.type_text("Empathy score").await;
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "a change reason is required");
    h.key("backtab").await;
    h.type_text("clearer name").await;
    h.key("enter").await;
    assert_eq!(writes(&h), 1);
    let after = h.client.get_metric_definition("empathy_rating").await.unwrap();
    assert_eq!(after.name.as_deref(), Some("Empathy score"));
    assert_eq!(after.version, before.version.map(|v| v + 1));
    let note = format!("version {} → {}", before.version.unwrap(), after.version.unwrap());
    assert!(h.app.toasts.iter().any(|t| t.text.contains(&note)), "{:?}", h.app.toasts);
}

#[tokio::test]
async fn a_service_owned_metric_is_edited_as_this_workspaces_variant() {
    let mut h = Harness::seeded().await;
    definition(&mut h, "task_completion").await;
    h.key("E").await;
    assert!(h.render(160, 48).contains("for this workspace"));
    h.key("ctrl-u").await;
    h.type_text("Task done").await;
    h.key("backtab").await;
    h.type_text("our wording").await;
    h.key("enter").await;
    assert!(h.performed.iter().any(|e| matches!(e, Effect::Write(Write::UpdateMetric { variant: Some(_), .. }))));
    let original = h.client.get_metric_definition("task_completion").await.unwrap();
    assert_eq!(original.name.as_deref(), Some("Task completion"), "the service's metric is untouched");
    let fork = h.client.get_metric_variant("task_completion", "workspace").await.expect("the fork");
    assert_eq!(fork.name, "workspace");
    assert!(!fork.is_system, "the fork is this workspace's");
    // A variant's `name` is the variant's: the metric's name is the service's, the edit a new version.
    let forked = fork.definition.unwrap();
    assert_eq!(forked.name.as_deref(), Some("Task completion"));
    assert_eq!(forked.change_reason.as_deref(), Some("our wording"));
    assert!(h.app.toasts.iter().any(|t| t.text.contains("this workspace's variant")), "{:?}", h.app.toasts);
}
