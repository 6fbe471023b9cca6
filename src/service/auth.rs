//! Bearer auth (full and read-only keys, compared in constant time) and a per-key token bucket.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ServiceError;

/// Which key a request carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Full,
    ReadOnly,
}

/// Routes served without a key.
pub fn is_public(path: &str) -> bool {
    matches!(path, "/openapi.json" | "/.well-known/openapi.json" | "/doc" | "/demo/agent")
}

/// The keys this service accepts.
pub struct Keys {
    pub full: String,
    pub read_only: Option<String>,
}

impl Keys {
    fn check(&self, presented: &str) -> Option<Access> {
        let presented = presented.as_bytes();
        let full: bool = presented.ct_eq(self.full.as_bytes()).into();
        let read_only: bool = self.read_only.as_ref().is_some_and(|k| presented.ct_eq(k.as_bytes()).into());
        match (full, read_only) {
            (true, _) => Some(Access::Full),
            (false, true) => Some(Access::ReadOnly),
            _ => None,
        }
    }
}

/// Refuses requests without a valid key, and writes with the read-only key.
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    if is_public(request.uri().path()) {
        return next.run(request).await;
    }
    let header = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let Some(header) = header else {
        return ServiceError::unauthorized("missing Authorization header; send Authorization: Bearer <API_KEY>")
            .into_response();
    };
    let Some(presented) = header.strip_prefix("Bearer ").map(str::trim).filter(|k| !k.is_empty()) else {
        return ServiceError::unauthorized("malformed Authorization header; expected Bearer <API_KEY>").into_response();
    };
    let Some(access) = state.keys.check(presented) else {
        return ServiceError::unauthorized("the API key is not valid").into_response();
    };
    if let Err(retry_after) = state.limiter.take(access) {
        return ServiceError::rate_limited(retry_after).into_response();
    }
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if writes && access == Access::ReadOnly {
        return ServiceError::forbidden("this key is read-only and cannot change anything").into_response();
    }
    request.extensions_mut().insert(access);
    next.run(request).await
}

/// A token bucket per key: `rate` requests a second, bursts up to twice that.
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<Access, (f64, Instant)>>,
}

impl RateLimiter {
    pub fn new(per_second: u32) -> RateLimiter {
        let rate = f64::from(per_second.max(1));
        RateLimiter { rate, burst: rate * 2.0, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes a token, or says how many whole seconds until one is free.
    fn take(&self, key: Access) -> Result<(), u64> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, last) = buckets.entry(key).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) / self.rate).ceil().max(1.0) as u64)
        }
    }
}
