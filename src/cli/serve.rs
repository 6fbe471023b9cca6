//! `switchboard serve`: the local service in the foreground until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::exit::{Exit, Failure, Outcome};
use super::signals::Signals;
use crate::api::ApiKey;
use crate::config::{Config, Paths};
use crate::service::sim::conversation::CallerConfig;
use crate::service::{self, Options, SimSpeed};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub addr: SocketAddr,
    /// Where the database and generated key live (default: the platform data dir).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// The full-access key; generated and kept in the data dir when not given. A key given
    /// here is visible to every local user in the process list: set SWITCHBOARD_API_KEY or
    /// use --api-key-file instead.
    #[arg(long, env = "SWITCHBOARD_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// A file holding the full-access key (surrounding whitespace ignored); the safe way,
    /// with SWITCHBOARD_API_KEY, to give the key. Takes precedence over both.
    #[arg(long, value_name = "PATH")]
    pub api_key_file: Option<PathBuf>,
    /// A key that can read but not write.
    #[arg(long, env = "SWITCHBOARD_READ_ONLY_API_KEY", hide_env_values = true)]
    pub read_only_api_key: Option<String>,
    /// A file of more keys, one per person or pipeline, each limited on its own: a line
    /// `NAME KEY` (full access) or `NAME KEY read-only`; `#` starts a comment.
    #[arg(long, value_name = "PATH", env = "SWITCHBOARD_API_KEYS_FILE")]
    pub api_keys_file: Option<PathBuf>,
    /// Requests per second per key (bursts up to twice that).
    #[arg(long, default_value_t = 50)]
    pub rate_limit: u32,
    /// Start with an empty store instead of the demo world.
    #[arg(long)]
    pub no_seed: bool,
    /// Simulated seconds per wall second, or `max`.
    #[arg(long, default_value = "10")]
    pub sim_speed: SimSpeed,
    /// Allow listening on a non-loopback address.
    #[arg(long)]
    pub public: bool,
    /// Milliseconds before a failed webhook delivery's first retry; later retries wait
    /// longer (6×, 24×, … 2880× this). Default 5000.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub webhook_retry_ms: u64,
    /// A PostgreSQL database to keep the data in (`postgres://user:password@host/db`), shared
    /// with every other `serve` replica pointed at it; overrides `[service] database` in
    /// config.toml. Without either, a SQLite file in the data dir.
    #[arg(long, value_name = "URL", env = "SWITCHBOARD_DATABASE_URL", hide_env_values = true)]
    pub database: Option<String>,
    /// Seconds a replica's claim on a simulation or a collection job lasts without renewal
    /// (renewed every third of that): the work of a replica that stopped is taken over by
    /// another once its claims run out.
    #[arg(long, default_value_t = 15, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub lease_seconds: u64,
    /// The key file that encrypts stored secrets (webhook signing secrets, secret request
    /// headers); made, readable by its owner only, when there is none. Default: secrets.key in
    /// the data dir. Replicas sharing a database must share one file.
    #[arg(long, value_name = "PATH", env = "SWITCHBOARD_SECRETS_KEY_FILE")]
    pub secrets_key_file: Option<PathBuf>,
    /// Milliseconds an alert's window waits, after its end and after the latest call for it,
    /// before it is decided: calls that arrive later for a decided window change no alert.
    #[arg(long, default_value_t = 10_000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub alert_quiet_ms: u64,
    /// Seconds an HTTP agent may take to answer one turn: past it, the simulation ends as an
    /// error saying so.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub agent_turn_timeout: u64,
    /// Seconds a client has to take 64 KiB of its answer (or all of it) whenever its socket is
    /// full; one that takes less, or nothing, is disconnected and its answer dropped.
    #[arg(long, default_value_t = service::WRITE_TIMEOUT.as_secs(), value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout: u64,
    /// MiB the service holds at most for answers larger than 64 KiB on their way out (a
    /// streamed job read counts 1 MiB): an answer that cannot have its share within 2 s is
    /// refused with 503 service_busy, so clients that stop reading cannot take more.
    #[arg(long, default_value_t = (service::DEFAULT_RESPONSE_MEMORY >> 20) as u64, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub response_memory_mb: u64,
    /// Threads that run the service's requests and engines [default: one a core, or
    /// TOKIO_WORKER_THREADS]; the database's calls wait on threads of their own. Replicas
    /// that share one machine each take their part of its cores: two on two cores, one each
    /// (docs/deployment.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub caller: CallerArgs,
}

/// The language model that plays the simulated callers (docs/caller.md): each flag wins over
/// the same setting under `[caller]` in config.toml.
#[derive(Debug, Default, Args)]
pub struct CallerArgs {
    /// The caller model's OpenAI-compatible endpoint (`https://api.openai.com/v1`).
    #[arg(long, value_name = "URL")]
    pub caller_base_url: Option<String>,
    /// The caller model (`gpt-4o-mini`); with a base URL, simulated callers are played by it.
    #[arg(long, value_name = "MODEL")]
    pub caller_model: Option<String>,
    /// The environment variable that holds the caller model's key (the key itself is never
    /// given on the command line).
    #[arg(long, value_name = "VAR")]
    pub caller_api_key_env: Option<String>,
    /// Seconds one request to the caller model may take before its simulation fails (default 30).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=600))]
    pub caller_timeout: Option<u64>,
    /// The most tokens one reply of the caller model may take (default 300).
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1..=8192))]
    pub caller_max_tokens: Option<u32>,
}

impl CallerArgs {
    /// `[caller]` from the file with these flags over it; None when neither names a model.
    pub fn over(self, file: Option<CallerConfig>) -> Result<Option<CallerConfig>, Failure> {
        let flagged = self.caller_base_url.is_some()
            || self.caller_model.is_some()
            || self.caller_api_key_env.is_some()
            || self.caller_timeout.is_some()
            || self.caller_max_tokens.is_some();
        if file.is_none() && !flagged {
            return Ok(None);
        }
        let (base_url, model, api_key_env, timeout_seconds, max_tokens) = match file {
            Some(c) => (Some(c.base_url), Some(c.model), c.api_key_env, c.timeout_seconds, c.max_tokens),
            None => (None, None, None, None, None),
        };
        let base_url = self.caller_base_url.or(base_url).filter(|u| !u.trim().is_empty()).ok_or_else(|| {
            Failure::usage(
                "the caller model needs an endpoint: give --caller-base-url, or base_url under [caller] in config.toml",
            )
        })?;
        let model = self.caller_model.or(model).filter(|m| !m.trim().is_empty()).ok_or_else(|| {
            Failure::usage(
                "the caller model needs a model name: give --caller-model, or model under [caller] in config.toml",
            )
        })?;
        Ok(Some(CallerConfig {
            base_url,
            model,
            api_key_env: self.caller_api_key_env.or(api_key_env),
            timeout_seconds: self.caller_timeout.or(timeout_seconds),
            max_tokens: self.caller_max_tokens.or(max_tokens),
        }))
    }
}

/// The config file's settings (`--config`, else the platform's file) and the data dir
/// (`--data-dir`, else the platform's), as `serve` and `secrets` read them.
pub fn config_and_data_dir(
    config_file: Option<PathBuf>,
    data_dir: Option<PathBuf>,
) -> Result<(Config, PathBuf), Failure> {
    let config_file = match config_file {
        Some(file) => file,
        None => Paths::platform()?.config_file,
    };
    let (config, _) = Config::load(&config_file)?;
    let data_dir = match data_dir {
        Some(dir) => dir,
        None => default_data_dir()?,
    };
    Ok((config, data_dir))
}

pub async fn run(args: ServeArgs, config_file: Option<PathBuf>) -> Outcome {
    let (config, data_dir) = config_and_data_dir(config_file, args.data_dir.clone())?;
    let options = Options {
        addr: args.addr,
        data_dir: data_dir.clone(),
        api_key: match &args.api_key_file {
            Some(path) => Some(read_key_file(path)?),
            None => args.api_key.filter(|k| !k.is_empty()).map(ApiKey::new),
        },
        read_only_api_key: args.read_only_api_key.filter(|k| !k.is_empty()).map(ApiKey::new),
        named_keys: match &args.api_keys_file {
            Some(path) => {
                service::http::named_keys::read(path).map_err(|e| Failure::usage(format!("--api-keys-file {e}")))?
            }
            None => Vec::new(),
        },
        rate_limit: args.rate_limit,
        seed: !args.no_seed,
        seed_history: !args.no_seed,
        seed_history_before: None,
        public: args.public,
        sim_speed: args.sim_speed,
        judge: config.judge,
        caller: args.caller.over(config.caller)?,
        read_timeout: service::READ_TIMEOUT,
        write_timeout: std::time::Duration::from_secs(args.write_timeout),
        response_memory: usize::try_from(args.response_memory_mb << 20).unwrap_or(usize::MAX),
        response_wait: service::DEFAULT_RESPONSE_WAIT,
        webhook_retry: service::webhooks::RetryPolicy {
            first: std::time::Duration::from_millis(args.webhook_retry_ms.max(1)),
        },
        database: args.database.filter(|url| !url.is_empty()).or(config.service.database),
        lease: std::time::Duration::from_secs(args.lease_seconds),
        secrets_key_file: args.secrets_key_file,
        agent_turn_timeout: std::time::Duration::from_secs(args.agent_turn_timeout),
        alert_quiet: std::time::Duration::from_millis(args.alert_quiet_ms),
        alert_clock: service::alerts::Clock::default(),
    };
    let mut running = service::start(options).await.map_err(|e| {
        Failure::new(Exit::Unavailable, "start", format!("cannot start the local service: {e}"))
            .with_detail(format!("{e:?}"))
    })?;
    if running.key_generated {
        // Printed once, when generated; afterwards it is read from the data dir.
        println!("generated API key (kept in {}): {}", data_dir.join("api_key").display(), running.api_key.expose());
    }
    println!("listening on {}", running.base_url());
    let shutdown = running.take_shutdown();
    let mut signals = Signals::listen();
    tokio::spawn(async move {
        signals.recv().await;
        if let Some(tx) = shutdown {
            let _ = tx.send(());
        }
    });
    running
        .wait()
        .await
        .map_err(|e| Failure::new(Exit::Unavailable, "serve", format!("the local service stopped: {e}")))?;
    eprintln!("stopped");
    Ok(Exit::Ok)
}

/// Where the service keeps its data when no data dir is named.
pub fn default_data_dir() -> Result<PathBuf, Failure> {
    Ok(Paths::platform()?.data_dir.join("service"))
}

/// The key kept in `path`: its text without surrounding whitespace, which must not be empty.
fn read_key_file(path: &std::path::Path) -> Result<ApiKey, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(format!("cannot read --api-key-file {}: {e}", path.display())))?;
    let key = text.trim();
    if key.is_empty() {
        return Err(Failure::usage(format!("--api-key-file {} is empty", path.display())));
    }
    Ok(ApiKey::new(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> CallerConfig {
        CallerConfig {
            base_url: "https://models.example/v1".into(),
            model: "from-file".into(),
            api_key_env: Some("FILE_KEY".into()),
            timeout_seconds: Some(45),
            max_tokens: None,
        }
    }

    #[test]
    fn caller_flags_win_over_the_file_one_setting_at_a_time() {
        assert_eq!(CallerArgs::default().over(None).unwrap(), None, "no model: the offline caller");
        assert_eq!(CallerArgs::default().over(Some(file())).unwrap(), Some(file()));
        let flags =
            CallerArgs { caller_model: Some("from-flag".into()), caller_max_tokens: Some(99), ..Default::default() };
        let merged = flags.over(Some(file())).unwrap().unwrap();
        assert_eq!((merged.model.as_str(), merged.max_tokens), ("from-flag", Some(99)));
        assert_eq!((merged.base_url.as_str(), merged.timeout_seconds), ("https://models.example/v1", Some(45)));
    }

    /// `--threads` sets the runtime's workers (replicas sharing a machine, docs/deployment.md);
    /// none is refused, naming the flag.
    #[test]
    fn serve_runs_on_the_threads_it_is_given() {
        use clap::Parser;
        let parse = |args: &[&str]| crate::cli::Cli::try_parse_from(args.iter().copied());
        let given = parse(&["switchboard", "serve", "--threads", "3"]).unwrap();
        let runtime = crate::cli::runtime(&given).unwrap();
        assert_eq!(runtime.metrics().num_workers(), 3);
        let refused = parse(&["switchboard", "serve", "--threads", "0"]).unwrap_err().to_string();
        assert!(refused.contains("--threads"), "{refused}");
    }

    #[test]
    fn a_caller_model_needs_both_an_endpoint_and_a_model() {
        let only_model = CallerArgs { caller_model: Some("m".into()), ..Default::default() };
        assert!(only_model.over(None).unwrap_err().body.message.contains("--caller-base-url"));
        let only_url = CallerArgs { caller_base_url: Some("http://m/v1".into()), ..Default::default() };
        assert!(only_url.over(None).unwrap_err().body.message.contains("--caller-model"));
    }
}
