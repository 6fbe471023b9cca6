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

/// Limits of the persona input.
pub mod persona_limits {
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const BACKSTORY_PROMPT_MAX: usize = 10_000;
    pub const UNDERSTOOD_LANGUAGES_MAX: usize = 20;
    pub const IDLE_MESSAGES_MAX: usize = 20;
    pub const IDLE_MESSAGE_MAX: usize = 500;
    pub const IDLE_TIMEOUT_SECONDS_MIN: i64 = 1;
    pub const IDLE_TIMEOUT_SECONDS_MAX: i64 = 600;
    pub const IDLE_MESSAGE_MAX_SPOKEN_COUNT_MIN: i64 = 0;
    pub const IDLE_MESSAGE_MAX_SPOKEN_COUNT_MAX: i64 = 100;
    /// Members of the free-form `properties` object.
    pub const PROPERTIES_MAX: usize = 100;
}

/// Everything a caller can set on a persona: the body of `POST`/`PUT /v1/persona`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PersonaFields {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub display_name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    pub language: Option<Language>,
    pub secondary_language: Option<Language>,
    #[schema(max_items = 20)]
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
    /// Entries up to 500 characters.
    #[schema(max_items = 20)]
    pub idle_messages: Option<Vec<String>>,
    #[schema(minimum = 1, maximum = 600)]
    pub idle_timeout_seconds: Option<i64>,
    #[schema(minimum = 0, maximum = 100)]
    pub idle_message_max_spoken_count: Option<i64>,
    pub idle_message_reset_count_on_user_speech_enabled: Option<bool>,
    /// Free-form key-value attributes, at most 100.
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    #[schema(max_length = 10000)]
    pub backstory_prompt: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PersonaFields {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        use persona_limits::*;
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "backstoryPrompt", self.backstory_prompt.as_deref(), 0, Some(BACKSTORY_PROMPT_MAX));
        c.known(at, "language", self.language.as_ref());
        c.known(at, "secondaryLanguage", self.secondary_language.as_ref());
        c.items(at, "understoodLanguages", self.understood_languages.as_deref(), 0, Some(UNDERSTOOD_LANGUAGES_MAX));
        c.known_each(at, "understoodLanguages", self.understood_languages.as_deref());
        c.known(at, "accent", self.accent.as_ref());
        c.known(at, "age", self.age.as_ref());
        c.known(at, "gender", self.gender.as_ref());
        c.known(at, "backgroundNoise", self.background_noise.as_ref());
        c.known(at, "speechPace", self.speech_pace.as_ref());
        c.known(at, "speechClarity", self.speech_clarity.as_ref());
        c.known(at, "baseEmotion", self.base_emotion.as_ref());
        c.known(at, "intentClarity", self.intent_clarity.as_ref());
        c.known(at, "confirmationStyle", self.confirmation_style.as_ref());
        c.known(at, "memoryReliability", self.memory_reliability.as_ref());
        c.known(at, "responseTiming", self.response_timing.as_ref());
        let idle = (Some(IDLE_TIMEOUT_SECONDS_MIN), Some(IDLE_TIMEOUT_SECONDS_MAX));
        c.range(at, "idleTimeoutSeconds", self.idle_timeout_seconds, idle.0, idle.1);
        let spoken = (Some(IDLE_MESSAGE_MAX_SPOKEN_COUNT_MIN), Some(IDLE_MESSAGE_MAX_SPOKEN_COUNT_MAX));
        c.range(at, "idleMessageMaxSpokenCount", self.idle_message_max_spoken_count, spoken.0, spoken.1);
        c.items(at, "idleMessages", self.idle_messages.as_deref(), 0, Some(IDLE_MESSAGES_MAX));
        c.entries_not_blank(at, "idleMessages", self.idle_messages.as_deref());
        c.each_length(at, "idleMessages", self.idle_messages.as_deref(), IDLE_MESSAGE_MAX);
        if let Some(properties) = &self.properties
            && properties.len() > PROPERTIES_MAX
        {
            let message =
                format!("properties must have at most {PROPERTIES_MAX} members (it has {})", properties.len());
            c.invalid(crate::api::validate::join(at, "properties"), message);
        }
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
