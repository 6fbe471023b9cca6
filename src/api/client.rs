//! The one HTTP client: bearer auth, timeouts, retries with backoff, error decoding.

use std::fmt;
use std::time::Duration;

use reqwest::{Method, StatusCode, header};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{ApiError, Error};

/// `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("switchboard/", env!("CARGO_PKG_VERSION"));

/// A bearer key. It never appears in `Debug` output, and it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the Authorization header and constant-time comparison only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(****)")
    }
}

/// Timeouts and retry policy.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Retries after the first attempt, for GET, PUT and DELETE only.
    pub max_retries: u32,
    /// First backoff; doubles on each retry.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// A `Retry-After` longer than this is not waited for: the 429 is returned instead.
    pub max_retry_after: Duration,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_retries: 3,
            backoff_base: Duration::from_millis(200),
            backoff_max: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// A client for one service: a base URL and a bearer key.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
    key: ApiKey,
    config: ClientConfig,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("base_url", &self.base_url).field("key", &self.key).finish()
    }
}

impl Client {
    pub fn new(base_url: &str, key: ApiKey, config: ClientConfig) -> Result<Client, Error> {
        let parsed = reqwest::Url::parse(base_url)
            .map_err(|e| Error::Request(format!("base URL {base_url:?} is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::Request(format!("base URL {base_url:?} must start with http:// or https://")));
        }
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .build()
            .map_err(|e| Error::Request(format!("cannot build the HTTP client: {e}")))?;
        Ok(Client { http, base_url: base_url.trim_end_matches('/').to_owned(), key, config })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// `text` with the key scrubbed: for what the service sent that is not an error (the reason
    /// an item could not be read quotes the item).
    pub(crate) fn scrub(&self, text: &str) -> String {
        super::error::scrub(text, self.key.expose())
    }

    /// An error built outside `send` (a body decoded by hand) with the key scrubbed from it.
    pub(crate) fn redact(&self, error: Error) -> Error {
        error.redacted(self.key.expose())
    }

    /// Sends a request and decodes the success body, retrying what is safe to retry.
    pub async fn send<Q, B, T>(
        &self,
        method: Method,
        path: &str,
        query: Option<&Q>,
        body: Option<&B>,
    ) -> Result<T, Error>
    where
        Q: Serialize + ?Sized,
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        let (status, bytes) = self.send_raw(method.clone(), path, query, body).await?;
        serde_json::from_slice(&bytes).map_err(|e| {
            let error =
                Error::Decode { method: method.to_string(), path: path.to_owned(), status, message: e.to_string() };
            error.redacted(self.key.expose())
        })
    }

    /// Sends a request and hands back the success status and body bytes. Every error it
    /// returns has the key scrubbed from every field, whatever the service echoed.
    pub async fn send_raw<Q, B>(
        &self,
        method: Method,
        path: &str,
        query: Option<&Q>,
        body: Option<&B>,
    ) -> Result<(u16, Vec<u8>), Error>
    where
        Q: Serialize + ?Sized,
        B: Serialize + ?Sized,
    {
        let reply = self.attempt(method, path, query, body, None).await.map_err(|e| e.redacted(self.key.expose()))?;
        Ok((reply.status, reply.bytes))
    }

    /// A GET sent with `If-None-Match: etag` when there is one: `Unchanged` when the service
    /// answers 304 (nothing read, nothing decoded), else the value and its new tag.
    pub async fn get_if_changed<T: DeserializeOwned>(
        &self,
        path: &str,
        etag: Option<&str>,
    ) -> Result<Conditional<T>, Error> {
        let reply = self
            .attempt::<(), ()>(Method::GET, path, None, None, etag)
            .await
            .map_err(|e| e.redacted(self.key.expose()))?;
        if reply.status == StatusCode::NOT_MODIFIED.as_u16() {
            return Ok(Conditional::Unchanged);
        }
        let value = serde_json::from_slice(&reply.bytes).map_err(|e| {
            let error = Error::Decode {
                method: "GET".into(),
                path: path.to_owned(),
                status: reply.status,
                message: e.to_string(),
            };
            error.redacted(self.key.expose())
        })?;
        Ok(Conditional::Changed { value, etag: reply.etag })
    }

    async fn attempt<Q, B>(
        &self,
        method: Method,
        path: &str,
        query: Option<&Q>,
        body: Option<&B>,
        if_none_match: Option<&str>,
    ) -> Result<Reply, Error>
    where
        Q: Serialize + ?Sized,
        B: Serialize + ?Sized,
    {
        let retryable_method = matches!(method, Method::GET | Method::PUT | Method::DELETE);
        let url = format!("{}{}", self.base_url, path);
        let mut attempt: u32 = 0;
        loop {
            let mut request = self.http.request(method.clone(), &url).bearer_auth(self.key.expose());
            if let Some(query) = query {
                request = request.query(query);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            if let Some(etag) = if_none_match {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            let outcome = request.send().await;
            let can_retry = retryable_method && attempt < self.config.max_retries;
            let failure = match outcome {
                Ok(response) => {
                    let status = response.status();
                    let retry_after = retry_after(response.headers());
                    let etag = response.headers().get(header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned);
                    let bytes = match response.bytes().await {
                        Ok(bytes) => bytes,
                        Err(e) => return Err(self.transport_error(&method, path, e)),
                    };
                    let unchanged = if_none_match.is_some() && status == StatusCode::NOT_MODIFIED;
                    if status.is_success() || unchanged {
                        return Ok(Reply { status: status.as_u16(), bytes: bytes.to_vec(), etag });
                    }
                    // Scrubbed before it is decoded or cut to a snippet: a cut never leaves half a key.
                    let bytes = super::error::scrub_bytes(&bytes, self.key.expose());
                    let error = ApiError::from_response(status.as_u16(), &bytes, retry_after);
                    let delay = match retry_delay(status, retry_after, attempt, &self.config) {
                        Some(delay) if can_retry => delay,
                        _ => return Err(Error::Api(Box::new(error))),
                    };
                    (Error::Api(Box::new(error)), delay)
                }
                Err(e) if e.is_connect() && can_retry => {
                    (self.transport_error(&method, path, e), backoff(attempt, &self.config))
                }
                Err(e) => return Err(self.transport_error(&method, path, e)),
            };
            let (error, delay) = failure;
            tracing::debug!(%method, path, attempt, ?delay, error = %error, "retrying");
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// Opens a long-lived GET (an event stream): one attempt, no overall time limit (the
    /// connect timeout still holds), the response handed back unread once its status is a
    /// success. Errors are decoded and scrubbed as `send`'s are.
    pub(crate) async fn open_stream<Q: Serialize + ?Sized>(
        &self,
        path: &str,
        query: &Q,
        headers: &[(&str, String)],
    ) -> Result<reqwest::Response, Error> {
        let url = format!("{}{}", self.base_url, path);
        // reqwest has no "no timeout" per request: a day stands for none; streams reconnect.
        let mut request = self
            .http
            .get(&url)
            .bearer_auth(self.key.expose())
            .query(query)
            .header(header::ACCEPT, "text/event-stream")
            .timeout(Duration::from_secs(24 * 3600));
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let response = request.send().await.map_err(|e| self.transport_error(&Method::GET, path, e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let bytes = response.bytes().await.map_err(|e| self.transport_error(&Method::GET, path, e))?;
        let bytes = super::error::scrub_bytes(&bytes, self.key.expose());
        Err(Error::Api(Box::new(ApiError::from_response(status.as_u16(), &bytes, retry_after)))
            .redacted(self.key.expose()))
    }

    fn transport_error(&self, method: &Method, path: &str, error: reqwest::Error) -> Error {
        let method = method.to_string();
        let path = path.to_owned();
        if error.is_timeout() {
            return Error::Timeout { method, path, after: self.config.request_timeout };
        }
        // reqwest's message names the URL, never the headers; `send_raw` scrubs it anyway.
        let message = error_chain(&error);
        if error.is_connect() || error.is_request() {
            Error::Connect { method, path, message }
        } else {
            Error::Decode { method, path, status: error.status().map_or(0, |s| s.as_u16()), message }
        }
    }

    pub(crate) async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        self.send::<(), (), T>(Method::GET, path, None, None).await
    }

    pub(crate) async fn get_with<Q: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        query: &Q,
    ) -> Result<T, Error> {
        self.send::<Q, (), T>(Method::GET, path, Some(query), None).await
    }

    pub(crate) async fn write<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &B,
    ) -> Result<T, Error> {
        self.send::<(), B, T>(method, path, None, Some(body)).await
    }
}

/// When to try again after an error status, if at all.
/// A success as it came.
struct Reply {
    status: u16,
    bytes: Vec<u8>,
    etag: Option<String>,
}

/// What a conditional GET found.
#[derive(Debug)]
pub enum Conditional<T> {
    Changed {
        value: T,
        etag: Option<String>,
    },
    /// 304: the copy the tag came with is still current.
    Unchanged,
}

fn retry_delay(
    status: StatusCode,
    retry_after: Option<Duration>,
    attempt: u32,
    config: &ClientConfig,
) -> Option<Duration> {
    match status.as_u16() {
        429 => match retry_after {
            Some(wait) if wait > config.max_retry_after => None,
            Some(wait) => Some(wait),
            None => Some(backoff(attempt, config)),
        },
        502..=504 => {
            Some(retry_after.filter(|w| *w <= config.max_retry_after).unwrap_or_else(|| backoff(attempt, config)))
        }
        _ => None,
    }
}

/// Exponential backoff with jitter: a random wait in the upper half of `base * 2^attempt`.
fn backoff(attempt: u32, config: &ClientConfig) -> Duration {
    let ceiling = config.backoff_base.saturating_mul(1u32 << attempt.min(16)).min(config.backoff_max);
    let half = ceiling / 2;
    half + half.mul_f64(fastrand::f64())
}

/// `Retry-After` in seconds or as an HTTP date.
fn retry_after(headers: &header::HeaderMap) -> Option<Duration> {
    let value = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let when = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    let wait = when.duration_since(jiff::Timestamp::now());
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_redacted_in_debug() {
        let client = Client::new("http://127.0.0.1:1", ApiKey::new("sk-secret"), ClientConfig::default()).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
        assert!(!format!("{:?}", ApiKey::new("sk-secret")).contains("sk-secret"));
    }

    #[test]
    fn backoff_grows_and_stays_capped() {
        let config = ClientConfig {
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(1),
            ..Default::default()
        };
        for attempt in 0..10 {
            let d = backoff(attempt, &config);
            let ceiling = Duration::from_millis(100 * (1 << attempt)).min(Duration::from_secs(1));
            assert!(d >= ceiling / 2 && d <= ceiling, "attempt {attempt}: {d:?}");
        }
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut headers = header::HeaderMap::new();
        headers.insert(header::RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(header::RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
    }

    #[test]
    fn only_overload_and_gateway_statuses_retry() {
        let config = ClientConfig::default();
        for status in [400, 401, 403, 404, 409, 500] {
            assert_eq!(retry_delay(StatusCode::from_u16(status).unwrap(), None, 0, &config), None, "{status}");
        }
        for status in [429, 502, 503, 504] {
            assert!(retry_delay(StatusCode::from_u16(status).unwrap(), None, 0, &config).is_some(), "{status}");
        }
        let too_long = Some(Duration::from_secs(3600));
        assert_eq!(retry_delay(StatusCode::TOO_MANY_REQUESTS, too_long, 0, &config), None);
        // A Retry-After within the limit is waited for exactly, whatever the attempt.
        let one = Some(Duration::from_secs(1));
        assert_eq!(retry_delay(StatusCode::TOO_MANY_REQUESTS, one, 3, &config), one);
    }
}
