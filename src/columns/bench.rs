//! Benchmark columns: suites (`switchboard bench suites`, the console's bench tab), a suite's
//! targets, and score samples (`bench samples`).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed, or_dash, text_cmp};
use crate::api::model::{ScoreSample, SuiteEntry, Target, percent};

/// A date without its time: `2026-10-05`.
fn date(ts: Option<&crate::api::model::Timestamp>) -> String {
    match ts.and_then(|t| t.parse()) {
        Some(t) => t.strftime("%Y-%m-%d").to_string(),
        None => ts.map_or("—".into(), |t| t.as_str().chars().take(10).collect()),
    }
}

pub const SUITE: Column<SuiteEntry> =
    Column::new("SUITE", fixed(Fill(1)), |s: &SuiteEntry| s.suite.clone()).by(|a, b| a.suite.cmp(&b.suite));

pub const SUITE_VERSION: Column<SuiteEntry> =
    Column::new("LATEST VERSION", fixed(Length(8)), |s: &SuiteEntry| or_dash(s.latest_suite_version.as_ref()))
        .by(|a, b| by(a.latest_suite_version.as_ref(), b.latest_suite_version.as_ref()));

/// When its latest version was published, as sent (the console shows the date).
pub const SUITE_PUBLISHED: Column<SuiteEntry> =
    Column::new("PUBLISHED", fixed(Length(10)), |s: &SuiteEntry| or_dash(s.latest_published_at.as_ref()))
        .by(|a, b| by(a.latest_published_at.as_ref(), b.latest_published_at.as_ref()));

pub const SUITE_TARGETS: Column<SuiteEntry> =
    Column::new("TARGETS", fixed(Length(7)), |s: &SuiteEntry| or_dash(s.target_count))
        .by(|a, b| by(a.target_count, b.target_count));

/// What `bench suites` prints.
pub const SUITES: &[Column<SuiteEntry>] = &[SUITE, SUITE_VERSION, SUITE_PUBLISHED, SUITE_TARGETS];

/// "CURRENT" or "SUPERSEDED", a status like any other.
pub fn state(t: &Target) -> Option<&'static str> {
    match (t.is_current, &t.superseded_at) {
        (Some(true), _) => Some("CURRENT"),
        (Some(false), _) | (None, Some(_)) => Some("SUPERSEDED"),
        (None, None) => None,
    }
}

/// Score first, so the first `s` ranks the targets by it.
pub const TARGETS: [Column<Target>; 7] = [
    // On the scale run scores use (0–100 %), not the wire's 0–1.
    Column::new("SCORE", fixed(Length(7)), |t: &Target| or_dash(t.score.map(|s| percent(s * 100.0))))
        .by(|a, b| by(a.score, b.score)),
    Column::new("TARGET", fixed(Fill(1)), |t: &Target| t.target_name.clone().unwrap_or_else(|| t.target_key.clone()))
        .by(|a, b| text_cmp(a.target_name.as_deref(), b.target_name.as_deref())),
    Column::new("VERSION", fixed(Length(8)), |t: &Target| or_dash(t.suite_version.as_deref()))
        .by(|a, b| by(a.suite_version.as_ref(), b.suite_version.as_ref())),
    Column::new("STATE", fit(5, 10), |t: &Target| or_dash(state(t))).by(|a, b| by(state(a), state(b))),
    Column::new("ITER", fixed(Length(4)), |t: &Target| or_dash(t.iterations)).by(|a, b| by(a.iterations, b.iterations)),
    Column::new("CALLS", fixed(Length(5)), |t: &Target| or_dash(t.sample_call_count))
        .by(|a, b| by(a.sample_call_count, b.sample_call_count)),
    Column::new("PUBLISHED", fixed(Length(10)), |t: &Target| date(t.published_at.as_ref()))
        .by(|a, b| by(a.published_at.as_ref(), b.published_at.as_ref())),
];

/// A sample's value: its number, or its yes/no.
fn sample_value(s: &ScoreSample) -> Option<String> {
    s.numeric_value.map(|v| v.to_string()).or(s.boolean_value.map(|b| b.to_string()))
}

pub const SAMPLE_CONDITION: Column<ScoreSample> =
    Column::new("CONDITION", fixed(Fill(1)), |s: &ScoreSample| or_dash(s.condition_key.as_ref()));

pub const SAMPLE_METRIC: Column<ScoreSample> =
    Column::new("METRIC", fixed(Fill(1)), |s: &ScoreSample| or_dash(s.metric_key.as_ref()));

/// The source call's whole id; the console shows its first eight characters.
pub const SAMPLE_CALL: Column<ScoreSample> =
    Column::new("CALL", fixed(Length(8)), |s: &ScoreSample| or_dash(s.source_call_id.as_ref()));

/// The value as sent; the console shows it as a percent with what it was.
pub const SAMPLE_VALUE: Column<ScoreSample> =
    Column::new("VALUE", fixed(Length(10)), |s: &ScoreSample| or_dash(sample_value(s)));

pub const SAMPLE_REASONING: Column<ScoreSample> =
    Column::text("REASONING", |s: &ScoreSample| s.reasoning.clone().unwrap_or_default());

/// What `bench samples` prints.
pub const SAMPLES: &[Column<ScoreSample>] =
    &[SAMPLE_CONDITION, SAMPLE_METRIC, SAMPLE_CALL, SAMPLE_VALUE, SAMPLE_REASONING];
