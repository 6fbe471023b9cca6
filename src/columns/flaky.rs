//! A check's stability over a plan's runs (`switchboard flaky`, the console's flaky view).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed};
use crate::compare::flaky::Stability;

/// Least steady first; the CLI lists them in the report's order.
pub const STABILITY: Column<Stability> = Column::new("STABILITY", fit(9, 9), |s: &Stability| {
    s.stability.map(|v| format!("{:.0} %", v * 100.0)).unwrap_or_else(|| "—".into())
})
.by(|a, b| by(a.stability, b.stability));

pub const TEST_CASE: Column<Stability> = Column::new("TEST CASE", fixed(Fill(2)), |s: &Stability| s.test_case.clone())
    .by(|a, b| a.test_case.cmp(&b.test_case));

pub const CHECK: Column<Stability> = Column::new("CHECK", fixed(Fill(1)), |s: &Stability| s.metric_name.clone())
    .by(|a, b| a.metric_name.cmp(&b.metric_name));

/// `1 of 2`: flips between runs of all the neighbouring pairs; most first.
pub const FLIPS: Column<Stability> =
    Column::new("FLIPS", fixed(Length(7)), |s: &Stability| format!("{} of {}", s.flips, s.comparisons))
        .by(|a, b| b.flips.cmp(&a.flips));

/// `1 of 3`: runs whose iterations disagreed; most first.
pub const MIXED_RUNS: Column<Stability> =
    Column::new("MIXED RUNS", fixed(Length(10)), |s: &Stability| format!("{} of {}", s.mixed_runs, s.runs))
        .by(|a, b| b.mixed_runs.cmp(&a.mixed_runs));

/// Each run's pass count, oldest first (`·` where the run did not evaluate it); sorted as
/// STABILITY.
pub const HISTORY: Column<Stability> = Column::new("HISTORY", fit(7, 60), |s: &Stability| {
    let runs: Vec<String> = s
        .history
        .iter()
        .map(|r| r.map(|r| format!("{}/{}", r.passed, r.evaluated)).unwrap_or_else(|| "·".into()))
        .collect();
    runs.join(" ")
})
.by(|a, b| by(a.stability, b.stability));

/// What `switchboard flaky` prints.
pub const CLI: &[Column<Stability>] = &[STABILITY, TEST_CASE, CHECK, FLIPS, MIXED_RUNS, HISTORY];
