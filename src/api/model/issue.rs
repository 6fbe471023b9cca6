//! Issues: problems surfaced for a project, with calls and chats as evidence.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use crate::api::validate::{Checks, Validate, index, join};
use crate::wire_enum;

wire_enum! {
    /// How bad an issue is; ordered from least to most severe.
    pub enum Severity { Low = "LOW", Medium = "MEDIUM", High = "HIGH", Critical = "CRITICAL" }
}

impl Severity {
    /// Higher is worse; unknown values rank between none and LOW.
    pub fn rank(&self) -> u8 {
        match self {
            Severity::Low => 2,
            Severity::Medium => 3,
            Severity::High => 4,
            Severity::Critical => 5,
            Severity::Unknown(_) => 1,
        }
    }
}

wire_enum! {
    pub enum IssueStatus { Open = "OPEN", Acknowledged = "ACKNOWLEDGED", Resolved = "RESOLVED" }
}
wire_enum! {
    /// Where an issue came from.
    pub enum IssueSource { TrendAlert = "TREND_ALERT", Api = "API" }
}

/// Limits of the issue create input.
pub mod issue_limits {
    pub const TITLE_MIN: usize = 1;
    pub const TITLE_MAX: usize = 280;
    pub const SUMMARY_MIN: usize = 1;
    pub const SUMMARY_MAX: usize = 2000;
    pub const EVIDENCE_MAX: usize = 50;
}

/// Body of `POST /v1/issue`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 280)]
    pub title: Option<String>,
    #[schema(min_length = 1, max_length = 2000)]
    pub summary: Option<String>,
    /// Null when unset.
    pub severity: Option<Severity>,
    /// Calls and chats; an invalid reference fails the whole request.
    #[schema(max_items = 50)]
    pub evidence: Option<Vec<EvidenceInput>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// One evidence entry: a call or a chat (give exactly one of `callId` and `chatId`).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceInput {
    pub call_id: Option<Uuid>,
    pub chat_id: Option<Uuid>,
}

impl EvidenceInput {
    pub fn call(id: Uuid) -> Self {
        EvidenceInput { call_id: Some(id), chat_id: None }
    }
}

impl Validate for IssueInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use issue_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "title", &self.title);
        c.length(at, "title", self.title.as_deref(), TITLE_MIN, Some(TITLE_MAX));
        c.length(at, "summary", self.summary.as_deref(), SUMMARY_MIN, Some(SUMMARY_MAX));
        c.known(at, "severity", self.severity.as_ref());
        c.items(at, "evidence", self.evidence.as_deref(), 0, Some(EVIDENCE_MAX));
        for (i, entry) in self.evidence.iter().flatten().enumerate() {
            let path = index(&join(at, "evidence"), i);
            match (entry.call_id, entry.chat_id) {
                (None, None) => c.missing(join(&path, "callId")),
                (Some(_), Some(_)) => {
                    c.invalid(join(&path, "chatId"), "an evidence entry is a call or a chat, not both")
                }
                _ => {}
            }
        }
    }
}

/// An issue as the service returns it.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub id: Uuid,
    pub organization_id: Option<Uuid>,
    pub project_id: Option<Uuid>,
    pub alert_id: Option<Uuid>,
    pub source: Option<IssueSource>,
    pub title: Option<String>,
    pub summary: Option<String>,
    /// Null when unset.
    #[serialize_always]
    pub severity: Option<Severity>,
    pub status: Option<IssueStatus>,
    pub fingerprint: Option<String>,
    pub event_count: Option<u64>,
    pub last_event_at: Option<Timestamp>,
    pub opened_at: Option<Timestamp>,
    pub resolved_at: Option<Timestamp>,
    pub assignee_user_id: Option<Uuid>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// A call or chat attached to an issue.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub id: Option<Uuid>,
    pub call_id: Option<Uuid>,
    pub chat_id: Option<Uuid>,
    pub observed_at: Option<Timestamp>,
}

/// Body of `PATCH /v1/issue/{id}`. `severity` and `assigneeUserId` may be set to null.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<IssueStatus>,
    #[serde(default, with = "serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Severity>)]
    pub severity: Option<Option<Severity>>,
    #[serde(default, with = "serde_with::rust::double_option", skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>)]
    pub assignee_user_id: Option<Option<Uuid>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for IssueUpdate {
    fn check(&self, c: &mut Checks, at: &str) {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.known(at, "status", self.status.as_ref());
        c.known(at, "severity", self.severity.as_ref().and_then(Option::as_ref));
        if self.status.is_none() && self.severity.is_none() && self.assignee_user_id.is_none() {
            c.missing(join(at, "status"));
        }
    }
}
