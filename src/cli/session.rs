//! One command's connection: the client, the embedded service it started (if any), and the
//! settings every command reads. Opened before the command, closed after it.

use std::time::Duration;

use super::GlobalArgs;
use super::exit::Failure;
use super::output::Format;
use crate::api::{Client, ClientConfig};
use crate::connect::{Context, Throwaway};
use crate::service::{Running, SimSpeed};

/// How often a throwaway service's jobs are polled: it runs fast and costs nothing to ask.
const EMBEDDED_POLL: Duration = Duration::from_millis(200);

pub struct Session {
    pub client: Client,
    pub format: Format,
    pub read_only: bool,
    /// How often a running job is read again.
    pub poll_interval: Duration,
    /// Whether the service is a throwaway one (`--embedded`).
    pub throwaway: bool,
    /// The profile in use (`--embedded` for a throwaway service).
    pub profile: String,
    /// Where the console keeps its cache of this profile's service (none for a throwaway one).
    cache: Option<(std::path::PathBuf, String)>,
    embedded: Option<Running>,
    disposable: Option<Throwaway>,
}

impl Session {
    /// Connects as the flags say; `sim_speed` is the pace of a throwaway service's runs.
    pub async fn open(global: &GlobalArgs, sim_speed: Option<SimSpeed>) -> Result<Session, Failure> {
        if global.embedded {
            let speed = sim_speed.unwrap_or(SimSpeed::Max);
            let caller = Context::caller(&global.selection())?;
            let disposable = Throwaway::start(speed, ClientConfig::default(), global.keep.as_deref(), caller).await?;
            return Ok(Session {
                client: disposable.client.clone(),
                format: global.output,
                read_only: global.read_only,
                poll_interval: EMBEDDED_POLL,
                throwaway: true,
                profile: "--embedded".into(),
                cache: None,
                embedded: None,
                disposable: Some(disposable),
            });
        }
        if sim_speed.is_some() {
            // Only a throwaway service runs at the pace this command asks; any other keeps its own.
            return Err(Failure::invalid(
                "--sim-speed",
                "--sim-speed sets the pace of a throwaway service and needs --embedded; a running service \
                 keeps its own pace (`switchboard serve --sim-speed`)",
            ));
        }
        let context = Context::load(&global.selection())?;
        for warning in &context.resolved.warnings {
            eprintln!("warning: {warning}");
        }
        let (client, embedded) = context.connect().await?;
        Ok(Session {
            client,
            format: global.output,
            read_only: context.resolved.read_only,
            poll_interval: context.resolved.poll_interval,
            throwaway: false,
            profile: context.resolved.profile.clone(),
            cache: Some((context.paths.cache_dir.clone(), context.service_identity())),
            embedded,
            disposable: None,
        })
    }

    /// The console's cache of this profile's service, read only, where there is one.
    pub fn console_cache(&self) -> Option<crate::cache::Cache> {
        let (dir, service) = self.cache.as_ref()?;
        crate::cache::Cache::peek(dir, &self.profile, service)
    }

    /// Refuses a write under `--read-only`.
    pub fn may_write(&self, what: &str) -> Result<(), Failure> {
        if self.read_only {
            return Err(Failure::new(
                super::exit::Exit::Auth,
                "read_only",
                format!("{what} writes, and this profile is read-only (--read-only or read_only = true)"),
            ));
        }
        Ok(())
    }

    /// Stops whatever service this session started.
    pub async fn close(self) {
        if let Some(running) = self.embedded
            && let Err(error) = running.shutdown().await
        {
            tracing::warn!(%error, "the embedded service did not stop cleanly");
        }
        if let Some(disposable) = self.disposable {
            disposable.stop().await;
        }
    }
}
