//! `config`: where things live, and tests as code (`apply`, `diff`, `export`): a bundle of
//! flows, personas, metrics, plans … kept in the team's repository and applied to any service.

mod bundle;
mod changes;
mod export;
pub mod init;

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use reqwest::Method;
use serde_json::json;

pub use self::bundle::Bundle;
use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format};
use super::session::Session;
use crate::api::model::config::ConfigChanges;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print where config, credentials, cache, data and logs live.
    Path,
    /// Make the service match a bundle: create, update and (unless --no-prune) delete what an
    /// earlier apply made that the bundle no longer holds. Asks before deleting on a terminal.
    Apply(ApplyArgs),
    /// What `apply` would do, like `terraform plan`: `+` create, `~` update, `-` delete.
    Diff(DiffArgs),
    /// The workspace as a bundle that `apply` recreates, from any service (no secret in clear).
    Export(export::ExportArgs),
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// A YAML or JSON file (several documents separated by ---) or a directory of them.
    #[arg(short = 'f', long = "file", value_name = "PATH", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Keep what the bundle no longer holds instead of deleting it.
    #[arg(long)]
    pub no_prune: bool,
    /// Delete without asking.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// A YAML or JSON file (several documents separated by ---) or a directory of them.
    #[arg(short = 'f', long = "file", value_name = "PATH", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Compare as `apply --no-prune` would.
    #[arg(long)]
    pub no_prune: bool,
    /// Exit 1 when something would change.
    #[arg(long)]
    pub exit_code: bool,
}

pub async fn export(args: export::ExportArgs, session: &Session) -> Outcome {
    export::run(args, session).await
}

pub async fn diff(args: DiffArgs, session: &Session) -> Outcome {
    let bundle = Bundle::read(&args.files)?;
    let plan = send(session, &bundle, "/v1/config/diff", !args.no_prune).await?;
    print(session.format, &plan, false)?;
    Ok(if args.exit_code && plan.result.changes_anything() { Exit::Failed } else { Exit::Ok })
}

pub async fn apply(args: ApplyArgs, session: &Session) -> Outcome {
    let bundle = Bundle::read(&args.files)?;
    let text = session.format != Format::Json;
    let result = apply_bundle(session, &bundle, !args.no_prune, args.yes, &mut std::io::stdout(), text).await?;
    if session.format == Format::Json {
        output::emit(&output::json(&result.body)?)?;
    }
    Ok(Exit::Ok)
}

/// `gate --suite` and `run --suite`: the bundle applied as `config apply -f` would, its changes
/// told on stderr (stdout is the command's own).
pub async fn apply_suite(session: &Session, files: &[PathBuf]) -> Result<(), Failure> {
    let bundle = Bundle::read(files)?;
    apply_bundle(session, &bundle, true, false, &mut std::io::stderr(), true).await.map(|_| ())
}

/// Diffs, asks before deleting (on a terminal, without `yes`), applies, and tells `out` what
/// changed. A change the service could not make is a refusal (exit 2).
async fn apply_bundle(
    session: &Session,
    bundle: &Bundle,
    prune: bool,
    yes: bool,
    out: &mut dyn Write,
    text: bool,
) -> Result<Answer, Failure> {
    session.may_write("apply a bundle")?;
    let plan = send(session, bundle, "/v1/config/diff", prune).await?;
    if !plan.result.changes_anything() {
        if text {
            write_text(out, &changes::render(&plan.result, false))?;
        }
        return Ok(plan);
    }
    let deletes = plan.result.deletes();
    if !deletes.is_empty() && !yes && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        write_text(out, &changes::render(&plan.result, false))?;
        let names: Vec<&str> = deletes.iter().map(|c| c.config_key.as_str()).collect();
        if !confirm(&format!("Delete {} resource(s) the bundle no longer holds ({})?", names.len(), names.join(", ")))?
        {
            return Err(Failure::usage("nothing applied: the deletes were not confirmed (--yes skips the question)"));
        }
    }
    let applied = send(session, bundle, "/v1/config/apply", prune).await?;
    if text {
        write_text(out, &changes::render(&applied.result, true))?;
    }
    let failed = applied.result.failures();
    if let Some(first) = failed.first() {
        let reason = first.error.clone().unwrap_or_else(|| "no reason given".into());
        return Err(Failure::invalid(
            first.config_key.clone(),
            format!("{} change(s) failed; the first, {}: {reason}", failed.len(), first.config_key),
        ));
    }
    Ok(applied)
}

/// The service's answer: typed for printing, and the body as it came for `-o json`.
struct Answer {
    result: ConfigChanges,
    body: serde_json::Value,
}

async fn send(session: &Session, bundle: &Bundle, path: &str, prune: bool) -> Result<Answer, Failure> {
    let request = json!({ "resources": bundle.resources, "prune": prune });
    let body: serde_json::Value = session
        .client
        .send(Method::POST, path, None::<&()>, Some(&request))
        .await
        .map_err(|e| if e.status() == Some(400) { bundle.locate(e) } else { Failure::from(e) })?;
    let result = serde_json::from_value(body.get("data").cloned().unwrap_or_default()).map_err(|e| {
        Failure::new(Exit::Internal, "unexpected_response", format!("the answer of {path} could not be read: {e}"))
    })?;
    Ok(Answer { result, body })
}

fn print(format: Format, plan: &Answer, applied: bool) -> Result<(), Failure> {
    match format {
        Format::Json => output::emit(&output::json(&plan.body)?),
        _ => output::emit(&changes::render(&plan.result, applied)),
    }
}

fn write_text(out: &mut dyn Write, text: &str) -> Result<(), Failure> {
    out.write_all(text.as_bytes()).and_then(|_| out.flush()).map_err(|e| Failure::io("cannot write", e))
}

/// Asks on the terminal; only `y` or `yes` goes on.
fn confirm(question: &str) -> Result<bool, Failure> {
    eprint!("{question} [y/N] ");
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).map_err(|e| Failure::io("cannot read the answer", e))?;
    Ok(matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}
