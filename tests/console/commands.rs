//! `:NAME ID` opens any resource from any tab (`:call`, `:job`, `:issue`, `:plan`, `:flow`),
//! and Tab completes a command's name.

use switchboard::api::model::RunRequest;
use switchboard::console::tab::Tab;

use crate::assert_screen;
use crate::harness::Harness;
use crate::plans::SEEDED_PLAN;

/// The seeded CRITICAL issue's first evidence call, and the dental flow.
const CALL: &str = "3fb5aeb0-c5ff-5e6e-b1eb-3aadf53eeb7c";
const FLOW: &str = "4ac0ac43-3a5c-5293-9370-3b46530ffc59";

async fn command(h: &mut Harness, line: &str) {
    h.key(":").await;
    h.type_text(line).await;
    h.key("enter").await;
}

#[tokio::test]
async fn call_opens_over_any_tab_and_esc_shows_the_tab_again() {
    let mut h = Harness::seeded().await;
    h.key("7").await;
    command(&mut h, &format!("call {CALL}")).await;
    assert_eq!(h.app.tab, Tab::Bench, "the tab stays");
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("call {CALL}")) && screen.contains("┌ transcript"), "{screen}");
    assert!(screen.contains("Hi, this is Kevin Park"), "its transcript: {screen}");
    assert_screen!("commands_call_80x24", h.render(80, 24));
    // Marks, copy and help are the call's while it is open.
    h.key("space").await;
    assert!(h.app.marks.contains(CALL.parse().ok()), "space marks the call");
    h.key("?").await;
    assert!(h.render(160, 48).contains("A call: its transcript beside its metric values"));
    h.keys(&["esc", "esc"]).await;
    assert!(h.app.call.is_none());
    assert!(h.render(160, 48).contains("┌ suites"), "the benchmarks again: {}", h.render(160, 48));
}

#[tokio::test]
async fn a_call_the_service_does_not_have_is_said_so() {
    let mut h = Harness::seeded().await;
    let id = uuid::Uuid::new_v4();
    command(&mut h, &format!("call {id}")).await;
    assert!(h.app.call.is_none(), "nothing to show");
    let toasts: Vec<&str> = h.app.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(toasts, vec![format!("call {id} is not on this service")], "said once, in these words");
    command(&mut h, "call nope").await;
    let said = "no call named or numbered \"nope\" among the calls read so far; give its full id";
    assert!(h.app.toasts.iter().any(|t| t.text == said), "{:?}", h.app.toasts);
}

#[tokio::test]
async fn job_issue_plan_and_flow_open_in_their_tabs_from_anywhere() {
    let mut h = Harness::seeded().await;
    let started =
        h.client.run(&RunRequest { plan_id: Some(SEEDED_PLAN.parse().unwrap()), ..Default::default() }).await.unwrap();
    let job = started.simulation_run_plan_job_id;
    let issue =
        crate::support::seeded("issues", |i| i["severity"] == "CRITICAL")[0]["id"].as_str().unwrap().to_string();

    h.key("7").await;
    command(&mut h, &format!("job {job}")).await;
    assert_eq!(h.app.tab, Tab::Jobs);
    assert!(h.render(160, 48).contains(&format!("job      {job}")), "{}", h.render(160, 48));

    command(&mut h, &format!("issue {issue}")).await;
    assert_eq!(h.app.tab, Tab::Issues);
    assert!(h.render(160, 48).contains("issue · Receptionist discloses"), "{}", h.render(160, 48));

    command(&mut h, &format!("plan {SEEDED_PLAN}")).await;
    assert_eq!(h.app.tab, Tab::Plans);
    assert!(h.render(160, 48).contains("metrics and options"), "the plan's detail: {}", h.render(160, 48));

    command(&mut h, &format!("flow {FLOW}")).await;
    assert_eq!(h.app.tab, Tab::Flows);
    assert!(h.render(160, 48).contains("Reschedule a cleaning with identity check"), "{}", h.render(160, 48));

    command(&mut h, "persona 123").await;
    assert!(h.app.toasts.iter().any(|t| t.text.starts_with(":persona takes no id")), "{:?}", h.app.toasts);
}

#[tokio::test]
async fn tab_completes_command_names() {
    let mut h = Harness::seeded().await;
    h.key(":").await;
    h.type_text("pl").await;
    let footer = h.render(80, 24).lines().last().unwrap().to_string();
    assert!(footer.contains(":pl▏  plans plan · tab completes"), "the candidates: {footer}");
    h.key("tab").await;
    assert_eq!(h.app.prompt, Some(switchboard::console::app::Prompt::Command("plan".into())), "their shared prefix");
    h.keys(&["ctrl-u", "c", "a", "tab"]).await;
    assert_eq!(h.app.prompt, Some(switchboard::console::app::Prompt::Command("call ".into())), "one: and its id next");
    h.type_text(CALL).await;
    h.key("enter").await;
    assert!(h.app.call.as_ref().is_some_and(|c| c.call_id.to_string() == CALL));
}

/// `:` takes the 8-character ids the screens show and names (`:plan Brightsmile…`,
/// `:call 3fb5aeb0`); Tab completes a name; an empty `:` lists the commands; a name that
/// means several, or none, is said so.
#[tokio::test]
async fn short_ids_and_names_open_resources_and_tab_completes_them() {
    let mut h = Harness::seeded().await;
    h.key(":").await;
    let footer = h.render(250, 24).lines().last().unwrap().to_string();
    assert!(footer.contains("plans") && footer.contains("call") && footer.contains("quit"), "the commands: {footer}");
    h.key("esc").await;

    h.key(":").await;
    h.type_text("plan bright").await;
    h.key("tab").await;
    assert_eq!(
        h.app.prompt,
        Some(switchboard::console::app::Prompt::Command("plan Brightsmile reschedule regression".into())),
        "the one name it can be"
    );
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("everything the plan pins") || screen.contains("metrics and options"), "{screen}");

    h.key("4").await; // the issues list: its evidence calls become nameable
    command(&mut h, &format!("call {}", &CALL[..8])).await;
    assert!(h.app.call.as_ref().is_some_and(|c| c.call_id.to_string() == CALL), "{}", h.render(160, 48));
    h.key("esc").await;

    command(&mut h, "plan no-such-plan").await;
    let toasts: Vec<String> = h.app.toasts.iter().map(|t| t.text.clone()).collect();
    assert!(toasts.iter().any(|t| t.contains("no plan named or numbered")), "{toasts:?}");
}

/// A metric with a value per agent turn lists one row per turn: each row names its turn
/// (counted from 1 in the transcript), so the rows tell themselves apart.
#[tokio::test]
async fn repeated_per_turn_values_are_labelled_with_their_turn() {
    let mut h = Harness::seeded().await;
    command(&mut h, &format!("call {CALL}")).await;
    let calls: serde_json::Value = serde_json::from_str(switchboard::service::seed::files::CALLS).unwrap();
    let call = calls.as_array().unwrap().iter().find(|c| c["id"] == CALL).unwrap();
    let starts: Vec<i64> = call["transcript"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["startOffsetMs"].as_i64().unwrap())
        .collect();
    // The latency the agent took to answer at 10.953 s belongs to the turn started last before it.
    let turn = starts.iter().rposition(|s| *s <= 10_953).unwrap() + 1;
    let screen = h.render(200, 60);
    assert!(screen.contains(&format!("Agent response latency · turn {turn} ")), "turn {turn}:\n{screen}");
    let labelled = screen.matches("Agent response latency · turn").count();
    assert_eq!(labelled, 5, "five per-turn values; the call's summary value has no turn:\n{screen}");
}
