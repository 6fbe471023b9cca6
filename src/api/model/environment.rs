//! Simulation environments: the ambient conditions a flow variant runs under (a noise bed and
//! its level). Flow variants carry a copy of theirs (`FlowVariant::environment`).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

use super::common::UnknownFields;
use super::persona::BackgroundNoise;
use crate::api::validate::{Checks, Validate};

/// Limits of the environment inputs.
pub mod environment_limits {
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    /// The level a bed plays at when none is given.
    pub const VOLUME_DEFAULT: f64 = 0.1;
}

/// Body of `POST /v1/simulation/environment`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentInput {
    /// Shown wherever a flow variant references the environment; unique among environments.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// The noise bed played underneath the simulated caller; NONE plays nothing.
    #[schema(value_type = BackgroundNoise, required = true)]
    pub background_noise: Option<BackgroundNoise>,
    /// The bed's gain, from 0 (silent) to 1 (as loud as the caller); 0.1 when omitted.
    #[schema(minimum = 0, maximum = 1)]
    pub background_noise_volume: Option<f64>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for EnvironmentInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.required(at, "name", &self.name);
        c.required(at, "backgroundNoise", &self.background_noise);
        check_members(c, at, self);
    }
}

fn check_members(c: &mut Checks, at: &str, input: &EnvironmentInput) {
    use environment_limits::*;
    c.unknown_of::<EnvironmentInput>(at, &input.unknown_fields);
    c.length(at, "name", input.name.as_deref(), 1, Some(NAME_MAX));
    if input.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        c.invalid(crate::api::validate::join(at, "name"), "name must not be blank");
    }
    c.known(at, "backgroundNoise", input.background_noise.as_ref());
    c.range_f64(at, "backgroundNoiseVolume", input.background_noise_volume, 0.0, 1.0);
    c.length(at, "description", input.description.as_deref(), 0, Some(DESCRIPTION_MAX));
}

/// Body of `PUT /v1/simulation/environment/{id}`: the members given change, the rest are kept.
/// A member sent as `null` is refused (the schema types none of them nullable), never read as
/// "keep it".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvironmentUpdate(pub EnvironmentInput, pub Vec<String>);

impl Serialize for EnvironmentUpdate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for EnvironmentUpdate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let members = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let nulls = members.iter().filter(|(_, v)| v.is_null()).map(|(k, _)| k.clone()).collect();
        let input = serde_json::from_value(serde_json::Value::Object(members)).map_err(serde::de::Error::custom)?;
        Ok(EnvironmentUpdate(input, nulls))
    }
}

impl Validate for EnvironmentUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        for member in &self.1 {
            let param = crate::api::validate::join(at, member);
            c.invalid(&param, format!("{param} may not be null: leave it out to keep it"));
        }
        check_members(c, at, &self.0);
    }
}

impl utoipa::PartialSchema for EnvironmentUpdate {
    /// The environment's members, none of them required.
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::Schema;
        let mut schema = <EnvironmentInput as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            object.required.clear();
            object.description = Some("The environment's members to change; the others are kept.".into());
        }
        schema
    }
}

impl ToSchema for EnvironmentUpdate {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        <EnvironmentInput as ToSchema>::schemas(schemas);
    }
}
