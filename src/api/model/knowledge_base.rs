//! Knowledge bases: reference documents metrics read as ground truth. Only metadata is readable.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Timestamp;
use crate::wire_enum;

wire_enum! { pub enum KnowledgeSourceType { Text = "TEXT", File = "FILE", Url = "URL" } }
wire_enum! {
    pub enum KnowledgeBaseStatus { Pending = "PENDING", Processing = "PROCESSING", Ready = "READY", Failed = "FAILED" }
}

/// The smallest byte size a knowledge base can have.
pub const BYTE_SIZE_MIN: i64 = 1;

/// A knowledge base's metadata; its content is never returned.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    pub id: Uuid,
    pub name: Option<String>,
    pub description: Option<String>,
    pub source_type: Option<KnowledgeSourceType>,
    pub status: Option<KnowledgeBaseStatus>,
    pub original_filename: Option<String>,
    pub mime_type: Option<String>,
    pub source_url: Option<String>,
    #[schema(minimum = 1)]
    pub byte_size: Option<i64>,
    pub content_hash: Option<String>,
    pub error_message: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}
