//! Metric policies: which metrics are collected for which calls or chats.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use super::metric::Modality;
use crate::api::validate::{Checks, Validate, index, join};
use crate::wire_enum;

wire_enum! {
    pub enum PolicyStatus { Active = "ACTIVE", Inactive = "INACTIVE" }
}
wire_enum! {
    /// Who made a policy: the service (SYSTEM) or the caller (USER).
    pub enum PolicyType { System = "SYSTEM", User = "USER" }
}
wire_enum! {
    /// What a condition matches on: the call's agent (AGENT), or a property of the call
    /// (CALL_PROPERTY: `agentId`, `agentEndpointId`, `direction`, `environment`, or one of the
    /// call's own `properties`). CALL_SOURCE and INTEGRATION are the hosted interface's too; the
    /// local service has no call sources or integrations and refuses them.
    pub enum ConditionType {
        Agent = "AGENT", CallSource = "CALL_SOURCE", CallProperty = "CALL_PROPERTY", Integration = "INTEGRATION",
    }
}
wire_enum! {
    pub enum ConditionOperator {
        Equals = "EQUALS",
        NotEquals = "NOT_EQUALS",
        Contains = "CONTAINS",
        StartsWith = "STARTS_WITH",
        GreaterThan = "GREATER_THAN",
        LessThan = "LESS_THAN",
        GreaterThanOrEquals = "GREATER_THAN_OR_EQUALS",
        LessThanOrEquals = "LESS_THAN_OR_EQUALS",
    }
}

/// Condition keys the local service understands besides the call's own properties.
pub const CONDITION_KEYS: &[&str] = &["agentId", "agentEndpointId", "direction", "environment"];

/// The type a condition has when its input leaves it out: AGENT for `agentId`, else CALL_PROPERTY.
pub fn condition_type_of(key: &str) -> ConditionType {
    if key == "agentId" { ConditionType::Agent } else { ConditionType::CallProperty }
}

/// Limits of the policy inputs.
pub mod policy_limits {
    pub const NAME_MAX: usize = 200;
    pub const METRICS_MAX: usize = 50;
    pub const GROUPS_MAX: usize = 20;
    pub const CONDITIONS_MAX: usize = 20;
    pub const CONDITION_TEXT_MAX: usize = 200;
}

/// Body of `POST /v1/metric/policies`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// A policy fires for exactly one modality and may reference only metrics supporting it.
    #[schema(value_type = Modality, required = true)]
    pub modality: Option<Modality>,
    #[schema(value_type = Vec<PolicyMetric>, required = true, min_items = 1, max_items = 50)]
    pub metrics: Option<Vec<PolicyMetric>>,
    #[schema(default = "ACTIVE")]
    pub status: Option<PolicyStatus>,
    /// Groups are alternatives; every condition inside a group must hold. Omit to match all.
    #[schema(max_items = 20)]
    pub conditions: Option<Vec<ConditionGroupInput>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// A group of conditions that must all hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConditionGroupInput {
    #[serde(default)]
    #[schema(min_items = 1, max_items = 20)]
    pub conditions: Vec<ConditionInput>,
}

/// One condition: `{conditionKey: "agentId", conditionValue: <id>}` (this service's form), or
/// the hosted form `{conditionType: AGENT, conditionKey: <agent id>}` with no value.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub condition_key: Option<String>,
    /// Required, except for an AGENT condition whose key is the agent's id.
    #[schema(min_length = 1, max_length = 200)]
    pub condition_value: Option<String>,
    /// AGENT for `agentId`, else CALL_PROPERTY, when omitted.
    pub condition_type: Option<ConditionType>,
    #[schema(default = "EQUALS")]
    pub condition_operator: Option<ConditionOperator>,
}

impl ConditionInput {
    /// The condition as stored, with its type and operator filled.
    pub fn into_condition(self) -> Condition {
        let key = self.condition_key.unwrap_or_default();
        Condition {
            condition_type: Some(self.condition_type.unwrap_or_else(|| condition_type_of(&key))),
            condition_operator: Some(self.condition_operator.unwrap_or(ConditionOperator::Equals)),
            condition_key: Some(key),
            condition_value: self.condition_value,
        }
    }
}

/// A metric a policy collects, with its per-collector setting (null: the metric's default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PolicyMetric {
    pub id: Uuid,
    /// Accepted and returned as given; the local metrics take no settings.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
}

impl From<Uuid> for PolicyMetric {
    fn from(id: Uuid) -> Self {
        PolicyMetric { id, settings: None }
    }
}

impl Validate for PolicyInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use policy_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "modality", &self.modality);
        c.known(at, "modality", self.modality.as_ref());
        c.required(at, "metrics", &self.metrics);
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(METRICS_MAX));
        c.known(at, "status", self.status.as_ref());
        check_conditions(c, at, self.conditions.as_deref());
    }
}

fn check_conditions(c: &mut Checks, at: &str, conditions: Option<&[ConditionGroupInput]>) {
    use policy_limits::*;
    c.items(at, "conditions", conditions, 0, Some(GROUPS_MAX));
    for (g, group) in conditions.unwrap_or_default().iter().enumerate() {
        let group_path = join(&index(&join(at, "conditions"), g), "conditions");
        c.items(&index(&join(at, "conditions"), g), "conditions", Some(&group.conditions), 1, Some(CONDITIONS_MAX));
        for (i, condition) in group.conditions.iter().enumerate() {
            let path = index(&group_path, i);
            c.required(&path, "conditionKey", &condition.condition_key);
            c.length(&path, "conditionKey", condition.condition_key.as_deref(), 1, Some(CONDITION_TEXT_MAX));
            c.known(&path, "conditionType", condition.condition_type.as_ref());
            c.known(&path, "conditionOperator", condition.condition_operator.as_ref());
            if let Some(kind @ (ConditionType::CallSource | ConditionType::Integration)) = &condition.condition_type {
                c.invalid(
                    join(&path, "conditionType"),
                    format!("conditionType {kind} is not supported here: the local service has no call sources or integrations"),
                );
            }
            let agent_by_key = condition.condition_type == Some(ConditionType::Agent)
                && condition.condition_key.as_deref().is_some_and(|k| Uuid::parse_str(k).is_ok());
            if !agent_by_key {
                c.required(&path, "conditionValue", &condition.condition_value);
            }
            c.length(&path, "conditionValue", condition.condition_value.as_deref(), 1, Some(CONDITION_TEXT_MAX));
        }
    }
}

/// A metric policy as the service returns it.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricPolicy {
    pub id: Uuid,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub policy_type: Option<PolicyType>,
    pub status: Option<PolicyStatus>,
    pub modality: Option<Modality>,
    #[serde(default)]
    pub conditions: Vec<ConditionGroup>,
    #[serde(default)]
    pub metrics: Vec<PolicyMetric>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConditionGroup {
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    pub condition_key: Option<String>,
    #[serialize_always]
    pub condition_value: Option<String>,
    pub condition_type: Option<ConditionType>,
    pub condition_operator: Option<ConditionOperator>,
}

/// Body of `PUT` (the hosted verb) and `PATCH /v1/metric/policies/{id}`: the members given
/// change. `conditions` and `metrics` replace the whole list (an empty `conditions` matches
/// every call).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyUpdate {
    pub status: Option<PolicyStatus>,
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_items = 20)]
    pub conditions: Option<Vec<ConditionGroupInput>>,
    #[schema(min_items = 1, max_items = 50)]
    pub metrics: Option<Vec<PolicyMetric>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PolicyUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.length(at, "name", self.name.as_deref(), 1, Some(policy_limits::NAME_MAX));
        c.known(at, "status", self.status.as_ref());
        check_conditions(c, at, self.conditions.as_deref());
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(policy_limits::METRICS_MAX));
        if self.status.is_none() && self.name.is_none() && self.conditions.is_none() && self.metrics.is_none() {
            c.missing(join(at, "status"));
        }
    }
}
