//! `switchboard secrets rotate-key`: encrypts every secret the store keeps (webhook signing
//! secrets, secret request headers) with a new key, then drops the old keys from the key file.
//! Run it against the data dir (or database) and key file a service uses, running or not.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::exit::{Exit, Failure, Outcome};
use super::output;
use crate::service::{self, secrets};

#[derive(Debug, Subcommand)]
pub enum SecretsCommand {
    /// Encrypt every stored secret with a new key, then drop the keys no secret uses from the key file.
    RotateKey(RotateArgs),
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    /// The service's data dir (default: the platform data dir, as `serve` uses).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// The PostgreSQL database the service keeps its data in; overrides `[service] database`
    /// in config.toml. Without either, the SQLite file in the data dir.
    #[arg(long, value_name = "URL", env = "SWITCHBOARD_DATABASE_URL", hide_env_values = true)]
    pub database: Option<String>,
    /// The key file (default: secrets.key in the data dir).
    #[arg(long, value_name = "PATH", env = "SWITCHBOARD_SECRETS_KEY_FILE")]
    pub secrets_key_file: Option<PathBuf>,
}

pub async fn run(command: SecretsCommand, config_file: Option<PathBuf>) -> Outcome {
    match command {
        SecretsCommand::RotateKey(args) => rotate_key(args, config_file).await,
    }
}

async fn rotate_key(args: RotateArgs, config_file: Option<PathBuf>) -> Outcome {
    let (config, data_dir) = super::serve::config_and_data_dir(config_file, args.data_dir.clone())?;
    let database = args.database.filter(|url| !url.is_empty()).or(config.service.database);
    let key_file = service::secrets_key_path(&data_dir, args.secrets_key_file.as_deref());
    if !key_file.exists() {
        return Err(Failure::usage(format!(
            "there is no secrets key file at {}: nothing to rotate (name it with --secrets-key-file)",
            key_file.display()
        )));
    }
    let sqlite = data_dir.join(service::data_dir::DATABASE_FILE);
    if database.is_none() && !sqlite.exists() {
        return Err(Failure::usage(format!(
            "there is no store at {}: name the service's data dir (--data-dir) or its database (--database)",
            sqlite.display()
        )));
    }
    // A command never tries for the duties: it would hold them, and run none, until it exits.
    let opener = service::store::Opener::Command;
    let store = service::open_store(&data_dir, database.as_deref(), Some(&key_file), opener)
        .await
        .map_err(|e| Failure::new(Exit::Unavailable, "store", format!("cannot open the store: {e}")))?;
    let path = key_file.clone();
    let rotated = tokio::task::spawn_blocking(move || secrets::rotate_key(&store, &path))
        .await
        .map_err(|e| Failure::new(Exit::Unavailable, "rotate", e.to_string()))?
        .map_err(|e| Failure::new(Exit::Internal, "rotate", format!("the key was not rotated: {e}")))?;
    output::emit(&describe(&rotated, &key_file))?;
    Ok(Exit::Ok)
}

/// What the rotation did, in a few lines.
fn describe(rotated: &secrets::Rotated, key_file: &std::path::Path) -> String {
    let mut text = format!(
        "every stored secret is encrypted with the new key {} ({} encrypted again)\n",
        rotated.key_id, rotated.resealed
    );
    if !rotated.dropped.is_empty() {
        text.push_str(&format!("dropped from {}: {}\n", key_file.display(), rotated.dropped.join(", ")));
    }
    if !rotated.kept.is_empty() {
        text.push_str(&format!(
            "kept, as a secret still uses it (a service sealed it before it read the new key; rotate again to drop it): {}\n",
            rotated.kept.join(", ")
        ));
    }
    text
}
