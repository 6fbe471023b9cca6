//! Errors of the interface: the spec's error body, and the one error type the client returns.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use crate::wire_enum;

wire_enum! {
    /// The error body's `type`.
    pub enum ErrorType {
        Validation = "validation",
        Authentication = "authentication",
        Forbidden = "forbidden",
        NotFound = "not_found",
        Conflict = "conflict",
        PaymentRequired = "payment_required",
        RateLimit = "rate_limit",
        Internal = "internal",
    }
}

impl ErrorType {
    /// The type the spec's table pairs with an HTTP status.
    pub fn for_status(status: u16) -> ErrorType {
        match status {
            400 | 408 | 413 | 414 | 415 | 422 | 431 => ErrorType::Validation,
            401 => ErrorType::Authentication,
            402 => ErrorType::PaymentRequired,
            403 => ErrorType::Forbidden,
            404 | 405 => ErrorType::NotFound,
            409 => ErrorType::Conflict,
            429 => ErrorType::RateLimit,
            500..=599 => ErrorType::Internal,
            other => ErrorType::Unknown(format!("http_{other}")),
        }
    }
}

/// The spec's error body: `{type, code, message, param?, details?}`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    /// Machine-readable, e.g. `invalid_parameter`, `missing_required_field`, `unauthorized`.
    pub code: String,
    /// Human-readable.
    pub message: String,
    /// The parameter at fault, e.g. `metrics[0].slug`.
    pub param: Option<String>,
    /// Extra context; a validation error lists every violation under `violations`.
    pub details: Option<serde_json::Value>,
}

impl ErrorBody {
    pub fn new(error_type: ErrorType, code: &str, message: impl Into<String>) -> Self {
        ErrorBody { error_type, code: code.to_owned(), message: message.into(), param: None, details: None }
    }

    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }
}

/// An error the service answered with: its status and its error body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub error_type: ErrorType,
    pub code: String,
    pub message: String,
    pub param: Option<String>,
    pub details: Option<serde_json::Value>,
    /// How long the service asked the caller to wait (from `Retry-After`).
    pub retry_after: Option<Duration>,
}

/// How many bytes of a body that is not an error body go into the message.
const SNIPPET_BYTES: usize = 200;

impl ApiError {
    /// Decodes an error response; a body that is not the spec's shape still yields a readable error.
    pub fn from_response(status: u16, body: &[u8], retry_after: Option<Duration>) -> ApiError {
        match serde_json::from_slice::<ErrorBody>(body) {
            Ok(body) => ApiError {
                status,
                error_type: body.error_type,
                code: body.code,
                message: body.message,
                param: body.param,
                details: body.details,
                retry_after,
            },
            Err(_) => {
                let reason = http_reason(status);
                let message = match snippet(body) {
                    text if text.is_empty() => format!("HTTP {status} {reason} with an empty body"),
                    text => format!("HTTP {status} {reason}: {text}"),
                };
                ApiError {
                    status,
                    error_type: ErrorType::for_status(status),
                    code: "unexpected_error_body".to_owned(),
                    message,
                    param: None,
                    details: None,
                    retry_after,
                }
            }
        }
    }

    /// Replaces every occurrence of `secret` in every field the service wrote: code, message,
    /// param, and each string (and member name) inside details.
    pub(crate) fn redact(&mut self, secret: &str) {
        if secret.is_empty() {
            return;
        }
        for text in [&mut self.code, &mut self.message] {
            *text = scrub(text, secret);
        }
        if let ErrorType::Unknown(kind) = &mut self.error_type {
            *kind = scrub(kind, secret);
        }
        if let Some(param) = &mut self.param {
            *param = scrub(param, secret);
        }
        if let Some(details) = &mut self.details {
            scrub_json(details, secret);
        }
    }
}

/// `text` with every occurrence of `secret` replaced by `[redacted]`.
pub(crate) fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() { text.to_owned() } else { text.replace(secret, REDACTED) }
}

/// The same, on raw bytes (a body before it is decoded or cut to a snippet, so that a cut can
/// never leave half a key behind).
pub(crate) fn scrub_bytes<'b>(bytes: &'b [u8], secret: &str) -> std::borrow::Cow<'b, [u8]> {
    let needle = secret.as_bytes();
    if needle.is_empty() || !bytes.windows(needle.len()).any(|w| w == needle) {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(needle.len()).position(|w| w == needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(REDACTED.as_bytes());
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    std::borrow::Cow::Owned(out)
}

fn scrub_json(value: &mut serde_json::Value, secret: &str) {
    match value {
        serde_json::Value::String(text) => *text = scrub(text, secret),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| scrub_json(v, secret)),
        serde_json::Value::Object(map) => {
            let members = std::mem::take(map);
            for (key, mut member) in members {
                scrub_json(&mut member, secret);
                map.insert(scrub(&key, secret), member);
            }
        }
        _ => {}
    }
}

const REDACTED: &str = "[redacted]";

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}: {}", self.status, self.error_type, self.code, self.message)?;
        if let Some(param) = &self.param {
            write!(f, " (param: {param})")?;
        }
        Ok(())
    }
}

/// The first bytes of a body, as text on one line.
fn snippet(body: &[u8]) -> String {
    let cut = &body[..body.len().min(SNIPPET_BYTES)];
    let text = String::from_utf8_lossy(cut);
    let mut line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if body.len() > SNIPPET_BYTES {
        line.push('…');
    }
    line
}

fn http_reason(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")
}

/// Everything a call through the client can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The service answered with an error status.
    #[error("{0}")]
    Api(Box<ApiError>),
    /// No answer within the request timeout.
    #[error("{method} {path} timed out after {after:?}")]
    Timeout { method: String, path: String, after: Duration },
    /// The service could not be reached.
    #[error("{method} {path}: cannot reach the service: {message}")]
    Connect { method: String, path: String, message: String },
    /// A success response whose body is not what the interface describes.
    #[error("{method} {path}: unexpected response ({status}): {message}")]
    Decode { method: String, path: String, status: u16, message: String },
    /// The request could not be built (bad base URL, bad input).
    #[error("{0}")]
    Request(String),
    /// The service's pages do not add up (a cursor it gave before, `hasMore` with no cursor):
    /// following them would never end.
    #[error("{0}")]
    Paging(String),
}

impl Error {
    /// The service's error, when it answered with one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(api) => Some(api),
            _ => None,
        }
    }

    /// The HTTP status, when the service answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The parameter at fault, when the service named one.
    pub fn param(&self) -> Option<&str> {
        self.api().and_then(|api| api.param.as_deref())
    }

    /// Whether the service could not be reached at all (as opposed to answering with an error).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Error::Connect { .. } | Error::Timeout { .. })
    }

    /// The same error with `secret` (the key) replaced in every text it carries. The client
    /// applies this to every error it returns, so no caller can forget to.
    pub(crate) fn redacted(mut self, secret: &str) -> Error {
        match &mut self {
            Error::Api(api) => api.redact(secret),
            Error::Timeout { method, path, .. } => {
                *path = scrub(path, secret);
                *method = scrub(method, secret);
            }
            Error::Connect { method, path, message } | Error::Decode { method, path, message, .. } => {
                for text in [method, path, message] {
                    *text = scrub(text, secret);
                }
            }
            Error::Request(message) | Error::Paging(message) => *message = scrub(message, secret),
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_body_decodes_every_member() {
        let body = br#"{"type":"validation","code":"invalid_parameter","message":"bad","param":"metrics[0].slug","details":{"k":1}}"#;
        let err = ApiError::from_response(400, body, None);
        assert_eq!(err.error_type, ErrorType::Validation);
        assert_eq!(err.param.as_deref(), Some("metrics[0].slug"));
        assert_eq!(err.details, Some(serde_json::json!({"k": 1})));
    }

    #[test]
    fn foreign_body_keeps_status_and_first_bytes() {
        let body = format!("<html><body>Bad gateway {}</body></html>", "x".repeat(500));
        let err = ApiError::from_response(502, body.as_bytes(), None);
        assert_eq!(err.status, 502);
        assert_eq!(err.error_type, ErrorType::Internal);
        assert!(err.message.starts_with("HTTP 502 Bad Gateway: <html><body>Bad gateway"), "{}", err.message);
        assert!(err.message.chars().count() < 260);
    }

    #[test]
    fn redact_scrubs_message_and_details() {
        let body = br#"{"type":"authentication","code":"unauthorized","message":"key sk-123 rejected","details":{"echo":"Bearer sk-123"}}"#;
        let mut err = ApiError::from_response(401, body, None);
        err.redact("sk-123");
        assert!(!format!("{err:?}").contains("sk-123"));
    }
}
