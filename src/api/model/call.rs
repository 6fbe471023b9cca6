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
    /// Why a call ended (the hosted interface's list).
    pub enum EndedStatus {
        ParticipantsDidNotSpeak = "PARTICIPANTS_DID_NOT_SPEAK",
        AgentDidNotAnswer = "AGENT_DID_NOT_ANSWER",
        AgentDidNotSpeak = "AGENT_DID_NOT_SPEAK",
        AgentStoppedSpeaking = "AGENT_STOPPED_SPEAKING",
        AgentEndedCall = "AGENT_ENDED_CALL",
        AgentSaidEndCallPhrase = "AGENT_SAID_END_CALL_PHRASE",
        AgentTransferredCall = "AGENT_TRANSFERRED_CALL",
        AgentBusy = "AGENT_BUSY",
        AgentError = "AGENT_ERROR",
        CustomerEndedCall = "CUSTOMER_ENDED_CALL",
        VoiceMailReached = "VOICE_MAIL_REACHED",
        SilenceTimeOut = "SILENCE_TIME_OUT",
        PhoneCallProviderConnectionError = "PHONE_CALL_PROVIDER_CONNECTION_ERROR",
        CustomerDidNotAnswer = "CUSTOMER_DID_NOT_ANSWER",
        CustomerDidNotSpeak = "CUSTOMER_DID_NOT_SPEAK",
        CustomerStoppedSpeaking = "CUSTOMER_STOPPED_SPEAKING",
        CustomerBusy = "CUSTOMER_BUSY",
        DialError = "DIAL_ERROR",
        MaxDurationReached = "MAX_DURATION_REACHED",
        UnknownReason = "UNKNOWN",
    }
}
wire_enum! {
    pub enum CallStatus { Ringing = "RINGING", InProgress = "IN_PROGRESS", Ended = "ENDED" }
}
wire_enum! {
    /// Who a transcript participant is.
    pub enum ParticipantType {
        Agent = "AGENT", Customer = "CUSTOMER", SimulatedCustomer = "SIMULATED_CUSTOMER", BackgroundSpeaker = "BACKGROUND_SPEAKER",
    }
}
wire_enum! {
    /// Whether a call's recording can be fetched.
    pub enum RecordingUrlAccess { Available = "AVAILABLE", NotAvailable = "NOT_AVAILABLE", Restricted = "RESTRICTED" }
}
wire_enum! {
    /// Where a transcript came from: the caller's own realtime transcript (an ingested call), the
    /// simulation's (a simulated one), or a transcription made after the call.
    pub enum TranscriptionSource {
        RoarkPostCall = "ROARK_POST_CALL",
        SimulationAgentRealtime = "SIMULATION_AGENT_REALTIME",
        CustomerAgentRealtime = "CUSTOMER_AGENT_REALTIME",
    }
}
wire_enum! {
    /// How an ingested call was held.
    pub enum InterfaceType { Phone = "PHONE", Web = "WEB" }
}

/// The roles a transcript entry may carry: the hosted interface's entries are the agent's or
/// the customer's (a simulated customer's lines are CUSTOMER; its participant says it is simulated).
pub const ENTRY_ROLES: &[ParticipantType] = &[ParticipantType::Agent, ParticipantType::Customer];

/// Limits of an ingested conversation.
pub mod call_limits {
    /// A day: no transcript offset may exceed it.
    pub const OFFSET_MS_MAX: i64 = 86_400_000;
    pub const ENTRIES_MAX: usize = 10_000;
    pub const PARTICIPANTS_MAX: usize = 20;
    pub const TEXT_MAX: usize = 10_000;
    pub const PARTICIPANT_ID_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2000;
    pub const PHONE_NUMBER_MAX: usize = 32;
    pub const URL_MAX: usize = 2_000;
    /// Members of the free-form `properties` object.
    pub const PROPERTIES_MAX: usize = 100;
}

/// A call.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub id: Uuid,
    /// The hosted interface's name for the direction.
    pub call_direction: Option<Direction>,
    /// The direction as older local services sent it; read when `callDirection` is absent.
    #[schema(deprecated)]
    pub direction: Option<Direction>,
    /// The project the call belongs to (the local service is one project).
    pub project_id: Option<Uuid>,
    pub recording_url_access: Option<RecordingUrlAccess>,
    pub recording_url: Option<String>,
    #[serialize_always]
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
    /// The caller's own identifier for the call.
    #[serialize_always]
    pub external_id: Option<String>,
    /// Free-form properties given at ingest.
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    /// Background noise the simulated caller had, noted on the call.
    pub background_noise: Option<String>,
    /// Why the call ended, in words (the end-call phrase, reason or limit that ended it).
    pub end_reason: Option<String>,
    #[serialize_always]
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

impl Call {
    /// The call's direction, whichever name the service gave it.
    pub fn direction(&self) -> Option<&Direction> {
        self.call_direction.as_ref().or(self.direction.as_ref())
    }
}

/// An agent on a call: `{id, endpoint}` as the hosted interface has it, and its name (ours).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CallAgent {
    pub id: Uuid,
    pub name: Option<String>,
    pub endpoint: Option<CallAgentEndpoint>,
}

/// The endpoint an agent took the call on.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallAgentEndpoint {
    pub id: Uuid,
    pub environment: Option<String>,
    #[serde(rename = "phoneNumberE164")]
    pub phone_number_e164: Option<String>,
}

/// A customer on a call: the hosted interface's `{label, phoneNumberE164}`, and the older
/// local `{phoneNumber, name}`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallCustomer {
    pub label: Option<String>,
    #[serde(rename = "phoneNumberE164")]
    pub phone_number_e164: Option<String>,
    pub phone_number: Option<String>,
    pub name: Option<String>,
}

impl CallCustomer {
    pub fn number(&self) -> Option<&str> {
        self.phone_number_e164.as_deref().or(self.phone_number.as_deref())
    }
}

/// `GET /v1/call/{id}/transcript`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    #[serde(default)]
    #[schema(max_items = 10000)]
    pub entries: Vec<TranscriptEntry>,
    #[serde(default)]
    #[schema(max_items = 20)]
    pub participants: Vec<Participant>,
    /// Null where the service does not say (stored transcripts, inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcription_source: Option<TranscriptionSource>,
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
    /// AGENT or CUSTOMER.
    #[serialize_always]
    pub role: Option<ParticipantType>,
    #[schema(max_length = 200)]
    #[serialize_always]
    pub participant_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    #[schema(max_length = 200)]
    pub id: String,
    #[serde(rename = "type")]
    pub participant_type: Option<ParticipantType>,
    /// The agent an AGENT participant is (null when not known).
    #[serialize_always]
    pub agent_id: Option<Uuid>,
    /// The customer a CUSTOMER participant is (null when not known).
    #[serialize_always]
    #[schema(max_length = 200)]
    pub customer_id: Option<String>,
}

impl Participant {
    pub fn new(id: impl Into<String>, participant_type: ParticipantType) -> Self {
        Participant { id: id.into(), participant_type: Some(participant_type), agent_id: None, customer_id: None }
    }
}

/// Body of `POST /v1/call`: a call ingested with its transcript, as the hosted SDK sends it
/// (`callDirection`, `agent`/`agents`, `customer`/`customers`, `recordingUrl`, the transcript as
/// an array of entries) or in the older local shape (`direction`, `agentId`, `{entries,
/// participants}`).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallInput {
    pub call_direction: Option<Direction>,
    /// Older name of `callDirection`.
    #[schema(deprecated)]
    pub direction: Option<Direction>,
    pub interface_type: Option<InterfaceType>,
    #[schema(max_length = 2000)]
    pub recording_url: Option<String>,
    #[schema(max_length = 2000)]
    pub stereo_recording_url: Option<String>,
    /// The agent on the call, by id, custom id or name (found, or created when named).
    pub agent: Option<AgentIdentification>,
    #[schema(min_items = 1, max_items = 20)]
    pub agents: Option<Vec<AgentIdentification>>,
    pub customer: Option<CustomerInput>,
    #[schema(min_items = 1, max_items = 20)]
    pub customers: Option<Vec<CustomerInput>>,
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
    #[schema(max_length = 200)]
    pub external_id: Option<String>,
    /// Free-form properties, at most 100 members.
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    #[schema(value_type = TranscriptInput, required = true)]
    pub transcript: Option<TranscriptInput>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl CallInput {
    /// The direction, by either name.
    pub fn direction(&self) -> Option<&Direction> {
        self.call_direction.as_ref().or(self.direction.as_ref())
    }

    /// Every agent the call names, `agent` first.
    pub fn agent_identifications(&self) -> Vec<&AgentIdentification> {
        self.agent.iter().chain(self.agents.iter().flatten()).collect()
    }

    /// Every customer the call names, `customer` first.
    pub fn customer_inputs(&self) -> Vec<&CustomerInput> {
        self.customer.iter().chain(self.customers.iter().flatten()).collect()
    }
}

/// An agent of an ingested call: `roarkId` (an existing agent), `customId` (found by it, or
/// created with `name`), or `name` (found by exact name, or created).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentIdentification {
    pub roark_id: Option<Uuid>,
    #[schema(max_length = 200)]
    pub custom_id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// The endpoint the agent took the call on: `{id}`, or `{type, value, direction}` (found by
    /// its value, or created).
    pub endpoint: Option<EndpointIdentification>,
    /// The agent's prompt on this call; accepted, not kept.
    #[schema(value_type = Option<Object>)]
    pub prompt: Option<serde_json::Value>,
}

/// How an ingested call names an agent's endpoint.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointIdentification {
    pub id: Option<Uuid>,
    #[serde(rename = "type")]
    pub endpoint_type: Option<super::simulation::EndpointType>,
    #[schema(max_length = 200)]
    pub value: Option<String>,
    pub direction: Option<super::agent::EndpointDirection>,
}

/// A customer of an ingested call.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerInput {
    #[serde(rename = "phoneNumberE164")]
    #[schema(max_length = 32)]
    pub phone_number_e164: Option<String>,
    #[schema(max_length = 200)]
    pub label: Option<String>,
}

/// An ingested transcript: the hosted SDK's array of entries, or `{entries, participants}`.
#[derive(Debug, Clone, PartialEq)]
pub enum TranscriptInput {
    Entries(Vec<TranscriptEntry>),
    Full(Transcript),
}

impl TranscriptInput {
    /// The entries, and the path they are reported under (`transcript[2]` for the array form,
    /// `transcript.entries[2]` for the object).
    pub fn entries(&self) -> (&[TranscriptEntry], &'static str) {
        match self {
            TranscriptInput::Entries(entries) => (entries, "transcript"),
            TranscriptInput::Full(transcript) => (&transcript.entries, "transcript.entries"),
        }
    }

    /// The transcript as stored: participants named after the entries' roles when not given.
    pub fn into_transcript(self) -> Transcript {
        match self {
            TranscriptInput::Full(transcript) => transcript,
            TranscriptInput::Entries(mut entries) => {
                for entry in &mut entries {
                    if entry.participant_id.is_none() {
                        let id = if entry.role == Some(ParticipantType::Agent) { "agent" } else { "customer" };
                        entry.participant_id = Some(id.into());
                    }
                }
                let mut participants = Vec::new();
                for (id, kind) in [("agent", ParticipantType::Agent), ("customer", ParticipantType::Customer)] {
                    if entries.iter().any(|e| e.participant_id.as_deref() == Some(id)) {
                        participants.push(Participant::new(id, kind));
                    }
                }
                Transcript { entries, participants, transcription_source: None }
            }
        }
    }
}

impl From<Transcript> for TranscriptInput {
    fn from(transcript: Transcript) -> Self {
        TranscriptInput::Full(transcript)
    }
}

impl Serialize for TranscriptInput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TranscriptInput::Entries(entries) => entries.serialize(serializer),
            TranscriptInput::Full(transcript) => transcript.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for TranscriptInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> serde::de::Visitor<'de> for Either {
            type Value = TranscriptInput;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of entries {role, text, startOffsetMs, endOffsetMs}, or {entries, participants}")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = seq.next_element::<TranscriptEntry>()? {
                    entries.push(entry);
                }
                Ok(TranscriptInput::Entries(entries))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Transcript::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(TranscriptInput::Full)
            }
        }
        deserializer.deserialize_any(Either)
    }
}

impl utoipa::PartialSchema for TranscriptInput {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::{ArrayBuilder, OneOfBuilder};
        let entries = ArrayBuilder::new()
            .items(Ref::from_schema_name(TranscriptEntry::name()))
            .max_items(Some(call_limits::ENTRIES_MAX))
            .description(Some("The entries, as the hosted SDK sends them."));
        OneOfBuilder::new().item(entries).item(Ref::from_schema_name(Transcript::name())).into()
    }
}

impl ToSchema for TranscriptInput {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        use utoipa::PartialSchema;
        schemas.push((TranscriptEntry::name().into(), TranscriptEntry::schema()));
        schemas.push((Transcript::name().into(), Transcript::schema()));
        <Transcript as ToSchema>::schemas(schemas);
    }
}

impl Validate for CallInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use call_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.known(at, "callDirection", self.call_direction.as_ref());
        c.known(at, "direction", self.direction.as_ref());
        if let (Some(a), Some(b)) = (&self.call_direction, &self.direction)
            && a != b
        {
            c.invalid(join(at, "direction"), "direction is the older name of callDirection; give one of them");
        }
        c.known(at, "interfaceType", self.interface_type.as_ref());
        c.known(at, "endedStatus", self.ended_status.as_ref());
        c.length(at, "recordingUrl", self.recording_url.as_deref(), 1, Some(URL_MAX));
        c.length(at, "stereoRecordingUrl", self.stereo_recording_url.as_deref(), 1, Some(URL_MAX));
        c.length(at, "externalId", self.external_id.as_deref(), 1, Some(PARTICIPANT_ID_MAX));
        c.length(at, "fromNumber", self.from_number.as_deref(), 0, Some(PHONE_NUMBER_MAX));
        c.length(at, "toNumber", self.to_number.as_deref(), 0, Some(PHONE_NUMBER_MAX));
        if let Some(properties) = &self.properties
            && properties.len() > PROPERTIES_MAX
        {
            c.invalid(join(at, "properties"), format!("properties must have at most {PROPERTIES_MAX} members"));
        }
        c.items(at, "agents", self.agents.as_deref(), 1, Some(PARTICIPANTS_MAX));
        c.items(at, "customers", self.customers.as_deref(), 1, Some(PARTICIPANTS_MAX));
        if self.agent.is_some() && self.agents.is_some() {
            c.invalid(join(at, "agents"), "give agent or agents, not both");
        }
        if self.customer.is_some() && self.customers.is_some() {
            c.invalid(join(at, "customers"), "give customer or customers, not both");
        }
        let agents: Vec<(String, &AgentIdentification)> = match (&self.agent, &self.agents) {
            (Some(agent), _) => vec![(join(at, "agent"), agent)],
            (None, Some(list)) => list.iter().enumerate().map(|(i, a)| (index(&join(at, "agents"), i), a)).collect(),
            _ => Vec::new(),
        };
        for (path, agent) in agents {
            if agent.roark_id.is_none() && agent.custom_id.is_none() && agent.name.is_none() {
                c.invalid(join(&path, "roarkId"), "name the agent by roarkId, customId or name");
            }
            c.length(&path, "name", agent.name.as_deref(), 1, Some(PARTICIPANT_ID_MAX));
            c.length(&path, "customId", agent.custom_id.as_deref(), 1, Some(PARTICIPANT_ID_MAX));
            c.length(&path, "description", agent.description.as_deref(), 0, Some(DESCRIPTION_MAX));
            if let Some(endpoint) = &agent.endpoint {
                let endpoint_path = join(&path, "endpoint");
                c.length(&endpoint_path, "value", endpoint.value.as_deref(), 1, Some(PARTICIPANT_ID_MAX));
                c.known(&endpoint_path, "type", endpoint.endpoint_type.as_ref());
                c.known(&endpoint_path, "direction", endpoint.direction.as_ref());
                if endpoint.id.is_none() && endpoint.value.is_none() {
                    c.invalid(endpoint_path, "name the endpoint by id, or by type and value");
                }
            }
        }
        for (i, customer) in self.customer_inputs().into_iter().enumerate() {
            let path = if self.customer.is_some() { join(at, "customer") } else { index(&join(at, "customers"), i) };
            c.length(&path, "phoneNumberE164", customer.phone_number_e164.as_deref(), 0, Some(PHONE_NUMBER_MAX));
            c.length(&path, "label", customer.label.as_deref(), 0, Some(PARTICIPANT_ID_MAX));
        }
        if let Some(started) = c.required(at, "startedAt", &self.started_at)
            && !started.is_rfc3339()
        {
            c.invalid(join(at, "startedAt"), "startedAt must be an RFC 3339 date-time (2024-05-01T09:30:00Z)");
        }
        let Some(transcript) = c.required(at, "transcript", &self.transcript) else { return };
        let (entries, entries_at) = transcript.entries();
        let entries_path = join(at, entries_at);
        c.items(at, entries_at, Some(entries), 0, Some(ENTRIES_MAX));
        for (i, entry) in entries.iter().enumerate() {
            let path = index(&entries_path, i);
            let offsets = (Some(0), Some(OFFSET_MS_MAX));
            c.range(&path, "startOffsetMs", Some(entry.start_offset_ms), offsets.0, offsets.1);
            c.range(&path, "endOffsetMs", Some(entry.end_offset_ms), offsets.0, offsets.1);
            if entry.end_offset_ms < entry.start_offset_ms {
                c.invalid(join(&path, "endOffsetMs"), "endOffsetMs must not be before startOffsetMs");
            }
            c.length(&path, "text", Some(&entry.text), 0, Some(TEXT_MAX));
            c.one_of(&path, "role", entry.role.as_ref(), ENTRY_ROLES);
            c.length(&path, "participantId", entry.participant_id.as_deref(), 0, Some(PARTICIPANT_ID_MAX));
        }
        if let TranscriptInput::Full(transcript) = transcript {
            let transcript_path = join(at, "transcript");
            c.known(&transcript_path, "transcriptionSource", transcript.transcription_source.as_ref());
            c.items(&transcript_path, "participants", Some(&transcript.participants), 0, Some(PARTICIPANTS_MAX));
            let participants_path = join(&transcript_path, "participants");
            for (i, participant) in transcript.participants.iter().enumerate() {
                let path = index(&participants_path, i);
                c.length(&path, "id", Some(&participant.id), 0, Some(PARTICIPANT_ID_MAX));
                c.length(&path, "customerId", participant.customer_id.as_deref(), 0, Some(PARTICIPANT_ID_MAX));
                c.known(&path, "type", participant.participant_type.as_ref());
            }
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
