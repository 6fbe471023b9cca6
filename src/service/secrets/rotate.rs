//! `switchboard secrets rotate-key`: a new key seals every stored secret again, and the keys no
//! secret uses any more leave the key file. Each step leaves a state a crash can stop in:
//! the new key is added to the file first (newest first: running services seal with it from
//! their next secret on), every secret is sealed again in one transaction, and only then are
//! the keys that no stored secret names dropped from the file.

use std::path::Path;

use super::context;
use crate::service::store::{Store, StoreError, secrets as kept};
use crate::service::vault::{FileKey, Vault, VaultError, key_file, open_with, seal_with};

/// What a rotation did.
#[derive(Debug, Clone, PartialEq)]
pub struct Rotated {
    /// The id of the key every secret is now sealed with.
    pub key_id: String,
    /// Secrets sealed again.
    pub resealed: usize,
    /// Keys dropped from the file.
    pub dropped: Vec<String>,
    /// Old keys kept: a secret still names them (sealed by a service that had not yet read
    /// the new key); the next rotation drops them.
    pub kept: Vec<String>,
}

/// Why a rotation stopped.
#[derive(Debug, thiserror::Error)]
pub enum RotateError {
    #[error("there is no secrets key file at {0}: nothing to rotate (name the file with --secrets-key-file)")]
    NoKeyFile(String),
    /// A vault's refusal, its words kept for the command to print (they name keys, never a
    /// secret).
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    KeyFile(#[from] key_file::KeyFileError),
    #[error("the store refused: {0}")]
    Store(String),
}

impl From<StoreError> for RotateError {
    fn from(error: StoreError) -> Self {
        RotateError::Store(error.to_string())
    }
}

/// Rotates the key of the key file at `path` over the secrets `store` keeps.
pub fn rotate_key(store: &Store, path: &Path) -> Result<Rotated, RotateError> {
    let old = key_file::read(path)?.ok_or_else(|| RotateError::NoKeyFile(path.display().to_string()))?;
    let new = key_file::new_key();
    key_file::replace(path, &[vec![new.clone()], old.clone()].concat())?;
    let resealed = reseal_all(store, &new, path)?;
    let in_use = store.read_blocking(kept::key_ids)?;
    // A store that keeps no secret at all may not be the one the key file serves (a wrong
    // data dir or database): its old keys are kept rather than dropped, so nothing is lost.
    let (kept_keys, dropped): (Vec<FileKey>, Vec<FileKey>) = match resealed {
        0 => (old, Vec::new()),
        _ => old.into_iter().partition(|k| in_use.contains(&k.id)),
    };
    key_file::replace(path, &[vec![new.clone()], kept_keys.clone()].concat())?;
    Ok(Rotated {
        key_id: new.id,
        resealed,
        dropped: dropped.into_iter().map(|k| k.id).collect(),
        kept: kept_keys.into_iter().map(|k| k.id).collect(),
    })
}

/// Seals every stored secret with `new`, in one transaction; opens them with any key the file
/// holds.
fn reseal_all(store: &Store, new: &FileKey, path: &Path) -> Result<usize, RotateError> {
    let (vault, _) = Vault::open(path)?;
    let resealed = store.write_blocking(|tx| -> Result<_, RotateError> {
        let mut resealed = 0;
        for secret in kept::all(tx)? {
            if secret.sealed.key_id == new.id {
                continue;
            }
            let context = context(&secret.owner_kind, &secret.owner_id, &secret.name);
            let value = vault.open_sealed(&secret.sealed, &context).map_err(RotateError::Vault)?;
            let sealed = seal_with(new, &context, &value).map_err(RotateError::Vault)?;
            // Checked before it replaces the old: a value that would not open again is not kept.
            open_with(new, &sealed, &context).map_err(RotateError::Vault)?;
            kept::reseal(tx, &secret, &sealed)?;
            resealed += 1;
        }
        Ok(resealed)
    })?;
    Ok(resealed)
}
