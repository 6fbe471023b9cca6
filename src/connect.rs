//! Connecting to a service, or embedding one: what the console and the headless commands share.
//! Picks the profile (flags, environment, credentials, `config.toml`), builds the one client,
//! and starts the local service in-process when the profile is the embedded one, or a
//! throwaway one (fresh data dir, seeded, gone when dropped) for `--embedded`.

use std::path::PathBuf;

use crate::api::{self, Client, ClientConfig};
use crate::config::{Config, ConfigError, Credentials, Overrides, Paths, Resolved, Target};
pub use crate::service::Running;
use crate::service::sim::conversation::CallerConfig;
use crate::service::{self, SimSpeed, StartError};

/// Which service to talk to, as the command line and environment say.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub profile: Option<String>,
    pub base_url: Option<String>,
    pub read_only: bool,
    /// A config file instead of the platform one.
    pub config: Option<PathBuf>,
    /// The local service kept in this data dir (`--data-dir`, as `--embedded --keep` left
    /// it), whatever the profile says.
    pub data_dir: Option<PathBuf>,
}

/// Everything a face needs before connecting: where things live and the resolved profile.
pub struct Context {
    pub paths: Paths,
    pub resolved: Resolved,
    /// `--data-dir`: the kept local service's data dir, instead of the profile's.
    data_dir: Option<PathBuf>,
    /// `[caller]`: the model that plays the embedded service's simulated callers.
    caller: Option<CallerConfig>,
}

/// Why no client could be had.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Client(#[from] api::Error),
    #[error("cannot start the embedded local service: {0}")]
    Start(#[from] StartError),
}

impl Context {
    /// Where things live, with `--config` applied.
    pub fn paths(selection: &Selection) -> Result<Paths, ConfigError> {
        let mut paths = Paths::platform()?;
        if let Some(config) = &selection.config {
            paths.config_file = config.clone();
        }
        Ok(paths)
    }

    pub fn load(selection: &Selection) -> Result<Context, ConfigError> {
        Context::load_with(selection, |overrides| overrides)
    }

    /// Loads with the overrides adjusted first (`login` supplies the key it is checking).
    pub fn load_with(
        selection: &Selection,
        adjust: impl FnOnce(Overrides) -> Overrides,
    ) -> Result<Context, ConfigError> {
        let paths = Context::paths(selection)?;
        let (config, warnings) = Config::load(&paths.config_file)?;
        let mut overrides =
            Overrides::from_env(selection.profile.clone(), selection.base_url.clone(), selection.read_only);
        overrides.credentials = Credentials::load(&paths.credentials_file)?;
        let mut resolved = config.resolve(&adjust(overrides))?;
        resolved.warnings.extend(warnings);
        if selection.data_dir.is_some() {
            resolved.target = Target::Embedded;
        }
        Ok(Context { paths, resolved, data_dir: selection.data_dir.clone(), caller: config.caller })
    }

    /// `[caller]` of the config file the selection names: what an embedded service plays its
    /// simulated callers with, whatever the profile.
    pub fn caller(selection: &Selection) -> Result<Option<CallerConfig>, ConfigError> {
        let paths = match Context::paths(selection) {
            // `--embedded` runs where there is no home too (a bare CI container): no config file.
            Err(ConfigError::NoHome) => return Ok(None),
            paths => paths?,
        };
        Ok(Config::load(&paths.config_file)?.0.caller)
    }

    /// Who the cache is of: the remote service's address, or the embedded service's data dir
    /// (its address is a new free port every start).
    pub fn service_identity(&self) -> String {
        match &self.resolved.target {
            Target::Remote { base_url } => crate::cache::Cache::service_identity(base_url),
            Target::Embedded => format!("embedded:{}", self.embedded_data_dir().display()),
        }
    }

    fn embedded_data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| self.paths.data_dir.join("service"))
    }

    /// A client for the resolved profile's service; for the embedded one, the service too,
    /// which runs until the returned handle is shut down.
    pub async fn connect(&self) -> Result<(Client, Option<Running>), ConnectError> {
        match &self.resolved.target {
            Target::Remote { base_url } => {
                let key = self.resolved.api_key.clone().ok_or_else(|| ConfigError::NoKey(base_url.clone()))?;
                Ok((Client::new(base_url, key, self.resolved.client.clone())?, None))
            }
            Target::Embedded => {
                let options = service::Options {
                    caller: self.caller.clone(),
                    ..service::Options::embedded(self.embedded_data_dir())
                };
                let running = service::start(options).await?;
                let client = Client::new(&running.base_url(), running.api_key.clone(), self.resolved.client.clone())?;
                Ok((client, Some(running)))
            }
        }
    }
}

/// A local service with a fresh data dir, seeded, that lives as long as this value: what
/// `--embedded` runs a command against.
pub struct Throwaway {
    pub client: Client,
    running: Option<Running>,
    // Removed when dropped, after the service has stopped (a kept one, `--keep`, is not).
    _dir: Option<tempfile::TempDir>,
}

impl Throwaway {
    /// A service on a fresh data dir, or on `keep` (created, or reused with what earlier runs
    /// left in it) which outlives it; `caller` plays its simulated callers.
    pub async fn start(
        sim_speed: SimSpeed,
        client: ClientConfig,
        keep: Option<&std::path::Path>,
        caller: Option<CallerConfig>,
    ) -> Result<Throwaway, ConnectError> {
        let (path, dir) = match keep {
            Some(kept) => (kept.to_path_buf(), None),
            None => {
                let dir = tempfile::Builder::new()
                    .prefix("switchboard-embedded-")
                    .tempdir()
                    .map_err(|source| StartError::DataDir { path: std::env::temp_dir(), source })?;
                (dir.path().to_path_buf(), Some(dir))
            }
        };
        // Seeded, but without the nightly history: a CI run's own plan has the engine to itself.
        let options =
            service::Options { seed: true, seed_history: false, sim_speed, caller, ..service::Options::embedded(path) };
        let running = service::start(options).await?;
        let client = Client::new(&running.base_url(), running.api_key.clone(), client)?;
        Ok(Throwaway { client, running: Some(running), _dir: dir })
    }

    /// Stops the service; its data dir goes with this value.
    pub async fn stop(mut self) {
        if let Some(running) = self.running.take()
            && let Err(error) = running.shutdown().await
        {
            tracing::warn!(%error, "the embedded service did not stop cleanly");
        }
    }
}
