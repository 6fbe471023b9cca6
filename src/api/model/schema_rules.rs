//! Rules the inputs enforce that the schema generator cannot state from the types: members
//! that must not be blank or null, either-or members, values an input refuses of an enum it
//! shares with responses, and URL shapes. The document adds them (`service::http::openapi`), so a
//! client generated from it (or Prism in front of it) refuses what the service refuses.
//! Rules no JSON Schema can state (`scaleMax > scaleMin`, ids that must name something) are
//! written in the operation's description instead.

use std::borrow::Cow;

use serde_json::{Value, json};
use utoipa::ToSchema;

use super::*;

/// One rule: (schema, JSON pointer inside it, keyword, value). `required` is added to the
/// members already required; any other keyword is set.
pub type SchemaRule = (Cow<'static, str>, String, &'static str, Value);

/// A hyphenated UUID, as an id written in a text member must be.
pub const UUID_PATTERN: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/// Text with at least one character that is not white space (what `entries_not_blank` asks).
/// U+0085 is white space to the service but not to ECMA-262's `\s`, so it is named.
pub const NOT_BLANK_PATTERN: &str = "[^\\s\\u0085]";

/// Every rule the document adds, by schema.
pub fn rules_beyond_the_generator() -> Vec<SchemaRule> {
    let mut rules = Vec::new();
    rules.extend(non_blank_texts());
    rules.extend(url_shapes());
    rules.extend(either_or_members());
    rules.extend(refused_values());
    rules
}

fn rule(schema: Cow<'static, str>, pointer: &str, keyword: &'static str, value: Value) -> SchemaRule {
    (schema, pointer.to_owned(), keyword, value)
}

/// A member that must hold a value when given: `null` is refused (not read as absent).
fn not_null(schema: Cow<'static, str>, member: &str) -> SchemaRule {
    rule(schema, &format!("/properties/{member}"), "not", json!({ "type": "null" }))
}

/// Texts the service refuses empty or blank.
fn non_blank_texts() -> Vec<SchemaRule> {
    let blank = json!(NOT_BLANK_PATTERN);
    vec![
        rule(CallInput::name(), "/properties/recordingUrl", "minLength", 1.into()),
        rule(CallInput::name(), "/properties/stereoRecordingUrl", "minLength", 1.into()),
        rule(CallInput::name(), "/properties/externalId", "minLength", 1.into()),
        rule(PersonaFields::name(), "/properties/idleMessages/items", "pattern", blank.clone()),
        rule(PersonaUpdate::name(), "/properties/idleMessages/items", "pattern", blank),
        not_null(EdgeCaseInput::name(), "title"),
    ]
}

/// Where a webhook delivers and what an HTTP request definition calls.
fn url_shapes() -> Vec<SchemaRule> {
    let web = json!(webhook_limits::URL_PATTERN);
    let request = json!(request_definition_limits::URL_PATTERN);
    vec![
        rule(WebhookInput::name(), "/properties/url", "pattern", web),
        rule(WebhookInput::name(), "/properties/url", "format", "uri".into()),
        rule(HttpRequestDefinitionInput::name(), "/properties/url", "pattern", request.clone()),
        rule(HttpRequestDefinitionUpdate::name(), "/properties/url", "pattern", request),
    ]
}

/// `{required: [member], properties: {member: not null}}`: the member given, with a value.
fn given(member: &str) -> Value {
    json!({ "required": [member], "properties": { member: { "not": { "type": "null" } } } })
}

/// Members of which one (or at least one) must be given.
fn either_or_members() -> Vec<SchemaRule> {
    let agent_by_key = json!({
        "required": ["conditionType", "conditionKey"],
        "properties": { "conditionType": { "const": "AGENT" }, "conditionKey": { "pattern": UUID_PATTERN } }
    });
    let runs_something = json!([
        { "required": ["happyPath"], "properties": { "happyPath": { "const": true } } },
        given("edgeCases"),
    ]);
    vec![
        rule(MetricDefinitionInput::name(), "", "anyOf", json!([given("type"), given("outputType")])),
        rule(
            IssueUpdate::name(),
            "",
            "anyOf",
            json!([given("status"), {"required": ["severity"]}, {"required": ["assigneeUserId"]}]),
        ),
        rule(ConditionInput::name(), "", "anyOf", json!([given("conditionValue"), agent_by_key])),
        rule(FlowSelection::name(), "", "oneOf", json!([given("id"), given("slug")])),
        rule(KnowledgeBaseInput::name(), "", "oneOf", json!([given("content"), given("file")])),
        rule(FlowSelection::name(), "", "anyOf", runs_something),
        rule(
            PolicyUpdate::name(),
            "",
            "anyOf",
            json!([given("status"), given("name"), given("conditions"), given("metrics")]),
        ),
        // A group's conditions default to none on decode, which the service refuses.
        rule(ConditionGroupInput::name(), "", "required", json!(["conditions"])),
    ]
}

/// Values of an enum that responses carry but an input refuses.
fn refused_values() -> Vec<SchemaRule> {
    vec![
        rule(MetricDefinitionInput::name(), "/properties/calculationType", "enum", json!(["LLM_JUDGE", "FORMULA"])),
        rule(
            ConditionInput::name(),
            "/properties/conditionType",
            "not",
            json!({ "enum": ["CALL_SOURCE", "INTEGRATION"] }),
        ),
        rule(FlowInput::name(), "/properties/type", "not", json!({ "const": "VOICEMAIL" })),
    ]
}
