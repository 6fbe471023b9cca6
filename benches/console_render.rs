//! Rendering the metric values pane at 200×50: 100,000 values against 100, per frame, and
//! resident memory with 100,000 values loaded. Run with `cargo bench --bench console_render`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark's setup fails by panicking")]

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::api::model::{CaptureStatus, CollectionJob, MetricContext, MetricValue, MetricValueGroup, Timestamp};
use switchboard::console::keymap::{Action, KeyMap};
use switchboard::console::out::Out;
use switchboard::console::pane::{Pane, ViewCtx};
use switchboard::console::panes::metrics::Metrics;
use switchboard::console::theme::Theme;

const FRAMES: usize = 300;

/// `count` values spread over 10 metrics, with every capture status.
fn groups(count: usize) -> Vec<MetricValueGroup> {
    let statuses =
        [CaptureStatus::Success, CaptureStatus::NotApplicable, CaptureStatus::DataMissing, CaptureStatus::Error];
    (0..10)
        .map(|m| MetricValueGroup {
            metric_definition_id: uuid::Uuid::from_u128(m as u128 + 1),
            slug: Some(format!("metric_{m}")),
            metric_id: None,
            name: Some(format!("Metric number {m}")),
            description: None,
            metric_type: None,
            scope: None,
            unit: None,
            values: (0..count / 10)
                .map(|i| MetricValue {
                    capture_status: Some(statuses[i % 4].clone()),
                    context: Some(MetricContext::Call),
                    computed_at: Some(Timestamp(format!("2026-11-21T12:{:02}:{:02}Z", (i / 60) % 60, i % 60))),
                    value: (i % 4 == 0).then_some(i as f64 / 7.0),
                    call_id: Some(uuid::Uuid::from_u128(i as u128)),
                    chat_id: None,
                    error_message: None,
                    participant_role: Some("AGENT".into()),
                    value_reasoning: Some("The agent verified the caller before sharing details.".into()),
                    confidence: Some(0.9),
                    policy_ids: vec![],
                    segment: None,
                    from_segment: None,
                    to_segment: None,
                    label: None,
                })
                .collect(),
        })
        .collect()
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn job(count: usize) -> CollectionJob {
    serde_json::from_value(serde_json::json!({
        "id": uuid::Uuid::from_u128(7), "status": "COMPLETED", "totalItems": count, "completedItems": count
    }))
    .unwrap()
}

/// Median time per frame of the metrics tab's values view over `FRAMES` frames, moving the
/// selection down a row each frame (so the window scrolls), and RSS once loaded.
fn median_frame(count: usize) -> (Duration, f64) {
    let theme = Theme::new("default", false);
    let keys = KeyMap::default();
    let mut pane = Metrics::with_values(job(count), groups(count));
    let rss = rss_mb();
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let mut times = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        pane.action(Action::Down, &mut Out::default());
        let started = Instant::now();
        terminal
            .draw(|frame| {
                let ctx =
                    ViewCtx { theme: &theme, now: jiff::Timestamp::now(), keys: &keys, marks: &Default::default() };
                pane.draw(frame, frame.area(), &ctx);
            })
            .unwrap();
        times.push(started.elapsed());
    }
    times.sort();
    (times[FRAMES / 2], rss)
}

fn main() {
    let (small, _) = median_frame(100);
    let (large, rss) = median_frame(100_000);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("metric values pane at 200x50: 100 values median {:.3} ms/frame", ms(small));
    println!("metric values pane at 200x50: 100,000 values median {:.3} ms/frame (target < 2 ms)", ms(large));
    println!("ratio large/small: {:.2} (target <= 1.5)", large.as_secs_f64() / small.as_secs_f64());
    println!("resident memory with 100,000 values loaded: {rss:.1} MB (target < 150 MB)");
}
