//! k9s' `e`, `c` and `d` on every tab that has them. The editor is not run: the test takes the
//! text the app would hand it and sends back what an editor would save (`Message::Edited`).

use switchboard::console::message::{Edit, Effect, Message};

use crate::assert_screen;
use crate::harness::Harness;

/// The last file the app asked an editor to open.
fn opened(h: &Harness) -> Edit {
    h.performed
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Edit(edit) => Some((**edit).clone()),
            _ => None,
        })
        .expect("the editor was asked for")
}

/// Presses `key`, then saves what the editor was given through `change`.
async fn edit_with(h: &mut Harness, key: &str, change: impl Fn(&str) -> String) -> Edit {
    let before = h.performed.len();
    h.key(key).await;
    assert!(h.performed[before..].iter().any(|e| matches!(e, Effect::Edit(_))), "{key} opened no editor");
    let edit = opened(h);
    let saved = change(&edit.text);
    h.app.update(Message::Edited { edit: Box::new(edit.clone()), result: Ok(saved) });
    h.settle().await;
    edit
}

fn toasts(h: &Harness) -> String {
    h.app.toasts.iter().map(|t| t.text.clone()).collect::<Vec<_>>().join("\n")
}

fn touched(text: &str) -> String {
    format!("{text}# looked at, not changed\n")
}

/// Every kind's YAML goes back unchanged and the service already matches it: each is the one
/// its name stands for (a persona's name, a metric's slug, a plan's name, a flow's title, an
/// agent's custom id, a policy's name, a definition's id), so there is nothing to apply. A flow
/// or policy the service keeps (SYSTEM) is not changed by callers: applying it makes a copy, and the
/// dialog says so.
#[tokio::test]
async fn e_opens_each_kinds_yaml_and_it_round_trips() {
    // (keys to the resource, kind, whether the service already matches it)
    let cases: [(&[&str], &str, bool); 11] = [
        (&["6", "j", "j"], "persona", true),
        (&["3"], "metric", true),
        // The first `e` on a plan fetches the lists its YAML names things from.
        (&["1", "e"], "simulationPlan", true),
        (&["5"], "flow", false),
        (&["5", "j", "j"], "flow", true),
        (&["5", "j", "j", "j"], "flow", true),
        (&["3", "l"], "collector", false),
        (&["3", "l", "j"], "collector", true),
        (&["6", "l"], "agent", true),
        (&["6", "l", "l"], "agent", true),
        (&["6", "l", "l", "l", "l"], "httpRequestDefinition", true),
    ];
    for (keys, kind, matches) in cases {
        // A fresh console each time: tabs remember their section.
        let mut h = Harness::seeded().await;
        h.keys(keys).await;
        let editable = h.app.pane().editable().unwrap_or_else(|| panic!("{kind}: nothing editable"));
        assert_eq!(editable.kind, kind);
        let edit = edit_with(&mut h, "e", touched).await;
        assert!(edit.text.contains(&format!("kind: {kind}\nname: ")), "{kind}:\n{}", edit.text);
        let screen = h.render(160, 48);
        if matches {
            assert!(!h.app.modal.is_open(), "{kind} {keys:?}: nothing to apply:\n{screen}");
            assert!(toasts(&h).contains("already matches"), "{kind}: {}\n{}\n{screen}", toasts(&h), opened(&h).text);
        } else {
            assert!(screen.contains(&format!("create {kind}/")), "{kind}: {}\n{screen}", toasts(&h));
            assert!(screen.contains("creates a new") && screen.contains("stays as it is"), "{kind}:\n{screen}");
            if kind == "flow" {
                assert_screen!("editor_flow_copy_confirm_120x30", h.render(120, 30));
            }
            h.key("n").await;
        }
    }
}

/// `e` on a seeded flow changes that flow in place, as its routes would: the member edited
/// changes, and what its YAML does not hold (its edge cases, its happy path) stays.
#[tokio::test]
async fn e_changes_a_seeded_flow_in_place_and_keeps_what_its_yaml_does_not_hold() {
    let mut h = Harness::seeded().await;
    h.keys(&["5", "j", "j"]).await;
    let id: uuid::Uuid = h.app.pane().selection().expect("a flow").id.parse().expect("a flow id");
    let before = h.client.get_flow(id).await.expect("the flow");
    edit_with(&mut h, "e", |text| {
        let start = text.find("description: ").expect("a description");
        let end = start + text[start..].find('\n').unwrap();
        format!("{}description: Moved by the console's editor{}", &text[..start], &text[end..])
    })
    .await;
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("update flow/{}", before.title.clone().unwrap())), "{screen}");
    assert!(screen.contains("description: \"An existing") && screen.contains("→ \"Moved by the"), "{screen}");
    assert!(!screen.contains("creates a new"), "{screen}");
    h.key("y").await;
    assert!(toasts(&h).contains("applied: update flow/"), "{}", toasts(&h));
    let after = h.client.get_flow(id).await.expect("the same flow");
    assert_eq!(after.description.as_deref(), Some("Moved by the console's editor"));
    assert_eq!((after.edge_cases.len(), after.graph.len()), (before.edge_cases.len(), before.graph.len()));
    assert_eq!(after.happy_path.map(|p| p.id), before.happy_path.map(|p| p.id));
    assert!(!before.edge_cases.is_empty(), "the seeded flow has edge cases to keep");
}

/// `c` on each tab opens its kind's commented template; renamed, every one is a valid create
/// against the seeded service (its references name seeded resources).
#[tokio::test]
async fn c_opens_a_template_of_each_kind_that_the_service_takes() {
    let cases: [(&[&str], &str); 7] = [
        (&["6"], "persona"),
        (&["6", "l"], "agent"),
        (&["6", "l", "l", "l", "l"], "httpRequestDefinition"),
        (&["3"], "metric"),
        (&["3", "l"], "collector"),
        (&["1"], "simulationPlan"),
        (&["5"], "flow"),
    ];
    for (keys, kind) in cases {
        let mut h = Harness::seeded().await;
        h.keys(keys).await;
        assert_eq!(h.app.pane().creatable().map(|(k, _)| k), Some(kind));
        let edit = edit_with(&mut h, "c", |text| text.replacen("name: ", "name: made-here-", 1)).await;
        assert!(edit.text.contains(&format!("\nkind: {kind}\n")), "{kind}:\n{}", edit.text);
        assert!(edit.text.lines().filter(|l| l.contains('#')).count() >= 3, "{kind} is commented:\n{}", edit.text);
        let screen = h.render(160, 48);
        assert!(
            screen.contains(&format!("create {kind}/made-here-")),
            "{kind}: {}\n{}\n{screen}",
            toasts(&h),
            opened(&h).text
        );
        assert!(!screen.contains("stays as it is"), "{kind}: a template is no copy:\n{screen}");
    }
}

/// A metric made from the template lands in the list after `y`.
#[tokio::test]
async fn c_on_metrics_creates_one_from_the_template() {
    let mut h = Harness::seeded().await;
    h.key("3").await;
    edit_with(&mut h, "c", |text| {
        text.replace("name: new_metric", "name: greets_by_name")
            .replace("displayName: New metric", "displayName: Greets by name")
    })
    .await;
    assert!(h.render(160, 48).contains("create metric/greets_by_name"), "{}", h.render(160, 48));
    h.key("y").await;
    assert!(toasts(&h).contains("applied: create metric/greets_by_name"), "{}", toasts(&h));
    h.keys(&["/"]).await;
    h.type_text("greets").await;
    assert!(h.render(160, 48).contains("Greets by name"), "{}", h.render(160, 48));
}

/// `d` asks first, then deletes through the kind's own route; the service's refusal (a system
/// policy, a flow without a delete route) is shown in its words.
#[tokio::test]
async fn d_deletes_a_plan_and_a_policy_after_asking_and_shows_a_refusal() {
    let mut h = Harness::seeded().await;
    h.key("1").await;
    let plan = h.app.pane().selection().expect("a plan").id;
    h.key("d").await;
    assert_screen!("editor_delete_plan_confirm_80x24", h.render(80, 24));
    h.key("y").await;
    assert!(toasts(&h).contains("deleted the plan"), "{}", toasts(&h));
    assert!(h.app.pane().selection().is_none_or(|s| s.id != plan), "the plan is gone from the list");

    h.keys(&["3", "l"]).await;
    h.key("d").await;
    assert!(h.render(160, 48).contains("Delete the policy"), "{}", h.render(160, 48));
    h.key("y").await;
    // The first policy is the service's own: refused, with the service's reason.
    assert!(toasts(&h).contains("system policies cannot be deleted"), "{}", toasts(&h));

    // A flow a plan uses (or a service without the route) is refused with the service's words.
    h.key("5").await;
    h.key("d").await;
    assert!(h.render(160, 48).contains("Delete the flow"), "{}", h.render(160, 48));
    h.key("y").await;
    // The first flow is a system one; a service without the route answers 405. Either way the
    // service's answer is shown.
    assert!(toasts(&h).contains("could not delete it: 4"), "{}", toasts(&h));
}
