//! `switchboard flaky PLAN [--runs N]`: over the plan's last N ended runs, how steady each test
//! case × check was (iterations that agreed, and results that held between runs with nothing
//! changed in agent endpoint, flow or metric version), worst first.

use clap::Args;
use serde::Serialize;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format, table};
use super::plan;
use super::session::Session;
use crate::compare::{Run, Stability, fetch, flaky};

#[derive(Debug, Args)]
pub struct FlakyArgs {
    /// The run plan (id or exact name).
    pub plan: String,
    /// How many of its most recent ended runs to read.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(2..=200))]
    pub runs: u16,
    /// List steady test case checks too.
    #[arg(long)]
    pub all: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    schema_version: u32,
    run_plan_id: Uuid,
    plan_name: &'a str,
    /// The runs read, oldest first.
    run_plan_job_ids: Vec<Uuid>,
    /// Worst first.
    checks: &'a [Stability],
}

pub async fn run(args: FlakyArgs, session: &Session) -> Outcome {
    let client = &session.client;
    let plan = plan::resolve(client, &args.plan).await?;
    let jobs = fetch::recent_jobs(client, plan.id, args.runs as usize).await?;
    if jobs.len() < 2 {
        eprintln!("flaky: {} has {} ended run(s); flips need two", plan.name(), jobs.len());
    }
    let mut runs: Vec<Run> = Vec::with_capacity(jobs.len());
    for job in &jobs {
        let run = fetch::read_run(client, job.simulation_run_plan_job_id, None)
            .await
            .map_err(|e| Failure::from(e).context(format!("cannot read run {}", job.simulation_run_plan_job_id)))?;
        runs.push(run);
    }
    let edits = fetch::edits(client, &runs.iter().collect::<Vec<_>>()).await;
    let stability = flaky::stability(&runs, &edits);
    let text = match session.format.resolve() {
        Format::Json | Format::Jsonl => output::json(&Report {
            schema_version: 1,
            run_plan_id: plan.id,
            plan_name: plan.name(),
            run_plan_job_ids: runs.iter().map(|r| r.job_id).collect(),
            checks: &stability,
        })?,
        _ => render(plan.name(), &runs, &stability, args.all),
    };
    output::emit(&text)?;
    Ok(Exit::Ok)
}

fn render(plan: &str, runs: &[Run], stability: &[Stability], all: bool) -> String {
    let mut text = format!("{plan}: the last {} ended runs, oldest first in HISTORY\n", runs.len());
    let unsteady = |s: &&Stability| s.flips > 0 || s.mixed_runs > 0;
    let rows: Vec<Vec<String>> = stability
        .iter()
        .filter(|s| all || unsteady(s))
        .map(|s| {
            let history: Vec<String> = s
                .history
                .iter()
                .map(|r| r.map(|r| format!("{}/{}", r.passed, r.evaluated)).unwrap_or_else(|| "·".into()))
                .collect();
            vec![
                s.stability.map(|v| format!("{:.0} %", v * 100.0)).unwrap_or_else(|| "—".into()),
                s.test_case.clone(),
                s.metric_name.clone(),
                format!("{} of {}", s.flips, s.comparisons),
                format!("{} of {}", s.mixed_runs, s.runs),
                history.join(" "),
            ]
        })
        .collect();
    text.push_str(&table(&["STABILITY", "TEST CASE", "CHECK", "FLIPS", "MIXED RUNS", "HISTORY"], rows));
    let steady = stability.iter().filter(|s| !unsteady(s)).count();
    if !all && steady > 0 {
        text.push_str(&format!("({steady} steady test case checks not shown; --all lists them)\n"));
    }
    text
}
