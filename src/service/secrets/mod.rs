//! The secrets of webhooks, alerts and HTTP request definitions: a webhook's (or an alert's)
//! signing secret and the values of their secret headers (`api::model::headers::is_secret`).
//! Each is sealed by the vault into the store's `secrets` table; the document keeps only its
//! mask, so every read, for every key, shows the mask. Only the engines that send them open
//! them: the webhook sender and the simulation's agent link.

mod rotate;
mod upgrade;

use std::collections::BTreeMap;

pub use rotate::{Rotated, rotate_key};
pub use upgrade::seal_clear_values;

use super::error::{DomainError, DomainResult};
use super::store::{self, Conn, Kind, Tx, secrets as kept};
use super::vault::{Vault, VaultError};
use crate::api::model::HttpRequestDefinition;
use crate::api::model::headers::{is_mask, is_secret, mask};
use crate::service::store::StoreResult;

/// The name a webhook's signing secret is kept under.
pub const SIGNING_SECRET: &str = "signingSecret";
/// What the names of kept header values start with (`headers.Authorization`).
const HEADER_PREFIX: &str = "headers.";

/// Whose secrets: a document of a kind that has some.
#[derive(Debug, Clone, Copy)]
pub struct Owner<'a> {
    pub kind: Kind,
    pub id: &'a str,
}

impl<'a> Owner<'a> {
    pub fn webhook(id: &'a str) -> Owner<'a> {
        Owner { kind: Kind::Webhook, id }
    }

    pub fn definition(id: &'a str) -> Owner<'a> {
        Owner { kind: Kind::HttpRequestDefinition, id }
    }

    /// An alert: the secret its `webhooks` deliveries are signed with.
    pub fn alert(id: &'a str) -> Owner<'a> {
        Owner { kind: Kind::Alert, id }
    }
}

/// What a sealed value is bound to (the associated data): its owner and its name, so that a
/// value copied to another owner's row or name does not open.
fn context(kind: &str, id: &str, name: &str) -> String {
    format!("{kind}/{id}/{name}")
}

fn header_key(name: &str) -> String {
    format!("{HEADER_PREFIX}{name}")
}

fn vault_error(error: VaultError) -> DomainError {
    DomainError::fault(format!("stored secrets: {error}"))
}

/// Seals `value` and keeps it as the owner's secret `name`.
pub fn keep(tx: &Tx, vault: &Vault, owner: Owner, name: &str, value: &str) -> DomainResult<()> {
    let sealed = vault.seal(&context(owner.kind.as_str(), owner.id, name), value).map_err(vault_error)?;
    Ok(kept::put(tx, owner.kind, owner.id, name, &sealed)?)
}

/// The owner's secrets, opened: name → value.
pub fn open_all(conn: &Conn, vault: &Vault, owner: Owner) -> DomainResult<BTreeMap<String, String>> {
    kept::of_owner(conn, owner.kind, owner.id)?
        .into_iter()
        .map(|(name, sealed)| {
            let value =
                vault.open_sealed(&sealed, &context(owner.kind.as_str(), owner.id, &name)).map_err(vault_error)?;
            Ok((name, value))
        })
        .collect()
}

/// Keeps `headers` (real values) for `owner`: each secret one sealed, the secrets of headers
/// no longer sent or no longer secret forgotten. The headers as the owner's document keeps
/// them: secret values masked.
pub fn keep_headers(
    tx: &Tx,
    vault: &Vault,
    owner: Owner,
    headers: &BTreeMap<String, String>,
    marked: &[String],
) -> DomainResult<BTreeMap<String, String>> {
    let mut shown = BTreeMap::new();
    let mut kept_names = Vec::new();
    for (name, value) in headers {
        if is_secret(name, marked) {
            keep(tx, vault, owner, &header_key(name), value)?;
            kept_names.push(header_key(name));
            shown.insert(name.clone(), mask(value));
        } else {
            shown.insert(name.clone(), value.clone());
        }
    }
    for (name, _) in kept::of_owner(tx, owner.kind, owner.id)? {
        if name.starts_with(HEADER_PREFIX) && !kept_names.contains(&name) {
            kept::forget(tx, owner.kind, owner.id, &name)?;
        }
    }
    Ok(shown)
}

/// `headers` as sent in an update, each mask (a value as reads show it) replaced by the value
/// kept under that name (names compared ignoring case), which it must be the mask of: a
/// read, edited and put back, keeps a secret rather than writing its mask over it.
pub fn unmask(
    conn: &Conn,
    vault: &Vault,
    owner: Owner,
    headers: &BTreeMap<String, String>,
) -> DomainResult<BTreeMap<String, String>> {
    if !headers.values().any(|v| is_mask(v)) {
        return Ok(headers.clone());
    }
    let stored = open_all(conn, vault, owner)?;
    let mut real = BTreeMap::new();
    for (name, value) in headers {
        if !is_mask(value) {
            real.insert(name.clone(), value.clone());
            continue;
        }
        let param = format!("headers.{name}");
        let kept = stored
            .iter()
            .find(|(key, _)| key.strip_prefix(HEADER_PREFIX).is_some_and(|k| k.eq_ignore_ascii_case(name)))
            .map(|(_, value)| value)
            .ok_or_else(|| {
                DomainError::invalid(&param, format!("{value} stands for a kept value, and none is kept for {name}"))
            })?;
        if mask(kept) != *value {
            return Err(DomainError::invalid(
                &param,
                format!("{value} is not the mask of the value kept for {name} ({}); send the value itself", mask(kept)),
            ));
        }
        real.insert(name.clone(), kept.clone());
    }
    Ok(real)
}

/// `headers` as the document keeps them with each kept secret's real value in place of its
/// mask.
pub fn reveal_headers<'a>(
    headers: impl IntoIterator<Item = (&'a String, &'a String)>,
    opened: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    headers
        .into_iter()
        .map(|(name, shown)| (name.clone(), opened.get(&header_key(name)).cloned().unwrap_or_else(|| shown.clone())))
        .collect()
}

/// A definition as the agent link dials it: its headers' real values in place of their
/// masks. For the simulation engine only; no route answers with it.
pub fn definition_to_dial(conn: &Conn, vault: &Vault, id: &str) -> DomainResult<Option<HttpRequestDefinition>> {
    let Some(mut definition) = store::get::<HttpRequestDefinition>(conn, Kind::HttpRequestDefinition, id)? else {
        return Ok(None);
    };
    let opened = open_all(conn, vault, Owner::definition(id))?;
    if let Some(headers) = definition.headers.as_mut() {
        for (name, value) in headers.iter_mut() {
            if let Some(real) = opened.get(&header_key(name)) {
                *value = serde_json::Value::String(real.clone());
            }
        }
    }
    Ok(Some(definition))
}

/// A webhook's signing secret and its headers' real values, for the sender.
pub struct WebhookSecrets {
    pub signing_secret: String,
    pub headers: BTreeMap<String, String>,
}

/// What the sender signs and sends a webhook's deliveries with.
pub fn webhook_to_send(
    conn: &Conn,
    vault: &Vault,
    id: &str,
    shown: &BTreeMap<String, String>,
) -> DomainResult<WebhookSecrets> {
    let opened = open_all(conn, vault, Owner::webhook(id))?;
    let signing_secret = opened
        .get(SIGNING_SECRET)
        .cloned()
        .ok_or_else(|| DomainError::fault(format!("webhook {id} has no signing secret kept")))?;
    Ok(WebhookSecrets { signing_secret, headers: reveal_headers(shown, &opened) })
}

/// What the sender signs an alert's webhook deliveries with: the alert's secret (its webhooks
/// carry no headers).
pub fn alert_to_send(conn: &Conn, vault: &Vault, alert_id: &str) -> DomainResult<WebhookSecrets> {
    let opened = open_all(conn, vault, Owner::alert(alert_id))?;
    let signing_secret = opened
        .get(SIGNING_SECRET)
        .cloned()
        .ok_or_else(|| DomainError::fault(format!("alert {alert_id} has no signing secret kept")))?;
    Ok(WebhookSecrets { signing_secret, headers: BTreeMap::new() })
}

/// Whether `owner` has a secret kept under `name`.
pub fn has(conn: &Conn, owner: Owner, name: &str) -> DomainResult<bool> {
    Ok(kept::of_owner(conn, owner.kind, owner.id)?.iter().any(|(kept, _)| kept == name))
}

/// Forgets every secret of `owner` (a webhook deleted: nothing more is sent to it).
pub fn forget(tx: &Tx, owner: Owner) -> StoreResult<()> {
    kept::forget_owner(tx, owner.kind, owner.id)
}

/// The ids of keys that stored secrets are sealed with and `vault` does not hold: a service
/// started with another key file than the one its store's secrets were sealed with.
pub fn keys_missing(conn: &Conn, vault: &Vault) -> DomainResult<Vec<String>> {
    let held = vault.key_ids();
    Ok(kept::key_ids(conn)?.into_iter().filter(|id| !held.contains(id)).collect())
}
