//! Every error the service answers carries the spec's error body, including the ones the
//! framework writes by itself (a path that is not UTF-8, an unsupported method, a body it
//! refuses): any error response that is not JSON is rewritten here.

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ServiceError;
use crate::api::ErrorType;

/// How much of the framework's text is kept as the message.
const MESSAGE_BYTES: usize = 500;

pub async fn spec_error_bodies(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.as_u16() < 400 || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MESSAGE_BYTES * 4).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).chars().take(MESSAGE_BYTES).collect::<String>(),
        Err(_) => String::new(),
    };
    let mut error = rewrite(status, text.trim());
    error.retry_after_secs =
        parts.headers.get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    let mut rewritten = error.into_response();
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        rewritten.headers_mut().insert(header::ALLOW, allow.clone());
    }
    rewritten
}

fn rewrite(status: StatusCode, text: &str) -> ServiceError {
    // A path segment that cannot be decoded names nothing, like any other unknown id.
    if status == StatusCode::BAD_REQUEST && text.starts_with("Invalid URL") {
        let message = format!("no such resource: {text}");
        return ServiceError::new(StatusCode::NOT_FOUND, ErrorType::NotFound, "resource_not_found", message);
    }
    let code = match status.as_u16() {
        405 => "method_not_allowed",
        408 => "request_timeout",
        413 => "request_too_large",
        415 => "unsupported_media_type",
        422 | 400 => "invalid_parameter",
        500..=599 => "internal_error",
        _ => "request_refused",
    };
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("request refused").to_owned()
    } else {
        text.to_owned()
    };
    ServiceError::new(status, ErrorType::for_status(status.as_u16()), code, message)
}
