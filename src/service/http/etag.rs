//! Conditional GETs: every successful GET carries an `ETag` (a digest of its body, or the one a
//! route set for a body it streams), and a request whose `If-None-Match` names the current one
//! is answered `304 Not Modified` with no body, so a watcher that polls an unchanged resource
//! reads a few bytes and decodes nothing.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};

/// Bytes of the SHA-256 digest kept in the tag: plenty to tell two versions apart.
const TAG_BYTES: usize = 16;

pub async fn conditional_get(request: Request, next: Next) -> Response {
    if request.method() != Method::GET {
        return next.run(request).await;
    }
    let asked = request.headers().get(header::IF_NONE_MATCH).cloned();
    let mut response = next.run(request).await;
    // Streams (events) and errors are left as they are.
    if response.status() != StatusCode::OK || is_event_stream(response.headers()) {
        return response;
    }
    // A route that tags its own body (one it streams) is answered without reading the body.
    if let Some(tag) = response.headers().get(header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned) {
        if asked.as_ref().and_then(|v| v.to_str().ok()).is_some_and(|asked| matches(asked, &tag)) {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            *response.body_mut() = Body::empty();
            response.headers_mut().remove(header::CONTENT_LENGTH);
            response.headers_mut().remove(header::CONTENT_TYPE);
        }
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let tag = tag_of(&bytes);
    let Ok(value) = HeaderValue::from_str(&tag) else { return Response::from_parts(parts, Body::from(bytes)) };
    parts.headers.insert(header::ETAG, value);
    if asked.as_ref().and_then(|v| v.to_str().ok()).is_some_and(|asked| matches(asked, &tag)) {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.remove(header::CONTENT_TYPE);
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, Body::from(bytes))
}

pub(super) fn is_event_stream(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/event-stream"))
}

/// A strong entity tag: the body's digest, quoted.
pub fn tag_of(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let hex: String = digest[..TAG_BYTES].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// `If-None-Match` by the weak comparison RFC 9110 asks for: `*`, or any listed tag equal to
/// `tag` once a `W/` prefix is set aside.
fn matches(if_none_match: &str, tag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|listed| listed == "*" || listed.trim_start_matches("W/") == tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_compares_weakly_and_reads_lists() {
        let tag = tag_of(b"{}");
        assert!(matches(&tag, &tag));
        assert!(matches(&format!("\"other\", W/{tag}"), &tag));
        assert!(matches("*", &tag));
        assert!(!matches("\"other\"", &tag));
        assert_ne!(tag_of(b"{\"a\":1}"), tag_of(b"{\"a\":2}"));
    }
}
