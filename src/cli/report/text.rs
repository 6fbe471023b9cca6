//! The verdict and the simulations as a terminal shows them (`job get`, `job watch`, `gate`).

use std::fmt::Write;

use super::case_name;
use crate::api::model::{SimulationJob, Verdict, percent, percent_against};
use crate::cli::output::table;
use crate::columns::{self, simulation};

/// The checks against their bars and the failures in words.
pub fn verdict(verdict: Option<&Verdict>) -> String {
    let Some(verdict) = verdict else {
        return "VERDICT  none: nothing to judge (the plan has no checks; a missing verdict is never a pass)\n".into();
    };
    let mut text = String::new();
    let score = verdict.score.map(percent).unwrap_or_else(|| "—".into());
    let _ = writeln!(text, "VERDICT  {} · score {score}", if verdict.passed { "PASSED" } else { "FAILED" });
    let rows = verdict
        .checks
        .iter()
        .map(|c| {
            let rate = match c.pass_rate {
                Some(rate) => {
                    format!("{} ({}/{})", percent_against(rate, c.min_pass_rate), c.passed_sims, c.evaluated_sims)
                }
                None => "not evaluated".into(),
            };
            let bar =
                if c.inherited { format!("{} (default)", percent(c.min_pass_rate)) } else { percent(c.min_pass_rate) };
            vec![c.name(), rate, bar, if c.passed { "pass".into() } else { "FAIL".into() }]
        })
        .collect();
    if !verdict.checks.is_empty() {
        text.push_str(&table(&["CHECK", "PASS RATE", "REQUIRED", ""], rows));
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
    let rows = sims.iter().map(|s| columns::row(simulation::CLI, s)).collect();
    format!("SIMULATIONS\n{}", table(&columns::titles(simulation::CLI), rows))
}

/// The simulations that count for no check, with why: what "only N of M simulations were
/// scored" is about.
pub fn not_scored(sims: &[(&SimulationJob, String)]) -> String {
    let rows = sims.iter().map(|(s, why)| vec![case_name(s), why.clone(), s.simulation_job_id.to_string()]).collect();
    format!("NOT SCORED (they count for no check)\n{}", table(&["TEST CASE", "WHY", "ID"], rows))
}
