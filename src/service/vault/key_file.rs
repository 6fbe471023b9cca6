//! The secrets key file: the keys that seal stored secrets, newest first, one line each
//! (`ID BASE64-KEY`), readable by its owner only. Kept apart from the database, so that a copy
//! of the database alone gives no secret away.

use std::io::Write;
use std::path::Path;

use base64::Engine;
use chacha20poly1305::XChaCha20Poly1305;
use chacha20poly1305::aead::{KeyInit, OsRng};

/// One key: its id (stored beside every value it sealed) and its 32 bytes.
#[derive(Clone)]
pub struct FileKey {
    pub id: String,
    pub bytes: [u8; 32],
}

impl std::fmt::Debug for FileKey {
    /// The id only: a key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileKey({})", self.id)
    }
}

const HEADER: &str = "\
# switchboard secrets key file: the keys that seal the secrets the store keeps (webhook signing
# secrets, secret request headers), newest first, one per line as `ID BASE64-KEY`. Keep it
# apart from the database and back it up with it: without it those secrets cannot be read.
# `switchboard secrets rotate-key` adds a key, seals every secret again with it, and drops the
# keys no secret uses any more.
";

/// Why the key file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("cannot use the secrets key file {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("the secrets key file {path} is not valid at line {line}: {why}")]
    Malformed { path: String, line: usize, why: &'static str },
    #[error("the secrets key file {path} holds no key")]
    Empty { path: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KeyFileError + '_ {
    move |source| KeyFileError::Io { path: path.display().to_string(), source }
}

/// A new random key with a new id.
pub fn new_key() -> FileKey {
    let key = XChaCha20Poly1305::generate_key(&mut OsRng);
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(&key);
    FileKey { id: format!("k{}", &uuid::Uuid::new_v4().simple().to_string()[..12]), bytes }
}

/// The keys in the file at `path`, newest first; `None` when there is no file.
pub fn read(path: &Path) -> Result<Option<Vec<FileKey>>, KeyFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => {
            warn_if_open_to_others(path);
            text
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path)(e)),
    };
    let malformed = |line, why| KeyFileError::Malformed { path: path.display().to_string(), line, why };
    let mut keys = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((id, encoded)) = line.split_once(char::is_whitespace) else {
            return Err(malformed(n, "a line is an id and a key"));
        };
        let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok();
        let bytes: [u8; 32] =
            decoded.and_then(|d| d.try_into().ok()).ok_or_else(|| malformed(n, "a key is 32 bytes in base64"))?;
        if !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(malformed(n, "a key id is letters and digits"));
        }
        if keys.iter().any(|k: &FileKey| k.id == id) {
            return Err(malformed(n, "a key id is named twice"));
        }
        keys.push(FileKey { id: id.to_owned(), bytes });
    }
    if keys.is_empty() {
        return Err(KeyFileError::Empty { path: path.display().to_string() });
    }
    Ok(Some(keys))
}

/// A key file others can read is not changed (it may be a mounted secret, managed elsewhere),
/// but the log says so.
fn warn_if_open_to_others(path: &Path) {
    if crate::private_files::is_open_to_others(path).unwrap_or(false) {
        tracing::warn!(file = %path.display(), "the secrets key file is readable by others: make it 0600");
    }
}

/// The file's text for `keys`.
fn text(keys: &[FileKey]) -> String {
    let mut out = String::from(HEADER);
    for key in keys {
        out.push_str(&format!("{} {}\n", key.id, base64::engine::general_purpose::STANDARD.encode(key.bytes)));
    }
    out
}

/// A temporary file beside `path` holding `keys`, readable by its owner only (tempfile
/// creates it 0600), written and synced: ready to be put in place whole.
fn staged(path: &Path, keys: &[FileKey]) -> Result<tempfile::NamedTempFile, KeyFileError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut staged = tempfile::Builder::new().prefix(".secrets-key-").tempfile_in(dir).map_err(io(path))?;
    staged.write_all(text(keys).as_bytes()).map_err(io(path))?;
    staged.as_file().sync_all().map_err(io(path))?;
    Ok(staged)
}

/// The keys at `path`, or a new file there with one new key when there is none (true). Two
/// processes starting together on one file end up with the same key: the file is put in place
/// only where none is, and the one that finds it there reads it.
pub fn load_or_create(path: &Path) -> Result<(Vec<FileKey>, bool), KeyFileError> {
    if let Some(keys) = read(path)? {
        return Ok((keys, false));
    }
    let keys = vec![new_key()];
    match staged(path, &keys)?.persist_noclobber(path) {
        Ok(_) => Ok((keys, true)),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            let keys = read(path)?.ok_or_else(|| KeyFileError::Empty { path: path.display().to_string() })?;
            Ok((keys, false))
        }
        Err(e) => Err(io(path)(e.error)),
    }
}

/// Replaces the file's keys with `keys` (newest first), whole: a reader sees the old file or
/// the new one, never half of one.
pub fn replace(path: &Path, keys: &[FileKey]) -> Result<(), KeyFileError> {
    staged(path, keys)?.persist(path).map_err(|e| io(path)(e.error))?;
    Ok(())
}

/// What tells one version of the file from the next without reading it.
pub fn stamp(path: &Path) -> Option<(std::time::SystemTime, u64, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some((meta.modified().ok()?, meta.len(), inode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_made_once_private_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("secrets.key");
        let (made, created) = load_or_create(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(created);
        let (again, created) = load_or_create(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!created);
        assert_eq!((made[0].id.clone(), made[0].bytes), (again[0].id.clone(), again[0].bytes));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).unwrap_or_default();
            assert_eq!(mode, 0o600);
        }
        let newer = new_key();
        replace(&path, &[newer.clone(), made[0].clone()]).unwrap_or_else(|e| panic!("{e}"));
        let read_back = read(&path).unwrap_or_else(|e| panic!("{e}")).unwrap_or_default();
        assert_eq!(read_back.iter().map(|k| k.id.as_str()).collect::<Vec<_>>(), [&newer.id, &made[0].id]);
        assert!(!format!("{read_back:?}").contains(&base64::engine::general_purpose::STANDARD.encode(newer.bytes)));
    }

    #[test]
    fn a_malformed_file_names_its_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("secrets.key");
        std::fs::write(&path, "# comment\nk1 notbase64\n").unwrap_or_else(|e| panic!("{e}"));
        let error = read(&path).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("line 2"), "{error}");
    }
}
