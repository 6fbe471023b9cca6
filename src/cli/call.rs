//! `switchboard call get CALL [--transcript]`.

use clap::Subcommand;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format, Tabular};
use super::session::Session;
use crate::api::model::{Call, ParticipantType};
use crate::columns::{Column, call};

#[derive(Debug, Subcommand)]
pub enum CallCommand {
    /// Show a call (and its transcript with --transcript).
    Get {
        #[arg(value_parser = super::ids::call)]
        call: Uuid,
        /// Also print the transcript (JSON: `{data: call, transcript}`).
        #[arg(long)]
        transcript: bool,
    },
}

impl Tabular for Call {
    fn columns() -> Vec<Column<Self>> {
        call::DETAIL.to_vec()
    }
}

pub async fn run(command: CallCommand, session: &Session) -> Outcome {
    let CallCommand::Get { call, transcript } = command;
    let client = &session.client;
    let found = client.get_call(call).await.map_err(|e| match e.status() {
        Some(404) => Failure::not_found(format!("no call has the id {call}")),
        _ => e.into(),
    })?;
    if !transcript {
        output::item(session.format, &found)?;
        return Ok(Exit::Ok);
    }
    let transcript = client.call_transcript(call).await?;
    match session.format.resolve() {
        Format::Json | Format::Jsonl => {
            output::emit(&output::json(&serde_json::json!({ "data": found, "transcript": transcript }))?)?;
        }
        format => {
            output::item_with(format, &found, |_| {
                let mut text = String::from("TRANSCRIPT\n");
                for entry in &transcript.entries {
                    let who = match entry.role {
                        Some(ParticipantType::Agent) => "agent",
                        Some(ParticipantType::Customer | ParticipantType::SimulatedCustomer) => "caller",
                        _ => "other",
                    };
                    let at = entry.start_offset_ms as f64 / 1000.0;
                    text.push_str(&format!("{at:>7.1}s  {who:<6}  {}\n", entry.text));
                }
                vec![text]
            })?;
        }
    }
    Ok(Exit::Ok)
}
