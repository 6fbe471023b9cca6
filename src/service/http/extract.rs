//! Request extractors that answer bad input with the spec's error body, naming the field.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ServiceError;
use super::server::{BodyDeadline, READ_TIMEOUT};
use crate::api::validate::{Validate, Violation, ViolationCode, index, join};

/// A JSON body decoded into `T` and checked with `T::validate()`.
pub struct Valid<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Validate> FromRequest<S> for Valid<T> {
    type Rejection = ServiceError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let Body(bytes) = Body::from_request(request, state).await?;
        validated(&bytes).map(Valid)
    }
}

/// A JSON body decoded into `T` with no further checks.
pub struct Decoded<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Decoded<T> {
    type Rejection = ServiceError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let Body(bytes) = Body::from_request(request, state).await?;
        decode(&bytes).map(Decoded)
    }
}

/// The raw body, read within the size limit, for handlers that must look something up
/// before the body is judged (a 404 comes before any 400).
pub struct Body(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for Body {
    type Rejection = ServiceError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        // A body declared too large is refused before any of it is read.
        let declared = request
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > super::MAX_BODY_BYTES as u64) {
            return Err(too_large());
        }
        let deadline = request.extensions().get::<BodyDeadline>().map_or(READ_TIMEOUT, |d| d.0);
        match tokio::time::timeout(deadline, Bytes::from_request(request, state)).await {
            Ok(read) => {
                let bytes = read.map_err(body_error)?;
                ServiceError::check(nul_members(&bytes))?;
                Ok(Body(bytes))
            }
            Err(_) => Err(ServiceError::new(
                axum::http::StatusCode::REQUEST_TIMEOUT,
                crate::api::ErrorType::Validation,
                "request_timeout",
                format!("the body did not arrive within {:?}", deadline),
            )),
        }
    }
}

/// How many members holding NUL a refusal names (a body of thousands names the first ones).
const NUL_MEMBERS_NAMED: usize = 20;
/// How long a member's path may grow while it is searched (a 512 KB member name is not copied
/// into every path below it).
const PATH_BYTES: usize = 256;

/// The members of a JSON body whose name or text holds NUL (`\u0000`), which PostgreSQL
/// cannot keep in text: one violation each, up to `NUL_MEMBERS_NAMED`, so that a body is refused
/// whole, naming them. Bodies are searched for the escape first; only one that has it is parsed
/// to find where.
fn nul_members(bytes: &[u8]) -> Vec<Violation> {
    if !super::store::has_nul_escape(bytes) {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else { return Vec::new() };
    let mut found = Vec::new();
    collect_nul(&value, "", &mut found);
    found
        .into_iter()
        .map(|param| {
            let name = if param.is_empty() { "body".to_owned() } else { param };
            let message = format!("{name} must not contain a NUL character (\\u0000)");
            Violation { param: name, code: ViolationCode::InvalidParameter, message }
        })
        .collect()
}

fn collect_nul(value: &serde_json::Value, at: &str, found: &mut Vec<String>) {
    if found.len() >= NUL_MEMBERS_NAMED {
        return;
    }
    match value {
        serde_json::Value::String(text) if text.contains('\0') => found.push(at.to_owned()),
        serde_json::Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, item)| collect_nul(item, &short_path(index(at, i)), found));
        }
        serde_json::Value::Object(members) => {
            for (name, member) in members {
                let path = short_path(join(at, name));
                if name.contains('\0') && found.len() < NUL_MEMBERS_NAMED {
                    found.push(path.clone());
                }
                collect_nul(member, &path, found);
            }
        }
        _ => {}
    }
}

/// A path cut to `PATH_BYTES` (at a character's edge), ending with `…` when it was cut.
fn short_path(mut path: String) -> String {
    if path.len() > PATH_BYTES {
        let mut end = PATH_BYTES;
        while !path.is_char_boundary(end) {
            end -= 1;
        }
        path.truncate(end);
        path.push('…');
    }
    path
}

/// `bytes` decoded into `T` and checked with `T::validate()`.
pub fn validated<T: DeserializeOwned + Validate>(bytes: &[u8]) -> Result<T, ServiceError> {
    let value: T = decode(bytes)?;
    let violations = value.validate();
    if violations.is_empty() { Ok(value) } else { Err(ServiceError::violations(violations)) }
}

/// A JSON body decoded into `T` with no further checks (a body that may be anything).
pub struct AnyBody;

impl<S: Send + Sync> FromRequest<S> for AnyBody {
    type Rejection = ServiceError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        Body::from_request(request, state).await?;
        Ok(AnyBody)
    }
}

fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ServiceError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ServiceError::invalid("body", "the request needs a JSON object body"));
    }
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut json).map_err(|e| decode_error(e, "body"))?;
    json.end().map_err(|e| ServiceError::invalid("body", format!("malformed JSON: {e}")))?;
    Ok(value)
}

fn body_error(rejection: axum::extract::rejection::BytesRejection) -> ServiceError {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        return too_large();
    }
    ServiceError::invalid("body", format!("cannot read the request body: {}", rejection.body_text()))
}

fn too_large() -> ServiceError {
    let mut error =
        ServiceError::invalid("body", format!("request bodies are limited to {} bytes", super::MAX_BODY_BYTES));
    error.status = axum::http::StatusCode::PAYLOAD_TOO_LARGE;
    error.body.code = "request_too_large".into();
    error
}

/// Maps a serde failure onto the field at fault.
fn decode_error<E: std::fmt::Display>(error: serde_path_to_error::Error<E>, root: &str) -> ServiceError {
    let path = error.path().to_string();
    let inner = error.inner().to_string();
    if inner.contains("expected value")
        || inner.contains("EOF")
        || inner.contains("trailing")
        || inner.contains("key must be")
    {
        return ServiceError::invalid(root, format!("malformed JSON: {inner}"));
    }
    // A body decoded in two steps (`with_null_members`) names the member in its message.
    let named = inner.split_once(": ").filter(|(member, _)| is_member_path(member));
    let (param, inner) = match (path.as_str(), named) {
        (".", Some((member, rest))) => (member.to_owned(), rest.to_owned()),
        (".", None) => (root.to_owned(), inner),
        _ => (path, inner),
    };
    if inner.contains("surrogate") || inner.contains("hex escape") {
        return ServiceError::invalid(
            &param,
            format!("{param} holds a broken or lone surrogate \\u escape, which is not text"),
        );
    }
    if let Some(field) = inner.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()) {
        let param = if param == root { field.to_owned() } else { format!("{param}.{field}") };
        let mut error = ServiceError::invalid(&param, format!("{param} is required"));
        error.body.code = "missing_required_field".into();
        return error;
    }
    ServiceError::invalid(&param, format!("{param}: {inner}"))
}

/// `idleTimeoutSeconds`, `flows[0].id`: a member's path, as serde_path_to_error writes it.
fn is_member_path(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '[' | ']' | '_'))
}

/// Query parameters decoded into `T` and checked with `T::validate()`.
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Validate> FromRequestParts<S> for Params<T> {
    type Rejection = ServiceError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        // `?agentId=` filters on nothing: say so rather than read it as absent or as "".
        if let Some((name, _)) = form_urlencoded::parse(query.as_bytes()).find(|(_, value)| value.is_empty()) {
            return Err(ServiceError::invalid(name.as_ref(), format!("{name} must not be empty")));
        }
        let decoder = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        let value: T = serde_path_to_error::deserialize(decoder).map_err(|e| decode_error(e, "query"))?;
        let violations = value.validate();
        if violations.is_empty() { Ok(Params(value)) } else { Err(ServiceError::violations(violations)) }
    }
}
