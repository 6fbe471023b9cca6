//! The generated key, kept in the data dir with mode 0600 so only its owner can read it.

use std::path::Path;

use crate::api::ApiKey;

const FILE: &str = super::data_dir::API_KEY_FILE;

/// The stored key, or a new one (and true) when there was none.
pub fn load_or_create(data_dir: &Path) -> std::io::Result<(ApiKey, bool)> {
    let path = data_dir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok((ApiKey::new(text.trim()), false)),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let key = format!("sk-local-{}", uuid::Uuid::new_v4().simple());
    crate::private_files::write_private(&path, key.as_bytes())?;
    Ok((ApiKey::new(key), true))
}
