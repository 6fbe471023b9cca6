//! Stores written before secrets were sealed kept them in the documents, in clear: a webhook's
//! `signingSecret` and every header value. At start they are sealed into the `secrets` table
//! and the documents rewritten with masks, deleted documents too; a store with none left is
//! read and not written.

use serde_json::{Map, Value};

use super::{HEADER_PREFIX, Owner, SIGNING_SECRET, keep};
use crate::api::model::headers::{is_mask, is_secret, mask};
use crate::service::error::DomainResult;
use crate::service::store::{Kind, Store, Tx, secrets as kept};
use crate::service::vault::Vault;

/// The kinds whose documents may hold secrets.
const KINDS: [Kind; 2] = [Kind::Webhook, Kind::HttpRequestDefinition];

/// Seals the secrets documents still hold in clear, and masks them there; how many documents
/// were rewritten.
pub fn seal_clear_values(store: &Store) -> DomainResult<usize> {
    let pending = store.read_blocking(|conn| -> DomainResult<_> {
        let mut pending = Vec::new();
        for kind in KINDS {
            for (id, body) in kept::every_body(conn, kind)? {
                if holds_clear_secrets(&body) {
                    pending.push((kind, id));
                }
            }
        }
        Ok(pending)
    })?;
    if pending.is_empty() {
        return Ok(0);
    }
    let vault = store.vault();
    let rewritten = store.write_blocking(|tx| -> DomainResult<_> {
        // The clear values leave SQLite's files as well as the documents: what the rewrite
        // frees is zeroed, and the log that held the old pages is emptied after. PostgreSQL's
        // old row versions go at its next vacuum.
        kept::scrub_freed_space(tx, true)?;
        let mut rewritten = 0;
        for (kind, id) in &pending {
            rewritten += usize::from(seal_one(tx, &vault, *kind, id)?);
        }
        kept::scrub_freed_space(tx, false)?;
        Ok(rewritten)
    })?;
    store.truncate_log()?;
    Ok(rewritten)
}

/// Whether a stored body holds a secret in clear (read without decoding into a type, as an
/// old build wrote it).
fn holds_clear_secrets(body: &str) -> bool {
    let Ok(document) = serde_json::from_str::<Map<String, Value>>(body) else { return false };
    document.get(SIGNING_SECRET).is_some_and(Value::is_string) || !clear_secret_headers(&document).is_empty()
}

/// The headers of a document whose values are secrets still in clear.
fn clear_secret_headers(document: &Map<String, Value>) -> Vec<(String, String)> {
    let marked: Vec<String> = document
        .get("secretHeaders")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let Some(headers) = document.get("headers").and_then(Value::as_object) else { return Vec::new() };
    headers
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
        .filter(|(name, value)| is_secret(name, &marked) && !is_mask(value))
        .collect()
}

/// Seals one document's clear secrets and masks them in it (read again, claimed: another
/// replica may be doing the same); false when there was nothing left to do.
fn seal_one(tx: &Tx, vault: &Vault, kind: Kind, id: &str) -> DomainResult<bool> {
    let Some(body) = kept::body_to_mask(tx, kind, id)? else { return Ok(false) };
    let mut document: Map<String, Value> = serde_json::from_str(&body)?;
    let owner = Owner { kind, id };
    let mut changed = false;
    if let Some(Value::String(secret)) = document.remove(SIGNING_SECRET) {
        // A definition's was only ever shown, never used: a webhook's is kept.
        if kind == Kind::Webhook {
            keep(tx, vault, owner, SIGNING_SECRET, &secret)?;
        }
        changed = true;
    }
    let clear = clear_secret_headers(&document);
    if let Some(headers) = document.get_mut("headers").and_then(Value::as_object_mut) {
        for (name, value) in clear {
            keep(tx, vault, owner, &format!("{HEADER_PREFIX}{name}"), &value)?;
            headers.insert(name, Value::String(mask(&value)));
            changed = true;
        }
    }
    if changed {
        kept::write_masked_body(tx, kind, id, &serde_json::to_string(&document)?)?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_clear_secrets_call_for_a_rewrite() {
        assert!(holds_clear_secrets(r#"{"id":"w","signingSecret":"whsec_x","headers":{}}"#));
        assert!(holds_clear_secrets(r#"{"id":"w","headers":{"Authorization":"Bearer abcdefghijklmnop"}}"#));
        assert!(holds_clear_secrets(r#"{"id":"w","headers":{"X-Tenant":"t1"},"secretHeaders":["x-tenant"]}"#));
        assert!(!holds_clear_secrets(r#"{"id":"w","headers":{"Authorization":"••••mnop","Accept":"*/*"}}"#));
        assert!(!holds_clear_secrets(r#"{"id":"d","headers":null,"signingSecret":null}"#));
    }
}
