//! Writes as forms and confirm dialogs: each action changes the service for real, validation
//! shows under the field as you type, the service's errors land on their field, nothing is
//! sent twice, and read-only mode hides and blocks every write.

use std::time::Duration;

use switchboard::api::model::IssueStatus;
use switchboard::console::keymap::parse_key;
use switchboard::console::message::{Effect, Message};

use crate::assert_screen;
use crate::harness::Harness;

fn writes(h: &Harness) -> usize {
    h.performed.iter().filter(|e| matches!(e, Effect::Write(_))).count()
}

/// Presses keys without settling in between (a fast double press).
fn press_raw(h: &mut Harness, keys: &[&str]) {
    for key in keys {
        h.app.update(Message::Key(parse_key(key).unwrap()));
    }
}

fn selected_id(h: &Harness) -> uuid::Uuid {
    h.app.pane().selection().expect("a selection").id.parse().unwrap()
}

#[tokio::test]
async fn issue_form_changes_status_and_sends_once_on_double_enter() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "enter"]).await;
    let id = selected_id(&h);
    let before = h.client.get_issue(id).await.unwrap();
    assert_eq!(before.status, Some(IssueStatus::Open));
    h.key("e").await;
    assert!(h.app.modal.is_open());
    assert_screen!("forms_issue_80x24", h.render(80, 24));
    assert_screen!("forms_issue_160x48", h.render(160, 48));
    // `?` is text in a form; F1 shows the form's keys, esc goes back to the form as it was.
    h.key("f1").await;
    let help = h.render(80, 24);
    assert!(help.contains("in a form") && help.contains("pick or unpick"), "{help}");
    h.key("esc").await;
    assert!(h.app.overlay.is_none() && h.app.modal.is_open(), "back in the form");

    // `q` typed into the assignee field filters its users, not quit; it matches none, so it is
    // taken as typed, and it is not a UUID, so it is refused in the field's own words.
    h.keys(&["tab", "tab", "q"]).await;
    assert!(!h.app.quit);
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ Assignee (assigneeUserId) must be a user id"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "an invalid form is not sent");
    h.keys(&["backspace", "tab", "right"]).await;

    press_raw(&mut h, &["enter", "enter"]);
    h.settle().await;
    assert_eq!(writes(&h), 1, "a double Enter sends once");
    assert!(!h.app.modal.is_open(), "success closes the form");
    let after = h.client.get_issue(id).await.unwrap();
    assert_eq!(after.status, Some(IssueStatus::Acknowledged));
    h.wait_until("the list shows the new status", Duration::from_secs(5), |app| {
        app.pane().selection().is_some_and(|s| s.json["status"] == "ACKNOWLEDGED")
    })
    .await;
    assert!(h.render(160, 48).contains("ACKNOWLEDGED"));
}

#[tokio::test]
async fn esc_asks_before_throwing_changes_away() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "enter", "e", "esc"]).await;
    assert!(!h.app.modal.is_open(), "nothing was changed: esc closes at once");

    h.keys(&["e", "right", "esc"]).await;
    assert!(h.app.modal.is_open() && h.app.modal.asking(), "a change: esc asks first");
    let screen = h.render(80, 24);
    assert!(screen.contains("discard changes") && screen.contains("n keeps editing"), "{screen}");
    assert_screen!("forms_discard_80x24", screen);
    h.key("n").await;
    let form = h.app.modal.current_form().expect("still editing");
    assert_eq!(form.value("status"), "ACKNOWLEDGED", "as changed");

    h.keys(&["esc", "y"]).await;
    assert!(!h.app.modal.is_open(), "y throws the changes away");
    assert_eq!(writes(&h), 0);
    // Esc closed only the form: the issue is still open.
    assert!(h.render(160, 48).contains("evidence"));
}

#[tokio::test]
async fn read_only_hides_and_blocks_writes() {
    let mut h = Harness::seeded().await;
    h.app.settings.read_only = true;
    h.keys(&["4", "enter", "?"]).await;
    let help = h.render(160, 48);
    assert!(!help.contains("change status"), "{help}");
    h.keys(&["esc", "e"]).await;
    assert!(!h.app.modal.is_open());
    assert!(h.app.toasts.iter().any(|t| t.text.starts_with("read-only")));
    assert_eq!(writes(&h), 0);

    h.app.settings.read_only = false;
    h.key("?").await;
    assert!(h.render(160, 48).contains("change status"));
}

/// The catalog's persona list filtered down to `name`.
async fn persona_named(h: &mut Harness, name: &str) {
    h.keys(&["6", "/"]).await;
    h.type_text(name).await;
    h.key("enter").await;
    assert!(h.app.pane().selection().is_some_and(|s| s.json.to_string().contains(name)));
}

#[tokio::test]
async fn create_persona_validates_as_you_type_then_creates_it() {
    let mut h = Harness::seeded().await;
    h.keys(&["6", "E"]).await;
    // Empty name: the error is under the name field from the start, and Enter sends nothing.
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ name"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0);
    // Pasted text goes into the field too (`q` in it does not quit).
    h.app.update(Message::Paste("Quentin".into()));
    h.type_text(" Q").await;
    assert!(!h.app.quit);
    assert!(!h.render(80, 24).contains("✗ name"));
    h.keys(&["tab", "tab", "right"]).await;
    h.key("enter").await;
    assert_eq!(writes(&h), 1);
    assert!(!h.app.modal.is_open());
    let page = h.client.list_personas(&Default::default()).await.unwrap();
    let created = page.data.iter().find(|p| p.fields.name.as_deref() == Some("Quentin Q")).expect("created");
    assert_eq!(created.fields.language.as_ref().map(|l| l.as_str()), Some("EN"));
    // The list was fetched again after the write.
    assert!(h.render(160, 48).contains("Quentin Q"));
}

#[tokio::test]
async fn delete_persona_after_confirmation_and_refuse_system_personas() {
    let mut h = Harness::seeded().await;
    persona_named(&mut h, "Neutral Caller").await;
    h.key("d").await;
    assert!(!h.app.modal.is_open(), "no dialog for a system persona");
    assert!(h.app.toasts.iter().any(|t| t.text.contains("system persona")), "{:?}", h.app.toasts);

    h.key("esc").await;
    persona_named(&mut h, "Dana Whitfield").await;
    let id = selected_id(&h);
    h.key("d").await;
    assert!(h.app.modal.is_open());
    assert_screen!("forms_confirm_80x24", h.render(80, 24));
    assert_screen!("forms_confirm_160x48", h.render(160, 48));
    h.key("n").await;
    assert_eq!(writes(&h), 0);
    assert!(h.client.get_persona(id).await.is_ok());

    h.keys(&["d", "y"]).await;
    assert_eq!(writes(&h), 1);
    let gone = h.client.get_persona(id).await.unwrap_err();
    assert_eq!(gone.status(), Some(404));
    let screen = h.render(160, 48);
    assert!(screen.contains("nothing matches /Dana Whitfield"), "{screen}");
}

#[tokio::test]
async fn endpoint_form_maps_a_server_error_to_its_field_and_keeps_the_text() {
    use switchboard::api::model::AgentEndpointUpdate;
    use switchboard::console::message::WriteError;

    let mut h = Harness::seeded().await;
    h.keys(&["6", "l", "l", "/"]).await;
    h.type_text("+15035550123").await;
    h.keys(&["enter", "E"]).await;
    let id = selected_id(&h);
    h.keys(&["ctrl-u"]).await;
    h.type_text("canary").await;

    // Sent, but answered with the service's real 400 for the field (asked for directly), as
    // if the service had refused this write: the error lands under `environment`.
    press_raw(&mut h, &["enter"]);
    let write = h.app.effects.iter().find_map(|e| if let Effect::Write(w) = e { Some(w.clone()) } else { None });
    h.app.effects.retain(|e| !matches!(e, Effect::Write(_)));
    let bad = AgentEndpointUpdate { environment: Some(String::new()), ..Default::default() };
    let refused = h.client.update_agent_endpoint(id, &bad).await.unwrap_err();
    let error = WriteError::from(refused);
    assert_eq!(error.fields.first().map(|(p, _)| p.as_str()), Some("environment"));
    h.app.update(Message::Written { write: write.expect("a write was sent"), result: Box::new(Err(error)) });
    h.settle().await;
    assert!(h.app.modal.is_open(), "a failed send keeps the form");
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ environment"), "{screen}");
    assert!(screen.contains("canary"), "what was typed stays: {screen}");

    // Sent again as it is: now it goes through.
    h.key("enter").await;
    assert!(!h.app.modal.is_open());
    let endpoint = h.client.get_agent_endpoint(id).await.unwrap();
    assert_eq!(endpoint.environment.as_deref(), Some("canary"));
}

async fn flow_titles(h: &Harness) -> Vec<String> {
    use futures_util::TryStreamExt;
    use switchboard::api::model::CustomerFlow;
    let query = switchboard::api::ListQuery::default();
    let flows: Vec<CustomerFlow> =
        h.client.list_all(switchboard::api::routes::FLOWS, query).try_collect().await.unwrap();
    flows.into_iter().filter_map(|f| f.title).collect()
}

#[tokio::test]
async fn duplicate_a_flow_but_not_a_voicemail_flow() {
    let mut h = Harness::seeded().await;
    h.keys(&["5", "/"]).await;
    h.type_text("Voicemail greeting").await;
    h.keys(&["enter", "D"]).await;
    assert_eq!(writes(&h), 0);
    assert!(h.app.toasts.iter().any(|t| t.text.contains("voicemail flows")), "{:?}", h.app.toasts);

    let before = flow_titles(&h).await.len();
    h.keys(&["esc", "/"]).await;
    h.type_text("Appointment reschedule").await;
    h.keys(&["enter", "D"]).await;
    assert_eq!(writes(&h), 1);
    let titles = flow_titles(&h).await;
    assert_eq!(titles.len(), before + 1);
    assert_eq!(titles.iter().filter(|t| t.contains("Appointment reschedule")).count(), 2, "{titles:?}");
    assert!(h.app.toasts.iter().any(|t| t.text.starts_with("duplicated as")), "{:?}", h.app.toasts);
    let screen = h.render(160, 48);
    assert!(screen.contains("[2/6]"), "the list was fetched again: {screen}");
}

#[tokio::test]
async fn toggle_a_policy_between_active_and_inactive() {
    use switchboard::api::model::{MetricPolicy, PolicyStatus};
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "/"]).await;
    h.type_text("Baseline call metrics").await;
    h.key("enter").await;
    let id = selected_id(&h);
    let status = |p: MetricPolicy| p.status;
    assert_eq!(status(h.client.get_policy(id).await.unwrap()), Some(PolicyStatus::Inactive));
    h.key("t").await;
    assert_eq!(status(h.client.get_policy(id).await.unwrap()), Some(PolicyStatus::Active));
    assert!(h.render(160, 48).contains("ACTIVE"));
    // A fast double press asks for the same change twice: the app sends it once.
    let before = writes(&h);
    press_raw(&mut h, &["t", "t"]);
    h.settle().await;
    assert_eq!(writes(&h), before + 1);
    assert_eq!(status(h.client.get_policy(id).await.unwrap()), Some(PolicyStatus::Inactive));
}

#[tokio::test]
async fn cancel_a_running_job_after_confirmation() {
    use switchboard::api::model::RunRequest;
    // 20× real time, so the run is surely still going when `x` arrives.
    let mut h = Harness::seeded_at(20.0).await;
    let plan = crate::plans::SEEDED_PLAN.parse().unwrap();
    let started = h.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    h.keys(&["2", "r", "x"]).await;
    assert!(h.app.modal.is_open(), "asks first");
    assert!(h.render(80, 24).contains("cancel job"));
    h.key("y").await;
    assert_eq!(writes(&h), 1);
    let job = h.client.get_run_plan_job(id).await.unwrap();
    let status = job.status.as_ref().map(|s| s.as_str().to_string()).unwrap_or_default();
    assert!(status == "CANCELLING" || status == "CANCELLED", "{status}");
    // Calls already under way wind down; the console follows the job until it has ended.
    h.key("enter").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !h.render(160, 48).contains("CANCELLED ·") {
        assert!(std::time::Instant::now() < deadline, "never CANCELLED:\n{}", h.render(160, 48));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        h.tick().await;
    }
    let job = h.client.get_run_plan_job(id).await.unwrap();
    assert_eq!(job.status.as_ref().map(|s| s.as_str()), Some("CANCELLED"));

    // An ended job has nothing to cancel: refused without asking.
    h.key("x").await;
    assert!(!h.app.modal.is_open());
    assert!(h.app.toasts.iter().any(|t| t.text.contains("nothing to cancel")), "{:?}", h.app.toasts);
}
