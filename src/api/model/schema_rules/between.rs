//! Rules between members: of which one (or at least one, or not both) must be given, and
//! what one member's value asks of the others (`if`/`then`: a flow's `type`, a schedule's
//! `type`, an endpoint's dial type).

use serde_json::{Value, json};
use utoipa::ToSchema;

use super::super::*;
use super::{SchemaRule, UUID_PATTERN, given, rule};

/// `given` for each member: all of them given, with values.
fn given_all(members: &[&str]) -> Value {
    json!({ "allOf": members.iter().map(|m| given(m)).collect::<Vec<_>>() })
}

/// The member left out or null (what the service reads as not given).
fn absent(member: &str) -> Value {
    json!({ "properties": { member: { "type": "null" } } })
}

/// Not both members given.
fn not_both(a: &str, b: &str) -> Value {
    json!({ "not": given_all(&[a, b]) })
}

/// `{if: member is value, then}`.
fn when_is(member: &str, value: &str, then: Value) -> Value {
    json!({ "if": { "required": [member], "properties": { member: { "const": value } } }, "then": then })
}

/// Members of which one (or at least one) must be given.
pub(super) fn either_or_members() -> Vec<SchemaRule> {
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
        rule(EvidenceInput::name(), "", "oneOf", json!([given("callId"), given("chatId")])),
        rule(FlowVariables::name(), "", "allOf", flow_variables()),
        rule(AgentIdentification::name(), "", "anyOf", json!([given("roarkId"), given("customId"), given("name")])),
        rule(EndpointIdentification::name(), "", "anyOf", json!([given("id"), given("value")])),
        rule(CallInput::name(), "", "allOf", json!([not_both("agent", "agents"), not_both("customer", "customers")])),
        rule(CollectionJobInput::name(), "", "allOf", collection_job()),
        rule(RunRequest::name(), "", "allOf", run_request()),
        rule(RunPlanInput::name(), "", "allOf", runs_some_flow()),
        rule(MetricDefinitionInput::name(), "/properties/unit", "anyOf", json!([{ "type": "null" }, given("name")])),
    ]
    .into_iter()
    .chain(metric_references())
    .chain(off_script_policies())
    .collect()
}

/// A collection job computes something (metrics, or a policy's), on calls or chats, and
/// names one policy or a list of them.
fn collection_job() -> Value {
    let computes = json!({ "anyOf": [given("metrics"), given("policyIds"), given("policyId")] });
    let on_something = json!({
        "if": { "anyOf": [given("metrics"), given("policyId")] },
        "then": { "anyOf": [given("callIds"), given("chatIds")] }
    });
    json!([computes, on_something, not_both("policyId", "policyIds")])
}

/// A run's values for one flow name the flow, and the happy path or one edge case.
fn flow_variables() -> Value {
    let happy = json!({ "required": ["happyPath"], "properties": { "happyPath": { "const": true } } });
    json!([given("flowId"), { "if": happy, "then": absent("edgeCaseId") }])
}

/// A run names a saved plan or brings one (not both), and only a brought one is saved.
fn run_request() -> Value {
    json!([
        { "oneOf": [given("planId"), given("plan")] },
        { "if": given("saveAsPlan"), "then": given("plan") },
    ])
}

/// A plan runs flows (or the deprecated scenarios, which need personas).
fn runs_some_flow() -> Value {
    json!([
        { "anyOf": [given("flows"), given("scenarios")] },
        { "if": given("scenarios"), "then": given("personas") },
    ])
}

/// A plan's metric is named by `id`, or by `slug` (or its alias `metricId`), not both: stated
/// on the inputs' items, since a plan read back names each by both.
fn metric_references() -> Vec<SchemaRule> {
    let by_id_or_slug = json!([given("id"), { "anyOf": [given("slug"), given("metricId")] }]);
    [RunPlanInput::name(), RunPlanUpdate::name()]
        .into_iter()
        .map(|schema| rule(schema, "/properties/metrics/items", "oneOf", by_id_or_slug.clone()))
        .collect()
}

/// An off-script policy a caller sends has its reaction, attempts and what follows (a stored
/// one read back may not, so the rule sits on the inputs' members, not on the schema).
fn off_script_policies() -> Vec<SchemaRule> {
    let whole = json!([{ "type": "null" }, given_all(&["reaction", "maxAttempts", "then"])]);
    [FlowInput::name(), FlowUpdate::name(), FlowStepInput::name()]
        .into_iter()
        .map(|schema| rule(schema, "/properties/offScriptPolicy", "anyOf", whole.clone()))
        .collect()
}

/// What one member's value asks of the others.
pub(super) fn conditional_members() -> Vec<SchemaRule> {
    let dials_by_definition = when_is("outboundDialType", "HTTP_REQUEST", given("outboundDialHttpRequestDefinitionId"));
    let mut rules = vec![
        rule(AgentEndpointInput::name(), "", "allOf", json!([dials_by_definition])),
        rule(FlowInput::name(), "", "allOf", json!([scripted_flow(), improv_flow()])),
    ];
    for schema in [RunPlanInput::name(), RunPlanUpdate::name()] {
        rules.push(rule(schema, "/properties/schedule", "allOf", schedule_members()));
    }
    rules
}

/// A SCRIPTED flow has its graph, and its variants come from it.
fn scripted_flow() -> Value {
    let then = json!({ "allOf": [given("graph"), absent("happyPath"), absent("edgeCases")] });
    when_is("type", FlowType::Scripted.as_str(), then)
}

/// An IMPROV flow has agents and a happy path (titled, with its persona and environment), its
/// edge cases are titled, and it takes none of a scripted flow's members.
fn improv_flow() -> Value {
    let mut parts = vec![given("agentIds"), given("happyPath")];
    parts.extend(["graph", "branchingMode", "offScriptPolicy", "scriptAdherence"].map(absent));
    parts.push(json!({
        "properties": {
            "agentIds": { "minItems": 1 },
            "happyPath": given_all(&["title", "personaOverrideId", "environmentId"]),
            "edgeCases": { "items": given("title") },
        }
    }));
    when_is("type", FlowType::Improv.as_str(), json!({ "allOf": parts }))
}

/// Per schedule `type`: the members it needs given, and another type's members left out.
fn schedule_members() -> Value {
    let by_type = ScheduleType::KNOWN.iter().map(|kind| {
        let takes = |member: &str| {
            kind.members().contains(&member) || (kind.repeats() && matches!(member, "maxRuns" | "endDate"))
        };
        let mut parts: Vec<Value> = kind.required_members().map(given).collect();
        parts.extend(TYPED_SCHEDULE_MEMBERS.iter().filter(|m| !takes(m)).map(|m| absent(m)));
        when_is("type", kind.as_str(), json!({ "allOf": parts }))
    });
    Value::Array(by_type.collect())
}
