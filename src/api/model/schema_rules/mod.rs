//! Rules the inputs enforce that the schema generator cannot state from the types: members
//! that must not be blank or null, either-or members, members one member's value asks for or
//! refuses (`between`), values an input refuses of an enum it shares with responses, and URL
//! and media-type shapes. The document adds them (`service::http::openapi`), so a client generated
//! from it (or Prism in front of it) refuses what the service refuses.
//! Rules no JSON Schema can state (`scaleMax > scaleMin`, ids that must name something, what
//! a stored resource decides) are written in the operation's description instead.

mod between;

use std::borrow::Cow;

use serde_json::{Value, json};
use utoipa::ToSchema;

use super::*;

/// One rule: (schema, JSON pointer inside it, keyword, value). `required` is added to the
/// members already required; any other keyword is set.
pub type SchemaRule = (Cow<'static, str>, String, &'static str, Value);

/// A hyphenated UUID, as an id written in a text member must be.
pub const UUID_PATTERN: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/// The characters the service reads as white space (`char::is_whitespace`, Unicode's
/// White_Space), named one by one: `\s` means another set in each dialect (ECMA-262's takes
/// U+FEFF and leaves U+0085), so a document saying `\s` would refuse what the service keeps.
macro_rules! white_space {
    () => {
        "\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000"
    };
}

/// The inside of a character class of the service's white space.
pub const WHITE_SPACE_CLASS: &str = white_space!();

/// Text with at least one character that is not white space (what `trim().is_empty()` refuses).
pub const NOT_BLANK_PATTERN: &str = concat!("[^", white_space!(), "]");

/// Every rule the document adds, by schema.
pub fn rules_beyond_the_generator() -> Vec<SchemaRule> {
    let mut rules = Vec::new();
    rules.extend(non_blank_texts());
    rules.extend(url_shapes());
    rules.extend(between::either_or_members());
    rules.extend(between::conditional_members());
    rules.extend(refused_values());
    rules.extend(variable_maps());
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
        rule(PersonaUpdate::name(), "/properties/idleMessages/items", "pattern", blank.clone()),
        rule(RunPlanInput::name(), "/properties/endCallPhrases/items", "pattern", blank.clone()),
        rule(RunPlanInput::name(), "/properties/endCallReasons/items", "pattern", blank.clone()),
        rule(RunPlanUpdate::name(), "/properties/endCallPhrases/items", "pattern", blank.clone()),
        rule(RunPlanUpdate::name(), "/properties/endCallReasons/items", "pattern", blank),
        not_null(EdgeCaseInput::name(), "title"),
        rule(AgentIdentification::name(), "/properties/name", "minLength", 1.into()),
        rule(AgentIdentification::name(), "/properties/customId", "minLength", 1.into()),
        rule(EndpointIdentification::name(), "/properties/value", "minLength", 1.into()),
    ]
    .into_iter()
    .chain(not_blank_names())
    .chain(updates_without_null())
    .collect()
}

/// Names and titles the service refuses blank (white space only).
fn not_blank_names() -> Vec<SchemaRule> {
    let titled = [FlowInput::name(), FlowUpdate::name(), VariantInput::name(), EdgeCaseInput::name()];
    let named = [EnvironmentInput::name(), EnvironmentUpdate::name()];
    let titles = titled.into_iter().map(|schema| (schema, "/properties/title"));
    let names = named.into_iter().map(|schema| (schema, "/properties/name"));
    titles.chain(names).map(|(schema, pointer)| rule(schema, pointer, "pattern", json!(NOT_BLANK_PATTERN))).collect()
}

/// An environment update refuses `null` for every member (leaving one out keeps it); the
/// nullable ones are said not to take it here.
fn updates_without_null() -> Vec<SchemaRule> {
    ["backgroundNoiseVolume", "description"].into_iter().map(|m| not_null(EnvironmentUpdate::name(), m)).collect()
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

/// A map of variables: names not blank and values within their limits, as `check_variables`
/// reads them wherever a plan or a run takes variables.
fn variable_maps() -> Vec<SchemaRule> {
    use run_plan_limits::{VARIABLE_NAME_MAX, VARIABLE_VALUE_MAX, VARIABLES_MAX};
    let maps = [
        (RunVariables::name(), "/oneOf/0"),
        (FlowVariables::name(), "/properties/variables"),
        (FlowSelection::name(), "/properties/variables"),
        (ScenarioSelection::name(), "/properties/variables"),
        (EdgeCaseSelection::name(), "/properties/variables"),
    ];
    let names = json!({ "type": "string", "pattern": NOT_BLANK_PATTERN, "maxLength": VARIABLE_NAME_MAX });
    let values = json!({ "type": "string", "maxLength": VARIABLE_VALUE_MAX });
    maps.into_iter()
        .flat_map(|(schema, pointer)| {
            [
                rule(schema.clone(), pointer, "propertyNames", names.clone()),
                rule(schema.clone(), pointer, "additionalProperties", values.clone()),
                rule(schema, pointer, "maxProperties", VARIABLES_MAX.into()),
            ]
        })
        .collect()
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
        rule(HttpRequestDefinitionInput::name(), "/properties/method", "not", json!({ "const": "DELETE" })),
        rule(HttpRequestDefinitionUpdate::name(), "/properties/method", "not", json!({ "const": "DELETE" })),
        rule(RunPlanUpdate::name(), "/properties/isHidden", "not", json!({ "const": true })),
        rule(KnowledgeFile::name(), "/properties/mimeType", "pattern", json!(knowledge_file_type_pattern())),
    ]
    .into_iter()
    .chain(ingested_entry_roles())
    .collect()
}

/// An ingested transcript's entries speak as AGENT or CUSTOMER (`ENTRY_ROLES`), in either of
/// its forms; a stored transcript read back may name other participants.
fn ingested_entry_roles() -> Vec<SchemaRule> {
    let roles: Vec<&str> = ENTRY_ROLES.iter().map(ParticipantType::as_str).collect();
    let role = json!({ "role": { "anyOf": [{ "type": "null" }, { "enum": roles }] } });
    let entries = json!({ "entries": { "items": { "properties": role.clone() } } });
    vec![
        rule(TranscriptInput::name(), "/oneOf/0/items", "properties", role),
        rule(TranscriptInput::name(), "/oneOf/1", "properties", entries),
    ]
}

/// A file's media type the judge reads: one of `FILE_TYPES` in any case, with parameters
/// (`text/plain; charset=utf-8`) and surrounding white space allowed, as the service reads it.
pub fn knowledge_file_type_pattern() -> String {
    let any_case = |text: &str| -> String {
        text.chars()
            .map(|ch| match ch {
                ch if ch.is_ascii_alphabetic() => format!("[{}{}]", ch.to_ascii_lowercase(), ch.to_ascii_uppercase()),
                '.' | '+' => format!("\\{ch}"),
                ch => ch.to_string(),
            })
            .collect()
    };
    let types: Vec<String> = knowledge_limits::FILE_TYPES.iter().map(|t| any_case(t)).collect();
    format!("^[{WHITE_SPACE_CLASS}]*({})[{WHITE_SPACE_CLASS}]*(;|$)", types.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character, read by the pattern as the service reads it: blank exactly when
    /// `char::is_whitespace` says so (U+FEFF and U+200B are not white space; U+00A0 and tab are).
    #[test]
    fn the_not_blank_pattern_blanks_what_the_service_trims() {
        let pattern = regex::Regex::new(NOT_BLANK_PATTERN).expect("a pattern");
        for ch in (0..=0x10FFFF).filter_map(char::from_u32) {
            let text = ch.to_string();
            assert_eq!(pattern.is_match(&text), !text.trim().is_empty(), "U+{:04X}", u32::from(ch));
        }
    }
}
