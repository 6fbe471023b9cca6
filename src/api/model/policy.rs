//! Metric policies: which metrics are collected for which calls or chats.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{IdRef, Timestamp, UnknownFields};
use super::metric::Modality;
use crate::api::validate::{Checks, Validate, index, join};
use crate::wire_enum;

wire_enum! {
    pub enum PolicyStatus { Active = "ACTIVE", Inactive = "INACTIVE" }
}
wire_enum! {
    /// Who made a policy.
    pub enum PolicyType { System = "SYSTEM", Custom = "CUSTOM" }
}
wire_enum! {
    /// What a condition's key refers to.
    pub enum ConditionType {
        Agent = "AGENT", AgentEndpoint = "AGENT_ENDPOINT", Direction = "DIRECTION", Environment = "ENVIRONMENT", Custom = "CUSTOM",
    }
}
wire_enum! {
    pub enum ConditionOperator { Equals = "EQUALS", NotEquals = "NOT_EQUALS" }
}

/// Condition keys the local service understands.
pub const CONDITION_KEYS: &[&str] = &["agentId", "agentEndpointId", "direction", "environment"];

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
    #[schema(value_type = Vec<IdRef>, required = true, min_items = 1, max_items = 50)]
    pub metrics: Option<Vec<IdRef>>,
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

#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub condition_key: Option<String>,
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub condition_value: Option<String>,
}

impl Validate for PolicyInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use policy_limits::*;
        c.unknown(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "modality", &self.modality);
        c.known(at, "modality", self.modality.as_ref());
        c.required(at, "metrics", &self.metrics);
        c.items(at, "metrics", self.metrics.as_deref(), 1, Some(METRICS_MAX));
        c.known(at, "status", self.status.as_ref());
        c.items(at, "conditions", self.conditions.as_deref(), 0, Some(GROUPS_MAX));
        for (g, group) in self.conditions.iter().flatten().enumerate() {
            let group_path = join(&index(&join(at, "conditions"), g), "conditions");
            c.items(&index(&join(at, "conditions"), g), "conditions", Some(&group.conditions), 1, Some(CONDITIONS_MAX));
            for (i, condition) in group.conditions.iter().enumerate() {
                let path = index(&group_path, i);
                c.required(&path, "conditionKey", &condition.condition_key);
                c.length(&path, "conditionKey", condition.condition_key.as_deref(), 1, Some(CONDITION_TEXT_MAX));
                c.required(&path, "conditionValue", &condition.condition_value);
                c.length(&path, "conditionValue", condition.condition_value.as_deref(), 1, Some(CONDITION_TEXT_MAX));
            }
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
    pub metrics: Vec<IdRef>,
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
    pub condition_value: Option<String>,
    pub condition_type: Option<ConditionType>,
    pub condition_operator: Option<ConditionOperator>,
}

/// Body of `PATCH /v1/metric/policies/{id}`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyUpdate {
    pub status: Option<PolicyStatus>,
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for PolicyUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        c.length(at, "name", self.name.as_deref(), 1, Some(policy_limits::NAME_MAX));
        c.known(at, "status", self.status.as_ref());
        if self.status.is_none() && self.name.is_none() {
            c.missing(join(at, "status"));
        }
    }
}
