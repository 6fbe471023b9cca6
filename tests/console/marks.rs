//! Marks (space on a call's row, anywhere) and the writes made from them: an issue with the
//! marked calls as evidence (`I`), and a collection job (`C`) followed to its end.

use std::collections::BTreeSet;
use std::time::Duration;
use switchboard::console::tab::Tab;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::api::model::{CollectionJob, Issue};
use switchboard::api::{ListQuery, routes};
use switchboard::console::app::App;
use switchboard::console::message::{Effect, Request, Write};
use switchboard::console::view;

use crate::assert_screen;
use crate::harness::{Harness, screen};

/// Every item of a list, through the client.
async fn all<T: serde::de::DeserializeOwned + Send + 'static>(h: &Harness, route: &str) -> Vec<T> {
    use futures_util::TryStreamExt;
    h.client.list_all::<T>(route, ListQuery::default().limit(50)).try_collect().await.unwrap()
}

fn writes(h: &Harness) -> usize {
    h.performed.iter().filter(|e| matches!(e, Effect::Write(_))).count()
}

fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    screen(terminal.backend())
}

/// The call of the selected metric value.
fn selected_call(h: &Harness) -> uuid::Uuid {
    let json = h.app.pane().selection().expect("a value is selected").json;
    json["value"]["callId"].as_str().expect("the value is a call's").parse().unwrap()
}

/// The first job's values, moved down to the first value of a call other than `not`.
async fn value_of_another_call(h: &mut Harness, not: &BTreeSet<uuid::Uuid>) -> uuid::Uuid {
    for _ in 0..200 {
        let call = selected_call(h);
        if !not.contains(&call) {
            return call;
        }
        h.key("j").await;
    }
    panic!("no value of another call");
}

#[tokio::test]
async fn mark_two_calls_then_file_an_issue_with_them_as_evidence() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "l", "enter"]).await;
    let mut marked = BTreeSet::new();
    let first = value_of_another_call(&mut h, &marked).await;
    h.key("space").await;
    marked.insert(first);
    let second = value_of_another_call(&mut h, &marked).await;
    h.key("space").await;
    marked.insert(second);
    assert_eq!(h.app.marks.len(), 2);
    let screen = h.render(160, 48);
    assert!(screen.contains("2 marked"), "{screen}");
    assert!(screen.contains(&format!("✓{}", &first.to_string()[..8])), "{screen}");
    assert_screen!("marks_values_160x48", screen);

    // Marks survive a tab switch; `I` opens the form over any tab.
    h.keys(&["1", "I"]).await;
    assert!(h.app.modal.is_open());
    assert_screen!("marks_issue_form_80x24", h.render(80, 24));
    assert_screen!("marks_issue_form_160x48", h.render(160, 48));

    // The title's limit is enforced as you type.
    h.type_text(&"x".repeat(281)).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("✗ title"), "{screen}");
    h.key("enter").await;
    assert_eq!(writes(&h), 0, "an invalid form is not sent");
    h.keys(&["ctrl-u"]).await;
    h.type_text("Latency spikes on two calls").await;
    h.keys(&["tab"]).await;
    h.type_text("Both calls stall after the greeting").await;
    h.keys(&["tab", "right", "enter"]).await;
    assert_eq!(writes(&h), 1);
    assert!(!h.app.modal.is_open(), "success closes the form");
    assert!(h.app.marks.is_empty(), "filing clears the marks");
    assert_eq!(h.app.tab, Tab::Issues, "the issues tab shows the new issue");

    let issues = all::<Issue>(&h, routes::ISSUES).await;
    let issue = issues.iter().find(|i| i.title.as_deref() == Some("Latency spikes on two calls")).expect("filed");
    let evidence: BTreeSet<_> = issue.evidence.iter().filter_map(|e| e.call_id).collect();
    assert_eq!(evidence, marked);
    let id = issue.id.to_string();
    h.wait_until("the issue is open", Duration::from_secs(5), |app| app.pane().selection().is_some_and(|s| s.id == id))
        .await;
    assert!(h.render(160, 48).contains("Latency spikes on two calls"));
}

#[tokio::test]
async fn more_than_fifty_marks_are_refused_and_u_clears_them() {
    let mut h = Harness::seeded().await;
    for _ in 0..51 {
        h.app.marks.toggle(uuid::Uuid::new_v4(), false);
    }
    h.key("I").await;
    assert!(!h.app.modal.is_open());
    assert!(h.app.toasts.iter().any(|t| t.text.contains("at most 50")), "{:?}", h.app.toasts);
    h.key("U").await;
    assert!(h.app.marks.is_empty());
    h.key("I").await;
    assert!(!h.app.modal.is_open(), "nothing marked: nothing to file");
}

#[tokio::test]
async fn read_only_blocks_marks_and_their_writes() {
    let mut h = Harness::seeded().await;
    h.app.settings.read_only = true;
    h.keys(&["3", "l", "l", "enter", "space", "C"]).await;
    assert!(h.app.marks.is_empty());
    assert!(!h.app.modal.is_open());
    assert!(h.app.toasts.iter().any(|t| t.text.starts_with("read-only")));
}

#[tokio::test]
async fn start_a_collection_job_for_a_policy_and_follow_it_to_completed() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l"]).await;
    let policy: uuid::Uuid = h.app.pane().selection().expect("a policy").id.parse().unwrap();
    let before = all::<CollectionJob>(&h, routes::COLLECTION_JOBS).await.len();
    let name = h.app.pane().selection().unwrap().json["name"].as_str().unwrap().to_string();
    h.key("C").await;
    assert!(h.app.modal.is_open());
    let form = h.app.modal.current_form().unwrap();
    assert_eq!(form.field("policyIds").unwrap().picked(), vec![policy.to_string()], "the selected policy is picked");
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("[x] {name}")) && !screen.contains(&policy.to_string()), "by name: {screen}");
    assert_screen!("marks_collection_form_80x24", h.render(80, 24));
    h.key("enter").await;
    assert!(!h.app.modal.is_open());
    let jobs = all::<CollectionJob>(&h, routes::COLLECTION_JOBS).await;
    assert_eq!(jobs.len(), before + 1);
    assert_eq!(h.app.tab, Tab::Metrics);
    h.wait_until("the job's progress reaches COMPLETED", Duration::from_secs(20), |app| {
        render(app, 160, 48).contains("COMPLETED")
    })
    .await;
}

#[tokio::test]
async fn a_marked_call_shows_its_marker_in_its_conversation() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "l", "enter", "space", "l"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("✓ marked"), "{screen}");
    // Space on the conversation itself unmarks it.
    h.key("space").await;
    assert!(h.app.marks.is_empty());
}

#[tokio::test]
async fn a_collection_job_for_the_marked_calls_with_a_chosen_metric() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "l", "enter", "space"]).await;
    let call = selected_call(&h);
    let metric = h.app.pane().selection().unwrap().json["metricDefinitionId"].as_str().unwrap().to_string();
    let name = h.client.get_metric_definition(&metric).await.unwrap().name.expect("a named metric");
    h.keys(&["1", "C", "tab"]).await;
    assert!(h.render(160, 48).contains("give metrics or policyIds"), "nothing picked: checked as you type");
    h.type_text("not-a-metric").await;
    assert!(h.render(160, 48).contains("/not-a-metric · no match"), "{}", h.render(160, 48));
    h.key("ctrl-u").await;
    // By name: its longest word narrows the metrics; → steps to it among those that match.
    let word = name.split_whitespace().max_by_key(|w| w.len()).unwrap().to_lowercase();
    h.type_text(&word).await;
    for _ in 0..20 {
        if h.render(160, 48).contains(&format!("[ ] {name} ▸")) {
            break;
        }
        h.key("right").await;
    }
    h.key("space").await;
    assert!(h.render(160, 48).contains(&format!("[x] {name} ▸")), "{}", h.render(160, 48));
    h.key("enter").await;
    assert!(!h.app.modal.is_open());
    let sent = h.performed.iter().find_map(|e| match e {
        Effect::Write(Write::StartCollection(input)) => Some(input.clone()),
        _ => None,
    });
    let sent = sent.expect("the job was asked for");
    assert_eq!(sent.call_ids, Some(vec![call]));
    assert_eq!(sent.metrics.unwrap()[0].id.to_string(), metric);
    assert_eq!(h.app.tab, Tab::Metrics, "the new job opens in the metrics tab");
    // The values view that opened asks for the new job's values (the selection may already be
    // one of its values, so the job is read off that request rather than the selection).
    let after_write = h.performed.iter().position(|e| matches!(e, Effect::Write(_))).unwrap();
    let followed = h.performed[after_write..].iter().find_map(|e| match e {
        Effect::Fetch(Request::CollectionValues(id, _)) => Some(*id),
        _ => None,
    });
    let followed = followed.expect("the new job's values view opened");
    let job = all::<CollectionJob>(&h, routes::COLLECTION_JOBS).await.into_iter().find(|j| j.id == followed);
    assert!(job.is_some(), "the followed job {followed} exists on the service");
}
