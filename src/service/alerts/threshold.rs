//! The threshold trigger's rules on typed values, with no store and no clock: windows aligned
//! to multiples of `windowMinutes` since the Unix epoch, a window's value, whether it breaches,
//! and what a decided window does to its group's run of consecutive windows.

use serde::{Deserialize, Serialize};

use crate::api::model::config::{AlertAggregation, AlertGrouping, AlertOperator, AlertTriggerConfig, AlertTriggerType};

/// A threshold trigger as the engine reads it: every member known and defaulted.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub aggregation: Aggregation,
    pub operator: Operator,
    pub threshold: f64,
    /// The metric's `name` (slug).
    pub metric: String,
    /// The metric's variant (`metricVariant`: a workspace fork's name or id); `None` or
    /// `Default` is the metric itself.
    pub variant: Option<String>,
    pub window_ms: i64,
    pub min_samples: u64,
    pub open_after: u32,
    pub resolve_after: u32,
    pub by_agent: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    Count,
    RatePerMinute,
    Mean,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Operator {
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Operator::Gt => value > threshold,
            Operator::Gte => value >= threshold,
            Operator::Lt => value < threshold,
            Operator::Lte => value <= threshold,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Operator::Gt => ">",
            Operator::Gte => "≥",
            Operator::Lt => "<",
            Operator::Lte => "≤",
        }
    }
}

impl Aggregation {
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregation::Count => "COUNT",
            Aggregation::RatePerMinute => "RATE_PER_MINUTE",
            Aggregation::Mean => "MEAN",
        }
    }
}

impl Threshold {
    /// The trigger as the engine reads it; `None` when it is not a threshold trigger, or names
    /// a value this build does not know (`config apply` refuses those, so only an older
    /// store's record can).
    pub fn of(trigger: &AlertTriggerConfig) -> Option<Threshold> {
        if trigger.trigger_type != Some(AlertTriggerType::Threshold) {
            return None;
        }
        let aggregation = match trigger.aggregation.as_ref()? {
            AlertAggregation::Count => Aggregation::Count,
            AlertAggregation::RatePerMinute => Aggregation::RatePerMinute,
            AlertAggregation::Mean => Aggregation::Mean,
            AlertAggregation::Unknown(_) => return None,
        };
        let operator = match trigger.operator.as_ref()? {
            AlertOperator::Gt => Operator::Gt,
            AlertOperator::Gte => Operator::Gte,
            AlertOperator::Lt => Operator::Lt,
            AlertOperator::Lte => Operator::Lte,
            AlertOperator::Unknown(_) => return None,
        };
        let by_agent = match trigger.grouping.as_ref() {
            None | Some(AlertGrouping::None) => false,
            Some(AlertGrouping::ByAgent) => true,
            Some(AlertGrouping::Unknown(_)) => return None,
        };
        let minutes = trigger.window_minutes.filter(|m| *m >= 1)?;
        let count = |n: Option<i64>| n.unwrap_or(1).clamp(1, i64::from(u32::MAX)) as u32;
        Some(Threshold {
            aggregation,
            operator,
            threshold: trigger.threshold_value?,
            metric: trigger.metric.clone()?,
            variant: trigger.metric_variant.clone().filter(|v| !v.eq_ignore_ascii_case("default")),
            window_ms: minutes * 60_000,
            min_samples: trigger.min_sample_size.unwrap_or(1).max(1) as u64,
            open_after: count(trigger.consecutive_open),
            resolve_after: count(trigger.consecutive_resolve),
            by_agent,
        })
    }

    /// The start of the window holding an instant (unix ms).
    pub fn window_of(&self, at_ms: i64) -> i64 {
        at_ms.div_euclid(self.window_ms) * self.window_ms
    }

    /// A window's value over its samples, or `None` when it has fewer than `minSampleSize`
    /// (a window with no calls has none): such a window decides nothing.
    pub fn measure(&self, samples: &[f64]) -> Option<f64> {
        let n = samples.len() as u64;
        if n < self.min_samples {
            return None;
        }
        let minutes = self.window_ms as f64 / 60_000.0;
        Some(match self.aggregation {
            Aggregation::Count => counted(samples),
            Aggregation::RatePerMinute => counted(samples) / minutes,
            Aggregation::Mean => samples.iter().sum::<f64>() / n as f64,
        })
    }

    pub fn breaches(&self, value: f64) -> bool {
        self.operator.holds(value, self.threshold)
    }

    /// Whether one call's value is part of a breach, so it is the issue's evidence: a counted
    /// value for COUNT and RATE_PER_MINUTE, a value on the wrong side of the threshold for MEAN.
    pub fn implicates(&self, value: f64) -> bool {
        match self.aggregation {
            Aggregation::Count | Aggregation::RatePerMinute => is_counted(value),
            Aggregation::Mean => self.breaches(value),
        }
    }
}

/// COUNT counts the values that hold: true (1) for a boolean metric, any non-zero number.
fn counted(samples: &[f64]) -> f64 {
    samples.iter().filter(|v| is_counted(**v)).count() as f64
}

fn is_counted(value: f64) -> bool {
    value != 0.0 && !value.is_nan()
}

/// A group's run of decided windows, kept between windows (for a simulation trigger, its runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Run {
    /// Consecutive breaching windows so far.
    pub breaching: u32,
    /// Consecutive clean windows so far.
    pub clean: u32,
    /// The issue this run opened, while it is open.
    pub issue_id: Option<uuid::Uuid>,
    /// The last decided window that counted (unix ms), and its value.
    pub last_window_ms: Option<i64>,
    pub last_value: Option<f64>,
}

/// What a decided window does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Below `minSampleSize`: nothing counts, nothing breaks.
    Skipped,
    /// A breaching window short of `consecutiveOpen`.
    Breaching,
    /// The window that completes `consecutiveOpen`: open an issue.
    Open,
    /// A breaching window while the issue is open: evidence, `eventCount`, `lastEventAt`.
    Extend,
    /// A clean window short of resolving (or with nothing open).
    Clean,
    /// The window that completes `consecutiveResolve`: resolve the issue.
    Resolve,
}

/// What a window measured `value` (`None`: too few samples) does to `run`.
pub fn step(threshold: &Threshold, run: &Run, window_ms: i64, value: Option<f64>) -> (Run, Step) {
    let Some(value) = value else { return (run.clone(), Step::Skipped) };
    let mut next = Run { last_window_ms: Some(window_ms), last_value: Some(value), ..run.clone() };
    let open = run.issue_id.is_some();
    if threshold.breaches(value) {
        next.breaching += 1;
        next.clean = 0;
        let step = match open {
            true => Step::Extend,
            false if next.breaching >= threshold.open_after => Step::Open,
            false => Step::Breaching,
        };
        (next, step)
    } else {
        next.clean += 1;
        next.breaching = 0;
        let step = if open && next.clean >= threshold.resolve_after { Step::Resolve } else { Step::Clean };
        (next, step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_above(threshold: f64, open_after: u32, resolve_after: u32, min_samples: u64) -> Threshold {
        Threshold {
            aggregation: Aggregation::Mean,
            operator: Operator::Gt,
            threshold,
            metric: "m".into(),
            window_ms: 300_000,
            min_samples,
            open_after,
            resolve_after,
            by_agent: false,
            variant: None,
        }
    }

    /// Walks windows of values through `step`, the issue opened on Open and closed on Resolve.
    fn walk(t: &Threshold, windows: &[&[f64]]) -> Vec<Step> {
        let mut run = Run::default();
        let mut steps = Vec::new();
        for (i, samples) in windows.iter().enumerate() {
            let (mut next, step) = step(t, &run, i as i64 * t.window_ms, t.measure(samples));
            match step {
                Step::Open => next.issue_id = Some(uuid::Uuid::nil()),
                Step::Resolve => next.issue_id = None,
                _ => {}
            }
            run = next;
            steps.push(step);
        }
        steps
    }

    #[test]
    fn windows_align_to_the_epoch_by_start_time() {
        let t = mean_above(1.0, 1, 1, 1);
        assert_eq!(t.window_of(299_999), 0);
        assert_eq!(t.window_of(300_000), 300_000);
        assert_eq!(t.window_of(-1), -300_000);
    }

    #[test]
    fn opens_after_exactly_consecutive_open_and_resolves_after_consecutive_resolve() {
        use Step::*;
        let t = mean_above(10.0, 3, 2, 1);
        let steps = walk(&t, &[&[11.0], &[12.0], &[5.0], &[11.0], &[11.0], &[11.0], &[12.0], &[1.0], &[1.0], &[1.0]]);
        assert_eq!(steps, [Breaching, Breaching, Clean, Breaching, Breaching, Open, Extend, Clean, Resolve, Clean]);
    }

    #[test]
    fn a_window_below_min_sample_size_neither_counts_nor_breaks_a_run() {
        use Step::*;
        let t = mean_above(10.0, 2, 1, 2);
        let steps = walk(&t, &[&[20.0, 20.0], &[20.0], &[], &[30.0, 40.0]]);
        assert_eq!(steps, [Breaching, Skipped, Skipped, Open]);
    }

    #[test]
    fn count_counts_values_that_hold_and_rate_divides_by_the_minutes() {
        let mut t = mean_above(1.0, 1, 1, 1);
        t.aggregation = Aggregation::Count;
        assert_eq!(t.measure(&[1.0, 0.0, 1.0, 3.0]), Some(3.0));
        t.aggregation = Aggregation::RatePerMinute;
        assert_eq!(t.measure(&[1.0, 0.0, 1.0, 3.0]), Some(0.6));
        t.aggregation = Aggregation::Mean;
        assert_eq!(t.measure(&[1.0, 3.0]), Some(2.0));
        assert!(t.implicates(3.0) && !t.implicates(1.0));
    }

    #[test]
    fn the_trigger_is_read_with_its_defaults() {
        let trigger = AlertTriggerConfig {
            trigger_type: Some(AlertTriggerType::Threshold),
            aggregation: Some(AlertAggregation::Mean),
            metric: Some("call_duration".into()),
            operator: Some(AlertOperator::Lte),
            threshold_value: Some(2.5),
            window_minutes: Some(5),
            ..Default::default()
        };
        let t = Threshold::of(&trigger).expect("a threshold trigger");
        assert_eq!((t.window_ms, t.min_samples, t.open_after, t.resolve_after, t.by_agent), (300_000, 1, 1, 1, false));
        let event = AlertTriggerConfig { trigger_type: Some(AlertTriggerType::Event), ..trigger };
        assert_eq!(Threshold::of(&event), None);
    }
}
