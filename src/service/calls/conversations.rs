//! What calls and chats share: ingesting a transcript, reading it back, and the latest
//! metric values of one conversation.

use crate::service::store::{Conn, Tx};

use crate::api::model::{
    CallInput, MetricValueGroup, ParticipantType, Timestamp, Transcript, TranscriptInput, TranscriptionSource,
    ValueStatusFilter,
};
use crate::service::error::{DomainError, DomainResult};
use crate::service::metrics::value_groups::value_groups;
use crate::service::store::{self, Kind};

/// The parts of an ingested conversation that calls and chats both keep.
pub struct Ingested {
    pub started_at: Timestamp,
    pub ended_at: Option<Timestamp>,
    pub duration_ms: i64,
}

/// Checks the agent, works out the times, and stores the transcript under `id`.
pub fn ingest(tx: &Tx, id: uuid::Uuid, input: &CallInput) -> DomainResult<Ingested> {
    if let Some(agent) = input.agent_id
        && !store::exists(tx, Kind::Agent, &agent.to_string())?
    {
        return Err(DomainError::invalid("agentId", format!("no agent {agent}")));
    }
    let transcript = input.transcript.clone().map(TranscriptInput::into_transcript).unwrap_or_default();
    let started_at = input.started_at.clone().unwrap_or_else(Timestamp::now);
    let duration_ms = transcript.entries.iter().map(|e| e.end_offset_ms).max().unwrap_or(0);
    let ended_at = started_at
        .parse()
        .and_then(|s| s.checked_add(jiff::SignedDuration::from_millis(duration_ms)).ok())
        .map(Timestamp::from);
    store::transcripts::put(tx, &id.to_string(), &serde_json::to_string(&transcript)?)?;
    Ok(Ingested { started_at, ended_at, duration_ms })
}

/// The transcript of a live call or chat (404 when the conversation does not exist), saying
/// where it came from: the simulation's own for a simulated call, else the caller's.
pub fn transcript(conn: &Conn, kind: Kind, id: &str) -> DomainResult<Transcript> {
    let Some(body) = store::get_raw(conn, kind, id)? else {
        return Err(DomainError::not_found(kind.label(), id));
    };
    let conversation: serde_json::Value = serde_json::from_str(&body)?;
    let simulated = conversation.get("simulationJobId").is_some_and(|v| !v.is_null());
    let mut transcript: Transcript = store::transcripts::get(conn, id)?;
    transcript.transcription_source = Some(if simulated {
        TranscriptionSource::SimulationAgentRealtime
    } else {
        TranscriptionSource::CustomerAgentRealtime
    });
    // Entries are the agent's or the customer's; older builds stored a simulated caller's
    // lines as SIMULATED_CUSTOMER.
    for entry in &mut transcript.entries {
        if entry.role == Some(ParticipantType::SimulatedCustomer) {
            entry.role = Some(ParticipantType::Customer);
        }
    }
    Ok(transcript)
}

/// Per metric, every value the newest job that scored this conversation wrote, whatever job
/// that was (so several values of one metric, such as one per expectation, stay together).
pub fn latest_values(
    conn: &Conn,
    kind: Kind,
    id: &str,
    filter: &ValueStatusFilter,
) -> DomainResult<Vec<MetricValueGroup>> {
    if !store::exists(conn, kind, id)? {
        return Err(DomainError::not_found(kind.label(), id));
    }
    let rows = store::values::latest_of_conversation(conn, kind == Kind::Chat, id)?;
    value_groups(conn, rows, filter)
}
