//! HTTP request definitions (how an endpoint dials out to its agent), created and updated
//! with their secret headers: the values sealed apart (`secrets`), the document keeping their
//! masks, and a mask sent back in an update keeping the value it stands for.

use std::collections::BTreeMap;

use super::error::DomainResult;
use super::secrets::{self, Owner};
use super::store::{self, Conn, Doc, Kind, Tx};
use super::vault::Vault;
use crate::api::model::{HttpRequestDefinition, HttpRequestDefinitionUpdate, Timestamp, body_text};

/// Keeps a new definition with `headers` (real values); the definition as stored.
pub fn create(
    tx: &Tx,
    vault: &Vault,
    mut definition: HttpRequestDefinition,
    headers: &BTreeMap<String, String>,
) -> DomainResult<HttpRequestDefinition> {
    keep_headers(tx, vault, &mut definition, headers)?;
    store::insert(tx, &Doc::of(&definition)?)?;
    Ok(definition)
}

/// Applies an update to the definition `id`; the definition as stored.
pub fn update(
    tx: &Tx,
    vault: &Vault,
    id: &str,
    update: HttpRequestDefinitionUpdate,
) -> DomainResult<HttpRequestDefinition> {
    let mut definition: HttpRequestDefinition = store::require(tx, Kind::HttpRequestDefinition, id)?;
    let headers = match &update.headers {
        Some(given) => secrets::unmask(tx, vault, Owner::definition(id), given)?,
        None => current_headers(tx, vault, &definition)?,
    };
    apply(&mut definition, update);
    // With the marks as they now are: a header newly marked secret is sealed, one unmarked
    // goes back into the document.
    keep_headers(tx, vault, &mut definition, &headers)?;
    definition.updated_at = Some(Timestamp::now());
    store::update(tx, &Doc::of(&definition)?)?;
    Ok(definition)
}

/// The members of an update other than the headers, applied.
fn apply(definition: &mut HttpRequestDefinition, update: HttpRequestDefinitionUpdate) {
    if let Some(url) = update.url {
        definition.url = Some(url);
    }
    if let Some(method) = update.method {
        definition.method = Some(method);
    }
    if update.body.is_some() {
        let body = body_text(update.body.as_ref());
        definition.parsed_body = body.as_deref().and_then(|b| serde_json::from_str(b).ok());
        definition.body = body;
    }
    if let Some(description) = update.description {
        definition.description = Some(description);
    }
    if let Some(names) = update.secret_headers {
        definition.secret_headers = Some(names).filter(|names| !names.is_empty());
    }
}

/// A stored definition's headers with their real values (for an update that leaves them but
/// may mark others secret, and for a config diff that compares them).
pub fn current_headers(
    tx: &Conn,
    vault: &Vault,
    definition: &HttpRequestDefinition,
) -> DomainResult<BTreeMap<String, String>> {
    let id = definition.id.to_string();
    let opened = secrets::open_all(tx, vault, Owner::definition(&id))?;
    let shown: BTreeMap<String, String> = definition
        .headers
        .iter()
        .flatten()
        .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
        .collect();
    Ok(secrets::reveal_headers(&shown, &opened))
}

/// Keeps `headers` as the definition's: secret values sealed, the document's masked.
fn keep_headers(
    tx: &Tx,
    vault: &Vault,
    definition: &mut HttpRequestDefinition,
    headers: &BTreeMap<String, String>,
) -> DomainResult<()> {
    let id = definition.id.to_string();
    let marked = definition.secret_headers.clone().unwrap_or_default();
    let shown = secrets::keep_headers(tx, vault, Owner::definition(&id), headers, &marked)?;
    definition.headers = Some(shown.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect());
    Ok(())
}
