//! Lists refresh by themselves at the poll interval while they show (k9s' habit), keeping the
//! selection and the scroll, never with two requests for one list at once; `r` still forces.

use switchboard::api::model::{IssueInput, Severity};
use switchboard::console::message::{Effect, ListKind, Message, Request};

use crate::harness::{Harness, now};
use crate::support;

fn list_fetches(effects: &[Effect], kind: ListKind) -> usize {
    effects.iter().filter(|e| **e == Effect::Fetch(Request::List(kind))).count()
}

#[tokio::test]
async fn a_visible_list_refreshes_itself_keeping_the_selection() {
    let mut h = Harness::seeded().await;
    h.keys(&["4", "j", "j"]).await;
    let selected = h.app.pane().selection().unwrap().id;

    // Another user files an issue; nobody presses r.
    let input = IssueInput {
        title: Some("Filed elsewhere while the list was open".into()),
        severity: Some(Severity::Critical),
        ..Default::default()
    };
    h.client.create_issue(&input).await.unwrap();
    h.app.tick(now());
    assert_eq!(list_fetches(&h.app.effects, ListKind::Issues), 1, "{:?}", h.app.effects);
    // A second tick while the first request is out asks for nothing more.
    h.app.tick(now());
    assert_eq!(list_fetches(&h.app.effects, ListKind::Issues), 1, "never two at once: {:?}", h.app.effects);
    h.settle().await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Filed elsewhere while the list was open"), "{screen}");
    assert_eq!(h.app.pane().selection().unwrap().id, selected, "the same issue stays selected");

    // Nothing changed since: the next poll's answer does not ask for a redraw.
    h.app.tick(now());
    let effects = std::mem::take(&mut h.app.effects);
    assert_eq!(list_fetches(&effects, ListKind::Issues), 1);
    for effect in effects {
        if let Effect::Fetch(request) = effect {
            let result = switchboard::console::tasks::perform(&h.client, &request).await;
            let redraw = h.app.update(Message::Fetched { request, result: Box::new(result) });
            assert!(!redraw, "an unchanged list is not drawn again");
        }
    }

    // An open detail polls no list.
    h.key("enter").await;
    h.app.tick(now());
    assert_eq!(list_fetches(&h.app.effects, ListKind::Issues), 0, "{:?}", h.app.effects);
}

#[tokio::test]
async fn one_unreadable_item_is_skipped_and_counted_while_the_rest_shows() {
    let mut h = Harness::seeded().await;
    // One persona on the service gets a name the interface says is text: a number.
    let changed = crate::support::tamper(
        h.service.dir.path(),
        "UPDATE docs SET body = json_set(body, '$.name', 42) WHERE kind = 'persona' AND json_extract(body, '$.name') = 'callum-reid'",
        "UPDATE docs SET body = jsonb_set(body::jsonb, '{name}', '42')::json WHERE kind = 'persona' AND body ->> 'name' = 'callum-reid'",
    );
    assert_eq!(changed, 1);
    h.key("6").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Dana Whitfield") && !screen.contains("Callum Reid"), "the rest shows:\n{screen}");
    assert!(screen.contains("1 item of personas could not be read; see the log (L)"), "{screen}");
    let callum = support::seeded("personas", |p| p["name"] == "callum-reid")[0]["id"].as_str().unwrap().to_owned();
    let logged = h.app.log.iter().any(|l| {
        l.text.contains("personas: an item could not be read")
            && l.text.contains(&callum)
            && l.text.contains("integer `42`")
    });
    assert!(
        logged,
        "the reason, naming the member, is in the log: {:?}",
        h.app.log.iter().map(|l| &l.text).collect::<Vec<_>>()
    );
    // The next poll brings the same list: the note is not repeated.
    let toasts = h.app.log.len();
    h.tick().await;
    assert_eq!(h.app.log.len(), toasts, "said once per list");
}
