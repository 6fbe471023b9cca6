//! `switchboard gate PLAN | -f FILE`: run, wait, judge by the service's verdict, write the
//! reports. Exit 0 PASSED, 1 FAILED (a null verdict included), 2 for a plan or report path
//! refused before the run, 5 when the agent could not be reached on any simulation, 6
//! TIMED_OUT (0 with `--no-fail-on-timeout`). `--cancel-on-exit` cancels the run when the command is
//! interrupted or gives up waiting.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format};
use super::report::{self, GateReport, GateResult, step_results, unscored_checks};
use super::run::{self, RunSpec, parse_duration};
use super::session::Session;
use super::signals::Signals;
use super::watch::{self, Watched};
use crate::api::model::{RunPlanJob, SimulationOutcome, ValueStatusFilter, one_line};
use crate::service::SimSpeed;

#[derive(Debug, Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub spec: RunSpec,
    /// Raise every check's minimum pass rate to at least N (0–100); never lowers one.
    #[arg(long, value_name = "N", value_parser = pass_rate)]
    pub min_pass_rate: Option<f64>,
    /// Give up waiting after this long (30m, 90s, 1h30m): TIMED_OUT, exit 6.
    #[arg(long, default_value = "30m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// A timeout exits 0, with a warning.
    #[arg(long)]
    pub no_fail_on_timeout: bool,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write the JSON report here.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the Markdown report here.
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Leave each simulation's conversation out of the JSON report.
    #[arg(long)]
    pub no_transcripts: bool,
    /// Cancel the run if this command is interrupted (Ctrl-C, SIGTERM) or times out.
    #[arg(long)]
    pub cancel_on_exit: bool,
    /// With --embedded: simulated seconds per wall second, or `max` (the default: as fast as the machine allows).
    #[arg(long)]
    pub sim_speed: Option<SimSpeed>,
}

fn pass_rate(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(rate) if (0.0..=100.0).contains(&rate) => Ok(rate),
        _ => Err(format!("--min-pass-rate is a number from 0 to 100, not {text:?}")),
    }
}

pub async fn run(args: GateArgs, session: &Session) -> Outcome {
    let mut signals = Signals::listen();
    check_report_paths(&args)?;
    let prepared = match run::prepare_or_stop(&args.spec, session, &mut signals).await {
        Ok(prepared) => prepared,
        Err(outcome) => return outcome,
    };
    let started = run::start(session, &prepared).await?;
    let id = started.simulation_run_plan_job_id;
    eprintln!(
        "gate: started run plan job {id} ({}); waiting up to {:?}",
        super::output::counted(started.simulation_job_count, "simulation"),
        args.timeout
    );
    let deadline = Instant::now() + args.timeout;
    let watched = watch::watch(&session.client, id, session.poll_interval, Some(deadline), &mut signals).await?;
    let (job, timed_out) = match watched {
        Watched::Ended(job) => (job, false),
        Watched::TimedOut(last) => {
            let job = cancel_if_asked(&args, session, id, last).await?;
            (job, true)
        }
        Watched::Interrupted(signal, last) => {
            eprintln!("gate: {}", signal.name());
            let job = cancel_if_asked(&args, session, id, last).await?;
            if !args.cancel_on_exit {
                eprintln!("gate: run plan job {id} goes on (--cancel-on-exit would have cancelled it)");
            }
            write_interrupted(&args, session, job, prepared.plan_name.clone(), signal.name());
            return Ok(signal.exit());
        }
    };
    let mut report = GateReport::judge(job, prepared.plan_name.clone(), args.min_pass_rate, timed_out);
    if !args.no_transcripts {
        evidence(session, &mut report).await;
    }
    write_reports(&args, &report, session)?;
    print(session.format, &report)?;
    if report.result == GateResult::Failed
        && let Some(url) = unreachable_agent(&report.job)
    {
        eprintln!("gate: the agent at {url} could not be reached on any simulation");
        return Ok(Exit::Unavailable);
    }
    Ok(match report.result {
        GateResult::Passed => Exit::Ok,
        GateResult::Failed => Exit::Failed,
        GateResult::TimedOut if args.no_fail_on_timeout => {
            eprintln!("warning: gate TIMED_OUT after {:?}; exiting 0 as --no-fail-on-timeout asks", args.timeout);
            Exit::Ok
        }
        GateResult::TimedOut => Exit::TimedOut,
    })
}

/// The reports of an interrupted gate, with the job as it stands: a run that had not ended is
/// FAILED (an unfinished run is never a pass), saying it was interrupted. A report that cannot
/// be written is said on stderr; the exit stays the signal's.
fn write_interrupted(args: &GateArgs, session: &Session, job: RunPlanJob, plan_name: Option<String>, signal: &str) {
    let mut report = GateReport::judge(job, plan_name, args.min_pass_rate, false);
    if !report.job.has_ended() {
        report.result = GateResult::Failed;
        report.message = Some(format!("gate {signal} before the run ended: the reports hold what had finished"));
    }
    if let Err(failure) = write_reports(args, &report, session) {
        eprintln!("gate: {}", failure.describe());
    }
}

/// Cancels the run when `--cancel-on-exit` asks; the job as it then stands.
async fn cancel_if_asked(
    args: &GateArgs,
    session: &Session,
    id: uuid::Uuid,
    last: Option<RunPlanJob>,
) -> Result<RunPlanJob, Failure> {
    if args.cancel_on_exit {
        match session.client.cancel_run_plan_job(id).await {
            Ok(_) => eprintln!("gate: cancelled run plan job {id}"),
            // It may have ended meanwhile; a cancel of an ended job is refused.
            Err(error) => eprintln!("gate: could not cancel run plan job {id}: {error}"),
        }
    }
    match session.client.get_run_plan_job(id).await {
        Ok(job) => Ok(job),
        Err(error) => last.ok_or_else(|| error.into()),
    }
}

/// Each simulation's conversation and step results, read a few at a time. What cannot be read
/// is left out (said once on stderr): it is evidence for people, never part of the verdict.
async fn evidence(session: &Session, report: &mut GateReport) {
    use futures_util::StreamExt;
    // A service that judges no steps (the hosted one) is not asked for every call's values.
    let judges_steps = session.client.get_metric_definition(report::STEP_METRIC).await.is_ok();
    let calls = report.job.simulation_jobs.iter().filter_map(|s| Some((s.simulation_job_id, s.call_id?)));
    let read: Vec<_> = futures_util::stream::iter(calls)
        .map(|(simulation, call)| async move {
            let transcript = session.client.call_transcript(call).await;
            let values = if judges_steps {
                session.client.call_metrics(call, ValueStatusFilter::All).await
            } else {
                Ok(Vec::new())
            };
            (simulation, transcript, values)
        })
        .buffer_unordered(8)
        .collect()
        .await;
    // Simulations counted for no check with no reason from the service: their calls' values say why.
    let unexplained: std::collections::HashSet<_> = report
        .job
        .simulation_jobs
        .iter()
        .filter(|s| s.outcome == Some(SimulationOutcome::NotEvaluated) && s.why_not_passed().is_empty())
        .map(|s| s.simulation_job_id)
        .collect();
    let checks = report.verdict.as_ref().map(|v| v.checks.clone()).unwrap_or_default();
    let (mut missed, mut missed_steps) = (0, 0);
    for (simulation, transcript, values) in read {
        match transcript {
            Ok(transcript) => {
                report.transcripts.insert(simulation, transcript.entries);
            }
            Err(_) => missed += 1,
        }
        let Ok(groups) = values else {
            missed_steps += 1;
            continue;
        };
        let steps = step_results(&groups);
        if !steps.is_empty() {
            report.steps.insert(simulation, steps);
        }
        // No values read at all (a service that judges no steps) says nothing of any check.
        let unscored = if groups.is_empty() { Vec::new() } else { unscored_checks(&groups, &checks) };
        if unexplained.contains(&simulation) && !unscored.is_empty() {
            report.unscored.insert(simulation, unscored);
        }
    }
    if missed > 0 {
        eprintln!("gate: {missed} transcript(s) could not be read; the reports go without them");
    }
    if missed_steps > 0 {
        eprintln!(
            "gate: the metric values of {missed_steps} call(s) could not be read; the reports go without their steps"
        );
    }
}

/// Every report path can be written: found before the run starts, not after it ran (exit 2).
/// A file that was not there is not left behind.
fn check_report_paths(args: &GateArgs) -> Result<(), Failure> {
    for path in [&args.junit, &args.json, &args.markdown].into_iter().flatten() {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Failure::io(format!("cannot create {}", dir.display()), e))?;
        }
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| Failure::io(format!("cannot write the report {}", path.display()), e))?;
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    Ok(())
}

/// The agent's URL when no simulation of the run reached it: every simulation failed saying
/// the agent at that URL is unreachable (the service's words for a dial that never connected).
fn unreachable_agent(job: &RunPlanJob) -> Option<String> {
    const UNREACHABLE: &str = " is unreachable";
    let simulations = &job.simulation_jobs;
    let messages: Vec<&str> = simulations.iter().filter_map(|s| s.error_message.as_deref()).collect();
    if simulations.is_empty() || messages.len() != simulations.len() {
        return None;
    }
    let url = |message: &str| {
        let (head, _) = message.split_once(UNREACHABLE)?;
        head.strip_prefix("the agent at ").map(str::to_owned)
    };
    let first = url(messages[0])?;
    messages.iter().all(|m| url(m).as_deref() == Some(first.as_str())).then_some(first)
}

fn write_reports(args: &GateArgs, report: &GateReport, session: &Session) -> Result<(), Failure> {
    let write = |path: &PathBuf, text: String| -> Result<(), Failure> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Failure::io(format!("cannot create {}", dir.display()), e))?;
        }
        std::fs::write(path, text).map_err(|e| Failure::io(format!("cannot write {}", path.display()), e))
    };
    if let Some(path) = &args.junit {
        let host = reqwest::Url::parse(session.client.base_url()).ok().and_then(|u| u.host_str().map(str::to_string));
        write(path, report::junit::render(report, host.as_deref().unwrap_or("localhost")))?;
    }
    if let Some(path) = &args.json {
        let text = report::json::render(report).map_err(|e| Failure::new(Exit::Internal, "encode", e.to_string()))?;
        write(path, text)?;
    }
    if let Some(path) = &args.markdown {
        write(path, report::markdown::render(report))?;
    }
    report::github::publish(report).map_err(|e| Failure::io("cannot write GitHub's step summary or outputs", e))?;
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") && report.result != GateResult::Passed {
        for line in report::github::annotations(report) {
            // GitHub reads workflow commands from stderr too; stdout keeps only the result.
            eprintln!("{line}");
        }
    }
    Ok(())
}

/// The result on stdout: the JSON report, or the verdict in words.
/// The report: JSON only when asked (`-o json`); on a terminal and piped alike, the summary a
/// CI log shows people (`--json PATH` and `--junit PATH` write files for machines).
fn print(format: Format, report: &GateReport) -> Result<(), Failure> {
    match format {
        Format::Json | Format::Jsonl => {
            let text =
                report::json::render(report).map_err(|e| Failure::new(Exit::Internal, "encode", e.to_string()))?;
            output::emit(&text)
        }
        _ => {
            let mut text =
                format!("gate {} · run plan job {}\n", report.result.as_str(), report.job.simulation_run_plan_job_id);
            if let Some(message) = &report.message {
                text.push_str(&format!("{}\n", one_line(message)));
            }
            text.push_str(&report::text::verdict(report.verdict.as_ref()));
            text.push_str(&report::text::flaky(&report::flaky_checks(&report.job.simulation_jobs)));
            if !report.per_simulation() && report.verdict.is_some() {
                text.push_str("(the service sent no per-simulation outcomes: judged on the checks only)\n");
            }
            let worst = report.worst(report::markdown::WORST);
            if !worst.is_empty() {
                let sims: Vec<_> = worst.into_iter().cloned().collect();
                text.push_str(&report::text::simulations(&sims));
            }
            let not_scored = report.not_scored(report::markdown::WORST);
            if !not_scored.is_empty() {
                text.push_str(&report::text::not_scored(&not_scored));
            }
            output::emit(&text)
        }
    }
}
