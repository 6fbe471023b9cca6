//! Personas: how a simulated customer sounds and behaves.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use crate::api::validate::{Checks, Validate};
use crate::wire_enum;

wire_enum! {
    /// A language code.
    pub enum Language { En = "EN", Es = "ES", Fr = "FR", De = "DE", Pt = "PT", It = "IT", Hi = "HI", Zh = "ZH" }
}
wire_enum! { pub enum Accent { Us = "US", Gb = "GB", Au = "AU", In = "IN", Ie = "IE", Za = "ZA" } }
wire_enum! { pub enum Age { YoungAdult = "YOUNG_ADULT", Adult = "ADULT", Senior = "SENIOR" } }
wire_enum! { pub enum Gender { Male = "MALE", Female = "FEMALE", Neutral = "NEUTRAL" } }
wire_enum! {
    pub enum BackgroundNoise { None = "NONE", Office = "OFFICE", Street = "STREET", Cafe = "CAFE", Car = "CAR", Airport = "AIRPORT" }
}
wire_enum! { pub enum SpeechPace { Slow = "SLOW", Normal = "NORMAL", Fast = "FAST" } }
wire_enum! { pub enum SpeechClarity { Clear = "CLEAR", Mumbled = "MUMBLED", Choppy = "CHOPPY" } }
wire_enum! {
    pub enum BaseEmotion { Neutral = "NEUTRAL", Frustrated = "FRUSTRATED", Anxious = "ANXIOUS", Cheerful = "CHEERFUL", Angry = "ANGRY" }
}
wire_enum! { pub enum IntentClarity { Clear = "CLEAR", Vague = "VAGUE" } }
wire_enum! { pub enum ConfirmationStyle { Explicit = "EXPLICIT", Implicit = "IMPLICIT" } }
wire_enum! { pub enum MemoryReliability { High = "HIGH", Medium = "MEDIUM", Low = "LOW" } }
wire_enum! { pub enum ResponseTiming { Quick = "QUICK", Normal = "NORMAL", Delayed = "DELAYED" } }

/// Everything a caller can set on a persona: the body of `POST`/`PUT /v1/persona`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PersonaFields {
    #[schema(value_type = String, required = true, min_length = 1)]
    pub name: Option<String>,
    #[schema(min_length = 1)]
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub language: Option<Language>,
    pub secondary_language: Option<Language>,
    pub understood_languages: Option<Vec<Language>>,
    pub accent: Option<Accent>,
    pub age: Option<Age>,
    pub gender: Option<Gender>,
    pub background_noise: Option<BackgroundNoise>,
    pub speech_pace: Option<SpeechPace>,
    pub speech_clarity: Option<SpeechClarity>,
    pub base_emotion: Option<BaseEmotion>,
    pub intent_clarity: Option<IntentClarity>,
    pub confirmation_style: Option<ConfirmationStyle>,
    pub memory_reliability: Option<MemoryReliability>,
    pub response_timing: Option<ResponseTiming>,
    pub has_disfluencies: Option<bool>,
    pub idle_messages: Option<Vec<String>>,
    #[schema(minimum = 1)]
    pub idle_timeout_seconds: Option<i64>,
    #[schema(minimum = 0)]
    pub idle_message_max_spoken_count: Option<i64>,
    pub idle_message_reset_count_on_user_speech_enabled: Option<bool>,
    /// Free-form key-value attributes.
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    pub backstory_prompt: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PersonaFields {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, None);
        c.length(at, "displayName", self.display_name.as_deref(), 1, None);
        c.range(at, "idleTimeoutSeconds", self.idle_timeout_seconds, Some(1), None);
        c.range(at, "idleMessageMaxSpokenCount", self.idle_message_max_spoken_count, Some(0), None);
        c.entries_not_blank(at, "idleMessages", self.idle_messages.as_deref());
    }
}

/// A persona as the service returns it.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Persona {
    pub id: Uuid,
    /// Service-provided personas cannot be deleted.
    pub is_system: Option<bool>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    #[serde(flatten)]
    pub fields: PersonaFields,
}

impl Persona {
    /// The name to show: display name, else name, else the id.
    pub fn label(&self) -> String {
        self.fields.display_name.clone().or_else(|| self.fields.name.clone()).unwrap_or_else(|| self.id.to_string())
    }
}
