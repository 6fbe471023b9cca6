//! Bearer auth (full and read-only keys, compared in constant time), a per-key token bucket,
//! and a per-address bucket of failed attempts so that keys cannot be guessed quickly.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ServiceError;
use super::named_keys::NamedKey;

/// Which key a request carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Full,
    ReadOnly,
}

/// Routes served without a key.
pub fn is_public(path: &str) -> bool {
    matches!(path, "/openapi.json" | "/.well-known/openapi.json" | "/doc" | "/demo/agent" | "/ready")
}

/// The keys this service accepts, each under a name (limited on its own).
pub struct Keys {
    keys: Vec<(Arc<str>, String, Access)>,
}

impl Keys {
    /// The full key, the read-only key if any, and the named ones (`--api-keys-file`).
    pub fn new(full: &str, read_only: Option<&str>, named: &[NamedKey]) -> Keys {
        let mut keys = vec![(Arc::from("full"), full.to_owned(), Access::Full)];
        keys.extend(read_only.map(|key| (Arc::from("read-only"), key.to_owned(), Access::ReadOnly)));
        keys.extend(named.iter().map(|k| {
            let access = if k.read_only { Access::ReadOnly } else { Access::Full };
            (Arc::from(format!("named:{}", k.name)), k.key.expose().to_owned(), access)
        }));
        Keys { keys }
    }

    /// Whose key was presented: every key is compared, in constant time, whichever matches.
    fn check(&self, presented: &str) -> Option<(Arc<str>, Access)> {
        let presented = presented.as_bytes();
        let mut found = None;
        for (name, key, access) in &self.keys {
            let same: bool = presented.ct_eq(key.as_bytes()).into();
            if same && found.is_none() {
                found = Some((name.clone(), *access));
            }
        }
        found
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
    let Some(presented) = bearer_token(header) else {
        return ServiceError::unauthorized("malformed Authorization header; expected Bearer <API_KEY>").into_response();
    };
    // While an address is locked out even its right key waits, so a guess that would have
    // succeeded cannot be told from one that would not.
    let address = request.extensions().get::<super::server::Peer>().map(|peer| peer.0.ip());
    if let Some(address) = address
        && let Err(retry_after) = state.failures.check(&address)
    {
        return ServiceError::rate_limited(retry_after).into_response();
    }
    let Some((name, access)) = state.keys.check(presented) else {
        if let Some(address) = address {
            let _ = state.failures.take(address);
        }
        return ServiceError::unauthorized("the API key is not valid").into_response();
    };
    if let Err(retry_after) = state.limiter.take(name) {
        return ServiceError::rate_limited(retry_after).into_response();
    }
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if writes && access == Access::ReadOnly {
        return ServiceError::forbidden("this key is read-only and cannot change anything").into_response();
    }
    request.extensions_mut().insert(access);
    next.run(request).await
}

/// The key of `Authorization: Bearer <key>`; the scheme is matched in any case (RFC 7235).
fn bearer_token(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim_start().split_once([' ', '\t'])?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Failed key checks allowed per client address: a burst, then this many a second.
pub const AUTH_FAILURES_PER_SECOND: u32 = 5;
pub const AUTH_FAILURE_BURST: u32 = 20;

/// A token bucket per key: `rate` requests a second, bursts up to `burst`.
pub struct RateLimiter<K = Arc<str>> {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, (f64, Instant)>>,
}

impl RateLimiter<Arc<str>> {
    /// `per_second` requests a second, bursts up to twice that.
    pub fn new(per_second: u32) -> RateLimiter {
        let rate = f64::from(per_second.max(1));
        RateLimiter::with_burst(rate, rate * 2.0)
    }
}

impl RateLimiter<IpAddr> {
    /// The bucket of failed key checks per client address.
    pub fn auth_failures() -> RateLimiter<IpAddr> {
        RateLimiter::with_burst(f64::from(AUTH_FAILURES_PER_SECOND), f64::from(AUTH_FAILURE_BURST))
    }
}

/// Buckets idle this long are full again and are forgotten, so the map stays small.
const FORGET_AFTER_SECS: f64 = 600.0;

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    fn with_burst(rate: f64, burst: f64) -> Self {
        RateLimiter { rate, burst, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes a token, or says how many whole seconds until one is free.
    fn take(&self, key: K) -> Result<(), u64> {
        self.update(&key, true)
    }

    /// Whether a token is free, without taking it.
    fn check(&self, key: &K) -> Result<(), u64> {
        self.update(key, false)
    }

    fn update(&self, key: &K, take: bool) -> Result<(), u64> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > 10_000 {
            buckets.retain(|_, (_, last)| now.duration_since(*last).as_secs_f64() < FORGET_AFTER_SECS);
        }
        if !take && !buckets.contains_key(key) {
            return Ok(());
        }
        let (tokens, last) = buckets.entry(key.clone()).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            if take {
                *tokens -= 1.0;
            }
            Ok(())
        } else {
            Err(((1.0 - *tokens) / self.rate).ceil().max(1.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn the_scheme_is_matched_in_any_case() {
        for header in ["Bearer k", "bearer k", "BEARER  k ", "bEaReR\tk"] {
            assert_eq!(bearer_token(header), Some("k"), "{header:?}");
        }
        for header in ["Basic k", "Bearer", "Bearer   ", "Bearerk"] {
            assert_eq!(bearer_token(header), None, "{header:?}");
        }
    }
}
