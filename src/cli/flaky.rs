//! `switchboard flaky PLAN [--runs N]`: over the plan's last N ended runs, how steady each test
//! case × check was (iterations that agreed, and results that held between runs with nothing
//! changed in agent endpoint, flow or metric version), worst first.

use crate::columns::flaky;
use clap::Args;
use serde::Serialize;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format, table_of};
use super::plan;
use super::session::Session;
use crate::compare::flaky::PlanStability;
use crate::compare::{Stability, fetch};

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
    plan_name: &'a str,
    /// `runPlanId`, `runPlanJobIds` (the runs read, oldest first) and `checks` (worst first).
    #[serde(flatten)]
    stability: &'a PlanStability,
}

pub async fn run(args: FlakyArgs, session: &Session) -> Outcome {
    let client = &session.client;
    let plan = plan::resolve(client, &args.plan).await?;
    let stability = fetch::plan_stability(client, plan.id, args.runs as usize)
        .await
        .map_err(|e| Failure::from(e).context(format!("cannot read the last runs of {}", plan.name())))?;
    let runs = stability.run_plan_job_ids.len();
    if runs < 2 {
        // Runs of a plan file count under a saved plan only when one has its name, so "0 ended
        // runs" right after several runs needs saying why, and what compares them instead.
        eprintln!(
            "flaky: {} has {runs} ended run(s); flips need two. Runs of a plan file (-f) count here only when \
             the file's name is this plan's (runs with --agent-url, --only or --rerun-failed of this plan \
             do count): compare any two runs with `switchboard diff BASE_JOB HEAD_JOB`",
            plan.name()
        );
    }
    let text = match session.format.resolve() {
        Format::Json | Format::Jsonl => {
            output::json(&Report { schema_version: 1, plan_name: plan.name(), stability: &stability })?
        }
        _ => render(plan.name(), runs, &stability.checks, args.all),
    };
    output::emit(&text)?;
    Ok(Exit::Ok)
}

fn render(plan: &str, runs: usize, stability: &[Stability], all: bool) -> String {
    let mut text = format!("{plan}: the last {runs} ended runs, oldest first in HISTORY\n");
    text.push_str(&table_of(flaky::CLI, stability.iter().filter(|s| all || s.unsteady())));
    let steady = stability.iter().filter(|s| !s.unsteady()).count();
    if !all && steady > 0 {
        text.push_str(&format!("({steady} steady test case checks not shown; --all lists them)\n"));
    }
    text
}
