//! `switchboard job list [--plan PLAN] [--status S] | get JOB | watch JOB | cancel JOB`.

use std::collections::HashMap;

use clap::Subcommand;
use serde::Serialize;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::listing::{self, ListArgs};
use super::output::{self, Format, Tabular};
use super::plan;
use super::report::text;
use super::session::Session;
use super::signals::Signals;
use super::watch::{self, Watched};
use crate::api::model::RunPlanJob;
use crate::api::{Client, ListQuery, routes};
use crate::columns::{Column, Holds, job};

#[derive(Debug, Subcommand)]
pub enum JobCommand {
    /// List run plan jobs, newest first, with their verdicts.
    List {
        /// Only the jobs of this plan (id or exact name).
        #[arg(long)]
        plan: Option<String>,
        /// Only jobs in this status (PENDING, RUNNING_SIMULATIONS, COMPLETED, FAILED, CANCELLED, …).
        #[arg(long)]
        status: Option<String>,
        #[command(flatten)]
        list: ListArgs,
    },
    /// Show a job: its verdict, checks and simulations.
    Get {
        /// The job's id, as `job list` prints it.
        #[arg(value_parser = super::ids::job)]
        job: Uuid,
    },
    /// Follow a job until it ends (a progress bar on a terminal, a line per change when piped), then show its verdict.
    Watch {
        /// The job's id, as `job list` prints it.
        #[arg(value_parser = super::ids::job)]
        job: Uuid,
    },
    /// Cancel a running job: simulations not yet started are cancelled, ones mid-call finish.
    Cancel {
        /// The job's id, as `job list` prints it.
        #[arg(value_parser = super::ids::job)]
        job: Uuid,
    },
}

/// A job as listed, with its plan's name (the JSON is the job alone, as the service sent it).
struct Listed<'a> {
    job: &'a RunPlanJob,
    plan: Option<&'a str>,
}

impl Serialize for Listed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.job.serialize(serializer)
    }
}

impl Holds<RunPlanJob> for Listed<'_> {
    fn item(&self) -> &RunPlanJob {
        self.job
    }
}

impl Tabular for Listed<'_> {
    fn columns() -> Vec<Column<Self>> {
        vec![
            crate::column_on!(job::ID, Self),
            crate::column_on!(job::STATUS, Self),
            crate::column_on!(job::VERDICT, Self),
            crate::column_on!(job::SCORE, Self),
            // The plan's name where it was read (the console's PLAN says it too), else its id.
            Column::text(job::PLAN.title, |l: &Listed| {
                l.plan.map(str::to_string).unwrap_or_else(|| (job::PLAN.text)(l.job))
            }),
            crate::column_on!(job::SIMS, Self),
            crate::column_on!(job::CREATED, Self),
        ]
    }
}

impl Tabular for RunPlanJob {
    fn columns() -> Vec<Column<Self>> {
        job::DETAIL.to_vec()
    }
}

/// A job with its verdict and simulations, in `format`.
pub fn print_job(format: Format, job: &RunPlanJob) -> Result<(), Failure> {
    output::item_with(format, job, sections)
}

/// The verdict and simulations under a job's lines; a job still running has no verdict yet,
/// so its checks are not shown as failed.
fn sections(job: &RunPlanJob) -> Vec<String> {
    let verdict = match job.has_ended() {
        true => text::verdict(job.verdict.as_ref()),
        false => "VERDICT  RUNNING: the checks are judged when the run ends\n".to_string(),
    };
    vec![verdict, text::simulations(&job.simulation_jobs)]
}

/// Prints how a watch ended: the job and its verdict, or that it was left running.
pub fn finish_watch(session: &Session, id: uuid::Uuid, watched: Watched) -> Outcome {
    match watched {
        Watched::Ended(job) => {
            print_job(session.format, &job)?;
            Ok(Exit::Ok)
        }
        Watched::TimedOut(_) => {
            Err(Failure::new(Exit::TimedOut, "timed_out", format!("run plan job {id} is still running")))
        }
        Watched::Interrupted(signal, _) => {
            eprintln!(
                "{}: stopped watching; run plan job {id} goes on (`switchboard job cancel {id}` stops it)",
                signal.name()
            );
            Ok(signal.exit())
        }
    }
}

pub async fn run(command: JobCommand, session: &Session) -> Outcome {
    let client = &session.client;
    match command {
        JobCommand::List { plan, status, list } => {
            let mut query = ListQuery::default();
            if let Some(plan) = plan {
                query = query.filter("simulationRunPlanId", plan::resolve(client, &plan).await?.id);
            }
            if let Some(status) = status {
                query = query.filter("status", status.to_ascii_uppercase());
            }
            let (jobs, pagination) = listing::fetch::<RunPlanJob>(client, routes::RUN_PLAN_JOBS, query, &list).await?;
            let names =
                if session.format.resolve() == Format::Json { HashMap::new() } else { plan_names(client, &jobs).await };
            let listed: Vec<Listed> = jobs
                .iter()
                .map(|job| Listed {
                    job,
                    plan: job.simulation_run_plan_id.and_then(|id| names.get(&id)).map(String::as_str),
                })
                .collect();
            output::list(session.format, &listed, &pagination)?;
        }
        JobCommand::Get { job } => print_job(session.format, &get(client, job).await?)?,
        JobCommand::Watch { job } => {
            let mut signals = Signals::listen();
            get(client, job).await?;
            let watched = watch::watch(client, job, session.poll_interval, None, &mut signals).await?;
            return finish_watch(session, job, watched);
        }
        JobCommand::Cancel { job } => {
            session.may_write("job cancel")?;
            let cancelled = client.cancel_run_plan_job(job).await.map_err(|e| not_found(e, job))?;
            output::item(session.format, &cancelled)?;
        }
    }
    Ok(Exit::Ok)
}

/// A job, or a not-found failure that names it.
pub async fn get(client: &Client, id: Uuid) -> Result<RunPlanJob, Failure> {
    client.get_run_plan_job(id).await.map_err(|e| not_found(e, id))
}

fn not_found(error: crate::api::Error, id: Uuid) -> Failure {
    match error.status() {
        Some(404) => Failure::not_found(format!("no run plan job has the id {id}")),
        _ => error.into(),
    }
}

/// The names of the plans these jobs ran, read once per plan; a plan that cannot be read is
/// shown by id.
async fn plan_names(client: &Client, jobs: &[RunPlanJob]) -> HashMap<Uuid, String> {
    let mut names = HashMap::new();
    for id in jobs.iter().filter_map(|j| j.simulation_run_plan_id) {
        if names.contains_key(&id) {
            continue;
        }
        if let Ok(plan) = client.get_run_plan(id).await {
            names.insert(id, plan.name().to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_job_says_running_never_failed() {
        let job: RunPlanJob = serde_json::from_value(serde_json::json!({
            "simulationRunPlanJobId": "3fb5aeb0-0000-4000-8000-000000000000",
            "status": "RUNNING_SIMULATIONS",
            "verdict": {"passed": false, "score": null, "checks": [], "failures": []},
        }))
        .unwrap();
        let text = sections(&job).join("\n");
        assert!(text.contains("VERDICT  RUNNING") && !text.contains("FAIL"), "{text}");
        assert_eq!(job.row()[2], "RUNNING");
    }
}
