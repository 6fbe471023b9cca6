//! `config.toml`: named profiles, where their keys come from, and console settings.
//! Resolution order: flags, then `SWITCHBOARD_API_KEY`, then the key `switchboard login` stored, then
//! the profile, then defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::api::{ApiKey, ClientConfig};

mod credentials;
pub use credentials::{Credentials, KeySource};

/// The built-in profile that means the embedded local service.
pub const LOCAL_PROFILE: &str = "local";
/// The environment variable that overrides any profile's key.
pub const API_KEY_ENV: &str = "SWITCHBOARD_API_KEY";
const DEFAULT_POLL_INTERVAL_MS: u64 = 1000;

/// Where config, cache, data and logs live.
#[derive(Debug, Clone, PartialEq)]
pub struct Paths {
    pub config_file: PathBuf,
    /// Keys stored by `switchboard login`, per profile (mode 0600, in a 0700 directory).
    pub credentials_file: PathBuf,
    pub cache_dir: PathBuf,
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
}

impl Paths {
    /// The platform directories (XDG on Linux), or an error when no home directory is known.
    pub fn platform() -> Result<Paths, ConfigError> {
        let dirs = directories::ProjectDirs::from("dev", "switchboard", "switchboard").ok_or(ConfigError::NoHome)?;
        Ok(Paths {
            config_file: dirs.config_dir().join("config.toml"),
            credentials_file: dirs.config_dir().join("credentials").join("credentials.toml"),
            cache_dir: dirs.cache_dir().to_path_buf(),
            data_dir: dirs.data_dir().to_path_buf(),
            log_dir: dirs.data_dir().join("logs"),
        })
    }

    /// Everything under one folder: for tests and portable installs.
    pub fn under(root: &Path) -> Paths {
        Paths {
            config_file: root.join("config").join("config.toml"),
            credentials_file: root.join("config").join("credentials").join("credentials.toml"),
            cache_dir: root.join("cache"),
            data_dir: root.join("data"),
            log_dir: root.join("data").join("logs"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no home directory is known, so there is nowhere to keep config and cache")]
    NoHome,
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("no profile named {name:?}; known profiles: {known}")]
    UnknownProfile { name: String, known: String },
    #[error("profile {0:?} is the embedded local service and takes no base_url; name another profile")]
    LocalWithBaseUrl(String),
    #[error("profile {profile:?} reads its key from ${var}, which is not set")]
    KeyEnvUnset { profile: String, var: String },
    #[error("profile {0:?} has no base_url; set one in config.toml or pass --base-url")]
    NoBaseUrl(String),
    #[error("no API key for {0}: run switchboard login, set {API_KEY_ENV}, or set api_key_env in the profile")]
    NoKey(String),
}

/// The file as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The profile used when `--profile` is not given; `local` by default.
    pub default_profile: Option<String>,
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(default)]
    pub client: ClientSettings,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// Key rebindings: action name to key list.
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<String>>,
    /// An OpenAI-compatible judge for the local service's LLM-judged metrics.
    pub judge: Option<crate::service::metrics::judge::JudgeConfig>,
    /// An OpenAI-compatible model that plays the local service's simulated callers
    /// (docs/caller.md).
    pub caller: Option<crate::service::sim::conversation::CallerConfig>,
    /// Where `switchboard serve` keeps its data.
    #[serde(default)]
    pub service: ServiceSettings,
}

/// How `switchboard serve` stores its data.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSettings {
    /// A PostgreSQL URL (`postgres://user:password@host:5432/switchboard`): one store that
    /// several `serve` replicas share. Without it, a SQLite file in the data dir.
    pub database: Option<String>,
}

impl std::fmt::Debug for ServiceSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let database =
            self.database.as_ref().map(|url| crate::service::store::Location::Postgres(url.clone()).display());
        f.debug_struct("ServiceSettings").field("database", &database).finish()
    }
}

/// Settings a profile may override.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub poll_interval_ms: Option<u64>,
    pub theme: Option<String>,
    pub read_only: Option<bool>,
}

/// Client timeouts and retries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSettings {
    pub connect_timeout_ms: Option<u64>,
    pub request_timeout_ms: Option<u64>,
    pub max_retries: Option<u32>,
}

/// One named service.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    /// Name of the environment variable holding the key (preferred).
    pub api_key_env: Option<String>,
    /// The key itself; warned about when the file is readable by others.
    pub api_key: Option<String>,
    #[serde(flatten)]
    pub settings: Settings,
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profile")
            .field("base_url", &self.base_url)
            .field("api_key_env", &self.api_key_env)
            .field("api_key", &self.api_key.as_ref().map(|_| "****"))
            .field("settings", &self.settings)
            .finish()
    }
}

/// What the command line and environment say, above the file.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub profile: Option<String>,
    pub base_url: Option<String>,
    /// The value of `SWITCHBOARD_API_KEY`, when set.
    pub api_key: Option<ApiKey>,
    pub read_only: bool,
    /// Keys stored by `switchboard login`, consulted after `SWITCHBOARD_API_KEY`.
    pub credentials: Credentials,
}

impl Overrides {
    /// Flags as given, with the key read from `SWITCHBOARD_API_KEY`.
    pub fn from_env(profile: Option<String>, base_url: Option<String>, read_only: bool) -> Overrides {
        let api_key = std::env::var(API_KEY_ENV).ok().filter(|k| !k.is_empty()).map(ApiKey::new);
        Overrides { profile, base_url, api_key, read_only, credentials: Credentials::default() }
    }
}

/// Which service a resolved profile talks to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// The local service, started in-process.
    Embedded,
    Remote {
        base_url: String,
    },
}

/// A profile with every override applied: what the console and commands run with.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub profile: String,
    pub target: Target,
    /// None for the embedded service, which makes its own.
    pub api_key: Option<ApiKey>,
    /// Where `api_key` came from (never the key itself); None for the embedded service.
    pub key_source: Option<KeySource>,
    pub poll_interval: Duration,
    pub theme: String,
    pub read_only: bool,
    pub client: ClientConfig,
    pub keys: BTreeMap<String, Vec<String>>,
    /// Things the user should know (a key in a world-readable file).
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads the file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<(Config, Vec<String>), ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Config::default(), Vec::new())),
            Err(source) => return Err(ConfigError::Read { path: path.to_owned(), source }),
        };
        let config = Config::parse(&text).map_err(|message| ConfigError::Parse { path: path.to_owned(), message })?;
        let mut warnings = Vec::new();
        if config.profiles.values().any(|p| p.api_key.is_some()) && readable_by_others(path) {
            warnings.push(format!(
                "{} holds an api_key and is readable by other users: run chmod 600 on it, or use api_key_env",
                path.display()
            ));
        }
        Ok((config, warnings))
    }

    /// Parses the file. The error names the line and what is wrong, never the line itself: the
    /// file can hold an api_key, and toml's own rendering quotes the line it stopped at.
    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| {
            let start = e.span().map_or(0, |span| span.start.min(text.len()));
            let line = text[..start].matches('\n').count() + 1;
            // Flattened settings make serde report an unknown key against its whole table: find
            // the key's own line within it.
            let key_line = unknown_key(e.message()).and_then(|key| {
                text[start..].lines().position(|l| {
                    l.trim_start().strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='))
                })
            });
            format!("line {}: {}", line + key_line.unwrap_or(0), e.message().trim_end())
        })
    }

    /// Applies overrides to the named (or default) profile.
    pub fn resolve(&self, overrides: &Overrides) -> Result<Resolved, ConfigError> {
        let name =
            overrides.profile.clone().or_else(|| self.default_profile.clone()).unwrap_or_else(|| LOCAL_PROFILE.into());
        let builtin_local = Profile::default();
        let profile = match self.profiles.get(&name) {
            Some(profile) => profile,
            None if name == LOCAL_PROFILE => &builtin_local,
            None => {
                let mut known: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
                if !known.contains(&LOCAL_PROFILE) {
                    known.insert(0, LOCAL_PROFILE);
                }
                return Err(ConfigError::UnknownProfile { name, known: known.join(", ") });
            }
        };
        if name == LOCAL_PROFILE && profile.base_url.is_some() {
            return Err(ConfigError::LocalWithBaseUrl(name));
        }
        let base_url = overrides.base_url.clone().or_else(|| profile.base_url.clone());
        let target = match base_url {
            Some(base_url) => Target::Remote { base_url },
            None if name == LOCAL_PROFILE => Target::Embedded,
            None => return Err(ConfigError::NoBaseUrl(name)),
        };
        let stored = match &target {
            Target::Remote { base_url } => overrides.credentials.get(&name, base_url),
            Target::Embedded => None,
        };
        let (api_key, key_source) = match (&overrides.api_key, stored, &profile.api_key_env, &profile.api_key) {
            (Some(key), _, _, _) => (Some(key.clone()), Some(KeySource::Env)),
            (None, Some(key), _, _) => (Some(key), Some(KeySource::Credentials)),
            (None, None, Some(var), _) => match std::env::var(var) {
                Ok(key) if !key.is_empty() => (Some(ApiKey::new(key)), Some(KeySource::ProfileEnv(var.clone()))),
                _ => return Err(ConfigError::KeyEnvUnset { profile: name, var: var.clone() }),
            },
            (None, None, None, Some(key)) => (Some(ApiKey::new(key.clone())), Some(KeySource::ConfigFile)),
            (None, None, None, None) => (None, None),
        };
        if api_key.is_none()
            && let Target::Remote { base_url } = &target
        {
            return Err(ConfigError::NoKey(base_url.clone()));
        }
        let poll_ms =
            profile.settings.poll_interval_ms.or(self.settings.poll_interval_ms).unwrap_or(DEFAULT_POLL_INTERVAL_MS);
        let theme =
            profile.settings.theme.clone().or_else(|| self.settings.theme.clone()).unwrap_or_else(|| "default".into());
        let read_only = overrides.read_only || profile.settings.read_only.or(self.settings.read_only).unwrap_or(false);
        let defaults = ClientConfig::default();
        let client = ClientConfig {
            connect_timeout: self.client.connect_timeout_ms.map_or(defaults.connect_timeout, Duration::from_millis),
            request_timeout: self.client.request_timeout_ms.map_or(defaults.request_timeout, Duration::from_millis),
            max_retries: self.client.max_retries.unwrap_or(defaults.max_retries),
            ..defaults
        };
        Ok(Resolved {
            profile: name,
            target,
            api_key,
            key_source,
            poll_interval: Duration::from_millis(poll_ms.max(100)),
            theme,
            read_only,
            client,
            keys: self.keys.clone(),
            warnings: Vec::new(),
        })
    }
}

#[cfg(unix)]
fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|m| m.permissions().mode() & 0o044 != 0).unwrap_or(false)
}

#[cfg(not(unix))]
fn readable_by_others(_path: &Path) -> bool {
    false
}

/// The key serde names in "unknown field `key`, expected …".
fn unknown_key(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}
