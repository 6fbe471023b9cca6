//! Tab 5: customer flows, their type filter, and a flow's detail with its step graph as a tree.

use crate::assert_screen;
use crate::harness::Harness;

const TITLES: [&str; 5] = [
    "Appointment reschedule (basic)",
    "Rebook after a SkyBridge cancellation",
    "Reschedule a cleaning with identity check",
    "Stranded travellers improvise their rebooking",
    "Voicemail greeting",
];

#[tokio::test]
async fn list_sorts_by_title_and_filters_by_type() {
    let mut h = Harness::seeded().await;
    h.key("5").await;
    let screen = h.render(160, 48);
    let at: Vec<usize> = TITLES.iter().map(|t| screen.find(t).unwrap_or_else(|| panic!("{t}:\n{screen}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "sorted by title:\n{screen}");
    assert_screen!("flows_list_80x24", h.render(80, 24));
    assert_screen!("flows_list_160x48", screen);

    // `f`: SCRIPTED, IMPROV, VOICEMAIL, all.
    h.key("f").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("type SCRIPTED") && screen.contains("[3/5]"), "{screen}");
    assert!(!screen.contains(TITLES[3]) && !screen.contains(TITLES[4]), "{screen}");
    h.key("f").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("[1/5]") && screen.contains(TITLES[3]), "{screen}");
    h.keys(&["f", "f"]).await;
    assert!(h.render(160, 48).contains("[5]"));
    // `S` reverses the sort.
    h.key("S").await;
    let screen = h.render(160, 48);
    assert!(screen.find(TITLES[4]).unwrap() < screen.find(TITLES[0]).unwrap(), "{screen}");
}

#[tokio::test]
async fn detail_draws_the_step_tree_and_scrolls() {
    let mut h = Harness::seeded().await;
    // The third row by title: the dental scripted flow.
    h.keys(&["5", "j", "j", "enter"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Reschedule a cleaning with identity check"), "{screen}");
    assert!(screen.contains("customer ▸ ") && screen.contains("agent ◂ "), "speakers told apart:\n{screen}");
    assert!(screen.contains("│  ├─ customer ▸ Do you have anything next Tuesday morning?"), "nested steps:\n{screen}");
    assert!(
        screen.contains("↪ merges into Agent reads back the new date, time and provide…  #read-back"),
        "merge links name their target:\n{screen}"
    );
    assert!(screen.contains("[off-script: SAY then MOVE_ON"), "off-script badge:\n{screen}");
    assert_screen!("flows_detail_160x48", screen);
    assert_screen!("flows_detail_80x24", h.render(80, 24));

    // The detail scrolls: the edge cases with their persona overrides are further down.
    let last_step = "customer ▸ [keys 1] Press 1 to confirm the new time";
    assert!(!h.render(80, 24).contains(last_step));
    h.key("G").await;
    let screen = h.render(80, 24);
    assert!(screen.contains(last_step), "{screen}");
    assert!(h.render(160, 48).contains("Edge case 2/2: Caller presses 2 to choose another time"));
    assert_screen!("flows_detail_bottom_80x24", screen);
    h.key("g").await;
    h.key("pagedown").await;
    let paged = h.render(80, 24);
    assert!(!paged.contains("kind: type SCRIPTED"), "the first page scrolled away:\n{paged}");
    assert_eq!(h.app.pane().selection().unwrap().id, "4ac0ac43-3a5c-5293-9370-3b46530ffc59");

    h.key("esc").await;
    assert!(h.render(80, 24).contains("customer flows · type all"));
}

#[tokio::test]
async fn improv_flow_shows_happy_path_and_edge_cases_with_personas() {
    let mut h = Harness::seeded().await;
    h.keys(&["5", "o"]).await;
    h.type_text("0cdd0f88-437e-5249-bb4a-ad0b3be34c45").await;
    h.key("enter").await;
    h.key("G").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Edge case 3/3"), "{screen}");
    assert!(screen.contains("persona: "), "persona overrides:\n{screen}");
    h.key("g").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Happy path: ") && screen.contains("Agent expectations"), "{screen}");
    assert_screen!("flows_improv_160x48", screen);
}
