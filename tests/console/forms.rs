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
    assert!(h.app.pane().capturing());
    assert_screen!("forms_issue_80x24", h.render(80, 24));
    assert_screen!("forms_issue_160x48", h.render(160, 48));

    // `q` typed into the assignee field is text, not quit; it is not a UUID, so it is refused.
    h.keys(&["tab", "tab", "q"]).await;
    assert!(!h.app.quit);
    let screen = h.render(80, 24);
    assert!(screen.contains("✗ assigneeUserId must be a user id"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "an invalid form is not sent");
    h.keys(&["backspace", "tab", "right"]).await;

    press_raw(&mut h, &["enter", "enter"]);
    h.settle().await;
    assert_eq!(writes(&h), 1, "a double Enter sends once");
    assert!(!h.app.pane().capturing(), "success closes the form");
    let after = h.client.get_issue(id).await.unwrap();
    assert_eq!(after.status, Some(IssueStatus::Acknowledged));
    h.wait_until("the list shows the new status", Duration::from_secs(5), |app| {
        app.pane().selection().is_some_and(|s| s.json["status"] == "ACKNOWLEDGED")
    })
    .await;
    assert!(h.render(160, 48).contains("ACKNOWLEDGED"));
}

#[tokio::test]
async fn esc_cancels_the_form_without_sending() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "enter", "e", "right", "esc"]).await;
    assert!(!h.app.pane().capturing());
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
    assert!(!h.app.pane().capturing());
    assert!(h.app.toasts.iter().any(|t| t.text.starts_with("read-only")));
    assert_eq!(writes(&h), 0);

    h.app.settings.read_only = false;
    h.key("?").await;
    assert!(h.render(160, 48).contains("change status"));
}
