//! Calls and chats: recorded or simulated conversations, with their transcripts.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use super::run_plan::Direction;
use crate::api::validate::{Checks, Validate, index, join};
use crate::wire_enum;

wire_enum! {
    /// Why a call ended.
    pub enum EndedStatus {
        AgentEndedCall = "AGENT_ENDED_CALL",
        CustomerEndedCall = "CUSTOMER_ENDED_CALL",
        SilenceTimeOut = "SILENCE_TIME_OUT",
        MaxDurationReached = "MAX_DURATION_REACHED",
        VoiceMailReached = "VOICE_MAIL_REACHED",
        EndCallReasonMet = "END_CALL_REASON_MET",
        FlowCompleted = "FLOW_COMPLETED",
        Error = "ERROR",
    }
}
wire_enum! {
    pub enum CallStatus { InProgress = "IN_PROGRESS", Ended = "ENDED", Failed = "FAILED" }
}
wire_enum! {
    /// Who a transcript participant is.
    pub enum ParticipantType {
        Agent = "AGENT", Customer = "CUSTOMER", SimulatedCustomer = "SIMULATED_CUSTOMER", BackgroundSpeaker = "BACKGROUND_SPEAKER",
    }
}

/// Limits of an ingested conversation.
pub mod call_limits {
    /// A day: no transcript offset may exceed it.
    pub const OFFSET_MS_MAX: i64 = 86_400_000;
    pub const ENTRIES_MAX: usize = 10_000;
    pub const PARTICIPANTS_MAX: usize = 20;
    pub const TEXT_MAX: usize = 10_000;
    pub const PARTICIPANT_ID_MAX: usize = 200;
    pub const PHONE_NUMBER_MAX: usize = 32;
}

/// A call.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub id: Uuid,
    pub direction: Option<Direction>,
    pub status: Option<CallStatus>,
    pub ended_status: Option<EndedStatus>,
    pub duration_ms: Option<i64>,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    pub simulation_job_id: Option<Uuid>,
    pub simulation_run_plan_job_id: Option<Uuid>,
    pub agent_id: Option<Uuid>,
    pub agent_endpoint_id: Option<Uuid>,
    #[serde(default)]
    pub agents: Vec<CallAgent>,
    #[serde(default)]
    pub customers: Vec<CallCustomer>,
    pub from_number: Option<String>,
    pub to_number: Option<String>,
    /// Background noise the simulated caller had, noted on the call.
    pub background_noise: Option<String>,
    /// Why the call ended, in words (the end-call phrase, reason or limit that ended it).
    pub end_reason: Option<String>,
    pub created_at: Option<Timestamp>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CallAgent {
    pub id: Uuid,
    pub name: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallCustomer {
    pub phone_number: Option<String>,
    pub name: Option<String>,
}

/// `GET /v1/call/{id}/transcript`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Transcript {
    #[serde(default)]
    #[schema(max_items = 10000)]
    pub entries: Vec<TranscriptEntry>,
    #[serde(default)]
    #[schema(max_items = 20)]
    pub participants: Vec<Participant>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptEntry {
    #[schema(minimum = 0, maximum = 86400000)]
    pub start_offset_ms: i64,
    /// Not before `startOffsetMs`.
    #[schema(minimum = 0, maximum = 86400000)]
    pub end_offset_ms: i64,
    #[schema(max_length = 10000)]
    pub text: String,
    pub role: Option<ParticipantType>,
    #[schema(max_length = 200)]
    pub participant_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Participant {
    #[schema(max_length = 200)]
    pub id: String,
    #[serde(rename = "type")]
    pub participant_type: Option<ParticipantType>,
}

/// Body of `POST /v1/call`: a call ingested with its transcript.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallInput {
    pub direction: Option<Direction>,
    pub agent_id: Option<Uuid>,
    pub agent_endpoint_id: Option<Uuid>,
    #[schema(max_length = 32)]
    pub from_number: Option<String>,
    #[schema(max_length = 32)]
    pub to_number: Option<String>,
    /// An RFC 3339 date-time.
    #[schema(value_type = Timestamp, required = true)]
    pub started_at: Option<Timestamp>,
    pub ended_status: Option<EndedStatus>,
    #[schema(value_type = Transcript, required = true)]
    pub transcript: Option<Transcript>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for CallInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use call_limits::*;
        c.unknown(at, &self.unknown_fields);
        c.known(at, "direction", self.direction.as_ref());
        c.known(at, "endedStatus", self.ended_status.as_ref());
        c.length(at, "fromNumber", self.from_number.as_deref(), 0, Some(PHONE_NUMBER_MAX));
        c.length(at, "toNumber", self.to_number.as_deref(), 0, Some(PHONE_NUMBER_MAX));
        if let Some(started) = c.required(at, "startedAt", &self.started_at)
            && !started.is_rfc3339()
        {
            c.invalid(join(at, "startedAt"), "startedAt must be an RFC 3339 date-time (2024-05-01T09:30:00Z)");
        }
        let Some(transcript) = c.required(at, "transcript", &self.transcript) else { return };
        let transcript_path = join(at, "transcript");
        c.items(&transcript_path, "entries", Some(&transcript.entries), 0, Some(ENTRIES_MAX));
        c.items(&transcript_path, "participants", Some(&transcript.participants), 0, Some(PARTICIPANTS_MAX));
        let entries_path = join(&transcript_path, "entries");
        for (i, entry) in transcript.entries.iter().enumerate() {
            let path = index(&entries_path, i);
            let offsets = (Some(0), Some(OFFSET_MS_MAX));
            c.range(&path, "startOffsetMs", Some(entry.start_offset_ms), offsets.0, offsets.1);
            c.range(&path, "endOffsetMs", Some(entry.end_offset_ms), offsets.0, offsets.1);
            if entry.end_offset_ms < entry.start_offset_ms {
                c.invalid(join(&path, "endOffsetMs"), "endOffsetMs must not be before startOffsetMs");
            }
            c.length(&path, "text", Some(&entry.text), 0, Some(TEXT_MAX));
            c.known(&path, "role", entry.role.as_ref());
            c.length(&path, "participantId", entry.participant_id.as_deref(), 0, Some(PARTICIPANT_ID_MAX));
        }
        let participants_path = join(&transcript_path, "participants");
        for (i, participant) in transcript.participants.iter().enumerate() {
            let path = index(&participants_path, i);
            c.length(&path, "id", Some(&participant.id), 0, Some(PARTICIPANT_ID_MAX));
            c.known(&path, "type", participant.participant_type.as_ref());
        }
    }
}

/// A chat. The spec shows no fields; these mirror a call's.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Chat {
    pub id: Uuid,
    pub status: Option<CallStatus>,
    pub agent_id: Option<Uuid>,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    pub simulation_job_id: Option<Uuid>,
    pub created_at: Option<Timestamp>,
}
