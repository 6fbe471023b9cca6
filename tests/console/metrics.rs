//! Tab 3: metric definitions, policies, collection jobs and a job's metric values.

use switchboard::api::model::*;
use switchboard::console::widgets::text::number;

use crate::assert_screen;
use crate::harness::Harness;

/// The `[shown/total]` (or `[total]`) count in the title of the table named `title`.
fn count(screen: &str, title: &str) -> (usize, usize) {
    let line = screen.lines().find(|l| l.contains(&format!(" {title} ["))).unwrap_or_else(|| panic!("{screen}"));
    let inner = line.split(&format!(" {title} [")).nth(1).unwrap().split(']').next().unwrap();
    match inner.split_once('/') {
        Some((shown, total)) => (shown.parse().unwrap(), total.parse().unwrap()),
        None => (inner.parse().unwrap(), inner.parse().unwrap()),
    }
}

/// The table rows of a screen: lines between the header row and the bottom border.
fn rows(screen: &str, header: &str) -> Vec<String> {
    screen
        .lines()
        .skip_while(|l| !l.contains(header))
        .skip(1)
        .take_while(|l| !l.starts_with('└'))
        .map(|l| l.trim_matches('│').trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The text of column `title` in `line`, by where the title starts in the header above it.
fn cell(screen: &str, line: &str, title: &str) -> String {
    let header: Vec<char> = screen.lines().find(|l| l.contains(&format!(" {title} "))).unwrap().chars().collect();
    let line: Vec<char> = line.chars().collect();
    let at = |from: usize| header.windows(title.len()).skip(from).position(|w| w.iter().collect::<String>() == title);
    let start = at(0).unwrap();
    // The next column starts where the next title does.
    let end =
        (start + title.len()..header.len()).find(|&i| header[i - 1] == ' ' && header[i] != ' ').unwrap_or(line.len());
    line[start..end.min(line.len())].iter().collect::<String>().trim().to_string()
}

/// The console on the jobs section with job `index` of the seeded list, and that job's id.
async fn jobs(index: usize) -> (Harness, uuid::Uuid) {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "l"]).await;
    for _ in 0..index {
        h.key("j").await;
    }
    let id = h.app.pane().selection().expect("a job is selected").id.parse().unwrap();
    (h, id)
}

async fn values_of(h: &Harness, job: uuid::Uuid, filter: ValueStatusFilter) -> Vec<MetricValueGroup> {
    h.client.collection_job_values(job, filter).await.unwrap()
}

#[tokio::test]
async fn definitions_policies_and_jobs_at_both_sizes() {
    let mut h = Harness::seeded().await;
    h.key("3").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("metric definitions [15]") && screen.contains("Call duration"), "{screen}");
    assert_screen!("metrics_definitions_80x24", screen);
    assert_screen!("metrics_definitions_160x48", h.render(160, 48));
    h.key("l").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("metric policies [2]") && screen.contains("INACTIVE"), "{screen}");
    assert_screen!("metrics_policies_80x24", h.render(80, 24));
    assert_screen!("metrics_policies_160x48", screen);
    h.key("enter").await;
    assert_screen!("metrics_policy_detail_160x48", h.render(160, 48));
    h.keys(&["esc", "l"]).await;
    let screen = h.render(80, 24);
    assert!(screen.contains("collection jobs [3]") && screen.contains("COMPLETED"), "{screen}");
    assert_screen!("metrics_jobs_80x24", screen);
    assert_screen!("metrics_jobs_160x48", h.render(160, 48));
}

#[tokio::test]
async fn a_definition_shows_every_field_its_scale_and_versions() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "/"]).await;
    h.type_text("empathy").await;
    h.keys(&["enter", "enter"]).await;
    let screen = h.render(160, 48);
    for expected in
        ["Empathy rating", "SCALE", "LLM_JUDGE", "range", "1 to 5", "versions", "v1 (current)", "judge prompt"]
    {
        assert!(screen.contains(expected), "{expected:?} missing:\n{screen}");
    }
    assert_screen!("metrics_definition_detail_160x48", screen);
    assert_screen!("metrics_definition_detail_80x24", h.render(80, 24));
}

#[tokio::test]
async fn a_threshold_shows_its_source_operator_value_and_aggregation() {
    let mut h = Harness::seeded().await;
    let input = ThresholdInput {
        name: Some("Long call".into()),
        operator: Some(ThresholdOperator::GreaterThan),
        value: Some("120".into()),
        aggregation_mode: Some(AggregationMode::Average),
        ..Default::default()
    };
    h.client.create_threshold("call_duration", &input).await.unwrap();
    h.keys(&["3", "/"]).await;
    h.type_text("long call").await;
    h.key("enter").await;
    let list = h.render(160, 48);
    assert!(list.contains("Call duration > 120 · AVERAGE"), "the list names the threshold:\n{list}");
    h.key("enter").await;
    let screen = h.render(160, 48);
    for expected in ["threshold", "Call duration", "GREATER_THAN (>)", "120", "AVERAGE"] {
        assert!(screen.contains(expected), "{expected:?} missing:\n{screen}");
    }
}

#[tokio::test]
async fn a_definition_opens_by_slug() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "o"]).await;
    h.type_text("caller_intent").await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("Caller intent") && screen.contains("classification options"), "{screen}");
}

#[tokio::test]
async fn a_jobs_values_toggle_between_successful_and_all() {
    let (mut h, job) = jobs(0).await;
    h.key("enter").await;
    let success = values_of(&h, job, ValueStatusFilter::Success).await;
    let all = values_of(&h, job, ValueStatusFilter::All).await;
    let n = |groups: &[MetricValueGroup]| groups.iter().map(|g| g.values.len()).sum::<usize>();
    assert!(n(&all) > n(&success), "the seeded job has values that were not captured");
    let screen = h.render(80, 24);
    assert_eq!(count(&screen, "metric values").1, n(&success), "{screen}");
    assert_screen!("metrics_values_80x24", screen);
    assert_screen!("metrics_values_160x48", h.render(160, 48));
    h.key("a").await;
    let screen = h.render(160, 48);
    assert_eq!(count(&screen, "metric values").1, n(&all), "{screen}");
    assert!(screen.contains("showing all values"), "{screen}");
    assert_screen!("metrics_values_all_160x48", screen);
    h.key("a").await;
    assert_eq!(count(&h.render(160, 48), "metric values").1, n(&success));
}

#[tokio::test]
async fn the_status_filter_cycles_capture_statuses_and_fetches_all() {
    let (mut h, job) = jobs(0).await;
    h.keys(&["enter", "f"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("status SUCCESS"), "{screen}");
    h.key("f").await;
    let all = values_of(&h, job, ValueStatusFilter::All).await;
    let not_applicable =
        all.iter().flat_map(|g| &g.values).filter(|v| v.capture_status == Some(CaptureStatus::NotApplicable)).count();
    assert!(not_applicable > 0);
    let screen = h.render(160, 48);
    assert!(screen.contains("showing all values · status NOT_APPLICABLE"), "{screen}");
    assert_eq!(count(&screen, "metric values").0, not_applicable, "{screen}");
    let shown = rows(&screen, "VALUE / STATUS");
    assert_eq!(shown.len(), not_applicable);
    assert!(shown.iter().all(|r| r.contains("NOT_APPLICABLE")), "status is shown as text:\n{screen}");
    assert_screen!("metrics_values_not_applicable_80x24", h.render(80, 24));
    // On through DATA_MISSING and ERROR, then back to every status.
    h.keys(&["f", "f", "f"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("status any"), "{screen}");
    assert_eq!(count(&screen, "metric values").0, all.iter().map(|g| g.values.len()).sum::<usize>());
}

#[tokio::test]
async fn the_metric_filter_cycles_the_jobs_metrics() {
    let (mut h, job) = jobs(0).await;
    h.keys(&["enter", "F"]).await;
    let success = values_of(&h, job, ValueStatusFilter::Success).await;
    let first = success[0].name.clone().unwrap();
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("metric {first}")), "{screen}");
    assert_eq!(count(&screen, "metric values").0, success[0].values.len(), "{screen}");
    assert!(rows(&screen, "VALUE / STATUS").iter().all(|r| r.starts_with(&first)), "{screen}");
    h.key("F").await;
    let second = success[1].name.clone().unwrap();
    let screen = h.render(160, 48);
    assert_eq!(count(&screen, "metric values").0, success[1].values.len(), "{screen}");
    assert!(rows(&screen, "VALUE / STATUS").iter().all(|r| r.starts_with(&second)), "{screen}");
    // The text filter narrows what the metric filter left.
    h.key("/").await;
    h.type_text("zzz-nothing").await;
    assert!(h.render(160, 48).contains("nothing matches /zzz-nothing"));
}

#[tokio::test]
async fn sorting_orders_the_values() {
    let (mut h, job) = jobs(0).await;
    h.key("enter").await;
    let first_row = |h: &Harness| rows(&h.render(160, 48), "VALUE / STATUS")[0].clone();
    let before = first_row(&h);
    let groups = values_of(&h, job, ValueStatusFilter::Success).await;
    assert!(before.starts_with(groups[0].name.as_deref().unwrap()), "service order first: {before}");
    h.key("s").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("METRIC ▲"), "{screen}");
    let mut names: Vec<String> = groups.iter().filter_map(|g| g.name.clone()).collect();
    names.sort();
    assert!(first_row(&h).starts_with(&names[0]), "{screen}");
    assert_ne!(first_row(&h), before);
    h.key("S").await;
    assert!(first_row(&h).starts_with(names.last().unwrap()));
    // One metric by value: ascending, then descending from its largest.
    h.keys(&["F", "s", "s", "s", "s"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("VALUE / STATUS ▼"), "{screen}");
    let numbers: Vec<f64> = groups[0].values.iter().filter_map(|v| v.value).collect();
    let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let shown = |h: &Harness| {
        let screen = h.render(160, 48);
        rows(&screen, "VALUE / STATUS")
            .iter()
            .map(|r| cell(&screen, &format!("│{r}│"), "VALUE / STATUS"))
            .collect::<Vec<_>>()
    };
    assert!(shown(&h)[0].starts_with(&number(max)), "{screen}");
    h.key("S").await;
    let ascending: Vec<f64> = shown(&h).iter().map(|v| v.split(' ').next().unwrap().parse().unwrap()).collect();
    assert!(ascending.windows(2).all(|w| w[0] <= w[1]), "{ascending:?}");
}

#[tokio::test]
async fn the_summary_gives_count_mean_min_and_max_per_metric() {
    let (mut h, job) = jobs(0).await;
    h.keys(&["enter", "m"]).await;
    let screen = h.render(160, 48);
    assert_screen!("metrics_summary_160x48", screen.clone());
    assert_screen!("metrics_summary_80x24", h.render(80, 24));
    for group in values_of(&h, job, ValueStatusFilter::Success).await {
        let numbers: Vec<f64> = group.values.iter().filter_map(|v| v.value).collect();
        let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
        let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
        let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let unit = group.unit.as_ref().and_then(|u| u.symbol.clone()).map(|s| format!(" {s}")).unwrap_or_default();
        let name = group.name.clone().unwrap();
        let line = screen.lines().find(|l| l.contains(&name)).unwrap_or_else(|| panic!("{name}:\n{screen}"));
        let cell = |title: &str| cell(&screen, line, title);
        assert_eq!(cell("ROWS"), group.values.len().to_string(), "rows of {name}: {line}");
        assert_eq!(cell("MEAN"), format!("{}{unit}", number(mean)), "mean of {name}: {line}");
        assert_eq!(cell("MIN"), format!("{}{unit}", number(min)), "min of {name}: {line}");
        assert_eq!(cell("MAX"), format!("{}{unit}", number(max)), "max of {name}: {line}");
    }
    // The summary follows the filters: all values add what was not captured.
    h.key("a").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("NOT_APPLICABLE"), "{screen}");
    // Enter on a metric shows its values.
    h.key("enter").await;
    let screen = h.render(160, 48);
    let first = values_of(&h, job, ValueStatusFilter::Success).await[0].name.clone().unwrap();
    assert!(screen.contains("metric values") && screen.contains(&format!("metric {first}")), "{screen}");
}

#[tokio::test]
async fn a_values_detail_shows_reasoning_and_opens_the_call() {
    let (mut h, job) = jobs(0).await;
    let success = values_of(&h, job, ValueStatusFilter::Success).await;
    let (index, group) = success
        .iter()
        .enumerate()
        .find(|(_, g)| g.values.first().is_some_and(|v| v.value_reasoning.is_some()))
        .expect("a metric with reasoning");
    let reasoning = group.values[0].value_reasoning.clone().unwrap();
    h.key("enter").await;
    for _ in 0..=index {
        h.key("F").await;
    }
    h.key("enter").await;
    let screen = h.render(160, 48);
    let start: String = reasoning.split_whitespace().take(6).collect::<Vec<_>>().join(" ");
    assert!(screen.contains("reasoning") && screen.contains(&start), "{start:?}:\n{screen}");
    assert_screen!("metrics_value_detail_160x48", screen);
    assert_screen!("metrics_value_detail_80x24", h.render(80, 24));
    h.key("?").await;
    let help = h.render(160, 48);
    assert!(help.contains("the call's transcript"), "{help}");
    h.keys(&["esc", "enter"]).await;
    let screen = h.render(160, 48);
    let call = group.values[0].call_id.unwrap();
    assert!(screen.contains(&format!("call {call}")) && screen.contains("transcript"), "{screen}");
    assert_screen!("metrics_value_transcript_160x48", screen);
    // Esc walks back: transcript, value, values, jobs.
    h.key("esc").await;
    assert!(h.render(160, 48).contains("reasoning"));
    h.key("esc").await;
    assert!(h.render(160, 48).contains("VALUE / STATUS"));
    h.key("esc").await;
    assert!(h.render(160, 48).contains("collection jobs [3]"));
}

#[tokio::test]
async fn help_lists_the_values_keys() {
    let (mut h, _) = jobs(0).await;
    h.keys(&["enter", "?"]).await;
    let screen = h.render(80, 24);
    assert!(screen.contains("per-metric summary"), "{screen}");
    assert_screen!("help_metrics_values_80x24", screen);
    assert_screen!("help_metrics_values_160x48", h.render(160, 48));
}

#[tokio::test]
async fn a_policy_names_its_agent_and_metrics() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "j", "enter"]).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("agentId EQUALS Brightsmile"), "the agent is named:\n{screen}");
    assert!(screen.contains("metrics (4)"), "{screen}");
    assert_screen!("metrics_policy_detail_80x24", h.render(80, 24));
}

#[tokio::test]
async fn the_transcript_of_a_value_at_80x24() {
    let (mut h, _) = jobs(0).await;
    h.keys(&["enter", "l"]).await;
    let screen = h.render(80, 24);
    assert!(screen.contains("transcript") && screen.contains("metric values"), "{screen}");
    assert_screen!("metrics_value_transcript_80x24", screen);
}

/// The constructor a benchmark uses: 100,000 values straight into the values view.
#[test]
fn a_hundred_thousand_values_render_and_filter() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use switchboard::console::keymap::{Action, KeyMap};
    use switchboard::console::out::Out;
    use switchboard::console::pane::{Pane, ViewCtx};
    use switchboard::console::panes::metrics::Metrics;
    use switchboard::console::theme::Theme;

    let statuses = ["SUCCESS", "SUCCESS", "SUCCESS", "NOT_APPLICABLE", "DATA_MISSING", "ERROR"];
    let groups: Vec<MetricValueGroup> = (0..20)
        .map(|m| {
            let values: Vec<serde_json::Value> = (0..5_000)
                .map(|i| {
                    let status = statuses[i % statuses.len()];
                    serde_json::json!({
                        "captureStatus": status,
                        "context": "CALL",
                        "value": (status == "SUCCESS").then_some((i % 97) as f64),
                        "callId": uuid::Uuid::from_u128(i as u128),
                        "computedAt": "2026-10-01T00:00:00Z",
                    })
                })
                .collect();
            serde_json::from_value(serde_json::json!({
                "metricDefinitionId": uuid::Uuid::from_u128(1_000_000 + m),
                "name": format!("metric {m:02}"),
                "values": values,
            }))
            .unwrap()
        })
        .collect();
    let job: CollectionJob = serde_json::from_value(serde_json::json!({
        "id": uuid::Uuid::from_u128(7), "status": "COMPLETED", "totalItems": 5000, "completedItems": 5000,
    }))
    .unwrap();
    let mut pane = Metrics::with_values(job, groups);
    let (theme, keys) = (Theme::new("default", false), KeyMap::default());
    let ctx = ViewCtx { theme: &theme, now: crate::harness::now(), keys: &keys, marks: &Default::default() };
    let render = |pane: &Metrics| {
        let mut terminal = Terminal::new(TestBackend::new(200, 50)).unwrap();
        terminal.draw(|frame| pane.draw(frame, frame.area(), &ctx)).unwrap();
        crate::harness::screen(terminal.backend())
    };
    assert!(render(&pane).contains("metric values [100000]"), "{}", render(&pane));
    let mut out = Out::default();
    pane.action(Action::StatusFilter, &mut out); // SUCCESS
    pane.action(Action::StatusFilter, &mut out); // NOT_APPLICABLE
    assert!(out.effects.is_empty(), "all values are there already: nothing to fetch");
    assert!(render(&pane).contains("metric values [16660/100000]"), "{}", render(&pane));
    pane.action(Action::SecondFilter, &mut out);
    pane.action(Action::Bottom, &mut out);
    let screen = render(&pane);
    assert!(screen.contains("[833/100000]") && screen.contains("NOT_APPLICABLE"), "{screen}");
    pane.action(Action::StatusFilter, &mut out); // DATA_MISSING
    pane.action(Action::StatusFilter, &mut out); // ERROR
    pane.action(Action::StatusFilter, &mut out); // any
    pane.action(Action::Summary, &mut out);
    let screen = render(&pane);
    let line = screen.lines().find(|l| l.starts_with("│metric 00")).unwrap_or_else(|| panic!("{screen}"));
    assert_eq!(cell(&screen, line, "ROWS"), "5000", "{line}");
    assert_eq!(cell(&screen, line, "VALUES"), "2501", "{line}");
    assert_eq!(cell(&screen, line, "MIN"), "0", "{line}");
    assert_eq!(cell(&screen, line, "MAX"), "96", "{line}");
}
