//! The vault: seals the secrets the store keeps (XChaCha20-Poly1305, a random nonce per value,
//! the value's owner and name bound in as associated data) with keys from a key file kept apart
//! from the database. A value names the key that sealed it, so keys can be rotated: a new key
//! seals from the moment it is first in the file, and the old ones open what they sealed until
//! it is sealed again.

pub mod key_file;

use std::path::{Path, PathBuf};

use base64::Engine;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use parking_lot::RwLock;

pub use key_file::{FileKey, KeyFileError};

/// Bytes of an XChaCha20 nonce, stored before the ciphertext.
const NONCE_BYTES: usize = 24;

/// A value as the store keeps it: the key's id and the nonce and ciphertext in base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub key_id: String,
    pub ciphertext: String,
}

/// Why a value could not be sealed or opened.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    #[error("no secrets key file is loaded")]
    NoKeyFile,
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    #[error("no key {key_id} in the secrets key file {path}: the value was sealed with a key it no longer holds")]
    UnknownKey { key_id: String, path: String },
    #[error("a stored secret does not open with key {key_id}: it was changed, or sealed for another owner")]
    Broken { key_id: String },
}

/// The keys a service seals and opens secrets with.
pub struct Vault {
    /// Where the keys come from; `None` for a vault with no key (a store opened without one).
    path: Option<PathBuf>,
    loaded: RwLock<Loaded>,
}

struct Loaded {
    /// Newest first: the first seals.
    keys: Vec<FileKey>,
    /// The file as it was when read, to notice that it changed.
    stamp: Option<(std::time::SystemTime, u64, u64)>,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vault").field("path", &self.path).field("keys", &self.key_ids()).finish()
    }
}

impl Vault {
    /// The vault of the key file at `path`, made (with one new key, 0600) when there is none;
    /// true when it was made now.
    pub fn open(path: &Path) -> Result<(Vault, bool), VaultError> {
        let stamp = key_file::stamp(path);
        let (keys, created) = key_file::load_or_create(path)?;
        let stamp = if created { key_file::stamp(path) } else { stamp };
        let loaded = RwLock::new(Loaded { keys, stamp });
        Ok((Vault { path: Some(path.to_path_buf()), loaded }, created))
    }

    /// A vault without keys: it seals and opens nothing.
    pub fn none() -> Vault {
        Vault { path: None, loaded: RwLock::new(Loaded { keys: Vec::new(), stamp: None }) }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The ids of the keys held, newest first.
    pub fn key_ids(&self) -> Vec<String> {
        self.loaded.read().keys.iter().map(|k| k.id.clone()).collect()
    }

    /// Seals `value` for `context` (what it belongs to: it must be given again to open it) with
    /// the newest key. The file is read again first if it changed, so that a key a rotation
    /// just added seals from now on.
    pub fn seal(&self, context: &str, value: &str) -> Result<Sealed, VaultError> {
        self.reload_if_changed()?;
        let loaded = self.loaded.read();
        let key = loaded.keys.first().ok_or(VaultError::NoKeyFile)?;
        seal_with(key, context, value)
    }

    /// Opens a value sealed for `context`. A key this vault does not hold sends it to read the
    /// file again, once: another process may have rotated the keys.
    pub fn open_sealed(&self, sealed: &Sealed, context: &str) -> Result<String, VaultError> {
        if let Some(opened) = self.try_open(sealed, context) {
            return opened;
        }
        self.reload()?;
        self.try_open(sealed, context).unwrap_or_else(|| {
            Err(VaultError::UnknownKey {
                key_id: sealed.key_id.clone(),
                path: self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            })
        })
    }

    /// `None` when no key held has the value's id.
    fn try_open(&self, sealed: &Sealed, context: &str) -> Option<Result<String, VaultError>> {
        let loaded = self.loaded.read();
        let key = loaded.keys.iter().find(|k| k.id == sealed.key_id)?;
        Some(open_with(key, sealed, context))
    }

    /// Reads the key file again.
    pub fn reload(&self) -> Result<(), VaultError> {
        let Some(path) = &self.path else { return Err(VaultError::NoKeyFile) };
        let stamp = key_file::stamp(path);
        let keys = key_file::read(path)?.ok_or_else(|| KeyFileError::Empty { path: path.display().to_string() })?;
        *self.loaded.write() = Loaded { keys, stamp };
        Ok(())
    }

    fn reload_if_changed(&self) -> Result<(), VaultError> {
        let Some(path) = &self.path else { return Err(VaultError::NoKeyFile) };
        if key_file::stamp(path) != self.loaded.read().stamp {
            self.reload()?;
        }
        Ok(())
    }
}

fn cipher(key: &FileKey) -> XChaCha20Poly1305 {
    XChaCha20Poly1305::new(&key.bytes.into())
}

/// Seals `value` with `key`, a new random nonce, and `context` as associated data.
pub fn seal_with(key: &FileKey, context: &str, value: &str) -> Result<Sealed, VaultError> {
    let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
    let sealed = cipher(key)
        .encrypt(&nonce, Payload { msg: value.as_bytes(), aad: context.as_bytes() })
        .map_err(|_| VaultError::Broken { key_id: key.id.clone() })?;
    let mut bytes = nonce.to_vec();
    bytes.extend_from_slice(&sealed);
    Ok(Sealed { key_id: key.id.clone(), ciphertext: base64::engine::general_purpose::STANDARD.encode(bytes) })
}

/// Opens a value sealed with `key` for `context`.
pub fn open_with(key: &FileKey, sealed: &Sealed, context: &str) -> Result<String, VaultError> {
    let broken = || VaultError::Broken { key_id: sealed.key_id.clone() };
    let bytes = base64::engine::general_purpose::STANDARD.decode(&sealed.ciphertext).map_err(|_| broken())?;
    if bytes.len() < NONCE_BYTES {
        return Err(broken());
    }
    let (nonce, ciphertext) = bytes.split_at(NONCE_BYTES);
    let opened = cipher(key)
        .decrypt(XNonce::from_slice(nonce), Payload { msg: ciphertext, aad: context.as_bytes() })
        .map_err(|_| broken())?;
    String::from_utf8(opened).map_err(|_| broken())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_opens_only_with_its_key_and_for_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let (vault, created) = Vault::open(&dir.path().join("secrets.key")).unwrap();
        assert!(created);
        let sealed = vault.seal("webhook/1/signingSecret", "whsec_abc").unwrap();
        let again = vault.seal("webhook/1/signingSecret", "whsec_abc").unwrap();
        assert_ne!(sealed.ciphertext, again.ciphertext, "a new nonce each time");
        assert!(!sealed.ciphertext.contains("whsec"));
        assert_eq!(vault.open_sealed(&sealed, "webhook/1/signingSecret").unwrap(), "whsec_abc");
        assert!(matches!(vault.open_sealed(&sealed, "webhook/2/signingSecret"), Err(VaultError::Broken { .. })));
        let unknown = Sealed { key_id: "knope".into(), ..sealed };
        assert!(matches!(vault.open_sealed(&unknown, "webhook/1/signingSecret"), Err(VaultError::UnknownKey { .. })));
        assert!(matches!(Vault::none().seal("x", "y"), Err(VaultError::NoKeyFile)));
    }

    #[test]
    fn a_key_added_to_the_file_by_another_process_is_picked_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.key");
        let (vault, _) = Vault::open(&path).unwrap();
        let (other, _) = Vault::open(&path).unwrap();
        let old = vault.key_ids();
        let newer = key_file::new_key();
        let mut keys = key_file::read(&path).unwrap().unwrap();
        keys.insert(0, newer.clone());
        key_file::replace(&path, &keys).unwrap();
        // Sealing notices the change; opening a value under an unknown key reads the file again.
        let sealed = vault.seal("c", "v").unwrap();
        assert_eq!(sealed.key_id, newer.id);
        assert_eq!(other.key_ids(), old);
        assert_eq!(other.open_sealed(&sealed, "c").unwrap(), "v");
        assert_eq!(other.key_ids()[0], newer.id);
    }
}
