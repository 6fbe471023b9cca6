//! A run plan job's columns (`switchboard job list|get`, the console's jobs list).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed, or_dash};
use crate::api::model::{RunPlanJob, percent};

fn status(job: &RunPlanJob) -> String {
    or_dash(job.status.as_ref().map(|s| s.as_str()))
}

fn score(job: &RunPlanJob) -> Option<f64> {
    job.verdict.as_ref().and_then(|v| v.score)
}

/// The simulation jobs it counts: the service's count, or those it sent along.
pub fn sims(job: &RunPlanJob) -> Option<u64> {
    job.simulation_job_count.or((!job.simulation_jobs.is_empty()).then_some(job.simulation_jobs.len() as u64))
}

pub const ID: Column<RunPlanJob> = Column::text("ID", |j: &RunPlanJob| j.simulation_run_plan_job_id.to_string());

pub const STATUS: Column<RunPlanJob> = Column::new("STATUS", fit(6, 19), status).by(|a, b| status(a).cmp(&status(b)));

pub const VERDICT: Column<RunPlanJob> = Column::new("VERDICT", fit(7, 7), |j: &RunPlanJob| j.verdict_word().into())
    .by(|a, b| a.verdict_word().cmp(b.verdict_word()));

pub const SCORE: Column<RunPlanJob> =
    Column::new("SCORE", fit(5, 5), |j: &RunPlanJob| or_dash(score(j).map(percent))).by(|a, b| by(score(a), score(b)));

/// The plan by id (a job of an inline plan has none); the screens show the plan's name.
pub const PLAN: Column<RunPlanJob> = Column::new("PLAN", fixed(Fill(1)), |j: &RunPlanJob| {
    j.simulation_run_plan_id.map(|id| id.to_string()).unwrap_or_else(|| "(inline plan)".into())
})
.by(|a, b| by(a.simulation_run_plan_id, b.simulation_run_plan_id));

pub const SIMS: Column<RunPlanJob> = Column::new("SIMS", fixed(Length(5)), |j: &RunPlanJob| {
    j.simulation_job_count.unwrap_or(j.simulation_jobs.len() as u64).to_string()
})
.by(|a, b| by(sims(a), sims(b)));

pub const CREATED: Column<RunPlanJob> =
    Column::new("CREATED", fixed(Length(19)), |j: &RunPlanJob| or_dash(j.created_at.as_ref()))
        .by(|a, b| by(a.created_at.as_ref(), b.created_at.as_ref()));

pub const STARTED: Column<RunPlanJob> = Column::text("STARTED", |j: &RunPlanJob| or_dash(j.started_at.as_ref()));

pub const ENDED: Column<RunPlanJob> = Column::text("ENDED", |j: &RunPlanJob| or_dash(j.ended_at.as_ref()));

pub const ERROR: Column<RunPlanJob> = Column::text("ERROR", |j: &RunPlanJob| or_dash(j.error_message.as_ref()));

/// How long a job ran (to now while it runs).
pub fn took_ms(job: &RunPlanJob, now: jiff::Timestamp) -> Option<i64> {
    let start = job.started_at.as_ref().or(job.created_at.as_ref())?.parse()?;
    let end = job.ended_at.as_ref().and_then(|t| t.parse()).unwrap_or(now);
    Some((end.as_millisecond() - start.as_millisecond()).max(0))
}

/// How long it ran (to now while it runs), in seconds as `call get` prints a duration.
pub const TOOK: Column<RunPlanJob> = Column::new("TOOK", fixed(Length(7)), |j: &RunPlanJob| {
    or_dash(took_ms(j, jiff::Timestamp::now()).map(|ms| format!("{:.1}s", ms as f64 / 1000.0)))
})
.by(|a, b| by(took_ms(a, jiff::Timestamp::MAX), took_ms(b, jiff::Timestamp::MAX)));

/// One job in full (`job get`).
pub const DETAIL: &[Column<RunPlanJob>] =
    &[ID, STATUS, VERDICT, SCORE, PLAN.titled("PLAN ID"), SIMS, CREATED, STARTED, ENDED, ERROR];
