//! Knowledge bases: reference documents metrics read as ground truth, made from text or an
//! uploaded text file. Only metadata is readable.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use crate::api::validate::{Checks, Validate, join};
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

/// Limits of a knowledge base's input.
pub mod knowledge_limits {
    pub const NAME_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const FILENAME_MAX: usize = 255;
    /// The text's characters, so that any text of this length fits a request body (1 MiB).
    pub const CONTENT_CHARS_MAX: usize = 500_000;
    /// A file's base64 characters (a file of about 375 KB).
    pub const FILE_DATA_MAX: usize = 500_000;
    pub const MIME_TYPE_MAX: usize = 100;
    /// The media types a file may have: the judge reads text.
    pub const FILE_TYPES: &[&str] = &["text/plain", "text/markdown", "text/csv", "text/html", "application/json"];
}

/// Body of `POST /v1/knowledge-base` (local service extension): `content` (text) or `file`
/// (an uploaded text file, base64), not both. The content is kept for metrics and never returned.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBaseInput {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// The document as text (sourceType TEXT).
    #[schema(min_length = 1, max_length = 500000)]
    pub content: Option<String>,
    /// The document as an uploaded file (sourceType FILE).
    pub file: Option<KnowledgeFile>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// An uploaded file: its name, media type and bytes (base64, standard alphabet).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeFile {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 255)]
    pub filename: Option<String>,
    /// One of text/plain, text/markdown, text/csv, text/html, application/json.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100)]
    pub mime_type: Option<String>,
    #[schema(value_type = String, required = true, format = Byte, min_length = 1, max_length = 500000)]
    pub data: Option<String>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl KnowledgeFile {
    /// The file's text: its bytes decoded from base64, as UTF-8.
    pub fn text(&self) -> Result<String, &'static str> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(self.data.as_deref().unwrap_or_default().trim())
            .map_err(|_| "data must be the file's bytes in base64")?;
        String::from_utf8(bytes).map_err(|_| "the file must be UTF-8 text")
    }
}

impl KnowledgeBaseInput {
    /// The document's text, from `content` or the file.
    pub fn text(&self) -> Option<String> {
        match (&self.content, &self.file) {
            (Some(content), _) => Some(content.clone()),
            (None, Some(file)) => file.text().ok(),
            (None, None) => None,
        }
    }
}

impl Validate for KnowledgeBaseInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use knowledge_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "name", &self.name);
        c.length(at, "name", self.name.as_deref(), 1, Some(NAME_MAX));
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        match (&self.content, &self.file) {
            (None, None) => c.invalid(join(at, "content"), "give content (the text) or file (an uploaded text file)"),
            (Some(_), Some(_)) => c.invalid(join(at, "file"), "give content or file, not both"),
            (Some(content), None) => {
                if content.trim().is_empty() {
                    c.invalid(join(at, "content"), "content must not be empty");
                }
                c.length(at, "content", Some(content), 1, Some(CONTENT_CHARS_MAX));
            }
            (None, Some(file)) => file.check(c, &join(at, "file")),
        }
    }
}

impl Validate for KnowledgeFile {
    fn check(&self, c: &mut Checks, at: &str) {
        use knowledge_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        c.required(at, "filename", &self.filename);
        c.length(at, "filename", self.filename.as_deref(), 1, Some(FILENAME_MAX));
        c.length(at, "mimeType", self.mime_type.as_deref(), 1, Some(MIME_TYPE_MAX));
        c.length(at, "data", self.data.as_deref(), 1, Some(FILE_DATA_MAX));
        if let Some(mime) = c.required(at, "mimeType", &self.mime_type) {
            let essence = mime.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            if !FILE_TYPES.contains(&essence.as_str()) {
                let message = format!("mimeType {mime} is not one the judge reads: one of {}", FILE_TYPES.join(", "));
                c.invalid(join(at, "mimeType"), message);
            }
        }
        let short = self.data.as_deref().is_some_and(|d| d.chars().count() <= FILE_DATA_MAX);
        if c.required(at, "data", &self.data).is_some() && short {
            match self.text() {
                Err(problem) => c.invalid(join(at, "data"), problem),
                Ok(text) if text.trim().is_empty() => c.invalid(join(at, "data"), "the file is empty"),
                Ok(_) => {}
            }
        }
    }
}
