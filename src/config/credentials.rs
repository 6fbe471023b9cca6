//! Keys stored by `switchboard login`, per profile, in their own file (never `config.toml`):
//! mode 0600 in a directory of mode 0700, written atomically. Each key is kept with the base
//! URL it was checked against and is only ever sent there: pointing a profile elsewhere
//! (`--base-url`, or an edited `config.toml`) does not carry the key along.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::api::ApiKey;
use crate::private_files::{DIR_MODE, restrict, write_private};

/// Where a resolved key came from, so `auth status` can say it without showing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `SWITCHBOARD_API_KEY`.
    Env,
    /// The credentials file `switchboard login` writes.
    Credentials,
    /// The environment variable the profile names in `api_key_env`.
    ProfileEnv(String),
    /// `api_key` in `config.toml`.
    ConfigFile,
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Env => write!(f, "environment (${})", super::API_KEY_ENV),
            KeySource::Credentials => f.write_str("credentials file (switchboard login)"),
            KeySource::ProfileEnv(var) => write!(f, "environment (${var}, the profile's api_key_env)"),
            KeySource::ConfigFile => f.write_str("config file (api_key in config.toml)"),
        }
    }
}

/// The file as written: `[profiles.NAME] base_url = "…"` and `api_key = "…"`.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    #[serde(default)]
    profiles: BTreeMap<String, StoredKey>,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredKey {
    base_url: String,
    api_key: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("profiles", &self.profiles.keys().collect::<Vec<_>>()).finish()
    }
}

impl Credentials {
    /// Reads the file; a missing file holds no keys.
    pub fn load(path: &Path) -> Result<Credentials, ConfigError> {
        match std::fs::read_to_string(path) {
            // toml's own message quotes the line it stopped at, which can be a key: say where
            // only, by line number.
            Ok(text) => toml::from_str(&text).map_err(|e| {
                let line = e.span().map_or(1, |span| text[..span.start.min(text.len())].lines().count().max(1));
                ConfigError::Parse {
                    path: path.to_owned(),
                    message: format!(
                        "line {line} is not what `switchboard login` writes; run `switchboard logout` and log in again"
                    ),
                }
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Credentials::default()),
            Err(source) => Err(ConfigError::Read { path: path.to_owned(), source }),
        }
    }

    /// The profile's key, if it was stored for this very service.
    pub fn get(&self, profile: &str, base_url: &str) -> Option<ApiKey> {
        self.profiles
            .get(profile)
            .filter(|stored| same_service(&stored.base_url, base_url))
            .map(|stored| ApiKey::new(stored.api_key.clone()))
    }

    /// The service a profile's stored key belongs to, if any (for `auth status`).
    pub fn base_url(&self, profile: &str) -> Option<&str> {
        self.profiles.get(profile).map(|stored| stored.base_url.as_str())
    }

    pub fn set(&mut self, profile: &str, base_url: &str, key: &ApiKey) {
        let stored = StoredKey { base_url: base_url.to_owned(), api_key: key.expose().to_owned() };
        self.profiles.insert(profile.to_owned(), stored);
    }

    /// Forgets a profile's key; false when there was none.
    pub fn remove(&mut self, profile: &str) -> bool {
        self.profiles.remove(profile).is_some()
    }

    /// Writes the file atomically: its directory made (or tightened to) 0700, the file 0600
    /// from the moment it exists, so the key is never readable by others even briefly.
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let write_error = |source| ConfigError::Write { path: path.to_owned(), source };
        let dir = path.parent().ok_or_else(|| write_error(std::io::Error::other("the path has no directory")))?;
        std::fs::create_dir_all(dir).map_err(write_error)?;
        restrict(dir, DIR_MODE).map_err(write_error)?;
        let text = toml::to_string(self).map_err(|e| write_error(std::io::Error::other(e)))?;
        let temporary = dir.join(".credentials.toml.tmp");
        write_private(&temporary, text.as_bytes()).map_err(write_error)?;
        std::fs::rename(&temporary, path).map_err(write_error)
    }
}

/// Whether two base URLs name the same service: a trailing slash makes no difference.
fn same_service(a: &str, b: &str) -> bool {
    a.trim_end_matches('/').eq_ignore_ascii_case(b.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_never_show_in_debug() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("creds").join("credentials.toml");
        let mut credentials = Credentials::default();
        credentials.set("staging", "https://staging.example/", &ApiKey::new("sk-secret-1"));
        credentials.save(&path).unwrap();
        let loaded = Credentials::load(&path).unwrap();
        assert_eq!(loaded.get("staging", "https://staging.example"), Some(ApiKey::new("sk-secret-1")));
        assert_eq!(loaded.get("staging", "https://elsewhere.example"), None, "never sent to another service");
        assert_eq!(loaded.get("prod", "https://staging.example"), None);
        assert!(!format!("{loaded:?}").contains("sk-secret-1"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        }
    }

    #[test]
    fn a_file_that_does_not_parse_is_not_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.toml");
        std::fs::write(&path, "[profiles.staging]\napi_key = \"sk-secret-2\"\nbase_url = \"x\"\nextra = sk-secret-2\n")
            .unwrap();
        let message = Credentials::load(&path).unwrap_err().to_string();
        assert!(!message.contains("sk-secret"), "{message}");
        assert!(message.contains("line 4"), "{message}");
    }
}
