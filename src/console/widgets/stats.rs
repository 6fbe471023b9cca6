//! Small text charts and the per-metric summary of a values table. Summaries are computed when
//! the rows or their filters change and kept in state, never while drawing.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};

use super::list::{ListState, by};
use super::table::{Cell, Context, Shown};
use super::text::number;
use super::values::{MetricLabel, ValueRow, WIDE, status_str};
use crate::columns::{Column, fixed};

/// Buckets of a summary's histogram.
pub const BINS: usize = 10;

/// `done` of `total` as a bar `width` cells wide: `██████░░░░`.
pub fn gauge(done: u64, total: u64, width: usize) -> String {
    let filled = (done.min(total) * width as u64 + total / 2).checked_div(total).unwrap_or(0) as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// Counts as a sparkline: one cell per count, the tallest `█`, empty buckets blank.
pub fn sparkline(counts: &[u32]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = counts.iter().copied().max().unwrap_or(0);
    counts
        .iter()
        .map(|&c| if c == 0 { ' ' } else { BARS[((c as u64 * 8).div_ceil(max as u64) as usize).clamp(1, 8) - 1] })
        .collect()
}

/// What the shown values of one metric add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSummary {
    pub metric: Arc<MetricLabel>,
    /// Rows of this metric in view, captured or not.
    pub rows: usize,
    /// Rows that carry a number; mean, min and max are over these.
    pub values: usize,
    pub mean: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The numbers spread over `BINS` equal buckets from min to max.
    pub bins: [u32; BINS],
    /// Rows without a value, by capture status, in order of first sight.
    pub not_captured: Vec<(String, usize)>,
    /// Where the metric's first row is among the items, to keep the service's metric order.
    first: usize,
}

impl MetricSummary {
    fn new(metric: Arc<MetricLabel>, first: usize) -> Self {
        MetricSummary {
            metric,
            rows: 0,
            values: 0,
            mean: None,
            min: None,
            max: None,
            bins: [0; BINS],
            not_captured: Vec::new(),
            first,
        }
    }

    /// A number of this metric with its unit.
    pub fn with_unit(&self, value: Option<f64>) -> String {
        match (value, &self.metric.unit) {
            (None, _) => "—".into(),
            (Some(v), Some(unit)) => format!("{} {unit}", number(v)),
            (Some(v), None) => number(v),
        }
    }
}

/// Summaries of the rows in `list`'s view (after its filters), one per metric.
pub fn summarize(list: &ListState<ValueRow>) -> Vec<MetricSummary> {
    let mut at: HashMap<uuid::Uuid, usize> = HashMap::new();
    let mut out: Vec<MetricSummary> = Vec::new();
    let mut sums: Vec<f64> = Vec::new();
    for &i in &list.view {
        let row = &list.items[i];
        let k = *at.entry(row.metric.id).or_insert_with(|| {
            out.push(MetricSummary::new(row.metric.clone(), i));
            sums.push(0.0);
            out.len() - 1
        });
        let s = &mut out[k];
        s.rows += 1;
        s.first = s.first.min(i);
        match row.value.value {
            Some(v) if v.is_finite() => {
                s.values += 1;
                sums[k] += v;
                s.min = Some(s.min.map_or(v, |m| m.min(v)));
                s.max = Some(s.max.map_or(v, |m| m.max(v)));
            }
            _ => {
                let status = status_str(row);
                match s.not_captured.iter_mut().find(|(name, _)| name == status) {
                    Some((_, n)) => *n += 1,
                    None => s.not_captured.push((status.to_string(), 1)),
                }
            }
        }
    }
    for (s, sum) in out.iter_mut().zip(&sums) {
        if s.values > 0 {
            s.mean = Some(sum / s.values as f64);
        }
    }
    // A second pass, now that each metric's range is known.
    for &i in &list.view {
        let row = &list.items[i];
        let (Some(v), Some(&k)) = (row.value.value.filter(|v| v.is_finite()), at.get(&row.metric.id)) else {
            continue;
        };
        let s = &mut out[k];
        let (min, max) = (s.min.unwrap_or(v), s.max.unwrap_or(v));
        let bin = if max > min { (((v - min) / (max - min)) * BINS as f64) as usize } else { 0 };
        s.bins[bin.min(BINS - 1)] += 1;
    }
    out.sort_by_key(|s| s.first);
    out
}

/// A summary's number column (ROWS, MIN…), sorted by that number.
macro_rules! number_column {
    ($title:literal, $width:literal, $text:expr, $key:expr) => {
        Shown::plain(Column::new($title, fixed(Length($width)), $text).by(|a, b| by($key(a), $key(b))))
    };
}

/// Columns of the summary; a table narrower than `values::WIDE` leaves out what was not
/// captured.
pub const SUMMARY_COLUMNS: &[Shown<MetricSummary>] = &[
    Shown::plain(
        Column::new("METRIC", fixed(Fill(2)), |s: &MetricSummary| s.metric.name.clone())
            .by(|a, b| a.metric.name.to_lowercase().cmp(&b.metric.name.to_lowercase())),
    ),
    Shown::plain(
        Column::new("ROWS", fixed(Length(5)), |s: &MetricSummary| s.rows.to_string()).by(|a, b| a.rows.cmp(&b.rows)),
    ),
    Shown::plain(
        Column::new("VALUES", fixed(Length(6)), |s: &MetricSummary| s.values.to_string())
            .by(|a, b| a.values.cmp(&b.values)),
    ),
    number_column!("MEAN", 11, |s: &MetricSummary| s.with_unit(s.mean), |s: &MetricSummary| s.mean),
    number_column!("MIN", 9, |s: &MetricSummary| s.with_unit(s.min), |s: &MetricSummary| s.min),
    number_column!("MAX", 9, |s: &MetricSummary| s.with_unit(s.max), |s: &MetricSummary| s.max),
    // Sorted as the service ordered the metrics.
    Shown::plain(Column::new("DISTRIBUTION", fixed(Length(12)), histogram).by(|a, b| a.first.cmp(&b.first))),
    Shown::drawn(
        Column::new("NOT CAPTURED", fixed(Fill(2)), |s: &MetricSummary| {
            let missing: Vec<String> = s.not_captured.iter().map(|(status, n)| format!("{status} {n}")).collect();
            if missing.is_empty() { "—".into() } else { missing.join(" ") }
        })
        .by(|a, b| (a.rows - a.values).cmp(&(b.rows - b.values))),
        not_captured_cell,
    )
    .at_least(WIDE),
];

/// `▕ ▁█▄▏`: how the values spread, or `—` without any.
fn histogram(s: &MetricSummary) -> String {
    if s.values > 0 { format!("▕{}▏", sparkline(&s.bins)) } else { "—".into() }
}

/// The statuses of uncaptured rows as text, each in its colour.
fn not_captured_cell(s: &MetricSummary, cx: &Context<'_, ()>) -> Cell<'static> {
    let mut missing = Vec::new();
    for (status, n) in &s.not_captured {
        if !missing.is_empty() {
            missing.push(Span::raw(" "));
        }
        missing.push(Span::styled(format!("{status} {n}"), cx.theme.status(status)));
    }
    Cell::from(if missing.is_empty() { Line::raw("—") } else { Line::from(missing) })
}

/// What `/` would search in a summary row.
pub fn summary_haystack(s: &MetricSummary) -> String {
    s.metric.name.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::{CaptureStatus, MetricValue};
    use crate::console::widgets::list::Shape;
    use crate::console::widgets::values;

    fn row(metric: &Arc<MetricLabel>, value: Option<f64>, status: CaptureStatus) -> ValueRow {
        let value: MetricValue = serde_json::from_value(serde_json::json!({
            "captureStatus": status.as_str(), "value": value,
        }))
        .unwrap();
        ValueRow { metric: metric.clone(), value, index: 0 }
    }

    #[test]
    fn gauges_and_sparklines_fill_by_proportion() {
        assert_eq!(gauge(13, 14, 10), "█████████░");
        assert_eq!(gauge(0, 0, 4), "░░░░");
        assert_eq!(gauge(9, 3, 3), "███");
        assert_eq!(sparkline(&[0, 1, 8, 4]), " ▁█▄");
    }

    #[test]
    fn summary_follows_the_view_and_counts_what_was_not_captured() {
        let a = Arc::new(MetricLabel {
            id: uuid::Uuid::from_u128(1),
            name: "a".into(),
            unit: Some("s".into()),
            yes_no: false,
        });
        let b = Arc::new(MetricLabel { id: uuid::Uuid::from_u128(2), name: "b".into(), unit: None, yes_no: false });
        let items = vec![
            row(&a, Some(1.0), CaptureStatus::Success),
            row(&a, Some(3.0), CaptureStatus::Success),
            row(&a, None, CaptureStatus::Error),
            row(&b, Some(10.0), CaptureStatus::Success),
            row(&a, Some(8.0), CaptureStatus::Success),
        ];
        let mut list = ListState::new();
        let mut shape = Shape::columns(values::haystack, values::COLUMNS);
        list.sort = Some((4, true));
        list.replace(items, |r| format!("{:?}", r.value.value), &shape);
        let summary = summarize(&list);
        assert_eq!(summary.len(), 2);
        assert_eq!(summary[0].metric.name, "a", "metrics keep the service's order, not the sort's");
        assert_eq!((summary[0].rows, summary[0].values), (4, 3));
        assert_eq!((summary[0].mean, summary[0].min, summary[0].max), (Some(4.0), Some(1.0), Some(8.0)));
        assert_eq!(summary[0].bins.iter().sum::<u32>(), 3);
        assert_eq!((summary[0].bins[0], summary[0].bins[BINS - 1]), (1, 1));
        assert_eq!(summary[0].not_captured, vec![("ERROR".to_string(), 1)]);
        assert_eq!(summary[0].with_unit(summary[0].mean), "4 s");
        assert_eq!(summary[1].bins[0], 1, "a single value lands in the first bucket");
        shape.keep = Box::new(|r: &ValueRow| r.metric.name == "b");
        list.reshape(&shape);
        assert_eq!(summarize(&list).len(), 1);
    }
}
