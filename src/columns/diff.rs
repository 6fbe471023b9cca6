//! A diff's columns (`switchboard diff`, as a table and in Markdown): the checks and metrics
//! over the whole run, and each test case × check. The test case table reads the run's check
//! columns from its own rows.

use super::{Column, Holds};
use crate::api::model::percent;
use crate::compare::diff::{CaseChange, CheckChange, MeasureChange, Rate, Spread};

/// A pass count for people: `67 % (2/3)`, or `—`.
pub fn rate(rate: &Rate) -> String {
    match rate.pass_rate {
        Some(r) => format!("{} ({}/{})", percent(r), rate.passed, rate.evaluated),
        None => "—".into(),
    }
}

/// A change in points: `−67 pts`.
pub fn delta(delta: Option<f64>) -> String {
    match delta {
        Some(d) if d.abs() < 0.05 => "±0".into(),
        Some(d) => format!("{}{:.0} pts", if d < 0.0 { "−" } else { "+" }, d.abs()),
        None => "".into(),
    }
}

/// A number with its unit, briefly.
pub fn number(value: f64, unit: Option<&str>) -> String {
    let text = if value.abs() >= 100.0 { format!("{value:.0}") } else { format!("{value:.2}") };
    match unit {
        Some(u) if !u.is_empty() => format!("{text} {u}"),
        _ => text,
    }
}

/// `mean / p50 / p95`.
pub fn spread(spread: Option<&Spread>, unit: Option<&str>) -> String {
    match spread {
        Some(s) => format!("{} / {} / {}", number(s.mean, None), number(s.p50, None), number(s.p95, unit)),
        None => "—".into(),
    }
}

pub const CHECK: Column<CheckChange> = Column::text("CHECK", |c: &CheckChange| c.name.clone());

pub const BASE: Column<CheckChange> = Column::text("BASE", |c: &CheckChange| rate(&c.base)).right();

pub const HEAD: Column<CheckChange> = Column::text("HEAD", |c: &CheckChange| rate(&c.head)).right();

pub const DELTA: Column<CheckChange> = Column::text("Δ", |c: &CheckChange| delta(c.delta)).right();

/// The change in words, with the judge caveat where it applies.
pub const CHANGE: Column<CheckChange> = Column::text("CHANGE", |c: &CheckChange| c.label());

/// CHECKS OVER THE RUN.
pub const RUN_CHECKS: &[Column<CheckChange>] = &[CHECK, BASE, HEAD, DELTA, CHANGE];

pub const METRIC: Column<MeasureChange> = Column::text("METRIC", |m: &MeasureChange| m.name.clone());

pub const BASE_SPREAD: Column<MeasureChange> =
    Column::text("BASE mean/p50/p95", |m: &MeasureChange| spread(m.base.as_ref(), m.unit.as_deref())).right();

pub const HEAD_SPREAD: Column<MeasureChange> =
    Column::text("HEAD mean/p50/p95", |m: &MeasureChange| spread(m.head.as_ref(), m.unit.as_deref())).right();

pub const DELTA_MEAN: Column<MeasureChange> =
    Column::text("Δ MEAN", |m: &MeasureChange| m.delta_mean.map(|d| number(d, m.unit.as_deref())).unwrap_or_default())
        .right();

pub const NOISE: Column<MeasureChange> =
    Column::text("", |m: &MeasureChange| if m.beyond_noise { "beyond noise" } else { "within noise" }.into());

/// METRICS OVER THE RUN.
pub const MEASURES: &[Column<MeasureChange>] = &[METRIC, BASE_SPREAD, HEAD_SPREAD, DELTA_MEAN, NOISE];

/// The metrics in Markdown, which says what the spread holds once, in the metric's title.
pub const MEASURES_MARKDOWN: &[Column<MeasureChange>] = &[
    METRIC.titled("METRIC (mean / p50 / p95)"),
    BASE_SPREAD.titled("BASE"),
    HEAD_SPREAD.titled("HEAD"),
    DELTA_MEAN,
    NOISE,
];

/// One check of one test case: a row of TEST CASES, WORST FIRST.
pub type CaseCheck<'a> = (&'a CaseChange, &'a CheckChange);

impl Holds<CheckChange> for CaseCheck<'_> {
    fn item(&self) -> &CheckChange {
        self.1
    }
}

/// TEST CASES, WORST FIRST: the run's check columns, read from each test case's checks (a
/// function, as rows that borrow have a lifetime a constant cannot name).
pub const fn case_checks<'a>() -> [Column<CaseCheck<'a>>; 6] {
    [
        crate::column_on!(CHANGE, CaseCheck<'a>),
        Column::text("TEST CASE", |(case, _): &CaseCheck<'a>| case.name.clone()),
        crate::column_on!(CHECK, CaseCheck<'a>),
        crate::column_on!(BASE, CaseCheck<'a>),
        crate::column_on!(HEAD, CaseCheck<'a>),
        crate::column_on!(DELTA, CaseCheck<'a>),
    ]
}

/// What differed between the runs' set-ups for the test case, in words (the terminal says it
/// under each test case instead).
pub const fn what_differed<'a>() -> Column<CaseCheck<'a>> {
    Column::text("WHAT DIFFERED", |(case, _): &CaseCheck<'a>| {
        case.differences.iter().map(|d| d.in_words()).collect::<Vec<_>>().join("; ")
    })
}
