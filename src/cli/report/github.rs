//! GitHub Actions: the Markdown report appended to `GITHUB_STEP_SUMMARY`, `verdict`, `pass-rate`
//! and `job-id` appended to `GITHUB_OUTPUT`, and each failure as an `::error::` annotation.

use std::io::Write;
use std::path::Path;

use super::{GateReport, markdown};
use crate::api::model::VerdictFailure;

/// Writes what GitHub reads, where its variables say; nothing outside a workflow.
pub fn publish(report: &GateReport) -> std::io::Result<()> {
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        append(Path::new(&path), &format!("{}\n", markdown::render(report)))?;
    }
    if let Some(path) = std::env::var_os("GITHUB_OUTPUT").filter(|p| !p.is_empty()) {
        append(Path::new(&path), &outputs(report))?;
    }
    Ok(())
}

/// `name=value` lines for `GITHUB_OUTPUT`.
pub fn outputs(report: &GateReport) -> String {
    let rate = report.score().map(|s| format!("{s:.1}")).unwrap_or_default();
    format!("verdict={}\npass-rate={rate}\njob-id={}\n", report.result.as_str(), report.job.simulation_run_plan_job_id)
}

/// One `::error::` line per failure (GitHub shows them on the run's page).
pub fn annotations(report: &GateReport) -> Vec<String> {
    let mut messages: Vec<String> = match &report.verdict {
        None => vec![super::NO_VERDICT.to_string()],
        Some(verdict) => verdict.failures.iter().map(VerdictFailure::in_words).collect(),
    };
    if messages.is_empty()
        && let Some(message) = &report.message
    {
        messages.push(message.clone());
    }
    messages.iter().map(|m| format!("::error title=switchboard gate::{}", escape(m))).collect()
}

/// GitHub's escaping of a workflow command's message.
fn escape(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(text.as_bytes())
}
