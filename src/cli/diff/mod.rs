//! `switchboard diff BASE_JOB HEAD_JOB [--fail-on-regression]`: two runs test case by test
//! case, with regressions flagged only when unlikely to be chance (`docs/compare.md`). Prints
//! a table, JSON or Markdown (`--output`); exits 1 on a regression with `--fail-on-regression`.

mod markdown;
mod text;

use clap::Args;
use serde::Serialize;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format};
use super::session::Session;
use crate::columns::diff::CaseCheck;
use crate::compare::diff::CheckChange;
use crate::compare::{Change, Diff, ReadPath, fetch};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The run to compare against (a run plan job id): last night's, or main's.
    #[arg(value_parser = super::ids::job)]
    pub base: Uuid,
    /// The run compared with it (a run plan job id).
    #[arg(value_parser = super::ids::job)]
    pub head: Uuid,
    /// Exit 1 when any check regressed or has no verdict in the head run (UNSCORED), for CI
    /// beside `gate`, which judges one run alone.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Read each call's metrics rather than the run's results read (what a service without
    /// that read gets anyway; slower).
    #[arg(long)]
    pub call_by_call: bool,
    /// List every test case, unchanged ones too.
    #[arg(long)]
    pub all: bool,
}

/// The JSON report: the diff, whether it regressed, and its version.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report<'a> {
    /// Bumped only if a member changes meaning or goes away.
    pub schema_version: u32,
    pub regressed: bool,
    /// Some check judged in the base run has no verdict in the head run though still in it.
    pub unscored: bool,
    #[serde(flatten)]
    pub diff: &'a Diff,
}

pub async fn run(args: DiffArgs, session: &Session) -> Outcome {
    let path = args.call_by_call.then_some(ReadPath::CallByCall);
    let client = &session.client;
    let (base, head) = fetch::read_pair(client, args.base, args.head, path).await;
    let base = base.map_err(|e| Failure::from(e).context(format!("cannot read the base run {}", args.base)))?;
    let head = head.map_err(|e| Failure::from(e).context(format!("cannot read the head run {}", args.head)))?;
    // A run still going has no verdict yet: comparing it would call checks that have not
    // been judged unchanged or gone. Refuse, saying which.
    for (side, run) in [("base", &base), ("head", &head)] {
        if !run.ended {
            let status = run.status.as_ref().map(|s| s.as_str().to_owned()).unwrap_or_else(|| "unknown".into());
            return Err(Failure::new(
                Exit::Usage,
                "diff",
                format!(
                    "the {side} run {} has not ended (status {status}): wait for it (switchboard job watch {}) \
                     and diff again",
                    run.job_id, run.job_id
                ),
            ));
        }
    }
    let edits = fetch::edits(client, &[&base, &head]).await;
    let diff = Diff::of(&base, &head, &edits);
    let text = match session.format.resolve() {
        Format::Json | Format::Jsonl => {
            let report =
                Report { schema_version: 1, regressed: diff.regressed(), unscored: diff.unscored(), diff: &diff };
            output::json(&report)?
        }
        Format::Markdown => markdown::render(&diff, args.all),
        _ => text::render(&diff, args.all),
    };
    output::emit(&text)?;
    if diff.backwards() {
        let when =
            |side: &crate::compare::diff::Side| side.started_at.as_ref().map_or("—", |t| t.0.as_str()).to_owned();
        eprintln!(
            "diff: {} (base started {}, head started {}; swap them to read what changed since the base)",
            crate::compare::diff::BACKWARDS,
            when(&diff.base),
            when(&diff.head)
        );
    }
    warn_failures(&diff);
    Ok(if args.fail_on_regression && diff.fails() { Exit::Failed } else { Exit::Ok })
}

/// Says on stderr what `--fail-on-regression` fails on: regressed and unscored checks, on test
/// cases and over the whole run (a check can be unscored over the run where its test cases
/// did not pair).
fn warn_failures(diff: &Diff) {
    let count = |change| diff.counts.get(&change).copied().unwrap_or(0);
    let pooled = |change| diff.checks.iter().filter(|c| c.change == change).count();
    let what = |change| match (count(change), pooled(change)) {
        (cases, 0) => format!("{cases} test case check(s)"),
        (0, run) => format!("{run} check(s) over the run"),
        (cases, run) => format!("{cases} test case check(s) and {run} check(s) over the run"),
    };
    if diff.regressed() {
        eprintln!("diff: {} regressed", what(Change::Regressed));
    }
    if diff.unscored() {
        eprintln!("diff: {} judged in the base run have no verdict in the head run (UNSCORED)", what(Change::Unscored));
    }
}

pub use crate::columns::diff::rate;

/// A short id: the first eight characters.
pub fn short(id: Uuid) -> String {
    id.to_string().chars().take(8).collect()
}

/// The test case × checks a listing shows, worst first: every one with `--all`, else those
/// that changed.
pub fn listed(diff: &Diff, all: bool) -> Vec<CaseCheck<'_>> {
    let shown = |check: &&CheckChange| all || check.change != Change::Unchanged;
    diff.cases.iter().flat_map(|case| case.checks.iter().filter(shown).map(move |check| (case, check))).collect()
}
