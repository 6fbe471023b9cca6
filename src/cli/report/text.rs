//! The verdict and the simulations as a terminal shows them (`job get`, `job watch`, `gate`).

use std::fmt::Write;

use crate::api::model::{SimulationJob, Verdict, percent};
use crate::cli::output::table_of;
use crate::columns::simulation::{self, Unscored};
use crate::columns::verdict as verdict_columns;

/// The checks against their bars and the failures in words.
pub fn verdict(verdict: Option<&Verdict>) -> String {
    let Some(verdict) = verdict else {
        return "VERDICT  none: nothing to judge (the plan has no checks; a missing verdict is never a pass)\n".into();
    };
    let mut text = String::new();
    let score = verdict.score.map(percent).unwrap_or_else(|| "—".into());
    let _ = writeln!(text, "VERDICT  {} · score {score}", if verdict.passed { "PASSED" } else { "FAILED" });
    if !verdict.checks.is_empty() {
        text.push_str(&table_of(verdict_columns::CLI, &verdict.checks));
    }
    for failure in &verdict.failures {
        let _ = writeln!(text, "  ✗ {}", failure.in_words());
    }
    text
}

/// Checks whose iterations disagreed, apart from plain failures.
pub fn flaky(checks: &[super::FlakyCheck]) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "FLAKY    iterations disagree (they still count against the verdict)
",
    );
    for check in checks {
        let _ = writeln!(text, "  ~ {}", check.in_words());
    }
    text
}

/// The simulations: outcome, status, test case and why it did not pass.
pub fn simulations(sims: &[SimulationJob]) -> String {
    format!("SIMULATIONS\n{}", table_of(simulation::CLI, sims))
}

/// The simulations that count for no check, with why: what "only N of M simulations were
/// scored" is about.
pub fn not_scored(sims: &[Unscored]) -> String {
    format!("NOT SCORED (they count for no check)\n{}", table_of(&simulation::not_scored(), sims))
}
