//! Tab 7: benchmark suites, their targets, and score samples with their reasoning.

use switchboard::api::model::{ScoreSamplePage, ScoreSampleQuery};

use crate::assert_screen;
use crate::harness::Harness;

const SUITE: &str = "voice-agent-reception-v1";
const TARGET: &str = "acme-voice-pro";

/// The client's own page of acme-voice-pro's samples in the reception suite (latest version).
async fn page(h: &Harness, offset: i64, condition: Option<&str>, metric: Option<&str>) -> ScoreSamplePage {
    let query = ScoreSampleQuery {
        suite: Some(SUITE.into()),
        condition_key: condition.map(Into::into),
        metric_key: metric.map(Into::into),
        limit: Some(20),
        offset: Some(offset),
        suite_version: None,
    };
    h.client.list_score_samples(TARGET, &query).await.unwrap()
}

/// The reasoning of the sample the pane has selected.
fn shown_reasoning(h: &Harness) -> String {
    let selection = h.app.pane().selection().expect("a sample is selected");
    selection.json["reasoning"].as_str().unwrap_or_default().to_string()
}

/// Tab 7, the reception suite, its first target (Acme Voice Pro): the samples view.
async fn acme_samples() -> Harness {
    let mut h = Harness::seeded().await;
    h.keys(&["7", "/"]).await;
    h.type_text("reception").await;
    h.keys(&["enter", "enter", "/"]).await;
    h.type_text("acme").await;
    h.keys(&["enter", "enter"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Acme Voice Pro 1.3.0") && screen.contains("samples 1–20 of 63"), "{screen}");
    h
}

#[tokio::test]
async fn suites_targets_and_samples_at_both_sizes() {
    let mut h = Harness::seeded().await;
    h.key("7").await;
    let screen = h.render(80, 24);
    assert!(screen.contains(SUITE) && screen.contains("airline-disruption-v2"), "{screen}");
    assert_screen!("bench_suites_80x24", screen);
    assert_screen!("bench_suites_160x48", h.render(160, 48));

    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("SUPERSEDED") && screen.contains("Tonal Assist Lite"), "{screen}");
    // The suites list's TARGETS (3) is the targets list's current count; scores read in percent.
    assert!(screen.contains("3 current, 1 superseded"), "{screen}");
    assert!(screen.contains("88.9 %") && !screen.contains("0.889"), "{screen}");
    assert_screen!("bench_targets_80x24", screen);
    assert_screen!("bench_targets_160x48", h.render(160, 48));

    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("samples 1–20 of 63") && screen.contains("sample 1 of 63"), "{screen}");
    assert_screen!("bench_samples_80x24", screen);
    assert_screen!("bench_samples_160x48", h.render(160, 48));

    // Esc goes back one level at a time.
    h.key("esc").await;
    assert!(h.render(80, 24).contains("targets of voice-agent-reception-v1"));
    h.key("esc").await;
    assert!(h.render(80, 24).contains("┌ suites [2]"));
}

#[tokio::test]
async fn sorting_targets_by_score_picks_the_lowest() {
    let mut h = Harness::seeded().await;
    h.keys(&["7", "/"]).await;
    h.type_text("reception").await;
    h.keys(&["enter", "enter"]).await;
    let targets = h.client.list_benchmark_targets(SUITE).await.unwrap();
    let lowest = targets.iter().min_by(|a, b| a.score.partial_cmp(&b.score).unwrap()).unwrap();
    let highest = targets.iter().max_by(|a, b| a.score.partial_cmp(&b.score).unwrap()).unwrap();
    assert_ne!(targets[0].target_key, lowest.target_key, "the service's order must not already be by score");

    h.key("s").await;
    assert!(h.render(80, 24).contains("SCORE ▲"), "{}", h.render(80, 24));
    let picked = h.app.pane().selection().unwrap();
    assert_eq!(picked.json["targetKey"], lowest.target_key.as_str());
    assert_eq!(picked.json["score"], lowest.score.unwrap());

    h.key("S").await;
    assert_eq!(h.app.pane().selection().unwrap().json["targetKey"], highest.target_key.as_str());

    // Reversed again, the lowest is on top, and its samples open from the sorted table.
    h.keys(&["S", "enter"]).await;
    let screen = h.render(160, 48);
    let name = lowest.target_name.as_deref().unwrap();
    assert!(screen.contains(&format!("› {name} 1.3.0")), "{screen}");
}

#[tokio::test]
async fn next_sample_crosses_page_boundaries_both_ways() {
    let mut h = acme_samples().await;
    for _ in 0..19 {
        h.key("n").await;
    }
    let screen = h.render(80, 24);
    assert!(screen.contains("samples 1–20 of 63") && screen.contains("sample 20 of 63"), "{screen}");
    let first = page(&h, 0, None, None).await;
    assert_eq!(shown_reasoning(&h), first.data[19].reasoning.clone().unwrap());

    h.key("n").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("samples 21–40 of 63") && screen.contains("sample 21 of 63"), "{screen}");
    let second = page(&h, 20, None, None).await;
    let reasoning = second.data[0].reasoning.clone().unwrap();
    assert_eq!(shown_reasoning(&h), reasoning);
    let opening: String = reasoning.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    assert!(screen.contains(&opening), "the reasoning is drawn: {opening:?}\n{screen}");

    // p at the page's first sample goes back to the previous page's last one.
    h.key("p").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("samples 1–20 of 63") && screen.contains("sample 20 of 63"), "{screen}");
    assert_eq!(shown_reasoning(&h), first.data[19].reasoning.clone().unwrap());

    // l/h page; the last page is short, and n stops at the last sample.
    h.keys(&["l", "l", "l"]).await;
    let screen = h.render(80, 24);
    assert!(screen.contains("samples 61–63 of 63") && screen.contains("sample 61 of 63"), "{screen}");
    h.keys(&["n", "n", "n"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("sample 63 of 63") && screen.contains("this is the last sample"), "{screen}");
    assert_eq!(shown_reasoning(&h), page(&h, 60, None, None).await.data[2].reasoning.clone().unwrap());

    // PageDown at a page's last row loads the next page; PageUp at its first row the previous.
    h.keys(&["h", "G"]).await;
    assert!(h.render(80, 24).contains("sample 60 of 63"));
    h.key("pagedown").await;
    assert!(h.render(80, 24).contains("sample 61 of 63"));
    h.key("pageup").await;
    assert!(h.render(80, 24).contains("sample 60 of 63"));
}

#[tokio::test]
async fn narrowing_by_condition_and_metric_reduces_the_total() {
    let mut h = acme_samples().await;
    // The first page holds one condition only; the keys come from a larger first page.
    let keys = page(&h, 0, None, None).await;
    assert!(keys.data.iter().all(|s| s.condition_key.as_deref() == Some("quiet-room")));

    h.key("f").await;
    let narrowed = page(&h, 0, Some("accented-caller"), None).await;
    let total = narrowed.pagination.total;
    assert!(total > 0 && total < 63, "{total}");
    let screen = h.render(80, 24);
    assert!(screen.contains(&format!("samples 1–20 of {total} · condition accented-caller · metric all")), "{screen}");
    assert!(!screen.contains("quiet-room"), "{screen}");
    assert_eq!(shown_reasoning(&h), narrowed.data[0].reasoning.clone().unwrap());

    h.key("F").await;
    let both = page(&h, 0, Some("accented-caller"), Some("empathy")).await;
    let total_both = both.pagination.total;
    assert!(total_both > 0 && total_both < total, "{total_both}");
    let screen = h.render(80, 24);
    assert!(
        screen
            .contains(&format!("samples 1–{total_both} of {total_both} · condition accented-caller · metric empathy")),
        "{screen}"
    );
    assert_screen!("bench_samples_narrowed_80x24", screen);
    assert_eq!(shown_reasoning(&h), both.data[0].reasoning.clone().unwrap());

    // f moves on to the next condition, and past the last back to all of them.
    h.key("f").await;
    assert!(h.render(80, 24).contains("condition quiet-room · metric empathy"));
    h.keys(&["f", "f"]).await;
    let all = page(&h, 0, None, Some("empathy")).await.pagination.total;
    assert!(h.render(80, 24).contains(&format!("of {all} · condition all · metric empathy")), "{}", h.render(80, 24));
}

#[tokio::test]
async fn the_reasoning_wraps_and_scrolls() {
    let mut h = acme_samples().await;
    let reasoning = shown_reasoning(&h);
    let opening: String = reasoning.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    let before = h.render(80, 24);
    assert!(before.contains(&opening) && !before.contains("│source call"), "{before}");

    // i focuses the reasoning; j scrolls it (and not the samples).
    h.keys(&["i", "j", "j", "j"]).await;
    let after = h.render(80, 24);
    assert!(!after.contains(&opening) && after.contains("│source call"), "{after}");
    assert!(after.contains("sample 1 of 63"), "the selection stays: {after}");
    assert_screen!("bench_reasoning_scrolled_80x24", after);
    assert!(after.lines().last().unwrap().starts_with("j scroll the reasoning"), "the footer says so: {after}");

    // n moves to the next sample from the reasoning too, back at its top.
    h.key("n").await;
    let next = h.render(80, 24);
    assert!(next.contains("sample 2 of 63"), "{next}");
    let opening: String = shown_reasoning(&h).split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    assert!(next.contains(&opening), "{next}");

    // Help lists what the keys do here.
    h.key("?").await;
    let help = h.render(160, 48);
    assert!(help.contains("cycle the condition") && help.contains("back to the samples"), "{help}");
    h.key("esc").await;

    // Esc returns to the table, then to the targets.
    h.keys(&["esc", "j"]).await;
    assert!(h.render(80, 24).contains("sample 3 of 63"));
    h.key("esc").await;
    assert!(h.render(80, 24).contains("targets of voice-agent-reception-v1"));
}

#[tokio::test]
async fn targets_and_suites_open_by_name() {
    let mut h = Harness::seeded().await;
    h.keys(&["7", "o"]).await;
    h.type_text("no-such-suite").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("could not load") && !screen.contains("does not list"), "{screen}");
    h.keys(&["esc", "o"]).await;
    h.type_text("airline-disruption-v2").await;
    h.key("enter").await;
    assert!(h.render(80, 24).contains("Skyline Agent X"), "{}", h.render(80, 24));
    h.key("o").await;
    h.type_text("vocalis-cx").await;
    h.key("enter").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("Vocalis CX 2.1.0") && screen.contains("samples 1–8 of 8"), "{screen}");
    h.key("o").await;
    h.type_text("nobody").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("could not load"), "{screen}");
}

#[tokio::test]
async fn enter_on_a_sample_whose_call_is_not_here_says_so_and_shows_the_reasoning() {
    let mut h = acme_samples().await;
    let call = h.app.pane().selection().unwrap().json["sourceCallId"].as_str().unwrap().to_string();
    h.key("enter").await;
    assert!(h.app.call.is_none());
    assert!(h.app.toasts.iter().any(|t| t.text == format!("call {call} is not on this service")), "{:?}", h.app.toasts);
    // Where Enter was offered, the sample says its call is not here and offers what is
    // possible: copy the call id, or go back to the targets.
    let screen = h.render(120, 40);
    assert!(screen.contains("✗ its call is not on this service: y copies the call"), "{screen}");
    assert!(screen.contains("id; esc leads back to the targets"), "{screen}");
    let footer = screen.lines().last().unwrap().to_string();
    assert!(footer.starts_with("y copy the call id (the call is not on this service)"), "{footer}");
    assert_screen!("bench_sample_call_missing_80x24", h.render(80, 24));
    h.key("y").await;
    assert!(h.performed.contains(&switchboard::console::message::Effect::Copy(call.clone())), "y copies {call}");
    h.key("esc").await;
    h.key("esc").await;
    assert!(h.render(120, 40).contains("Acme Voice Pro"), "back among the targets");
}

#[tokio::test]
async fn enter_on_a_sample_opens_its_source_call_when_the_service_has_it() {
    let mut h = Harness::seeded().await;
    // The seeded samples come from calls recorded elsewhere; here acme's are recorded on this
    // service too (one seeded call stands for them, written into the service's own store).
    let here = crate::support::seeded("calls", |_| true)[0]["id"].as_str().unwrap().to_string();
    let sample = page(&h, 0, None, None).await.data[0].source_call_id.clone().unwrap();
    let changed = crate::support::tamper(
        h.service.dir.path(),
        &format!("UPDATE score_samples SET body = replace(body, '{sample}', '{here}') WHERE target_key = '{TARGET}'"),
        &format!(
            "UPDATE score_samples SET body = replace(body::text, '{sample}', '{here}')::json WHERE target_key = '{TARGET}'"
        ),
    );
    assert!(changed > 0);
    h.keys(&["7", "/"]).await;
    h.type_text("reception").await;
    h.keys(&["enter", "enter", "/"]).await;
    h.type_text("acme").await;
    h.keys(&["enter", "enter", "enter"]).await;
    let view = h.app.call.as_ref().expect("the source call opened over the tab");
    assert_eq!(view.call_id.to_string(), here);
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("call {here}")) && screen.contains("┌ transcript"), "{screen}");
    h.key("esc").await;
    assert!(h.render(80, 24).contains("sample 1 of 63"), "esc: the samples again");
}

/// `s` puts the page's lowest scores first, so the worst sample's reasoning is one key away;
/// `S` the highest; `s` again lists them as the service does.
#[tokio::test]
async fn s_sorts_the_page_lowest_score_first() {
    let mut h = acme_samples().await;
    let first = page(&h, 0, None, None).await;
    // In percent, as targets read: a pass 100, a fail 0, a 1–5 rating on its scale.
    let score = |s: &switchboard::api::model::ScoreSample| match (s.boolean_value, s.numeric_value) {
        (Some(passed), _) => {
            if passed {
                100.0
            } else {
                0.0
            }
        }
        (None, Some(rating)) => (rating - 1.0) / 4.0 * 100.0,
        (None, None) => panic!("a sample with no value: {s:?}"),
    };
    let lowest = first.data.iter().map(score).fold(f64::INFINITY, f64::min);
    let highest = first.data.iter().map(score).fold(f64::NEG_INFINITY, f64::max);
    assert!(lowest < highest, "the page has different scores");
    let selected = |h: &Harness| {
        let json = h.app.pane().selection().unwrap().json;
        serde_json::from_value::<switchboard::api::model::ScoreSample>(json).unwrap()
    };

    h.key("s").await;
    assert_eq!(score(&selected(&h)), lowest, "the lowest first, selected");
    let screen = h.render(160, 48);
    assert!(screen.contains("lowest score first"), "{screen}");
    // Every row on the one scale, lowest first: a 2/5 rating before a pass.
    let shown: Vec<f64> = screen
        .lines()
        .filter_map(|l| l.split_once(" %").and_then(|(before, _)| before.rsplit(' ').next()?.parse().ok()))
        .collect();
    assert!(shown.len() >= 10 && shown.is_sorted(), "one scale, lowest first: {shown:?}\n{screen}");
    assert_screen!("bench_samples_sorted_80x24", h.render(80, 24));
    h.key("S").await;
    assert_eq!(score(&selected(&h)), highest);
    h.key("S").await;
    assert_eq!(shown_reasoning(&h), first.data[0].reasoning.clone().unwrap(), "as listed again");
}
