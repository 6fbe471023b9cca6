//! The body of apply and diff, and what they answer: one change per resource, and the counts.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

use super::{ConfigKind, config_limits};
use crate::api::model::common::UnknownFields;
use crate::api::validate::{Checks, Validate};
use crate::wire_enum;

wire_enum! { pub enum ConfigOp { Create = "create", Update = "update", Delete = "delete", Noop = "noop" } }
wire_enum! {
    /// What became of a change: made, not made on purpose (a kind the service does not keep),
    /// or refused (a delete a running job still needs).
    pub enum ChangeStatus { Applied = "applied", Skipped = "skipped", Failed = "failed" }
}

/// Body of `POST /v1/config/apply` and `POST /v1/config/diff`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigBundle {
    /// The workspace's whole desired set: each an object with a `kind` (agent,
    /// httpRequestDefinition, persona, flow, collector, metric, simulationPlan,
    /// simulationGroup, alert, tool, dashboard, project) and that kind's members, as the hosted
    /// SDK's `ConfigApplyParams` declares them; docs/config.md lists them.
    #[schema(value_type = Vec<Object>, required = true, max_items = 2000)]
    pub resources: Option<Vec<serde_json::Value>>,
    /// Deletes the resources an earlier apply made that the bundle no longer holds.
    #[schema(default = true)]
    pub prune: Option<bool>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl ConfigBundle {
    pub fn prune_or_default(&self) -> bool {
        self.prune.unwrap_or(true)
    }
}

impl Validate for ConfigBundle {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown(at, &self.unknown_fields);
        c.required(at, "resources", &self.resources);
        c.items(at, "resources", self.resources.as_deref(), 0, Some(config_limits::RESOURCES_MAX));
    }
}

/// One change an apply makes (or a diff says it would make).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigChange {
    /// `KIND/NAME`.
    pub config_key: String,
    pub kind: ConfigKind,
    pub name: String,
    pub op: ConfigOp,
    pub status: ChangeStatus,
    /// The resource's id (a skipped or refused change may have none).
    pub id: Option<String>,
    /// For an update, the members that change, old → new; for a skipped kind, why.
    pub detail: Option<String>,
    /// Why a change failed.
    pub error: Option<String>,
    /// The project of an organization key's change (never, here).
    pub project: Option<String>,
    /// Shown once: for a new HTTP request definition, the secret requests would be signed with;
    /// for a new alert, the secret its webhook deliveries are signed with.
    pub signing_secret: Option<String>,
}

/// A resource an apply made, by the name its bundle gave it: `GET /v1/config/records` (a local
/// service extension), so an export from this service gives every resource its bundle name back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigRecordEntry {
    pub kind: ConfigKind,
    pub name: String,
    pub id: String,
}

/// How many changes of each sort.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigSummary {
    pub create: u64,
    pub update: u64,
    pub delete: u64,
    pub noop: u64,
    pub failed: u64,
}

/// `data` of apply and diff: the changes in bundle order (deletes last) and their counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigChanges {
    pub changes: Vec<ConfigChange>,
    pub summary: ConfigSummary,
}

impl ConfigChanges {
    /// The changes, counted.
    pub fn of(changes: Vec<ConfigChange>) -> ConfigChanges {
        let mut summary = ConfigSummary::default();
        for change in &changes {
            if change.status == ChangeStatus::Failed {
                summary.failed += 1;
                continue;
            }
            if change.status == ChangeStatus::Skipped {
                continue;
            }
            match change.op {
                ConfigOp::Create => summary.create += 1,
                ConfigOp::Update => summary.update += 1,
                ConfigOp::Delete => summary.delete += 1,
                ConfigOp::Noop | ConfigOp::Unknown(_) => summary.noop += 1,
            }
        }
        ConfigChanges { changes, summary }
    }

    /// The deletes among the changes.
    pub fn deletes(&self) -> Vec<&ConfigChange> {
        self.changes.iter().filter(|c| c.op == ConfigOp::Delete && c.status != ChangeStatus::Failed).collect()
    }

    /// The changes the service refused.
    pub fn failures(&self) -> Vec<&ConfigChange> {
        self.changes.iter().filter(|c| c.status == ChangeStatus::Failed).collect()
    }

    /// Whether applying would change anything.
    pub fn changes_anything(&self) -> bool {
        let s = &self.summary;
        s.create + s.update + s.delete > 0
    }
}
