//! Tab 4: issues sorted by severity then recency, status and severity filters, the detail with
//! its evidence, an evidence call's transcript, and "new since the last visit".

use switchboard::api::model::{EvidenceInput, Issue, IssueInput, Severity};
use switchboard::cache::Cache;

use crate::assert_screen;
use crate::harness::Harness;
use crate::support;

/// The first evidence call of the seeded CRITICAL issue.
const CRITICAL_CALL: &str = "3fb5aeb0-c5ff-5e6e-b1eb-3aadf53eeb7c";

/// The ids of the rows as the pane lists them, top to bottom (walking the selection).
async fn row_ids(h: &mut Harness, rows: usize) -> Vec<String> {
    h.key("g").await;
    let mut ids = Vec::new();
    for _ in 0..rows {
        ids.push(h.app.pane().selection().expect("a row is selected").id);
        h.key("j").await;
    }
    ids
}

/// The contract's order, stated independently of the pane: CRITICAL > HIGH > MEDIUM > LOW >
/// unset or unknown, then the latest event first.
fn expected_order(mut issues: Vec<Issue>) -> Vec<String> {
    let rank = |i: &Issue| match i.severity.as_ref().map(|s| s.as_str()) {
        Some("CRITICAL") => 4,
        Some("HIGH") => 3,
        Some("MEDIUM") => 2,
        Some("LOW") => 1,
        _ => 0,
    };
    issues.sort_by(|a, b| {
        rank(b).cmp(&rank(a)).then_with(|| {
            let at = |i: &Issue| i.last_event_at.as_ref().and_then(|t| t.parse());
            at(b).cmp(&at(a))
        })
    });
    issues.into_iter().map(|i| i.id.to_string()).collect()
}

async fn all_issues(h: &Harness) -> Vec<Issue> {
    use futures_util::TryStreamExt;
    let query = switchboard::api::ListQuery::default();
    h.client.list_all::<Issue>(switchboard::api::routes::ISSUES, query).try_collect().await.unwrap()
}

fn issue_input(title: &str, severity: Option<Severity>) -> IssueInput {
    IssueInput {
        title: Some(title.into()),
        summary: Some("Filed by the console test.".into()),
        severity,
        evidence: Some(vec![EvidenceInput::call(CRITICAL_CALL.parse().unwrap())]),
        ..Default::default()
    }
}

#[tokio::test]
async fn list_is_sorted_by_severity_then_recency() {
    let mut h = Harness::seeded().await;
    h.key("4").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("Receptionist discloses"), "{screen}");
    assert_screen!("issues_list_80x24", screen);
    assert_screen!("issues_list_160x48", h.render(160, 48));

    // The seed: one issue per severity, the unset ones (the API's and the alert's two) last.
    let expected = expected_order(all_issues(&h).await);
    assert_eq!(row_ids(&mut h, 7).await, expected);
    let lines: Vec<String> = h.render(160, 48).lines().map(str::to_string).collect();
    let position = |word: &str| lines.iter().position(|l| l.contains(&format!("│{word} "))).unwrap();
    assert!(position("CRITICAL") < position("HIGH") && position("HIGH") < position("MEDIUM"));
    assert!(position("MEDIUM") < position("LOW") && position("LOW") < position("—"));

    // Two more HIGH issues: within a severity, the latest event comes first.
    h.client.create_issue(&issue_input("Older of two new HIGH issues", Some(Severity::High))).await.unwrap();
    h.client.create_issue(&issue_input("Newer of two new HIGH issues", Some(Severity::High))).await.unwrap();
    h.key("r").await;
    let issues = all_issues(&h).await;
    assert_eq!(issues.len(), 9);
    let expected = expected_order(issues);
    assert_eq!(row_ids(&mut h, 9).await, expected);
    let screen = h.render(160, 48);
    let newer = screen.find("Newer of two").unwrap();
    assert!(newer < screen.find("Older of two").unwrap() && newer < screen.find("Rebooking desk charges").unwrap());
}

#[tokio::test]
async fn status_and_severity_filters_change_the_rows() {
    let mut h = Harness::seeded().await;
    h.key("4").await;
    let titles = ["Receptionist discloses", "Rebooking desk charges", "Long silences while", "talks over callers"];
    h.key("f").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("status OPEN") && screen.contains("[5/7]"), "{screen}");
    assert!(!screen.contains(titles[2]), "the ACKNOWLEDGED issue is filtered out:\n{screen}");
    h.key("f").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("[1/7]") && screen.contains(titles[2]), "{screen}");
    h.key("f").await;
    let screen = h.render(160, 48);
    // The seeded silence alert's first issue, resolved by the engine.
    assert!(screen.contains("status RESOLVED") && screen.contains("[1/7]"), "{screen}");
    assert!(screen.contains("Long silences at the front desk"), "{screen}");
    h.key("f").await;
    assert!(h.render(160, 48).contains("status all"));

    h.key("F").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("severity CRITICAL") && screen.contains("[1/7]"), "{screen}");
    assert!(screen.contains(titles[0]) && !screen.contains(titles[1]), "{screen}");
    h.keys(&["F", "F", "F", "F"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("severity unset") && screen.contains("After-hours callers"), "{screen}");
    assert!(titles.iter().all(|t| !screen.contains(t)), "{screen}");
    // Both filters at once: OPEN and unset severity keeps the API issue (an alert-born issue
    // carries its alert's severity).
    h.key("f").await;
    assert!(h.render(160, 48).contains("[1/7]"));
    h.keys(&["f", "f", "f", "F"]).await;
    assert!(h.render(160, 48).contains("[7]"));
}

#[tokio::test]
async fn detail_shows_summary_and_evidence_and_opens_the_call() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "enter"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("read out appointment dates, treatments"), "summary:\n{screen}");
    // An evidence row reads as its call: when it started, the agent, how long it took.
    let row = screen.lines().find(|l| l.contains(&CRITICAL_CALL[..8])).expect("the evidence row");
    for fact in ["call ", "2026-10-", "Brightsmile Dental — Front Desk", "1m 04s"] {
        assert!(row.contains(fact), "{fact:?} in the evidence row: {row}");
    }
    // The assignee as a user, by the id's first 8 characters (the service names no users).
    let assignee = screen.lines().find(|l| l.contains("assignee")).expect("the assignee");
    assert!(assignee.contains("user 5dd1249a…"), "{assignee}");
    assert_screen!("issues_detail_80x24", h.render(80, 24));
    assert_screen!("issues_detail_160x48", screen);
    // PageDown scrolls the facts without losing the evidence.
    h.key("pagedown").await;
    assert!(h.render(80, 24).contains("fingerprint"), "{}", h.render(80, 24));

    // Enter on the first evidence entry: the call's transcript beside its metric values.
    h.key("enter").await;
    let transcript = h.client.call_transcript(CRITICAL_CALL.parse().unwrap()).await.unwrap();
    let screen = h.render(160, 48);
    for entry in transcript.entries.iter().take(2) {
        let start: String = entry.text.chars().take(30).collect();
        assert!(screen.contains(&start), "{start:?} is on screen:\n{screen}");
    }
    assert!(screen.contains(&format!("call {CRITICAL_CALL}")), "{screen}");
    assert_eq!(h.app.pane().selection().unwrap().id, CRITICAL_CALL);
    assert_screen!("issues_call_160x48", screen);
    assert_screen!("issues_call_80x24", h.render(80, 24));

    // Esc goes back to the issue, then to the list.
    h.key("esc").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("evidence · enter opens the call") && screen.contains("Receptionist discloses"));
    h.keys(&["j", "enter"]).await;
    assert!(h.render(160, 48).contains("call 01a7949f-0bd2-5116-bde9-d0b4714594ea"), "second evidence entry");
    h.keys(&["esc", "esc"]).await;
    assert!(h.render(160, 48).contains("status all · severity any"));
}

#[tokio::test]
async fn an_issue_opens_by_id() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "o"]).await;
    h.type_text("860c6925-fbf6-57b0-bda3-e017765f8d46").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("issue · Rebooking agent talks over callers"), "{screen}");
    h.keys(&["o"]).await;
    h.type_text("not-an-id").await;
    h.key("enter").await;
    assert!(h.render(160, 48).contains("is not an issue id"));
}

fn marked(screen: &str) -> Vec<&str> {
    screen.lines().filter(|l| l.contains("│● ") || l.contains(" ● ") && l.contains('│')).collect()
}

#[tokio::test]
async fn issues_new_since_the_last_visit_are_marked() {
    let service = support::start(true).await;
    let dir = service.dir.path().join("cache");
    let (cache, _) = Cache::load(&dir, "local", "http://127.0.0.1:8787");
    let mut h = Harness::on(service, Some(cache)).await;

    // The first visit ever is the baseline: nothing is new.
    h.key("4").await;
    let screen = h.render(160, 48);
    assert!(!screen.contains('●'), "{screen}");

    // An issue created meanwhile is new, and stays new through refreshes of this visit.
    let created = h.client.create_issue(&issue_input("Agent hangs up when asked for a human", None)).await.unwrap();
    h.key("r").await;
    let screen = h.render(160, 48);
    let rows = marked(&screen);
    assert_eq!(rows.len(), 1, "only the created issue is new:\n{screen}");
    assert!(rows[0].contains("Agent hangs up"), "{screen}");
    assert!(screen.contains("● 1 new"), "{screen}");
    assert_screen!("issues_new_80x24", h.render(80, 24));
    h.key("r").await;
    assert_eq!(marked(&h.render(160, 48)).len(), 1);
    // Its detail says so too.
    h.key("/").await;
    h.type_text("hangs up").await;
    h.key("enter").await;
    assert_eq!(h.app.pane().selection().unwrap().id, created.id.to_string());
    h.key("enter").await;
    assert!(h.render(160, 48).contains("● new since your last visit"));
    h.key("esc").await;

    // A fresh console on the same (saved) cache: everything listed before has been seen.
    let cache = h.app.cache.take().unwrap();
    let seen: Vec<String> = cache.mark("issues.seen").expect("the seen issues are marked");
    assert_eq!(seen.len(), 8);
    assert!(seen.contains(&created.id.to_string()));
    cache.save().unwrap();
    let service = h.service;
    let (cache, warning) = Cache::load(&dir, "local", "http://127.0.0.1:8787");
    assert!(warning.is_none(), "{warning:?}");
    let mut h = Harness::on(service, Some(cache)).await;
    h.key("4").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Agent hangs up") && !screen.contains('●'), "{screen}");

    // Another one appears; leaving the tab and coming back starts a new visit.
    h.client.create_issue(&issue_input("Agent spells the address wrong", Some(Severity::Low))).await.unwrap();
    h.key("r").await;
    let screen = h.render(160, 48);
    assert_eq!(marked(&screen).len(), 1, "{screen}");
    assert!(marked(&screen)[0].contains("spells the address"));
    h.keys(&["5", "4"]).await;
    assert!(!h.render(160, 48).contains('●'));
}

#[tokio::test]
async fn chat_evidence_opens_the_chat_transcript() {
    use switchboard::api::model::{
        CallInput, EvidenceInput, IssueInput, ParticipantType, Severity, Timestamp, Transcript, TranscriptEntry,
        TranscriptInput,
    };
    let mut h = Harness::seeded().await;
    let line = |at: i64, role: ParticipantType, text: &str| TranscriptEntry {
        start_offset_ms: at,
        end_offset_ms: at + 900,
        text: text.into(),
        role: Some(role),
        participant_id: None,
    };
    let chat = h
        .client
        .create_chat(&CallInput {
            started_at: Some(Timestamp::now()),
            transcript: Some(TranscriptInput::Full(Transcript {
                entries: vec![
                    line(0, ParticipantType::Agent, "Hello, this is the chat desk."),
                    line(1000, ParticipantType::Customer, "My booking code vanished from the chat."),
                ],
                participants: vec![],
                transcription_source: None,
            })),
            ..Default::default()
        })
        .await
        .unwrap();
    h.client
        .create_issue(&IssueInput {
            title: Some("Chat loses booking codes".into()),
            summary: Some("Seen in one chat.".into()),
            severity: Some(Severity::Critical),
            evidence: Some(vec![EvidenceInput { call_id: None, chat_id: Some(chat.id) }]),
            ..Default::default()
        })
        .await
        .unwrap();
    h.keys(&["4", "r"]).await;
    assert!(h.render(160, 48).contains("Chat loses booking codes"));
    h.keys(&["/"]).await;
    h.type_text("booking codes").await;
    h.keys(&["enter", "enter", "enter"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("chat {}", chat.id)), "{screen}");
    assert!(screen.contains("My booking code vanished"), "{screen}");
}

#[tokio::test]
async fn e_on_the_list_edits_the_selected_issue_and_picks_an_assignee() {
    let mut h = Harness::seeded().await;
    h.key("4").await;
    let id: uuid::Uuid = h.app.pane().selection().unwrap().id.parse().unwrap();
    let before = h.client.get_issue(id).await.unwrap();
    h.key("e").await;
    let form = h.app.modal.current_form().expect("the edit form, from the list");
    assert!(form.title.starts_with("edit issue Receptionist discloses"), "{}", form.title);
    // The assignee is picked among the users seen on issues (most issues first), or typed.
    h.keys(&["tab", "tab"]).await;
    let screen = h.render(160, 48);
    let current = before.assignee_user_id.unwrap();
    let short = &current.to_string()[..8];
    assert!(screen.contains(&format!("◂ user {short}… · 2 issues ▸")), "{screen}");
    assert_screen!("issues_edit_assignee_80x24", h.render(80, 24));
    h.key("right").await;
    let other = h.app.modal.current_form().unwrap().value("assigneeUserId");
    assert!(other.parse::<uuid::Uuid>().is_ok() && other != current.to_string(), "another seen assignee: {other}");
    h.key("enter").await;
    assert!(!h.app.modal.is_open());
    let after = h.client.get_issue(id).await.unwrap();
    assert_eq!(after.assignee_user_id.map(|a| a.to_string()), Some(other));

    // A user no issue has yet is typed; it matches no one, so it is taken as typed.
    let new = uuid::Uuid::new_v4();
    h.keys(&["e", "tab", "tab"]).await;
    h.type_text(&new.to_string()).await;
    assert!(h.render(160, 48).contains("as typed: no option matches"), "{}", h.render(160, 48));
    h.key("enter").await;
    assert_eq!(h.client.get_issue(id).await.unwrap().assignee_user_id, Some(new));
}

#[tokio::test]
async fn space_marks_an_evidence_call_in_the_issue() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "enter", "space"]).await;
    assert!(h.app.marks.contains(CRITICAL_CALL.parse().ok()), "the selected evidence call is marked");
    let screen = h.render(160, 48);
    assert!(screen.contains("1 marked") && screen.contains(&format!("✓ {}", &CRITICAL_CALL[..8])), "{screen}");
    h.keys(&["j", "space"]).await;
    assert_eq!(h.app.marks.len(), 2, "the next entry too");
    h.keys(&["k", "space"]).await;
    assert_eq!(h.app.marks.len(), 1, "space again unmarks");
}

/// The list reads itself again when the service announces an issue opened or resolved: the
/// event comes from the real stream, and the new issue is on screen with no poll tick.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_follows_issue_events_without_waiting_for_a_poll() {
    use switchboard::api::model::{Event, EventType};
    use switchboard::console::message::Message;
    let mut h = Harness::seeded().await;
    h.key("4").await;
    let query = h.app.watching.clone().expect("the list watches while it shows");
    let kinds = query.kind.clone().unwrap_or_default();
    assert!(kinds.contains("ISSUE_OPENED") && kinds.contains("ISSUE_RESOLVED"), "{query:?}");
    let mut stream = h.client.events(&query, None).await.unwrap();
    let input = IssueInput {
        title: Some("Announced on the stream".into()),
        summary: Some("opened while the list shows".into()),
        severity: Some(Severity::Critical),
        ..Default::default()
    };
    let created = h.client.create_issue(&input).await.unwrap();
    let event: Event = tokio::time::timeout(std::time::Duration::from_secs(10), stream.next())
        .await
        .expect("the event arrives")
        .unwrap()
        .expect("the stream stays open");
    assert_eq!((event.event_type.clone(), event.resource_id.clone()), (EventType::IssueOpened, created.id.to_string()));
    assert!(!h.render(160, 48).contains("Announced on the stream"));
    h.app.update(Message::Events(vec![event.clone()]));
    h.settle().await;
    assert!(h.render(160, 48).contains("Announced on the stream"), "{}", h.render(160, 48));

    // Another kind of change reads nothing; with an issue open the list is not watched.
    let mut other = event;
    other.event_type = EventType::SimulationJobCompleted;
    h.app.update(Message::Events(vec![other]));
    assert!(h.app.effects.is_empty(), "{:?}", h.app.effects);
    h.key("enter").await;
    assert!(h.app.watching.is_none());
}
