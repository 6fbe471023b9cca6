//! `switchboard issue list | get ISSUE | create --title T … | update ISSUE --status S`.

use clap::Subcommand;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::listing::{self, ListArgs};
use super::output::{self, Tabular};
use super::session::Session;
use crate::api::model::{EvidenceInput, Issue, IssueInput, IssueSource, IssueStatus, IssueUpdate, Severity};
use crate::api::validate::Validate;
use crate::api::wire_enum::WireEnum;
use crate::api::{ListQuery, routes};
use crate::columns::{Column, issue};

#[derive(Debug, Subcommand)]
pub enum IssueCommand {
    /// List issues, newest first.
    List {
        /// Only issues in this status (OPEN, ACKNOWLEDGED, RESOLVED).
        #[arg(long)]
        status: Option<String>,
        /// Only issues of this severity (LOW, MEDIUM, HIGH, CRITICAL).
        #[arg(long)]
        severity: Option<String>,
        /// Only issues from this source (TREND_ALERT: opened by an alert; API).
        #[arg(long)]
        source: Option<String>,
        #[command(flatten)]
        list: ListArgs,
    },
    /// Show one issue with its evidence.
    Get {
        /// The issue's id, as `issue list` prints it.
        #[arg(value_parser = super::ids::issue)]
        issue: Uuid,
    },
    /// File an issue, with calls as evidence.
    Create {
        #[arg(long)]
        title: String,
        #[arg(long)]
        summary: Option<String>,
        /// LOW, MEDIUM, HIGH or CRITICAL.
        #[arg(long)]
        severity: Option<String>,
        /// A call id; repeatable.
        #[arg(long = "evidence", value_name = "CALL", value_parser = super::ids::call)]
        evidence: Vec<Uuid>,
    },
    /// Change an issue's status (and severity).
    Update {
        /// The issue's id, as `issue list` prints it.
        #[arg(value_parser = super::ids::issue)]
        issue: Uuid,
        /// OPEN, ACKNOWLEDGED or RESOLVED.
        #[arg(long)]
        status: Option<String>,
        /// LOW, MEDIUM, HIGH or CRITICAL.
        #[arg(long)]
        severity: Option<String>,
    },
}

impl Tabular for Issue {
    fn columns() -> Vec<Column<Self>> {
        issue::CLI.to_vec()
    }
}

/// A wire enum value from a flag, refused with the values it may take.
pub fn parse<E: WireEnum + Clone + 'static>(flag: &str, text: Option<String>) -> Result<Option<E>, Failure> {
    let Some(text) = text else { return Ok(None) };
    let upper = text.to_ascii_uppercase();
    match E::known().iter().find(|v| v.text() == upper) {
        Some(value) => Ok(Some(value.clone())),
        None => {
            let known: Vec<&str> = E::known().iter().map(WireEnum::text).collect();
            Err(Failure::invalid(flag, format!("{flag} is one of {}, not {text:?}", known.join(", "))))
        }
    }
}

fn evidence_text(issue: &Issue) -> Vec<String> {
    let summary = issue.summary.clone().map(|s| format!("SUMMARY\n{s}\n")).unwrap_or_default();
    vec![summary, format!("EVIDENCE\n{}", output::table_of(issue::EVIDENCE_CLI, &issue.evidence))]
}

pub async fn run(command: IssueCommand, session: &Session) -> Outcome {
    let client = &session.client;
    match command {
        IssueCommand::List { status, severity, source, list } => {
            let mut query = ListQuery::default();
            if let Some(status) = parse::<IssueStatus>("--status", status)? {
                query = query.filter("status", status.as_str());
            }
            if let Some(severity) = parse::<Severity>("--severity", severity)? {
                query = query.filter("severity", severity.as_str());
            }
            if let Some(source) = parse::<IssueSource>("--source", source)? {
                query = query.filter("source", source.as_str());
            }
            let (issues, pagination) = listing::fetch::<Issue>(client, routes::ISSUES, query, &list).await?;
            output::list(session.format, &issues, &pagination)?;
        }
        IssueCommand::Get { issue } => {
            let issue = client.get_issue(issue).await.map_err(|e| not_found(e, issue))?;
            output::item_with(session.format, &issue, evidence_text)?;
        }
        IssueCommand::Create { title, summary, severity, evidence } => {
            session.may_write("issue create")?;
            let input = IssueInput {
                title: Some(title),
                summary,
                severity: parse::<Severity>("--severity", severity)?,
                evidence: (!evidence.is_empty()).then(|| evidence.into_iter().map(EvidenceInput::call).collect()),
                ..Default::default()
            };
            refuse_invalid(&input)?;
            let issue = client.create_issue(&input).await?;
            output::item(session.format, &issue)?;
        }
        IssueCommand::Update { issue, status, severity } => {
            session.may_write("issue update")?;
            let update = IssueUpdate {
                status: parse::<IssueStatus>("--status", status)?,
                severity: parse::<Severity>("--severity", severity)?.map(Some),
                ..Default::default()
            };
            if update.status.is_none() && update.severity.is_none() {
                return Err(Failure::invalid("--status", "give --status or --severity"));
            }
            let updated = client.update_issue(issue, &update).await.map_err(|e| not_found(e, issue))?;
            output::item(session.format, &updated)?;
        }
    }
    Ok(Exit::Ok)
}

/// The input's own rules, checked before sending, as flags.
fn refuse_invalid(input: &impl Validate) -> Result<(), Failure> {
    match input.validate().first() {
        Some(violation) => Err(Failure::invalid(
            format!("--{}", violation.param.split(['.', '[']).next().unwrap_or("")),
            violation.to_string(),
        )),
        None => Ok(()),
    }
}

fn not_found(error: crate::api::Error, id: Uuid) -> Failure {
    match error.status() {
        Some(404) => Failure::not_found(format!("no issue has the id {id}")),
        _ => error.into(),
    }
}
