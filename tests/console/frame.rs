//! The frame around every pane: header, tabs, help, command mode, raw view, copy.

use switchboard::console::message::Effect;
use switchboard::console::tab::Tab;

use crate::assert_screen;
use crate::harness::Harness;

#[tokio::test]
async fn header_names_the_service_and_account() {
    let h = Harness::seeded().await;
    let screen = h.render(80, 24);
    assert!(screen.lines().next().unwrap().contains("local test service"), "{screen}");
    assert!(screen.lines().next().unwrap().contains("account "), "{screen}");
}

#[tokio::test]
async fn help_is_generated_from_the_keymap() {
    let mut h = Harness::seeded().await;
    h.keys(&["6", "?"]).await;
    let screen = h.render(80, 24);
    assert!(screen.contains("every field of the selection"), "{screen}");
    assert_screen!("help_catalog_80x24", screen);
    assert_screen!("help_catalog_160x48", h.render(160, 48));
    h.key("esc").await;
    assert!(!h.render(80, 24).contains("help · esc closes"));
}

#[tokio::test]
async fn command_mode_aliases_switch_tabs_and_unknown_ones_say_so() {
    let mut h = Harness::seeded().await;
    h.key(":").await;
    h.type_text("personas").await;
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Catalog);
    h.key(":").await;
    h.type_text("bench").await;
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Bench);
    h.key(":").await;
    h.type_text("nonsense").await;
    h.key("enter").await;
    assert!(h.render(160, 48).contains("no command :nonsense"));
}

#[tokio::test]
async fn copy_uses_the_selected_id_and_raw_shows_json() {
    let mut h = Harness::seeded().await;
    h.keys(&["6", "y"]).await;
    let copied = h.performed.iter().find_map(|e| if let Effect::Copy(text) = e { Some(text.clone()) } else { None });
    let id = copied.expect("y copies");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    h.key("v").await;
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("raw JSON · GET /v1/persona/{id}")), "fetched whole: {screen}");
    assert!(screen.contains(&format!("\"id\": \"{id}\"")), "{screen}");
    // The overlay covers the whole table: no column of it shows at either side.
    let screen = h.render(80, 24);
    for line in screen.lines().skip(3).take(20) {
        assert!(line.starts_with('│') || line.starts_with('┌') || line.starts_with('└'), "{line:?}\n{screen}");
    }
    assert_screen!("raw_persona_80x24", screen);
}

#[tokio::test]
async fn raw_shows_members_this_build_does_not_know() {
    use switchboard::console::message::{Fetched, Message, Request};
    let mut h = Harness::seeded().await;
    h.key("6").await;
    let id = h.app.pane().selection().unwrap().id;
    // `v` without settling: the GET is out, the decoded item shows meanwhile.
    h.app.update(Message::Key(switchboard::console::keymap::parse_key("v").unwrap()));
    let asked = std::mem::take(&mut h.app.effects);
    let path = format!("/v1/persona/{id}");
    assert!(asked.contains(&Effect::Fetch(Request::Raw(path.clone()))), "{asked:?}");
    assert!(h.render(160, 48).contains("loading (as decoded meanwhile)"));
    // A newer service's answer: its extra member is shown as sent.
    let body = serde_json::json!({"id": id, "name": "Callum Reid", "mood": {"tomorrow": "sunny"}});
    h.app.update(Message::Fetched { request: Request::Raw(path), result: Box::new(Ok(Fetched::Raw(body))) });
    let screen = h.render(160, 48);
    assert!(screen.contains("\"mood\"") && screen.contains("\"tomorrow\": \"sunny\""), "{screen}");
    // A value row has no route of its own: it shows as decoded, and says so.
    h.keys(&["esc", "3", "l", "l", "enter", "v"]).await;
    assert!(h.render(160, 48).contains("· as decoded"), "{}", h.render(160, 48));
}

#[tokio::test]
async fn tab_and_shift_tab_cycle_through_every_tab() {
    let mut h = Harness::seeded().await;
    for expected in [1, 2, 3, 4, 5, 6, 0] {
        h.key("tab").await;
        assert_eq!(h.app.tab.index(), expected);
    }
    h.key("shift-tab").await;
    assert_eq!(h.app.tab, Tab::Bench);
}

#[tokio::test]
async fn wide_characters_do_not_break_tables() {
    use switchboard::api::model::PersonaFields;
    let mut h = Harness::seeded().await;
    let fields = PersonaFields {
        name: Some("予約変更テスト患者さんとても長い名前の発信者です🙂".into()),
        description: Some("全角の説明".into()),
        ..Default::default()
    };
    h.client.create_persona(&fields).await.unwrap();
    h.key("6").await;
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let screen = h.render(width, height);
        assert!(screen.contains("予約変更"), "{screen}");
        for line in screen.lines().skip(3).take(height as usize - 5) {
            let cells = unicode_width::UnicodeWidthStr::width(line);
            assert!(cells <= width as usize, "{cells} cells in a {width}-wide screen: {line}");
            assert!(line.ends_with('│') || line.ends_with('┐') || line.ends_with('┘'), "border broken: {line}");
        }
    }
}

#[tokio::test]
async fn the_footer_always_ends_with_help_however_narrow() {
    let mut h = Harness::seeded().await;
    for tab in ["1", "2", "3", "4", "5", "6", "7"] {
        h.key(tab).await;
        for width in [24u16, 40, 60, 80, 120, 160] {
            let screen = h.render(width, 24);
            let footer = screen.lines().last().unwrap().trim_end();
            assert!(footer.ends_with("? help"), "tab {tab} at {width} columns: {footer:?}");
            assert!(!footer.contains('…'), "whole hints only: {footer:?}");
        }
    }
    // Wide enough, the view's hints come first and `:` and `q` before help.
    let footer = h.render(160, 48).lines().last().unwrap().to_string();
    assert!(
        footer.starts_with("enter the suite's targets") && footer.contains(": command  q quit  ? help"),
        "{footer}"
    );
}

#[tokio::test]
async fn help_starts_with_what_the_tab_is_for() {
    let mut h = Harness::seeded().await;
    for (tab, about) in [("1", "Run plans: what to test"), ("4", "Issues found on calls"), ("7", "Benchmarks:")] {
        h.keys(&[tab, "?"]).await;
        let screen = h.render(160, 48);
        let first = screen.lines().skip_while(|l| !l.contains("help · esc closes")).nth(1).unwrap();
        assert!(first.contains(about), "tab {tab}: {first}\n{screen}");
        h.key("esc").await;
    }
}

#[tokio::test]
async fn a_cut_toast_is_read_whole_in_the_log() {
    let mut h = Harness::seeded().await;
    let id = uuid::Uuid::new_v4();
    h.key(":").await;
    h.type_text(&format!("call {id}")).await;
    h.key("enter").await;
    let whole = format!("call {id} is not on this service");
    let screen = h.render(80, 24);
    let toast = screen.lines().find(|l| l.contains("✗ call")).expect("the toast");
    assert!(toast.trim_end().ends_with("(L)┘") || toast.trim_end().ends_with("(L)│"), "cut, saying where: {toast}");
    assert!(!screen.contains(&whole), "{screen}");
    h.key("L").await;
    assert!(h.render(160, 48).contains(&whole), "the log has it whole: {}", h.render(160, 48));
    h.key("L").await;
    assert!(h.app.overlay.is_none(), "L closes the log again");
}

#[tokio::test]
async fn the_sorted_column_keeps_its_marker_in_a_narrow_column() {
    let mut h = Harness::seeded().await;
    // The issues' last column (EVIDENCE, 8 cells) sorted descending.
    h.keys(&["4", "s", "s", "s", "s", "s"]).await;
    let screen = h.render(80, 24);
    let header = screen.lines().nth(3).unwrap();
    assert!(header.contains("EVIDE… ▼"), "{header}");
    h.key("S").await;
    assert!(h.render(80, 24).lines().nth(3).unwrap().contains("EVIDE… ▲"));
}
