//! The JSON report (`gate --json PATH`, and `gate --output json` on stdout): the run's verdict
//! in the hosted shape plus each simulation's outcome and failed checks. Documented in
//! `docs/cli.md`; members are only ever added.

use serde::Serialize;
use uuid::Uuid;

use super::{GateReport, GateResult, StepResult, UnscoredCheck, case_name};
use crate::api::model::{
    FailedCheck, Invalidation, JudgedCheck, ParticipantType, RunPlanJobStatus, SimulationJobStatus, SimulationOutcome,
    Verdict,
};

/// Bumped only if a member changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report<'a> {
    pub schema_version: u32,
    pub result: GateResult,
    pub message: Option<&'a str>,
    pub run_plan_job_id: Uuid,
    pub run_plan_id: Option<Uuid>,
    pub plan_name: Option<&'a str>,
    pub status: Option<&'a RunPlanJobStatus>,
    /// `--min-pass-rate`, when given.
    pub min_pass_rate: Option<f64>,
    /// The verdict judged (each bar raised to `minPassRate` when given); null when the run
    /// had nothing to judge.
    pub verdict: Option<&'a Verdict>,
    /// The service's verdict as sent, present only when `minPassRate` changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_verdict: Option<&'a Verdict>,
    /// Whether the service sent per-simulation outcomes (the hosted service does not).
    pub per_simulation_detail: bool,
    /// Checks whose iterations disagreed on a test case, kept apart from plain failures
    /// (they still count against the verdict).
    pub flaky_checks: Vec<super::FlakyCheck>,
    pub simulations: Vec<Simulation<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation<'a> {
    pub simulation_job_id: Uuid,
    /// Flow · variant · persona · #iteration.
    pub name: String,
    pub call_id: Option<Uuid>,
    pub status: Option<&'a SimulationJobStatus>,
    pub outcome: Option<&'a SimulationOutcome>,
    pub failed_checks: &'a [FailedCheck],
    pub invalidation: Option<&'a Invalidation>,
    pub error_message: Option<&'a str>,
    /// The conversation, as the interface's transcripts have it (left out with
    /// `--no-transcripts`, and for a simulation that made no call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<Turn<'a>>>,
    /// What each AGENT_TURN step the caller reached came to, judged after the call: information
    /// beside the checks (the local service's `step_expectations`; left out with
    /// `--no-transcripts` and where the service judges no steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<&'a [StepResult]>,
    /// The checks with no value on its call, with the judge's words: the local service's own
    /// list (on a NOT_EVALUATED simulation, or one FAILED on another check), else read from
    /// the call's values on a NOT_EVALUATED one the service gave no reason for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unscored_checks: Option<&'a [UnscoredCheck]>,
    /// Beside `unscoredChecks`: every check that had a value on the call, and whether it passed.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub judged_checks: &'a [JudgedCheck],
}

/// One turn of a transcript: who spoke, what, and when on the call's clock.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn<'a> {
    pub role: Option<&'a ParticipantType>,
    pub text: &'a str,
    pub start_offset_ms: i64,
    pub end_offset_ms: i64,
}

impl<'a> Report<'a> {
    pub fn of(report: &'a GateReport) -> Report<'a> {
        let job = &report.job;
        Report {
            schema_version: SCHEMA_VERSION,
            result: report.result,
            message: report.message.as_deref(),
            run_plan_job_id: job.simulation_run_plan_job_id,
            run_plan_id: job.simulation_run_plan_id,
            plan_name: report.plan_name.as_deref(),
            status: job.status.as_ref(),
            min_pass_rate: report.min_pass_rate,
            verdict: report.verdict.as_ref(),
            service_verdict: report.service_verdict.as_ref(),
            per_simulation_detail: report.per_simulation(),
            flaky_checks: super::flaky_checks(&job.simulation_jobs),
            simulations: job
                .simulation_jobs
                .iter()
                .map(|sim| Simulation {
                    simulation_job_id: sim.simulation_job_id,
                    name: case_name(sim),
                    call_id: sim.call_id,
                    status: sim.status.as_ref(),
                    outcome: sim.outcome.as_ref(),
                    failed_checks: &sim.failed_checks,
                    invalidation: sim.invalidation.as_ref(),
                    error_message: sim.error_message.as_deref(),
                    transcript: report.transcripts.get(&sim.simulation_job_id).map(|entries| {
                        entries
                            .iter()
                            .map(|e| Turn {
                                role: e.role.as_ref(),
                                text: &e.text,
                                start_offset_ms: e.start_offset_ms,
                                end_offset_ms: e.end_offset_ms,
                            })
                            .collect()
                    }),
                    steps: report.steps.get(&sim.simulation_job_id).map(Vec::as_slice),
                    unscored_checks: report.unscored.get(&sim.simulation_job_id).map(Vec::as_slice),
                    judged_checks: &sim.judged_checks,
                })
                .collect(),
        }
    }
}

pub fn render(report: &GateReport) -> Result<String, serde_json::Error> {
    Ok(format!("{}\n", serde_json::to_string_pretty(&Report::of(report))?))
}
