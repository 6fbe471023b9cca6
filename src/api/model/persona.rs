//! Personas: how a simulated customer sounds and behaves.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use crate::api::validate::{Checks, Validate};
use crate::wire_enum;

// The hosted interface's values (its SDK's persona types); older local values are mapped onto
// these where stored data is read (`service::legacy`), never accepted on input.
wire_enum! {
    /// A language code (ISO 639-1).
    pub enum Language {
        En = "EN", Es = "ES", De = "DE", Hi = "HI", Fr = "FR", Nl = "NL", Ar = "AR", El = "EL", It = "IT",
        Id = "ID", Th = "TH", Ja = "JA", Tl = "TL", Ms = "MS", Zh = "ZH", Tr = "TR", Pt = "PT", He = "HE",
    }
}
wire_enum! {
    /// The language a persona code-switches into; the hosted interface offers English only.
    pub enum SecondaryLanguage { En = "EN" }
}
wire_enum! {
    /// An accent: an ISO 3166-1 alpha-2 country, with variants.
    pub enum Accent {
        Us = "US", UsXSouth = "US_X_SOUTH", Gb = "GB", Es = "ES", De = "DE", In = "IN", Fr = "FR", Nl = "NL",
        Sa = "SA", Gr = "GR", Au = "AU", It = "IT", Id = "ID", Th = "TH", Jp = "JP", Nz = "NZ", Ph = "PH",
        Sg = "SG", My = "MY", Hk = "HK", Tr = "TR", Pt = "PT", Il = "IL",
    }
}
wire_enum! { pub enum Age { Child = "CHILD", Teenager = "TEENAGER", Adult = "ADULT", Elderly = "ELDERLY" } }
wire_enum! { pub enum Gender { Male = "MALE", Female = "FEMALE" } }
wire_enum! {
    pub enum BackgroundNoise {
        None = "NONE", Airport = "AIRPORT", ChildrenPlaying = "CHILDREN_PLAYING", City = "CITY",
        CoffeeShop = "COFFEE_SHOP", Construction = "CONSTRUCTION", CryingBaby = "CRYING_BABY", Driving = "DRIVING",
        Library = "LIBRARY", Office = "OFFICE", Thunderstorm = "THUNDERSTORM", Train = "TRAIN",
    }
}
wire_enum! {
    pub enum SpeechPace { SuperSlow = "SUPER_SLOW", Slow = "SLOW", Normal = "NORMAL", Fast = "FAST", SuperFast = "SUPER_FAST" }
}
wire_enum! { pub enum SpeechClarity { Clear = "CLEAR", Vague = "VAGUE", Rambling = "RAMBLING" } }
wire_enum! {
    pub enum BaseEmotion {
        Neutral = "NEUTRAL", Cheerful = "CHEERFUL", Confused = "CONFUSED", Frustrated = "FRUSTRATED",
        Skeptical = "SKEPTICAL", Rushed = "RUSHED", Distracted = "DISTRACTED", Angry = "ANGRY", Anxious = "ANXIOUS",
        Sad = "SAD",
    }
}
wire_enum! { pub enum IntentClarity { Clear = "CLEAR", Indirect = "INDIRECT", Vague = "VAGUE" } }
wire_enum! { pub enum ConfirmationStyle { Explicit = "EXPLICIT", Vague = "VAGUE" } }
wire_enum! { pub enum MemoryReliability { High = "HIGH", Low = "LOW" } }
wire_enum! {
    /// The pause before the caller answers. BARGE_IN is taken on input and stored as QUICK with
    /// `interruption` OCCASIONAL, as the hosted service does.
    pub enum ResponseTiming { Relaxed = "RELAXED", Normal = "NORMAL", Quick = "QUICK", BargeIn = "BARGE_IN" }
}
wire_enum! {
    /// How much the caller talks over the agent while it is still speaking.
    pub enum Interruption { Off = "OFF", Backchannel = "BACKCHANNEL", Occasional = "OCCASIONAL", Heavy = "HEAVY" }
}

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
    pub const IDLE_TIMEOUT_SECONDS_DEFAULT: i64 = 10;
    pub const IDLE_MESSAGE_MAX_SPOKEN_COUNT_DEFAULT: i64 = 3;
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
    pub secondary_language: Option<SecondaryLanguage>,
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
    pub interruption: Option<Interruption>,
    pub has_disfluencies: Option<bool>,
    /// Entries up to 500 characters; null means language-appropriate defaults (always sent,
    /// as null when unset, because the hosted interface requires the member).
    #[schema(max_items = 20)]
    #[serialize_always]
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
        c.required(at, "name", &self.name);
        self.check_members(c, at);
    }
}

impl PersonaFields {
    /// Every rule but the required name, which only a creation needs.
    fn check_members(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        use persona_limits::*;
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
        c.known(at, "interruption", self.interruption.as_ref());
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

impl PersonaFields {
    /// The persona as stored: every member the hosted interface requires filled (the defaults
    /// its SDK documents: an adult US-English caller, calm and clear, who waits their turn),
    /// and BARGE_IN timing stored as QUICK with OCCASIONAL interruption.
    pub fn with_defaults(mut self) -> Self {
        if self.response_timing == Some(ResponseTiming::BargeIn) {
            self.response_timing = Some(ResponseTiming::Quick);
            self.interruption.get_or_insert(Interruption::Occasional);
        }
        let language = self.language.get_or_insert(Language::En).clone();
        self.understood_languages.get_or_insert_with(|| vec![language]);
        self.accent.get_or_insert(Accent::Us);
        self.age.get_or_insert(Age::Adult);
        // The hosted interface requires a gender on every persona; FEMALE when none is given.
        self.gender.get_or_insert(Gender::Female);
        self.background_noise.get_or_insert(BackgroundNoise::None);
        self.speech_pace.get_or_insert(SpeechPace::Normal);
        self.speech_clarity.get_or_insert(SpeechClarity::Clear);
        self.base_emotion.get_or_insert(BaseEmotion::Neutral);
        self.intent_clarity.get_or_insert(IntentClarity::Clear);
        self.confirmation_style.get_or_insert(ConfirmationStyle::Explicit);
        self.memory_reliability.get_or_insert(MemoryReliability::High);
        self.response_timing.get_or_insert(ResponseTiming::Normal);
        self.interruption.get_or_insert(Interruption::Off);
        self.has_disfluencies.get_or_insert(false);
        self.idle_timeout_seconds.get_or_insert(persona_limits::IDLE_TIMEOUT_SECONDS_DEFAULT);
        self.idle_message_max_spoken_count.get_or_insert(persona_limits::IDLE_MESSAGE_MAX_SPOKEN_COUNT_DEFAULT);
        self.idle_message_reset_count_on_user_speech_enabled.get_or_insert(true);
        self.properties.get_or_insert_with(Default::default);
        self
    }

    /// These fields with the members `update` supplies put over them (a partial PUT).
    pub fn merged(&self, update: &PersonaFields) -> Result<PersonaFields, serde_json::Error> {
        let mut base = serde_json::to_value(self)?;
        if let (Some(base), serde_json::Value::Object(changes)) = (base.as_object_mut(), serde_json::to_value(update)?)
        {
            for (member, value) in changes {
                // `idleMessages` is always serialised; only a list the update gives replaces it.
                if member == "idleMessages" && update.idle_messages.is_none() {
                    continue;
                }
                base.insert(member, value);
            }
        }
        serde_json::from_value(base)
    }
}

/// Body of `PUT /v1/persona/{id}`: the members to change; the rest are kept (the hosted
/// interface's update is partial). The second field lists the members sent as `null`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PersonaUpdate(pub PersonaFields, pub Vec<String>);

/// Members of the update the schema types non-nullable: `null` is refused, never read as "keep".
const NOT_NULL: &[&str] = &["name"];

impl Serialize for PersonaUpdate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for PersonaUpdate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (fields, nulls) = crate::api::validate::with_null_members(deserializer)?;
        Ok(PersonaUpdate(fields, nulls))
    }
}

impl Validate for PersonaUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.not_null(at, NOT_NULL, &self.1);
        self.0.check_members(c, at);
    }
}

impl utoipa::PartialSchema for PersonaUpdate {
    /// The persona's members, none of them required.
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::Schema;
        let mut schema = <PersonaFields as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            object.required.clear();
            object.description = Some("The persona's members to change; the others are kept.".into());
        }
        schema
    }
}

impl ToSchema for PersonaUpdate {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        <PersonaFields as ToSchema>::schemas(schemas);
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
    /// The number every call with this persona uses, when one is pinned (read-only; never here).
    pub phone_number: Option<String>,
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
