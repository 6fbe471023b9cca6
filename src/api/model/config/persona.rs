//! The bundle's personas: the persona's own members, `name` its identity.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use crate::api::model::common::UnknownFields;
use crate::api::model::persona::*;
use crate::api::validate::{Checks, Validate};

/// `kind: persona`: how a simulated caller sounds and behaves.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PersonaConfig {
    pub name: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub accent: Option<Accent>,
    pub gender: Option<Gender>,
    pub language: Option<Language>,
    pub age: Option<Age>,
    pub background_noise: Option<BackgroundNoise>,
    pub backstory_prompt: Option<String>,
    pub base_emotion: Option<BaseEmotion>,
    pub confirmation_style: Option<ConfirmationStyle>,
    pub has_disfluencies: Option<bool>,
    pub idle_message_max_spoken_count: Option<i64>,
    pub idle_message_reset_count_on_user_speech_enabled: Option<bool>,
    pub idle_messages: Option<Vec<String>>,
    pub idle_timeout_seconds: Option<i64>,
    pub intent_clarity: Option<IntentClarity>,
    pub interruption: Option<Interruption>,
    pub memory_reliability: Option<MemoryReliability>,
    #[schema(value_type = Option<Object>)]
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    pub response_timing: Option<ResponseTiming>,
    pub secondary_language: Option<SecondaryLanguage>,
    pub speech_clarity: Option<SpeechClarity>,
    pub speech_pace: Option<SpeechPace>,
    pub understood_languages: Option<Vec<Language>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl PersonaConfig {
    /// The persona's members as the persona routes take them (the unknown ones left behind).
    pub fn fields(&self) -> PersonaFields {
        PersonaFields {
            name: self.name.clone(),
            display_name: self.display_name.clone(),
            description: self.description.clone(),
            language: self.language.clone(),
            secondary_language: self.secondary_language.clone(),
            understood_languages: self.understood_languages.clone(),
            accent: self.accent.clone(),
            age: self.age.clone(),
            gender: self.gender.clone(),
            background_noise: self.background_noise.clone(),
            speech_pace: self.speech_pace.clone(),
            speech_clarity: self.speech_clarity.clone(),
            base_emotion: self.base_emotion.clone(),
            intent_clarity: self.intent_clarity.clone(),
            confirmation_style: self.confirmation_style.clone(),
            memory_reliability: self.memory_reliability.clone(),
            response_timing: self.response_timing.clone(),
            interruption: self.interruption.clone(),
            has_disfluencies: self.has_disfluencies,
            idle_messages: self.idle_messages.clone(),
            idle_timeout_seconds: self.idle_timeout_seconds,
            idle_message_max_spoken_count: self.idle_message_max_spoken_count,
            idle_message_reset_count_on_user_speech_enabled: self.idle_message_reset_count_on_user_speech_enabled,
            properties: self.properties.clone(),
            backstory_prompt: self.backstory_prompt.clone(),
            unknown_fields: Default::default(),
        }
    }
}

impl Validate for PersonaConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "accent", &self.accent);
        c.required(at, "gender", &self.gender);
        c.required(at, "language", &self.language);
        // The persona's own rules (lengths, ranges, known values), under the same member names.
        self.fields().check(c, at);
    }
}
