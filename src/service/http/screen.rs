//! The request screen: what no route should have to think about is refused before any does.
//! Paths and queries must be UTF-8 text without NUL (which PostgreSQL cannot hold), path ids
//! must be UUIDs where the document says so, a body must be JSON (415 otherwise) and arrive
//! as sent (a compressed transfer or content coding is refused, never misread).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;

use super::error::{ServiceError, ServiceResult};
use crate::api::ErrorType;
use crate::api::validate::quote;

/// What the screen knows of the routes: the path parameters the document declares as UUIDs.
#[derive(Debug, Default)]
pub struct Screen {
    /// Route template (`/v1/persona/{id}`) → its UUID parameters.
    uuid_params: HashMap<String, Vec<String>>,
}

impl Screen {
    /// Reads the UUID path parameters from the served OpenAPI document.
    pub fn from_document(document: &serde_json::Value) -> Screen {
        let mut uuid_params: HashMap<String, Vec<String>> = HashMap::new();
        let paths = document.get("paths").and_then(serde_json::Value::as_object);
        for (template, item) in paths.into_iter().flatten() {
            let operations = item.as_object().into_iter().flat_map(|ops| ops.values());
            let parameters = operations.filter_map(|op| op.get("parameters")?.as_array()).flatten();
            for parameter in parameters {
                let in_path = parameter.get("in").and_then(serde_json::Value::as_str) == Some("path");
                let uuid = parameter.pointer("/schema/format").and_then(serde_json::Value::as_str) == Some("uuid");
                if let (true, true, Some(name)) = (in_path, uuid, parameter.get("name").and_then(|n| n.as_str())) {
                    let names = uuid_params.entry(template.clone()).or_default();
                    if !names.iter().any(|known| known == name) {
                        names.push(name.to_owned());
                    }
                }
            }
        }
        Screen { uuid_params }
    }

    fn check(&self, request: &Request) -> ServiceResult<()> {
        let template = request.extensions().get::<MatchedPath>().map(MatchedPath::as_str);
        self.path(request.uri().path(), template)?;
        query(request.uri().query().unwrap_or(""))?;
        codings(request.headers())?;
        media_type(request.headers())
    }

    /// Each segment decoded; a template's `{name}` segment is checked as that parameter.
    fn path(&self, path: &str, template: Option<&str>) -> ServiceResult<()> {
        let uuids = template.and_then(|t| self.uuid_params.get(t));
        let mut names = template.unwrap_or("").split('/').map(|s| s.strip_prefix('{')?.strip_suffix('}'));
        for segment in path.split('/') {
            let name = names.next().flatten().unwrap_or("path");
            let text = text_of(segment, name)?;
            let is_uuid = uuids.is_some_and(|u| u.iter().any(|n| n == name));
            if is_uuid && uuid::Uuid::parse_str(&text).is_err() {
                return Err(ServiceError::invalid(name, format!("{name} must be a UUID, not {}", quote(&text))));
            }
        }
        Ok(())
    }
}

/// The screen as middleware, run after routing (it reads the matched route) and after the
/// key check (a caller without a key learns nothing of what it sent).
pub async fn screen(State(screen): State<Arc<Screen>>, request: Request, next: Next) -> Response {
    match screen.check(&request) {
        Ok(()) => next.run(request).await,
        Err(error) => error.into_response(),
    }
}

/// A percent-encoded piece of a path or query as text, refused when it is not UTF-8 (a lone
/// surrogate's bytes included) or holds NUL.
/// (Text without `%` is the request line's own, already UTF-8 and free of NUL: nothing is
/// decoded or copied for it.)
fn text_of<'a>(encoded: &'a str, name: &str) -> ServiceResult<Cow<'a, str>> {
    let text = percent_decode_str(encoded)
        .decode_utf8()
        .map_err(|_| ServiceError::invalid(name, format!("{name} is not UTF-8 text")))?;
    if text.contains('\0') {
        return Err(ServiceError::invalid(name, format!("{name} must not contain a NUL character")));
    }
    Ok(text)
}

/// Every name and value of the query (a `+` for a space changes neither whether the text is
/// UTF-8 nor whether it holds NUL, so it is left as sent).
fn query(query: &str) -> ServiceResult<()> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = text_of(name, "query")?;
        text_of(value, &name)?;
    }
    Ok(())
}

/// A body must arrive as it was sent: chunked or with a length, not compressed, which the
/// service does not undo (and reading gzip bytes as JSON would misread them).
fn codings(headers: &HeaderMap) -> ServiceResult<()> {
    let transfer = headers.get_all(header::TRANSFER_ENCODING).iter();
    let unsupported = transfer
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .find(|coding| !coding.eq_ignore_ascii_case("chunked"));
    if let Some(coding) = unsupported {
        let message = format!(
            "Transfer-Encoding {} is not supported: send the body uncompressed, chunked or with a Content-Length",
            quote(coding)
        );
        return Err(ServiceError::invalid("Transfer-Encoding", message).with_code("unsupported_transfer_coding"));
    }
    let content = headers.get_all(header::CONTENT_ENCODING).iter();
    let encoded = content
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .find(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case("identity"));
    match encoded {
        Some(coding) => Err(unsupported_media(format!(
            "Content-Encoding {} is not supported: send the body uncompressed",
            quote(coding)
        ))),
        None => Ok(()),
    }
}

/// A request that carries a body must say it is JSON.
fn media_type(headers: &HeaderMap) -> ServiceResult<()> {
    let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse().ok());
    let has_body = headers.contains_key(header::TRANSFER_ENCODING) || length.is_some_and(|n: u64| n > 0);
    if !has_body {
        return Ok(());
    }
    let declared = headers.get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or(""));
    match declared {
        Some(text) if is_json(text) => Ok(()),
        Some(text) => Err(unsupported_media(format!(
            "Content-Type {} is not accepted: send the body as application/json",
            quote(text)
        ))),
        None => Err(unsupported_media("a body needs Content-Type: application/json".to_owned())),
    }
}

/// `application/json` or a `+json` type, with a UTF-8 charset if any.
fn is_json(content_type: &str) -> bool {
    let mut parts = content_type.split(';').map(str::trim);
    let essence = parts.next().unwrap_or("");
    let (kind, subtype) = essence.split_once('/').unwrap_or((essence, ""));
    let json = kind.eq_ignore_ascii_case("application")
        && (subtype.eq_ignore_ascii_case("json") || subtype.to_ascii_lowercase().ends_with("+json"));
    let charset_ok = parts.filter_map(|p| p.split_once('=')).all(|(name, value)| {
        !name.trim().eq_ignore_ascii_case("charset") || value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
    });
    json && charset_ok
}

fn unsupported_media(message: String) -> ServiceError {
    ServiceError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, ErrorType::Validation, "unsupported_media_type", message)
        .with_param("Content-Type")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types_are_told_apart() {
        for accepted in ["application/json", "Application/JSON; charset=UTF-8", "application/merge-patch+json"] {
            assert!(is_json(accepted), "{accepted}");
        }
        for refused in ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""] {
            assert!(!is_json(refused), "{refused}");
        }
    }

    #[test]
    fn queries_with_nul_or_broken_utf8_name_the_parameter() {
        assert!(query("limit=5&cursor=abc").is_ok());
        let error = query("suite=a%00b").err().map(|e| e.body.param);
        assert_eq!(error, Some(Some("suite".into())));
        let error = query("suite=%ED%A0%80").err().map(|e| e.body.param);
        assert_eq!(error, Some(Some("suite".into())));
    }

    #[test]
    fn path_segments_are_checked_as_their_parameters() {
        let document = serde_json::json!({"paths": {"/v1/persona/{id}": {"get": {"parameters": [
            {"in": "path", "name": "id", "schema": {"type": "string", "format": "uuid"}}
        ]}}}});
        let screen = Screen::from_document(&document);
        let template = Some("/v1/persona/{id}");
        assert!(screen.path("/v1/persona/4f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11", template).is_ok());
        let refused = screen.path("/v1/persona/not-a-uuid", template).err().map(|e| (e.status, e.body.param));
        assert_eq!(refused, Some((StatusCode::BAD_REQUEST, Some("id".into()))));
        let slug = Some("/v1/metric/definitions/{id}");
        assert!(screen.path("/v1/metric/definitions/call_duration", slug).is_ok());
        let nul = screen.path("/v1/metric/definitions/call%00duration", slug).err().map(|e| e.body.param);
        assert_eq!(nul, Some(Some("id".into())));
    }
}
