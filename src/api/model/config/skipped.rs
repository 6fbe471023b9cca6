//! The kinds the local service answers `skipped` for (simulation groups, dashboards, projects):
//! decoded and checked like any other, so a bundle written for the hosted service is read whole,
//! but nothing of them is kept. Their deeper members (widgets, time ranges, nested resources)
//! stay JSON: nothing here reads them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::agent::check_names;
use super::check_name;
use super::config_limits::*;
use super::plan::ScheduleConfig;
use crate::api::model::common::UnknownFields;
use crate::api::validate::{Checks, Validate, join};

/// A Slack channel to notify.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlackChannelConfig {
    pub channel_id: Option<String>,
    pub channel_name: Option<String>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for SlackChannelConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "channelId", &self.channel_id);
        c.length(at, "channelId", self.channel_id.as_deref(), 1, Some(NAME_MAX));
        c.required(at, "channelName", &self.channel_name);
        c.length(at, "channelName", self.channel_name.as_deref(), 1, Some(NAME_MAX));
    }
}

/// `kind: simulationGroup`: plans run together (not kept here).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationGroupConfig {
    pub name: Option<String>,
    pub plans: Option<Vec<String>>,
    pub description: Option<String>,
    /// `{email: true | [addresses], slack: [channels]}`.
    pub notify: Option<Value>,
    pub schedule: Option<ScheduleConfig>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for SimulationGroupConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.required(at, "plans", &self.plans);
        check_names(c, at, "plans", self.plans.as_deref());
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        if let Some(schedule) = &self.schedule {
            schedule.check(c, &join(at, "schedule"));
        }
    }
}

/// `kind: dashboard` (not kept here).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardConfig {
    pub name: Option<String>,
    pub description: Option<String>,
    pub display_name: Option<String>,
    pub filters: Option<Vec<Value>>,
    pub is_default: Option<bool>,
    pub time_range: Option<Value>,
    pub widgets: Option<Vec<Value>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for DashboardConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.items(at, "filters", self.filters.as_deref(), 0, Some(LIST_MAX));
        c.items(at, "widgets", self.widgets.as_deref(), 0, Some(LIST_MAX));
    }
}

/// `kind: project`: an organization key's project with its members and resources (not kept here).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectConfig {
    pub name: Option<String>,
    pub category: Option<String>,
    pub data_storage_region: Option<String>,
    pub description: Option<String>,
    pub display_name: Option<String>,
    pub members: Option<Vec<Value>>,
    pub resources: Option<Vec<Value>>,
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for ProjectConfig {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        check_name(c, at, &self.name, NAME_MAX);
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        c.length(at, "displayName", self.display_name.as_deref(), 1, Some(NAME_MAX));
        c.items(at, "members", self.members.as_deref(), 0, Some(LIST_MAX));
        c.items(at, "resources", self.resources.as_deref(), 0, Some(RESOURCES_MAX));
    }
}
