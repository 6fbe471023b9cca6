//! Property tests of threshold aggregation invariants.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use proptest::prelude::*;
use switchboard::api::model::{AggregationMode, ThresholdOperator};
use switchboard::service::metrics::threshold::{aggregate, evaluate};

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.0e6f64..1.0e6, 1..200)
}

proptest! {
    #[test]
    fn aggregates_lie_between_min_and_max(values in values()) {
        let min = aggregate(&AggregationMode::Min, &values).unwrap();
        let max = aggregate(&AggregationMode::Max, &values).unwrap();
        for mode in [AggregationMode::Average, AggregationMode::Median, AggregationMode::P95, AggregationMode::P99] {
            let a = aggregate(&mode, &values).unwrap();
            prop_assert!(a >= min - 1e-6 && a <= max + 1e-6, "{mode} {a} outside [{min}, {max}]");
        }
    }

    #[test]
    fn percentiles_are_values_and_ordered(values in values()) {
        let median = aggregate(&AggregationMode::Median, &values).unwrap();
        let p95 = aggregate(&AggregationMode::P95, &values).unwrap();
        let p99 = aggregate(&AggregationMode::P99, &values).unwrap();
        prop_assert!(values.contains(&p95) && values.contains(&p99));
        prop_assert!(p95 <= p99);
        prop_assert!(median <= p99 + 1e-9);
    }

    #[test]
    fn order_does_not_matter(mut values in values(), seed in any::<u64>()) {
        let before: Vec<_> = [AggregationMode::Min, AggregationMode::Max, AggregationMode::Median, AggregationMode::P95]
            .iter().map(|m| aggregate(m, &values)).collect();
        let mut rng = fastrand::Rng::with_seed(seed);
        rng.shuffle(&mut values);
        let after: Vec<_> = [AggregationMode::Min, AggregationMode::Max, AggregationMode::Median, AggregationMode::P95]
            .iter().map(|m| aggregate(m, &values)).collect();
        prop_assert_eq!(before, after);
    }

    #[test]
    fn sum_is_average_times_count(values in values()) {
        let sum = aggregate(&AggregationMode::Sum, &values).unwrap();
        let average = aggregate(&AggregationMode::Average, &values).unwrap();
        prop_assert!((sum - average * values.len() as f64).abs() <= 1e-6 * sum.abs().max(1.0));
    }

    #[test]
    fn count_is_monotone_in_its_threshold(values in values(), target in -1.0e6f64..1.0e6, k in 0i64..250) {
        let fires = |k| evaluate(&AggregationMode::Count, &ThresholdOperator::GreaterThan, target, Some(k), &values).unwrap().fired;
        if fires(k + 1) { prop_assert!(fires(k)); }
        prop_assert!(fires(0));
    }

    #[test]
    fn each_agrees_with_min_and_max(values in values(), target in -1.0e6f64..1.0e6) {
        let each = evaluate(&AggregationMode::Each, &ThresholdOperator::GreaterThan, target, None, &values).unwrap().fired;
        let min = evaluate(&AggregationMode::Min, &ThresholdOperator::GreaterThan, target, None, &values).unwrap().fired;
        prop_assert_eq!(each, min);
        let each_lt = evaluate(&AggregationMode::Each, &ThresholdOperator::LessThan, target, None, &values).unwrap().fired;
        let max_lt = evaluate(&AggregationMode::Max, &ThresholdOperator::LessThan, target, None, &values).unwrap().fired;
        prop_assert_eq!(each_lt, max_lt);
    }
}
