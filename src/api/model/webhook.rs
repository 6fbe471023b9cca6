//! Webhooks, in the hosted SDK's shapes: a URL subscribed to event types, sent each event
//! signed with a secret only its creation answer shows. Deliveries and their attempts are ours.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{Timestamp, UnknownFields};
use super::event::EventType;
use super::headers::{self, Masks};
use crate::api::validate::{Checks, Validate, join};
use crate::wire_enum;

/// Limits of a webhook.
pub mod webhook_limits {
    pub use crate::api::model::headers::header_limits::{HEADER_VALUE_MAX, HEADERS_MAX};
    pub const URL_MAX: usize = 2048;
    pub const DESCRIPTION_MAX: usize = 500;
    /// An absolute http(s) URL whose host is a dotted IPv4 address or a name (its last label
    /// starts with a letter, so it is never read as an IPv4 number; no `--`, so never
    /// punycode), with an optional port up
    /// to 65535 and printable ASCII after it. The document states it as `url`'s pattern and
    /// the service checks it, so both refuse the same URLs.
    pub const URL_PATTERN: &str = concat!(
        "^[hH][tT][tT][pP][sS]?://(",
        "(([A-Za-z0-9]+(-[A-Za-z0-9]+)*\\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*)",
        "|(((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9]))",
        ")",
        "(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?",
        "([/?#][!-~]*)?$"
    );
    /// Every event type once.
    pub const EVENTS_MAX: usize = 19;
}

/// Headers a webhook may not set: the signature's own, and those the transport owns.
pub const RESERVED_HEADERS: &[&str] =
    &["webhook-id", "webhook-timestamp", "webhook-signature", "content-type", "content-length", "host"];

/// Body of `POST /v1/webhook`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookInput {
    /// Event types to send (at least one).
    #[schema(value_type = Vec<EventType>, required = true, min_items = 1, max_items = 19)]
    pub events: Option<Vec<EventType>>,
    /// Where to send them: an `http` or `https` URL.
    #[schema(value_type = String, required = true, max_length = 2048)]
    pub url: Option<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// Headers sent with every delivery (an authorization token, say). Secret ones (see
    /// `secretHeaders`) are kept encrypted and every read shows them masked.
    pub headers: Option<BTreeMap<String, String>>,
    /// Local extension: more header names whose values are secrets, besides those always
    /// treated so (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, names ending
    /// in `-key` or `-token`, names containing `secret` or `password`).
    #[schema(max_items = 20)]
    pub secret_headers: Option<Vec<String>>,
    /// Members the input does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

impl Validate for WebhookInput {
    fn check(&self, c: &mut Checks, at: &str) {
        use webhook_limits::*;
        c.unknown_of::<Self>(at, &self.unknown_fields);
        if let Some(events) = c.required(at, "events", &self.events) {
            c.items(at, "events", Some(events), 1, Some(EVENTS_MAX));
            c.known_each(at, "events", Some(events));
        }
        if let Some(url) = c.required(at, "url", &self.url) {
            let parsed = reqwest::Url::parse(url);
            let shaped = regex::Regex::new(URL_PATTERN).is_ok_and(|pattern| pattern.is_match(url));
            let web =
                shaped && parsed.as_ref().is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if !web {
                c.invalid(join(at, "url"), "url must be an absolute http or https URL");
            } else if url.chars().count() > URL_MAX {
                c.invalid(join(at, "url"), format!("url must be at most {URL_MAX} characters"));
            }
        }
        c.length(at, "description", self.description.as_deref(), 0, Some(DESCRIPTION_MAX));
        let why = "is set by the service on every delivery";
        headers::check_headers(c, at, self.headers.as_ref(), RESERVED_HEADERS, why, Masks::Refused);
        headers::check_secret_headers(c, at, self.secret_headers.as_deref());
    }
}

/// A webhook as reads answer it (never with its signing secret; secret headers masked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    #[serde(default)]
    pub events: Vec<EventType>,
    /// Required and nullable, as the hosted SDK reads it.
    #[serde(default)]
    #[schema(required = true)]
    pub description: Option<String>,
    /// Secret values masked: `••••` and, for a value of 12 characters or more, its last four.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Local extension: the header names the creator marked secret (`secretHeaders`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_headers: Vec<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The answer to creating a webhook: the webhook and, this once, its signing secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookCreated {
    #[serde(flatten)]
    pub webhook: Webhook,
    /// `whsec_` and the base64 key: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`.
    pub signing_secret: String,
}

/// The answer to deleting a webhook, as the hosted SDK reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookDeleted {
    pub success: bool,
}

wire_enum! {
    /// Where a delivery stands.
    pub enum DeliveryStatus { Pending = "PENDING", Delivered = "DELIVERED", Failed = "FAILED" }
}

/// One attempt to deliver one event to one webhook (local service extension).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    /// The delivery's id: the `webhook-id` header, the same on every attempt of it.
    pub delivery_id: String,
    pub event_id: String,
    pub event_type: EventType,
    /// Counted from 1.
    pub attempt: u32,
    pub attempted_at: Timestamp,
    /// The receiver's answer; absent when it could not be reached.
    pub response_status: Option<u16>,
    /// Why the attempt failed, where it did.
    pub error: Option<String>,
    pub duration_ms: u64,
    /// Where the delivery stands now.
    pub delivery_status: DeliveryStatus,
    /// When the next attempt is due, while the delivery is pending.
    pub next_attempt_at: Option<Timestamp>,
}
