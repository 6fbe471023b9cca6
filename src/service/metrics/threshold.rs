//! Thresholds: compare a source metric's values with an operator, after aggregating them
//! (EACH compares every value; COUNT counts the values that meet the comparison).

use crate::api::model::{AggregationMode, ThresholdOperator};

/// Whether `value` meets `operator` against `target`.
pub fn compare(operator: &ThresholdOperator, value: f64, target: f64) -> Option<bool> {
    Some(match operator {
        ThresholdOperator::GreaterThan => value > target,
        ThresholdOperator::GreaterThanOrEquals => value >= target,
        ThresholdOperator::LessThan => value < target,
        ThresholdOperator::LessThanOrEquals => value <= target,
        ThresholdOperator::Equals => (value - target).abs() < f64::EPSILON * target.abs().max(1.0),
        ThresholdOperator::NotEquals => (value - target).abs() >= f64::EPSILON * target.abs().max(1.0),
        ThresholdOperator::Unknown(_) => return None,
    })
}

/// Nearest-rank percentile (`p` in 0..=100) of values sorted ascending.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted.get(rank.min(sorted.len()) - 1).copied()
}

/// One number from many, as the aggregation mode says; None for EACH and COUNT (which
/// compare values one by one) and for no values.
pub fn aggregate(mode: &AggregationMode, values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match mode {
        AggregationMode::Average => Some(values.iter().sum::<f64>() / values.len() as f64),
        AggregationMode::Sum => Some(values.iter().sum()),
        AggregationMode::Min => sorted.first().copied(),
        AggregationMode::Max => sorted.last().copied(),
        AggregationMode::Median => {
            let mid = sorted.len() / 2;
            Some(if sorted.len().is_multiple_of(2) { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] })
        }
        AggregationMode::P95 => nearest_rank(&sorted, 95.0),
        AggregationMode::P99 => nearest_rank(&sorted, 99.0),
        AggregationMode::Each | AggregationMode::Count | AggregationMode::Unknown(_) => None,
    }
}

/// The outcome of a threshold over a conversation's source values.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub fired: bool,
    /// What was compared, for the value's reasoning.
    pub explanation: String,
}

/// Evaluates a threshold; None when there is nothing to compare (no values, or an operator
/// or mode this build does not know).
pub fn evaluate(
    mode: &AggregationMode,
    operator: &ThresholdOperator,
    target: f64,
    count_threshold: Option<i64>,
    values: &[f64],
) -> Option<Outcome> {
    if values.is_empty() {
        return None;
    }
    let op = operator.as_str();
    match mode {
        AggregationMode::Each => {
            let meeting = values.iter().filter(|v| compare(operator, **v, target) == Some(true)).count();
            compare(operator, 0.0, 0.0)?;
            Some(Outcome {
                fired: meeting == values.len(),
                explanation: format!("{meeting} of {} values are {op} {target}", values.len()),
            })
        }
        AggregationMode::Count => {
            let needed = count_threshold?.max(0) as usize;
            let meeting = values.iter().filter(|v| compare(operator, **v, target) == Some(true)).count();
            compare(operator, 0.0, 0.0)?;
            Some(Outcome {
                fired: meeting >= needed,
                explanation: format!("{meeting} values are {op} {target}; the threshold fires at {needed}"),
            })
        }
        other => {
            let aggregated = aggregate(other, values)?;
            let fired = compare(operator, aggregated, target)?;
            Some(Outcome {
                fired,
                explanation: format!(
                    "{} of {} values is {aggregated:.2}, {op} {target}: {fired}",
                    other.as_str(),
                    values.len()
                ),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AggregationMode as A;
    use ThresholdOperator as O;

    #[test]
    fn every_operator() {
        let cases = [
            (O::GreaterThan, 2.0, 1.0, true),
            (O::GreaterThan, 1.0, 1.0, false),
            (O::GreaterThanOrEquals, 1.0, 1.0, true),
            (O::GreaterThanOrEquals, 0.5, 1.0, false),
            (O::LessThan, 0.5, 1.0, true),
            (O::LessThan, 1.0, 1.0, false),
            (O::LessThanOrEquals, 1.0, 1.0, true),
            (O::LessThanOrEquals, 1.5, 1.0, false),
            (O::Equals, 3.0, 3.0, true),
            (O::Equals, 3.0, 3.1, false),
            (O::NotEquals, 3.0, 3.1, true),
            (O::NotEquals, 3.0, 3.0, false),
        ];
        for (op, value, target, want) in cases {
            assert_eq!(compare(&op, value, target), Some(want), "{op} {value} {target}");
        }
        assert_eq!(compare(&O::Unknown("ROUGHLY".into()), 1.0, 1.0), None);
    }

    #[test]
    fn every_aggregation_mode() {
        let values = [4.0, 1.0, 3.0, 2.0, 10.0];
        let cases = [
            (A::Average, Some(4.0)),
            (A::Sum, Some(20.0)),
            (A::Min, Some(1.0)),
            (A::Max, Some(10.0)),
            (A::Median, Some(3.0)),
            (A::P95, Some(10.0)),
            (A::P99, Some(10.0)),
            (A::Each, None),
            (A::Count, None),
        ];
        for (mode, want) in cases {
            assert_eq!(aggregate(&mode, &values), want, "{mode}");
        }
        assert_eq!(aggregate(&A::Median, &[1.0, 2.0, 3.0, 4.0]), Some(2.5));
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(aggregate(&A::P95, &hundred), Some(95.0), "nearest rank");
        assert_eq!(aggregate(&A::P99, &hundred), Some(99.0));
        assert_eq!(aggregate(&A::Average, &[]), None);
    }

    #[test]
    fn each_fires_only_when_every_value_meets() {
        assert!(evaluate(&A::Each, &O::GreaterThan, 800.0, None, &[900.0, 1200.0]).unwrap().fired);
        assert!(!evaluate(&A::Each, &O::GreaterThan, 800.0, None, &[900.0, 700.0]).unwrap().fired);
    }

    #[test]
    fn count_fires_when_enough_values_meet() {
        let values = [900.0, 700.0, 1500.0];
        assert!(evaluate(&A::Count, &O::GreaterThan, 800.0, Some(2), &values).unwrap().fired);
        assert!(!evaluate(&A::Count, &O::GreaterThan, 800.0, Some(3), &values).unwrap().fired);
        assert!(evaluate(&A::Count, &O::GreaterThan, 800.0, Some(0), &values).unwrap().fired);
        assert_eq!(evaluate(&A::Count, &O::GreaterThan, 800.0, None, &values), None);
    }

    #[test]
    fn aggregated_modes_compare_the_aggregate() {
        let outcome = evaluate(&A::Average, &O::LessThan, 5.0, None, &[4.0, 5.0]).unwrap();
        assert!(outcome.fired);
        assert!(outcome.explanation.contains("AVERAGE"));
        assert!(!evaluate(&A::Max, &O::LessThan, 5.0, None, &[4.0, 5.0]).unwrap().fired);
        assert_eq!(evaluate(&A::Max, &O::LessThan, 5.0, None, &[]), None);
    }
}
