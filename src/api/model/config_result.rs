//! The answer of `POST /v1/config/apply` and `POST /v1/config/diff` (`data`): what each
//! resource of a bundle did or would do, and the counts. Read leniently (a newer service may
//! send more members and values).

use serde::{Deserialize, Serialize};

use crate::wire_enum;

wire_enum! { pub enum ChangeOp { Create = "create", Update = "update", Delete = "delete", Noop = "noop" } }
wire_enum! { pub enum ChangeStatus { Applied = "applied", Skipped = "skipped", Failed = "failed" } }

/// The interface's answer to apply and diff (`data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    #[serde(default)]
    pub changes: Vec<Change>,
    #[serde(default)]
    pub summary: ChangeSummary,
}

/// One resource's change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub config_key: String,
    pub op: ChangeOp,
    pub status: ChangeStatus,
    #[serde(default)]
    pub detail: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeSummary {
    #[serde(default)]
    pub create: u64,
    #[serde(default)]
    pub update: u64,
    #[serde(default)]
    pub delete: u64,
    #[serde(default)]
    pub noop: u64,
    #[serde(default)]
    pub failed: u64,
}

impl ConfigResult {
    /// Whether applying would change anything (what `diff --exit-code` asks).
    pub fn changes_something(&self) -> bool {
        self.changes.iter().any(|c| matches!(c.op, ChangeOp::Create | ChangeOp::Update | ChangeOp::Delete))
    }

    pub fn deletes(&self) -> Vec<&Change> {
        self.changes.iter().filter(|c| c.op == ChangeOp::Delete).collect()
    }

    pub fn failures(&self) -> Vec<&Change> {
        self.changes.iter().filter(|c| c.status == ChangeStatus::Failed).collect()
    }
}
