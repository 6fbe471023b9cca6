//! The diff as a terminal shows it: both runs, the checks and metrics over the whole run, then
//! each test case × check that changed, worst first, with the judge's reasons and what differed.

use std::fmt::Write;

use super::{rate, short};
use crate::cli::output::{counted, table_of};
use crate::columns::diff as diff_columns;
use crate::compare::diff::{CaseChange, Side};
use crate::compare::{Change, Diff};

pub fn render(diff: &Diff, all: bool) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "base  {}", side(&diff.base));
    let _ = writeln!(text, "head  {}", side(&diff.head));
    let _ = writeln!(text, "{}\n", counts(diff));

    let _ = write!(text, "CHECKS OVER THE RUN\n{}\n", table_of(diff_columns::RUN_CHECKS, &diff.checks));
    if !diff.measures.is_empty() {
        let _ = write!(text, "METRICS OVER THE RUN\n{}\n", table_of(diff_columns::MEASURES, &diff.measures));
    }

    let rows = super::listed(diff, all);
    let unchanged = diff.counts.get(&Change::Unchanged).copied().unwrap_or(0);
    let _ = writeln!(text, "TEST CASES, WORST FIRST");
    text.push_str(&table_of(&diff_columns::case_checks(), &rows));
    if !all && unchanged > 0 {
        let _ = writeln!(text, "({unchanged} unchanged test case checks not shown; --all lists them)");
    }
    for case in diff.cases.iter().filter(|c| {
        matches!(c.change, Change::Regressed | Change::Unscored | Change::Flaky) || !c.differences.is_empty()
    }) {
        text.push_str(&detail(case));
    }
    text
}

fn side(side: &Side) -> String {
    let plan = side.plan_name.clone().unwrap_or_else(|| "(inline plan)".into());
    let started = side.started_at.as_ref().map(|t| t.0.clone()).unwrap_or_else(|| "—".into());
    let status = side.status.as_ref().map(|s| s.to_string()).unwrap_or_else(|| "—".into());
    let not_scored = match side.not_scored {
        0 => String::new(),
        n => format!(" ({n} not scored: they count for no check)"),
    };
    format!(
        "{} · {plan} · {status} · started {started} · {} in {}{not_scored}",
        side.run_plan_job_id,
        counted(side.simulations as u64, "simulation"),
        counted(side.test_cases as u64, "test case")
    )
}

/// `REGRESSED 1 · FLAKY 2 · …` over test case × checks, with the test and level.
pub fn counts(diff: &Diff) -> String {
    let order = [
        Change::Regressed,
        Change::Unscored,
        Change::Flaky,
        Change::Fixed,
        Change::New,
        Change::Gone,
        Change::Unchanged,
    ];
    let parts: Vec<String> =
        order.iter().map(|c| format!("{} {}", c.as_str(), diff.counts.get(c).copied().unwrap_or(0))).collect();
    format!(
        "{}  (test case × check; a regression is a one-sided Fisher exact test at p ≤ {})",
        parts.join(" · "),
        diff.alpha
    )
}

/// One test case's regressed or flaky checks with the head run's reasons, and what differed.
fn detail(case: &CaseChange) -> String {
    let mut text = format!("\n{} — {}\n", case.name, case.change.as_str());
    for check in case.checks.iter().filter(|c| matches!(c.change, Change::Regressed | Change::Unscored | Change::Flaky))
    {
        let _ = writeln!(text, "  {} {}: {} → {}", check.label(), check.name, rate(&check.base), rate(&check.head));
        for sim in case.head_simulations.iter().filter(|s| s.failed.contains(&check.metric_definition_id)).take(3) {
            let reason = sim.reasons.get(&check.metric_definition_id).map(|r| one_line(r)).unwrap_or_default();
            let call = sim.call_id.map(short).unwrap_or_default();
            let _ = writeln!(text, "    ✗ call {call}: {reason}");
        }
    }
    for difference in &case.differences {
        let _ = writeln!(text, "  differed: {}", difference.in_words());
    }
    text
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
