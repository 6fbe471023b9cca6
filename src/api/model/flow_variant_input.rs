//! The bodies that make and change a flow's happy path and edge cases (the hosted SDK's
//! `CustomerFlowUpdateHappyPathParams` and edge-case params), with the rules each member has on
//! its own.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::UnknownFields;
use super::flow::flow_limits;
use super::flow_input::ExpectationInput;
use crate::api::validate::{Checks, Validate, join};

/// A happy path or edge case as a caller sends it. Which members are required depends on the
/// route: an added edge case needs `title`, a new improv flow's happy path also its persona and
/// environment; an update changes only the members given (null clears the nullable ones).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200)]
    pub title: Option<String>,
    /// The whole set of this variant's own expectations (improv flows only); `[]` clears it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 50)]
    pub additional_expectations: Option<Vec<ExpectationInput>>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>, nullable)]
    pub environment_id: Option<Option<Uuid>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_flow_expectations: Option<bool>,
    /// The persona this runs as; on an edge case, null inherits the happy path's.
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>, nullable)]
    pub persona_override_id: Option<Option<Uuid>>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>, nullable)]
    pub preceded_by_customer_flow_id: Option<Option<Uuid>>,
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>, nullable)]
    pub preceded_by_customer_flow_variant_id: Option<Option<Uuid>>,
    /// The brief an improvising caller follows (improv flows only).
    #[serde(default, with = "::serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable, max_length = 20000)]
    pub prompt: Option<Option<String>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for VariantInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.length(at, "title", self.title.as_deref(), 1, Some(flow_limits::TITLE_MAX));
        if self.title.as_deref().is_some_and(|t| !t.is_empty() && t.trim().is_empty()) {
            c.invalid(join(at, "title"), format!("{} must not be blank", join(at, "title")));
        }
        c.items(at, "additionalExpectations", self.additional_expectations.as_deref(), 0, Some(50));
        c.each(at, "additionalExpectations", self.additional_expectations.as_deref());
        c.length(at, "prompt", self.prompt.as_ref().and_then(|p| p.as_deref()), 0, Some(flow_limits::PROMPT_MAX));
    }
}

/// Body of `POST /v1/customer-flow/{id}/edge-case`: a variant with its `title`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EdgeCaseInput(pub VariantInput);

impl Validate for EdgeCaseInput {
    fn check(&self, c: &mut Checks, at: &str) {
        c.required(at, "title", &self.0.title);
        self.0.check(c, at);
    }
}

impl utoipa::PartialSchema for EdgeCaseInput {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::Schema;
        let mut schema = <VariantInput as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            object.required = vec!["title".into()];
            object.description = Some("A new edge case: its title, and what it does not inherit.".into());
        }
        schema
    }
}

impl ToSchema for EdgeCaseInput {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        <VariantInput as ToSchema>::schemas(schemas);
    }
}
