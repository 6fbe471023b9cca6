//! Alerts in the issues tab, on the seeded world: the silence alert's open issue shows its
//! trigger, its windows against the threshold and each evidence call's breaching value and
//! worst failing metric; `a` opens the alert; `:alerts` lists the alerts with their state.

use switchboard::api::model::Issue;

use crate::assert_screen;
use crate::harness::Harness;

/// The seeded silence alert's open issue (the engine's, fingerprint `alert:…`).
async fn open_alert_issue(h: &Harness) -> Issue {
    use futures_util::TryStreamExt;
    let query = switchboard::api::ListQuery::default();
    let issues: Vec<Issue> =
        h.client.list_all::<Issue>(switchboard::api::routes::ISSUES, query).try_collect().await.unwrap();
    issues
        .into_iter()
        .find(|i| {
            i.fingerprint.as_deref().is_some_and(|f| f.starts_with("alert:"))
                && i.status.as_ref().map(|s| s.as_str()) == Some("OPEN")
        })
        .expect("the seeded alert's open issue")
}

async fn open_issue(h: &mut Harness, id: &str) {
    h.keys(&["4", "o"]).await;
    h.type_text(id).await;
    h.key("enter").await;
}

#[tokio::test]
async fn an_alert_born_issue_shows_its_trigger_series_and_breaching_values() {
    let mut h = Harness::seeded().await;
    let issue = open_alert_issue(&h).await;
    open_issue(&mut h, &issue.id.to_string()).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("MEAN of longest_silence over 60 min > 9000"), "{screen}");
    assert!(screen.contains("Long silences at the front desk · OPEN"), "{screen}");
    // The three days' hours with a value (the first held too few calls).
    assert!(screen.contains("last 23 windows"), "the chart of the group's windows:\n{screen}");
    assert!(screen.contains("a the alert that raised the issue"), "the footer names the key:\n{screen}");
    // Every evidence row carries its call's breaching value and names it its worst failure.
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("│call ")).collect();
    assert!(rows.len() >= 6, "{screen}");
    for row in rows {
        // VALUE, then WORST FAILING: `… 1m 03s  9800    longest_silence 9800 …`.
        let words: Vec<&str> = row.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "longest_silence").unwrap_or_else(|| panic!("{row}"));
        let value: f64 = words[at - 1].parse().unwrap_or_else(|_| panic!("{row}"));
        assert!(value > 9000.0, "{row}");
        assert_eq!(words[at + 1], words[at - 1], "{row}");
    }
    assert_screen!("issues_alert_issue_80x24", h.render(80, 24));
    assert_screen!("issues_alert_issue_120x30", h.render(120, 30));
}

#[tokio::test]
async fn a_opens_the_issues_alert_and_esc_comes_back() {
    let mut h = Harness::seeded().await;
    let issue = open_alert_issue(&h).await;
    open_issue(&mut h, &issue.id.to_string()).await;
    h.key("a").await;
    let screen = h.render(120, 30);
    assert!(screen.contains("alert · Long silences at the front desk"), "{screen}");
    assert!(screen.contains("consecutive windows") && screen.contains("OPEN"), "{screen}");
    assert!(screen.contains(&format!("issue {}", &issue.id.to_string()[..8])), "its group names the issue:\n{screen}");
    assert_eq!(h.app.pane().selection().unwrap().id, issue.alert_id.unwrap().to_string());
    assert_screen!("issues_alert_detail_80x24", h.render(80, 24));
    assert_screen!("issues_alert_detail_120x30", screen);
    h.key("esc").await;
    assert!(h.render(120, 30).contains("issue · Long silences"), "back on the issue");

    // A hand-filed issue names a seeded alert too (disabled since it opened the issue).
    h.key("esc").await;
    h.keys(&["o"]).await;
    h.type_text("860c6925-fbf6-57b0-bda3-e017765f8d46").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("issue · Rebooking agent talks over callers"), "{screen}");
    assert!(screen.contains("Rebooking agent talks over callers · OK"), "its alert and state:\n{screen}");
}

/// `:alert NAME` opens one alert from any tab, Tab completing its name among the alerts read;
/// Esc leads to the alerts; an id the service does not hold is said in the alert's place.
#[tokio::test]
async fn colon_alert_opens_one_alert_by_name_from_any_tab() {
    let mut h = Harness::seeded().await;
    h.key(":").await;
    h.type_text("alerts").await;
    h.key("enter").await;
    h.key("1").await;
    h.key(":").await;
    h.type_text("alert long sil").await;
    h.key("tab").await;
    let named = switchboard::console::app::Prompt::Command("alert Long silences at the front desk".into());
    assert_eq!(h.app.prompt, Some(named), "the one name it can be");
    h.key("enter").await;
    let screen = h.render(120, 30);
    assert!(screen.contains("alert · Long silences at the front desk"), "{screen}");
    assert!(screen.contains("consecutive windows") && screen.contains("OPEN"), "{screen}");
    assert_screen!("issues_alert_by_name_120x30", screen);
    h.key("esc").await;
    assert!(h.render(120, 30).contains("Front desk calls run long"), "esc: the alerts");

    h.key(":").await;
    h.type_text("alert 00000000-0000-4000-8000-000000000000").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("is not on this service (deleted, or named by a hand-filed issue)"), "{screen}");
    assert!(h.app.toasts.is_empty(), "said in the alert's place, not toasted: {:?}", h.app.toasts);
}

#[tokio::test]
async fn colon_alerts_lists_the_alerts_with_their_state_and_opens_one() {
    let mut h = Harness::seeded().await;
    h.key(":").await;
    h.type_text("alerts").await;
    h.key("enter").await;
    let screen = h.render(120, 30);
    let row = |name: &str| screen.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}:\n{screen}"));
    assert!(row("Long silences at the front desk").contains("OPEN"), "{screen}");
    assert!(row("Front desk calls run long").contains("OK"), "{screen}");
    assert!(screen.contains("enter") && screen.contains("the alert's trigger"), "the footer names the keys:\n{screen}");
    // Live: the alerts are a visible list, polled as the other lists are.
    assert_eq!(h.app.pane().visible_lists(), vec![switchboard::console::message::ListKind::Alerts]);
    // The latest window keeps its whole time at 120 columns and at 80, where the metric (named
    // in the alert's detail) is left out so the names keep room.
    assert!(row("Long silences at the front desk").contains("2026-10-30 23:00:00"), "{screen}");
    assert!(screen.contains("METRIC"), "{screen}");
    let narrow = h.render(80, 24);
    assert!(narrow.contains("LAST WINDOW") && !narrow.contains("METRIC"), "{narrow}");
    assert!(narrow.contains("Long silences at the front desk") && narrow.contains("23:00:00"), "{narrow}");
    assert_screen!("issues_alerts_80x24", narrow);
    assert_screen!("issues_alerts_120x30", screen);
    // OPEN sorts first; Enter opens it.
    h.keys(&["g", "enter"]).await;
    assert!(h.render(120, 30).contains("alert · Long silences at the front desk"));
    h.key("esc").await;
    assert!(h.render(120, 30).contains("Front desk calls run long"), "back on the alerts");
    h.key("esc").await;
    assert!(h.render(120, 30).contains("issues · status all"), "back on the issues");
}
