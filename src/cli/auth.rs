//! `login`, `logout`, `auth status` and `health`: keys per profile, kept in the credentials
//! file (never `config.toml`), checked against the service before they are stored.

use std::io::{IsTerminal, Read};

use clap::{Args, Subcommand};
use serde::Serialize;

use super::GlobalArgs;
use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format, Tabular};
use super::session::Session;
use crate::api::model::Health;
use crate::api::{ApiKey, Client};
use crate::columns::Column;
use crate::columns::health as health_columns;
use crate::config::{Credentials, LOCAL_PROFILE, Target};
use crate::connect::Context;

#[derive(Debug, Args)]
pub struct LoginArgs {
    /// Read the key from stdin instead of prompting (for CI: `echo "$KEY" | switchboard login --with-token`).
    #[arg(long)]
    pub with_token: bool,
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Which profile and service are in use, and where the key comes from (never the key).
    Status,
}

impl Tabular for Health {
    fn columns() -> Vec<Column<Self>> {
        health_columns::DETAIL.to_vec()
    }
}

/// `health`: the key checked against the service.
pub async fn health(session: &Session, format: Format) -> Outcome {
    let health = session
        .client
        .health()
        .await
        .map_err(|e| Failure::from(e).context(format!("health check of {} failed", session.client.base_url())))?;
    match format.resolve() {
        Format::Table => output::emit(&format!(
            "profile        {}\nservice        {}\nauthenticated  {}\naccount        {}\n",
            session.profile,
            session.client.base_url(),
            health.authenticated,
            health.account
        ))?,
        // The service's own body, as `GET /v1/health` answers it.
        Format::Json => output::emit(&output::json(&health)?)?,
        other => output::item(other, &health)?,
    }
    Ok(if health.authenticated { Exit::Ok } else { Exit::Auth })
}

/// `login`: reads a key, checks it with `health`, and stores it for the profile.
pub async fn login(args: LoginArgs, global: &GlobalArgs) -> Outcome {
    let key = read_key(args.with_token)?;
    let selection = global.selection();
    let context = Context::load_with(&selection, |mut overrides| {
        overrides.api_key = Some(key.clone());
        overrides
    })?;
    let resolved = &context.resolved;
    let Target::Remote { base_url } = &resolved.target else {
        return Err(Failure::usage(format!(
            "profile {:?} is the embedded local service, which makes its own key; name a profile with a base_url (--profile) or pass --base-url",
            resolved.profile
        )));
    };
    let client = Client::new(base_url, key.clone(), resolved.client.clone())?;
    let health = client.health().await.map_err(|e| Failure::from(e).context(format!("{base_url} refused the key")))?;
    if !health.authenticated {
        return Err(Failure::new(Exit::Auth, "unauthenticated", format!("{base_url} did not accept the key")));
    }
    let path = &context.paths.credentials_file;
    let mut credentials = Credentials::load(path)?;
    credentials.set(&resolved.profile, base_url, &key);
    credentials.save(path)?;
    // Say how to reach this key again: with --base-url, the profile alone may point elsewhere.
    let reach = match &global.base_url {
        Some(url) => format!("profile {} with --base-url {url}", resolved.profile),
        None => format!("profile {}", resolved.profile),
    };
    eprintln!("logged in to {base_url} as {}; the key is stored for {reach}, in {}", health.account, path.display());
    Ok(Exit::Ok)
}

fn read_key(from_stdin: bool) -> Result<ApiKey, Failure> {
    let key = if from_stdin || !std::io::stdin().is_terminal() {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| Failure::io("cannot read the key from stdin", e))?;
        text
    } else {
        rpassword::prompt_password("API key: ").map_err(|e| Failure::io("cannot read the key", e))?
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(Failure::usage("no key given"));
    }
    Ok(ApiKey::new(key))
}

/// `logout`: forgets the profile's stored key.
pub fn logout(global: &GlobalArgs) -> Outcome {
    let selection = global.selection();
    let paths = Context::paths(&selection)?;
    let profile = profile_name(global, &paths.config_file)?;
    let mut credentials = Credentials::load(&paths.credentials_file)?;
    if !credentials.remove(&profile) {
        eprintln!("no key was stored for profile {profile}");
        return Ok(Exit::Ok);
    }
    credentials.save(&paths.credentials_file)?;
    eprintln!("forgot the key of profile {profile}");
    Ok(Exit::Ok)
}

/// The profile the flags name, else the config's default, else `local`.
fn profile_name(global: &GlobalArgs, config_file: &std::path::Path) -> Result<String, Failure> {
    let (config, _) = crate::config::Config::load(config_file)?;
    Ok(global.profile.clone().or(config.default_profile).unwrap_or_else(|| LOCAL_PROFILE.into()))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    profile: String,
    service: String,
    key_source: Option<String>,
    read_only: bool,
    /// What the service said of the key: `valid`, `rejected`, or `unchecked` (unreachable).
    key: &'static str,
    /// The account the key belongs to, when the service accepted it.
    account: Option<String>,
    /// The service a key stored for this profile by `login` belongs to.
    stored_key_for: Option<String>,
}

impl Tabular for Status {
    fn columns() -> Vec<Column<Self>> {
        vec![
            Column::text("PROFILE", |x: &Status| x.profile.clone()),
            Column::text("SERVICE", |x: &Status| x.service.clone()),
            Column::text("KEY FROM", |x: &Status| output::or_dash(x.key_source.clone())),
            Column::text("KEY", |x: &Status| x.key.to_string()),
            Column::text("ACCOUNT", |x: &Status| output::or_dash(x.account.clone())),
            Column::text("READ-ONLY", |x: &Status| x.read_only.to_string()),
            Column::text("STORED KEY FOR", |x: &Status| output::or_dash(x.stored_key_for.clone())),
        ]
    }
}

/// Asks the service whether `key` is good: its word for the key, and the account when it is.
async fn check_key(base_url: &str, key: ApiKey, resolved: &crate::config::Resolved) -> (&'static str, Option<String>) {
    let client = match Client::new(base_url, key, resolved.client.clone()) {
        Ok(client) => client,
        Err(_) => return ("unchecked", None),
    };
    match client.health().await {
        Ok(health) if health.authenticated => ("valid", Some(health.account)),
        Ok(_) => ("rejected", None),
        Err(error) if matches!(error.status(), Some(401 | 403)) => ("rejected", None),
        Err(_) => ("unchecked", None),
    }
}

pub async fn run(command: AuthCommand, global: &GlobalArgs) -> Outcome {
    let AuthCommand::Status = command;
    if global.embedded {
        let status = Status {
            profile: "(--embedded)".into(),
            service: "a throwaway local service".into(),
            key_source: Some("made by the embedded service".into()),
            read_only: global.read_only,
            key: "valid",
            account: None,
            stored_key_for: None,
        };
        output::item(global.output, &status)?;
        return Ok(Exit::Ok);
    }
    let context = Context::load(&global.selection())?;
    let resolved = context.resolved;
    let (service, key_source, (key, account)) = match &resolved.target {
        Target::Embedded => (
            "the embedded local service".to_string(),
            Some("made by the embedded service".to_string()),
            ("valid", None),
        ),
        Target::Remote { base_url } => {
            let checked = match resolved.api_key.clone() {
                Some(api_key) => check_key(base_url, api_key, &resolved).await,
                None => ("rejected", None),
            };
            (base_url.clone(), resolved.key_source.as_ref().map(|s| s.to_string()), checked)
        }
    };
    let stored = Credentials::load(&context.paths.credentials_file)?;
    let stored_key_for = stored.base_url(&resolved.profile).map(str::to_string);
    let status = Status {
        profile: resolved.profile,
        service,
        key_source,
        read_only: resolved.read_only,
        key,
        account,
        stored_key_for,
    };
    output::item(global.output, &status)?;
    match key {
        // A key the service refuses is an authentication failure scripts can branch on.
        "rejected" => Ok(Exit::Auth),
        "unchecked" => Ok(Exit::Unavailable),
        _ => Ok(Exit::Ok),
    }
}
