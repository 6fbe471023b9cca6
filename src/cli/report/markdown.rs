//! The Markdown report (`gate --markdown PATH`, and GitHub's step summary): the checks against
//! their bars, the failures in words, and the worst failing simulations with their reasons and
//! the turns around each failure.

use std::fmt::Write;

use super::StepResult;
use super::{GateReport, GateResult, case_name};
use crate::api::model::{TranscriptEntry, one_line, percent};
use crate::cli::markdown::{cell, table};
use crate::columns::simulation;
use crate::columns::verdict as verdict_columns;

/// How many failing simulations the report lists.
pub const WORST: usize = 10;

pub fn render(report: &GateReport) -> String {
    let mut md = String::new();
    let mark = match report.result {
        GateResult::Passed => "✅",
        GateResult::Failed => "❌",
        GateResult::TimedOut => "⏱️",
    };
    let plan = report.plan_name.as_deref().unwrap_or("inline plan");
    let _ = writeln!(md, "## {mark} {} · {}\n", report.result.as_str(), cell(plan));
    let status = report.job.status.as_ref().map(|s| s.to_string()).unwrap_or_else(|| "—".into());
    let score = report.score().map(percent).unwrap_or_else(|| "—".into());
    let _ = writeln!(
        md,
        "Run plan job `{}` · {status} · {} · score {score}\n",
        report.job.simulation_run_plan_job_id,
        crate::cli::output::counted(
            (report.job.simulation_jobs.len() as u64).max(report.job.simulation_job_count.unwrap_or(0)),
            "simulation"
        ),
    );
    if let Some(message) = &report.message {
        let _ = writeln!(md, "> {}\n", one_line(message));
    }
    let Some(verdict) = &report.verdict else {
        return md;
    };
    if let Some(bar) = report.min_pass_rate {
        let _ = writeln!(md, "Every check's bar raised to at least {} (`--min-pass-rate`).\n", percent(bar));
    }
    md.push_str(&table(verdict_columns::MARKDOWN, &verdict.checks));
    if !verdict.failures.is_empty() {
        md.push_str("\n**Failures**\n\n");
        for failure in &verdict.failures {
            let _ = writeln!(md, "- {}", failure.in_words());
        }
    }
    let flaky = super::flaky_checks(&report.job.simulation_jobs);
    if !flaky.is_empty() {
        md.push_str("\n**Flaky** (iterations disagree; they still count against the verdict)\n\n");
        for check in &flaky {
            let _ = writeln!(md, "- {}", cell(&check.in_words()));
        }
    }
    if !report.per_simulation() {
        md.push_str("\n_The service sent no per-simulation outcomes: this report uses the checks only._\n");
        return md;
    }
    let worst = report.worst(WORST);
    if !worst.is_empty() {
        let _ = write!(md, "\n### Worst failing simulations\n\n{}", table(simulation::WORST, worst.iter().copied()));
        for sim in worst {
            if let Some(entries) = report.transcripts.get(&sim.simulation_job_id) {
                md.push_str(&turns_around_failure(&case_name(sim), entries, &sim.why_not_passed()));
            }
            if let Some(steps) = report.steps.get(&sim.simulation_job_id) {
                md.push_str(&step_list(&case_name(sim), steps));
            }
        }
    }
    md.push_str(&not_scored(report));
    md
}

/// The simulations that count for no check, each with why (as the text summary's NOT SCORED).
fn not_scored(report: &GateReport) -> String {
    let sims = report.not_scored(WORST);
    if sims.is_empty() {
        return String::new();
    }
    format!("\n### Not scored (they count for no check)\n\n{}", table(&simulation::not_scored_markdown(), &sims))
}

/// How many turns before and after the moment a failure names are shown.
const TURNS_BEFORE: usize = 3;
const TURNS_AFTER: usize = 2;

/// The turns around a failing simulation's failure, folded: around the moment its reason names
/// ("… at 34.1 s"), else the call's last turns.
fn turns_around_failure(name: &str, entries: &[TranscriptEntry], why: &str) -> String {
    let moment = why
        .split(" at ")
        .skip(1)
        .find_map(|rest| rest.split(" s").next()?.trim().parse::<f64>().ok())
        .map(|seconds| (seconds * 1000.0) as i64);
    let at = match moment {
        Some(ms) => entries.iter().position(|e| e.start_offset_ms >= ms).unwrap_or(entries.len().saturating_sub(1)),
        None => entries.len().saturating_sub(1),
    };
    let from = at.saturating_sub(TURNS_BEFORE);
    let to = (at + TURNS_AFTER + 1).min(entries.len());
    let mut md = format!("\n<details><summary>{} — the turns around the failure</summary>\n\n", cell(name));
    for entry in &entries[from..to] {
        let who = super::speaker(entry);
        let seconds = entry.start_offset_ms as f64 / 1000.0;
        let _ = writeln!(md, "- `{seconds:.1} s` **{who}**: {}", cell(&entry.text));
    }
    md.push_str("\n</details>\n");
    md
}

/// A simulation's AGENT_TURN step results, folded: information beside the checks.
fn step_list(name: &str, steps: &[StepResult]) -> String {
    let mut md =
        format!("\n<details><summary>{} — the script's steps, judged after the call</summary>\n\n", cell(name));
    for step in steps {
        let _ = writeln!(md, "- {} {}", step.mark(), cell(&simulation::brief(&step.reasoning)));
    }
    md.push_str("\n</details>\n");
    md
}
