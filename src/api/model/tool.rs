//! Tools and alerts as the service keeps them: made by a config bundle (`kind: tool`,
//! `kind: alert`). No route serves them yet; what an alert does is the Alerts issue's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use uuid::Uuid;

use super::common::Timestamp;
use super::config::{AlertActionsConfig, AlertTriggerConfig, ToolHandlerConfig, ToolParameterType};
use super::issue::Severity;

/// A tool an agent may call.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub id: Uuid,
    pub name: String,
    pub agent_id: Option<Uuid>,
    pub description: Option<String>,
    pub expected_result: Option<String>,
    pub handler: Option<ToolHandlerConfig>,
    pub invocation_criteria: Option<String>,
    pub parameters: Option<BTreeMap<String, ToolParameterType>>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// An alert: when it fires and where it says so. The trigger names its metric (by slug) and
/// plan (by name) as the bundle does.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    pub id: Uuid,
    /// The name people see (the bundle's `displayName`, else its `name`).
    pub name: String,
    pub trigger: AlertTriggerConfig,
    pub actions: Option<AlertActionsConfig>,
    pub enabled: bool,
    /// The severity of the issues it opens, as the bundle gave it (absent: MEDIUM).
    pub severity: Option<Severity>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}
