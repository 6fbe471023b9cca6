//! An alert as the read routes return it (local service extension): the alert with where its
//! threshold trigger stands, overall and per group.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
use super::config::{AlertActionsConfig, AlertTriggerConfig};
use super::issue::Severity;
use crate::wire_enum;

wire_enum! {
    /// Where a threshold alert stands: nothing breaching, breaching short of opening, or an issue open.
    pub enum AlertState { Ok = "OK", Breaching = "BREACHING", Open = "OPEN" }
}
wire_enum! {
    /// The kinds of action an alert takes.
    pub enum AlertActionType { Webhook = "webhook", Slack = "slack" }
}

/// `GET /v1/alert` and `GET /v1/alert/{idOrName}`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertStatus {
    pub id: Uuid,
    pub name: String,
    /// The `kind: alert` trigger as applied.
    #[schema(value_type = Object)]
    pub trigger: AlertTriggerConfig,
    #[schema(value_type = Option<Object>)]
    pub actions: Option<AlertActionsConfig>,
    pub enabled: bool,
    /// The severity of the issues it opens, as the bundle gave it (absent: MEDIUM).
    pub severity: Option<Severity>,
    /// The most pressing group's state (OPEN, then BREACHING, then OK).
    pub state: AlertState,
    /// That group's consecutive breaching windows (BREACHING, OPEN) or clean ones (OK).
    pub consecutive_windows: u32,
    /// That group's last decided window (its start) and value.
    pub last_window_start: Option<Timestamp>,
    pub last_value: Option<f64>,
    /// Each group: one under grouping NONE, one per agent under BY_AGENT.
    #[serde(default)]
    pub groups: Vec<AlertGroupStatus>,
    /// Each of `actions`, and whether this service carries it out.
    #[serde(default)]
    pub action_status: Vec<AlertActionStatus>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// Where one group of a threshold alert stands.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertGroupStatus {
    /// The agent's id under BY_AGENT (`no-agent` for calls that name none); absent under NONE.
    pub agent_id: Option<String>,
    /// The plan whose runs a simulation trigger judged.
    pub plan_id: Option<String>,
    pub state: AlertState,
    pub consecutive_windows: u32,
    pub last_window_start: Option<Timestamp>,
    pub last_value: Option<f64>,
    /// The issue open for this group.
    pub issue_id: Option<Uuid>,
    /// The fingerprint of this group's issues (`alert:<id>`, with `:agent:<id>` under BY_AGENT).
    pub fingerprint: Option<String>,
    /// The group's latest decided windows, oldest first (`GET /v1/alert/{idOrName}` only; the
    /// list leaves them out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<AlertWindow>,
}

/// One decided window of a group (local service extension).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertWindow {
    /// The window's start (windows are aligned to multiples of `windowMinutes` since the epoch).
    pub start: Timestamp,
    /// The window's value; absent when it held fewer than `minSampleSize` values.
    pub value: Option<f64>,
    /// How many calls' values it held.
    pub samples: u64,
    /// Whether the value breached the threshold.
    pub breaching: bool,
}

/// One action of an alert: where it goes, and whether the local service delivers it.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertActionStatus {
    #[serde(rename = "type")]
    pub action_type: AlertActionType,
    /// The webhook's URL, or the Slack channel's name (else its id).
    pub target: String,
    pub delivered: bool,
    /// Why it is not delivered.
    pub reason: Option<String>,
}
