//! Headless commands for scripts and CI, built on the same client as the console.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use color_eyre::eyre::{Result, WrapErr, eyre};

mod serve;

use crate::api::{Client, Error};
use crate::config::{Config, Overrides, Paths, Resolved, Target};
use crate::service::{self, Running};

/// Terminal console, local service and headless commands for the Simulation and Call-Analytics Service.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags every command takes.
#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Profile from config.toml (`local` is the embedded service).
    #[arg(long, global = true, env = "SWITCHBOARD_PROFILE")]
    pub profile: Option<String>,
    /// Talk to this service instead of the profile's; the key comes from SWITCHBOARD_API_KEY.
    #[arg(long, global = true, env = "SWITCHBOARD_BASE_URL")]
    pub base_url: Option<String>,
    /// Hide and refuse every write.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Log filter, e.g. info or switchboard=debug (logs go to a file, never the screen).
    #[arg(long, global = true, default_value = "info", env = "SWITCHBOARD_LOG")]
    pub log_level: String,
    /// Use this config file instead of the platform one.
    #[arg(long, global = true, env = "SWITCHBOARD_CONFIG")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the local service: the whole interface over embedded SQLite.
    Serve(serve::ServeArgs),
    /// Show or locate configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check the key against the service: prints `authenticated` and `account`.
    Health {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print where config, cache, data and logs live.
    Path,
}

/// Everything a command needs: where things live and the resolved profile.
pub struct Context {
    pub paths: Paths,
    pub resolved: Resolved,
}

impl Context {
    pub fn load(global: &GlobalArgs) -> Result<Context> {
        let mut paths = Paths::platform()?;
        if let Some(config) = &global.config {
            paths.config_file = config.clone();
        }
        let (config, warnings) = Config::load(&paths.config_file)?;
        let overrides = Overrides::from_env(global.profile.clone(), global.base_url.clone(), global.read_only);
        let mut resolved = config.resolve(&overrides)?;
        resolved.warnings.extend(warnings);
        Ok(Context { paths, resolved })
    }

    /// A client for the resolved profile's service; for the embedded one, the service too,
    /// which runs until the returned handle is shut down.
    pub async fn connect(&self) -> Result<(Client, Option<Running>)> {
        match &self.resolved.target {
            Target::Remote { base_url } => {
                let key = self.resolved.api_key.clone().ok_or_else(|| eyre!("no API key for {base_url}"))?;
                Ok((Client::new(base_url, key, self.resolved.client.clone())?, None))
            }
            Target::Embedded => {
                let options = service::Options::embedded(self.paths.data_dir.join("service"));
                let running = service::start(options).await.wrap_err("cannot start the embedded local service")?;
                let client = Client::new(&running.base_url(), running.api_key.clone(), self.resolved.client.clone())?;
                Ok((client, Some(running)))
            }
        }
    }
}

/// Runs one headless command.
pub async fn run(command: Command, global: &GlobalArgs) -> Result<ExitCode> {
    match command {
        Command::Config(ConfigCommand::Path) => {
            let mut paths = Paths::platform()?;
            if let Some(config) = &global.config {
                paths.config_file = config.clone();
            }
            println!("config  {}", paths.config_file.display());
            println!("cache   {}", paths.cache_dir.display());
            println!("data    {}", paths.data_dir.display());
            println!("logs    {}", paths.log_dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => serve::run(args, global.config.clone()).await,
        Command::Health { json } => {
            let context = Context::load(global)?;
            for warning in &context.resolved.warnings {
                eprintln!("warning: {warning}");
            }
            let (client, embedded) = context.connect().await?;
            let result = client.health().await;
            if let Some(running) = embedded {
                running.shutdown().await?;
            }
            match result {
                Ok(health) if json => {
                    println!("{}", serde_json::to_string_pretty(&health)?);
                    Ok(ExitCode::SUCCESS)
                }
                Ok(health) => {
                    println!("profile        {}", context.resolved.profile);
                    println!("service        {}", client.base_url());
                    println!("authenticated  {}", health.authenticated);
                    println!("account        {}", health.account);
                    Ok(if health.authenticated { ExitCode::SUCCESS } else { ExitCode::FAILURE })
                }
                Err(error) => Err(describe(error)).wrap_err(format!("health check of {} failed", client.base_url())),
            }
        }
    }
}

fn describe(error: Error) -> color_eyre::Report {
    eyre!(error)
}
