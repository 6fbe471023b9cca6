//! Webhooks: creating one (with the secret shown once), and the sender that delivers each
//! queued event, signed the Standard Webhooks way, retried on a bounded schedule, every attempt
//! kept. Deliveries are queued in the transaction that writes their event, so a crash between
//! a change and its delivery delays the delivery and never loses it.

pub mod status_events;

use std::time::{Duration, Instant};

use crate::service::store::Tx;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::error::{DomainError, DomainResult};
use super::pace::Pace;
use super::secrets::{self, Owner};
use super::store::outbox::{self, AttemptOutcome, Claimed};
use super::store::{self, Doc, Kind, Store};
use super::vault::Vault;
use crate::api::model::*;

/// How long a claimed delivery is held before another sender may try it again: longer than
/// one attempt can take.
const LEASE: Duration = Duration::from_secs(15);
/// One attempt's time limit.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// Events are kept this long (longer while a delivery still needs one), for streams resuming.
const KEEP_EVENTS: jiff::SignedDuration = jiff::SignedDuration::from_hours(7 * 24);
/// How often old events are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// The least time between two looks for due deliveries that events woke: the events published
/// meanwhile are looked at together (a run publishes a few a simulation, and each woke a look:
/// a round trip on PostgreSQL), and an event after a quiet while is looked at at once.
const PACE: Duration = Duration::from_millis(100);
/// Deliveries attempted at once.
const BATCH: usize = 16;
/// Waits between attempts, as multiples of the policy's first wait: with the default 5 s,
/// 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h and 4 h (nine attempts in about 7 h 45 min).
const BACKOFF: &[u32] = &[1, 6, 24, 120, 360, 720, 1440, 2880];

/// How deliveries are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// The wait before the first retry; later waits grow from it (see `BACKOFF`).
    pub first: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { first: Duration::from_secs(5) }
    }
}

impl RetryPolicy {
    /// The wait after the `attempt`th failed attempt, or `None` when that was the last.
    pub fn wait_after(&self, attempt: u32) -> Option<Duration> {
        let factor = *BACKOFF.get(attempt.checked_sub(1)? as usize)?;
        Some(self.first.saturating_mul(factor))
    }
}

/// Creates a webhook; the answer carries its signing secret, which no read shows again. The
/// secret and the secret headers' values are sealed apart from the webhook's document, which
/// (like the answer) shows their masks.
pub fn create(tx: &Tx, vault: &Vault, input: WebhookInput) -> DomainResult<WebhookCreated> {
    let (Some(events), Some(url)) = (input.events, input.url) else {
        return Err(DomainError::invalid("events", "events and url are required"));
    };
    let now = Timestamp::now();
    let id = Uuid::new_v4();
    let owner_id = id.to_string();
    let owner = Owner::webhook(&owner_id);
    let secret_headers = input.secret_headers.unwrap_or_default();
    let headers = secrets::keep_headers(tx, vault, owner, &input.headers.unwrap_or_default(), &secret_headers)?;
    let webhook = Webhook {
        id,
        url,
        events,
        description: input.description,
        headers,
        secret_headers,
        created_at: now.clone(),
        updated_at: now.clone(),
    };
    let signing_secret = new_secret();
    secrets::keep(tx, vault, owner, secrets::SIGNING_SECRET, &signing_secret)?;
    store::insert(tx, &Doc::of(&webhook)?)?;
    Ok(WebhookCreated { webhook, signing_secret })
}

/// Deletes a webhook, drops its pending deliveries and forgets its secrets; false when there
/// was none.
pub fn delete(tx: &Tx, id: &str) -> DomainResult<bool> {
    let deleted = store::soft_delete(tx, Kind::Webhook, id, &Timestamp::now().0)?;
    if deleted {
        outbox::cancel_deliveries(tx, id)?;
        secrets::forget(tx, Owner::webhook(id))?;
    }
    Ok(deleted)
}

/// `whsec_` and 32 random bytes in base64.
pub fn new_secret() -> String {
    let mut key = Vec::with_capacity(32);
    key.extend_from_slice(Uuid::new_v4().as_bytes());
    key.extend_from_slice(Uuid::new_v4().as_bytes());
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(key))
}

/// The `webhook-signature` header: `v1,` and the base64 HMAC-SHA256, keyed with the secret's
/// decoded bytes, of `{id}.{timestamp}.{body}`.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &str) -> String {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    let key = base64::engine::general_purpose::STANDARD.decode(encoded).unwrap_or_else(|_| encoded.as_bytes().to_vec());
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&key) else { return String::new() };
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes()))
}

/// Delivers queued events to webhooks, in the background.
#[derive(Clone)]
pub struct Sender {
    store: Store,
    http: reqwest::Client,
    policy: RetryPolicy,
}

impl Sender {
    pub fn new(store: Store, policy: RetryPolicy) -> Sender {
        let http = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("switchboard-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Sender { store, http, policy }
    }

    pub fn spawn(self) -> JoinHandle<()> {
        tokio::spawn(async move { self.run().await })
    }

    async fn run(self) {
        let mut events = self.store.events();
        let mut pruned: Option<Instant> = None;
        let mut failed_claims: u32 = 0;
        let mut pace = Pace::new(PACE);
        loop {
            // One sender in the deployment (`Store::holds_duties`); the others look again later.
            if !self.store.holds_duties() {
                tokio::time::sleep(crate::service::replica::duties::LOOK_AGAIN).await;
                continue;
            }
            pace.begin();
            if pruned.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
                pruned = Some(Instant::now());
                let before = Timestamp::from(jiff::Timestamp::now() - KEEP_EVENTS).0;
                if let Err(error) = self.store.write(move |tx| outbox::prune_events(tx, &before)).await {
                    tracing::warn!("old events not pruned: {error}");
                }
            }
            let Some(wait) = self.send_due(&mut failed_claims).await else { continue };
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(wait as u64)) => {}
                changed = events.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let rest = pace.rest();
                    if !rest.is_zero() {
                        tokio::time::sleep(rest).await;
                        // The events published meanwhile: the look that follows finds them.
                        events.borrow_and_update();
                    }
                }
            }
        }
    }

    /// Sends the deliveries due now; `None` when it sent some (more may be due), else how
    /// long to wait (ms) before looking again, unless an event comes first. Looked at with a
    /// read first: claiming is a synced write, and the events that wake the sender (every
    /// batch of a run's progress) seldom bring a delivery with them.
    async fn send_due(&self, failed_claims: &mut u32) -> Option<i64> {
        let now = outbox::unix_ms_now();
        let next = match self.store.read(outbox::next_due).await {
            Ok(next) => next,
            Err(error) => {
                // No reason to wait: the claim is tried.
                tracing::warn!("webhook sender cannot read the next delivery: {error}");
                Some(now)
            }
        };
        if next.is_some_and(|due| due <= now) {
            let lease = LEASE.as_millis() as i64;
            match self.store.write(move |tx| outbox::claim_due(tx, now, lease, BATCH)).await {
                Ok(claimed) if !claimed.is_empty() => {
                    *failed_claims = 0;
                    futures_util::future::join_all(claimed.into_iter().map(|c| self.attempt(c))).await;
                    return None;
                }
                Ok(_) => *failed_claims = 0,
                Err(error) => {
                    *failed_claims = failed_claims.saturating_add(1);
                    tracing::warn!("webhook sender cannot claim deliveries: {error}");
                }
            }
        }
        Some(match next {
            None => 60_000,
            // Due and not claimed: claimed meanwhile by another sender (a moment's pause), or
            // the claim failed (a pause that doubles while it keeps failing).
            Some(due) if due <= now => (100_i64 << (*failed_claims).min(9)).min(60_000),
            Some(due) => (due - outbox::unix_ms_now()).clamp(0, 60_000),
        })
    }

    /// One attempt at one delivery, recorded whatever it comes to.
    async fn attempt(&self, claimed: Claimed) {
        let outcome = self.send(&claimed).await;
        if let Err(error) = self.store.write(move |tx| outbox::record_attempt(tx, &claimed, &outcome)).await {
            tracing::warn!("webhook sender cannot record an attempt: {error}");
        }
    }

    async fn send(&self, claimed: &Claimed) -> AttemptOutcome {
        let attempt = claimed.attempts + 1;
        let attempted_at = Timestamp::now();
        let started = Instant::now();
        let result = self.post(claimed).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let (response_status, error) = match result {
            Ok(status) if (200..300).contains(&status) => (Some(status), None),
            Ok(status) => (Some(status), Some(format!("the receiver answered {status}"))),
            Err(error) => (None, Some(error)),
        };
        let (status, next_attempt_ms) = if error.is_none() {
            (DeliveryStatus::Delivered, None)
        } else {
            match self.policy.wait_after(attempt) {
                Some(wait) => (DeliveryStatus::Pending, Some(outbox::unix_ms_now() + wait.as_millis() as i64)),
                None => (DeliveryStatus::Failed, None),
            }
        };
        AttemptOutcome { attempt, attempted_at, response_status, error, duration_ms, status, next_attempt_ms }
    }

    /// Posts the event, signed and with the webhook's headers (their real values, opened for
    /// this attempt); the receiver's status, or why it could not be reached.
    async fn post(&self, claimed: &Claimed) -> Result<u16, String> {
        let webhook: Webhook =
            serde_json::from_str(&claimed.webhook_body).map_err(|e| format!("the webhook cannot be read: {e}"))?;
        let (vault, id, shown) = (self.store.vault(), claimed.webhook_id.clone(), webhook.headers.clone());
        let alert = claimed.alert_id.clone();
        let secrets = self
            .store
            .read(move |conn| match alert {
                Some(alert) => secrets::alert_to_send(conn, &vault, &alert),
                None => secrets::webhook_to_send(conn, &vault, &id, &shown),
            })
            .await
            // The cause is in the log; attempts are readable by every key.
            .map_err(|_| "the webhook's signing secret or headers cannot be read; see the service log".to_owned())?;
        let body = serde_json::to_string(&claimed.event).map_err(|e| e.to_string())?;
        let timestamp = jiff::Timestamp::now().as_second();
        let mut request = self
            .http
            .post(&webhook.url)
            .header("content-type", "application/json")
            .header("webhook-id", &claimed.delivery_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature(&secrets.signing_secret, &claimed.delivery_id, timestamp, &body));
        for (name, value) in &secrets.headers {
            request = request.header(name, value);
        }
        match request.body(body).send().await {
            Ok(response) => Ok(response.status().as_u16()),
            // Without the URL: it may carry a token, and attempts are readable by every key.
            Err(error) => Err(describe(&error)),
        }
    }
}

/// Why a delivery could not reach its receiver, in a few words.
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs())
    } else if error.is_connect() {
        "could not connect to the receiver".to_owned()
    } else {
        "the request failed before the receiver answered".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = r#"{"test": 2432232314}"#;
        let signed = signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(signed, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn retries_wait_longer_each_time_and_end() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.wait_after(1), Some(Duration::from_secs(5)));
        assert_eq!(policy.wait_after(2), Some(Duration::from_secs(30)));
        assert_eq!(policy.wait_after(8), Some(Duration::from_secs(4 * 3600)));
        assert_eq!(policy.wait_after(9), None);
        let total: Duration = (1..=8).filter_map(|a| policy.wait_after(a)).sum();
        assert!(total < Duration::from_secs(8 * 3600), "retries end within a working day: {total:?}");
    }

    #[test]
    fn each_secret_is_new_and_decodes_to_32_bytes() {
        let (a, b) = (new_secret(), new_secret());
        assert_ne!(a, b);
        let key = base64::engine::general_purpose::STANDARD.decode(a.trim_start_matches("whsec_"));
        assert_eq!(key.map(|k| k.len()).ok(), Some(32));
    }
}
