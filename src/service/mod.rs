//! The local service: the whole interface over embedded SQLite, startable in-process
//! (the console embeds it) or as `switchboard serve`.

mod agents;
pub mod alerts;
pub mod annotations;
mod calls;
mod chat_completions;
mod config;
pub mod data_dir;
pub mod error;
pub mod flows;
pub mod http;
pub mod issues;
pub mod metrics;
pub(crate) mod pace;
pub mod replica;
pub mod secrets;
pub mod seed;
pub mod sim;
pub mod store;
pub mod vault;
pub mod webhooks;
pub use http::server::{READ_TIMEOUT, WRITE_TIMEOUT};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::api::ApiKey;
pub use http::auth::Access;
use http::auth::{Keys, RateLimiter};
use http::{auth, error_body, etag, keyfile, named_keys, openapi, readiness, response_budget, routes, screen, server};
use replica::{lease_keeper, leases};
use store::Store;

/// Request bodies larger than this are refused with 413.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The default of `Options::response_memory`: 32 MiB.
pub const DEFAULT_RESPONSE_MEMORY: usize = response_budget::DEFAULT_BYTES;

/// The default of `Options::response_wait`: 2 s.
pub const DEFAULT_RESPONSE_WAIT: std::time::Duration = response_budget::DEFAULT_WAIT;

/// The one project the local service is (the hosted interface names a project on every call):
/// the seeded world's, `uuid5(seed namespace, "project:harbor-voice-labs")`.
pub const PROJECT_ID: uuid::Uuid = uuid::Uuid::from_u128(0xb2c08445_3a63_5692_b791_11c15c733eb4);

/// How the service runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    /// The full key; generated and kept in the data dir when absent.
    pub api_key: Option<ApiKey>,
    pub read_only_api_key: Option<ApiKey>,
    /// More keys, one per person or pipeline (`--api-keys-file`).
    pub named_keys: Vec<named_keys::NamedKey>,
    /// Requests per second per key.
    pub rate_limit: u32,
    pub seed: bool,
    /// With `seed`: also the seeded plan's last nightly runs (the console's and `serve`'s
    /// default; tests that count jobs or calls leave it off).
    pub seed_history: bool,
    /// The instant the seeded nightly runs lead up to: the three nights before it. None is
    /// the first start's now, so a newcomer's history is days old, not weeks; tests pin it
    /// for output that is the same every day.
    pub seed_history_before: Option<jiff::Timestamp>,
    /// Allow a non-loopback address.
    pub public: bool,
    /// Pace of the simulated clock against wall time, for the simulation engine.
    pub sim_speed: SimSpeed,
    /// An OpenAI-compatible judge for LLM-judged metrics; the offline judge otherwise.
    pub judge: Option<metrics::judge::JudgeConfig>,
    /// An OpenAI-compatible model that plays the simulated callers; the offline caller otherwise.
    pub caller: Option<sim::conversation::CallerConfig>,
    /// A client that takes longer than this to send its request head, or then its body, is
    /// disconnected.
    pub read_timeout: std::time::Duration,
    /// A client that takes less than 64 KiB of its answer (and not all of it) within this time
    /// while the socket is full is disconnected, and the answer dropped.
    pub write_timeout: std::time::Duration,
    /// Bytes the service holds at most for answers larger than 64 KiB on their way out (each
    /// streamed job read counts 1 MiB): the cap on what clients that read slowly, or not at
    /// all, can make it keep.
    pub response_memory: usize,
    /// How long a large answer waits for its share of `response_memory` before it is refused
    /// with 503 `service_busy`.
    pub response_wait: std::time::Duration,
    /// How webhook deliveries are retried.
    pub webhook_retry: webhooks::RetryPolicy,
    /// A PostgreSQL database (`postgres://…`) shared with other replicas; without one, the
    /// store is a SQLite file in the data dir.
    pub database: Option<String>,
    /// How long this replica's claim on work lasts without renewal: another replica takes over
    /// the work of one that stopped once its claims run out.
    pub lease: std::time::Duration,
    /// How long an HTTP agent may take to answer one turn.
    pub agent_turn_timeout: std::time::Duration,
    /// The key file that seals stored secrets (`secrets.key` in the data dir when absent;
    /// replicas sharing a database must share one file).
    pub secrets_key_file: Option<PathBuf>,
    /// How long an alert's window waits, after its end and after its latest call, before it is
    /// decided (`--alert-quiet-ms`).
    pub alert_quiet: std::time::Duration,
    /// The alert engine's clock: the system's, unless a test holds it back.
    pub alert_clock: alerts::Clock,
}

/// How fast simulated time runs: a factor of wall time, or as fast as the machine allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SimSpeed {
    Factor(f64),
    Max,
}

impl Default for SimSpeed {
    /// 10: a 60-second call takes 6 seconds, so live progress is visible.
    fn default() -> Self {
        SimSpeed::Factor(10.0)
    }
}

impl std::str::FromStr for SimSpeed {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "max" => Ok(SimSpeed::Max),
            other => match other.parse::<f64>() {
                Ok(factor) if factor.is_finite() && factor > 0.0 => Ok(SimSpeed::Factor(factor)),
                _ => Err(format!("--sim-speed takes a positive number or max, not {other:?}")),
            },
        }
    }
}

impl Options {
    /// Loopback on a free port, seeded, for tests and the embedded console.
    pub fn local(data_dir: PathBuf) -> Options {
        Options {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir,
            api_key: None,
            read_only_api_key: None,
            named_keys: Vec::new(),
            rate_limit: 50,
            seed: true,
            seed_history: false,
            seed_history_before: None,
            public: false,
            sim_speed: SimSpeed::default(),
            judge: None,
            caller: None,
            read_timeout: server::READ_TIMEOUT,
            write_timeout: server::WRITE_TIMEOUT,
            response_memory: DEFAULT_RESPONSE_MEMORY,
            response_wait: DEFAULT_RESPONSE_WAIT,
            webhook_retry: webhooks::RetryPolicy::default(),
            database: None,
            lease: leases::DEFAULT_LEASE,
            agent_turn_timeout: sim::agent_link::TURN_TIMEOUT,
            secrets_key_file: None,
            alert_quiet: alerts::DEFAULT_QUIET,
            alert_clock: alerts::Clock::default(),
        }
    }

    /// The service the console and headless commands start in-process when no remote is
    /// configured. Its key never leaves this process, so it does not throttle its one client
    /// (a console walking long lists pages faster than 50 requests a second).
    pub fn embedded(data_dir: PathBuf) -> Options {
        Options { rate_limit: EMBEDDED_RATE_LIMIT, seed_history: true, ..Options::local(data_dir) }
    }
}

/// Requests per second the embedded service allows (in effect, no limit).
pub const EMBEDDED_RATE_LIMIT: u32 = 100_000;

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    keys: Arc<Keys>,
    limiter: Arc<RateLimiter>,
    /// Failed key checks per client address.
    failures: Arc<RateLimiter<std::net::IpAddr>>,
    pub account: Arc<str>,
    /// Runs metric collection jobs in the background.
    pub collector: metrics::collector::Collector,
    /// Runs simulations in the background.
    pub simulator: sim::runner::Simulator,
    /// Turns true when the service stops, so that event streams end.
    pub closing: tokio::sync::watch::Receiver<bool>,
    /// Answers `GET /ready`.
    readiness: Arc<readiness::Readiness>,
    /// What large answers on their way out may hold at once.
    responses: response_budget::ResponseBudget,
}

/// A running service: its address and key, and the handle that stops it.
pub struct Running {
    pub addr: SocketAddr,
    pub api_key: ApiKey,
    /// True when the key was generated by this start (so `serve` prints it, once).
    pub key_generated: bool,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    engines: Vec<JoinHandle<()>>,
}

impl Running {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets in-flight requests finish, and waits for the server to end.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let served = (&mut self.task).await.map_err(std::io::Error::other)?;
        self.stop_engines();
        served
    }

    /// Stops the background engines; work they were doing resumes on the next start.
    fn stop_engines(&mut self) {
        for engine in self.engines.drain(..) {
            engine.abort();
        }
    }

    /// Waits until the server ends by itself (it does not, short of an error).
    pub async fn wait(&mut self) -> std::io::Result<()> {
        let served = (&mut self.task).await.map_err(std::io::Error::other)?;
        self.stop_engines();
        served
    }

    /// The sender that stops the server, for wiring to signals.
    pub fn take_shutdown(&mut self) -> Option<oneshot::Sender<()>> {
        self.shutdown.take()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("refusing to listen on {0}: it is not a loopback address; pass --public to allow it")]
    NotLoopback(SocketAddr),
    #[error("cannot use data dir {path}: {source}")]
    DataDir { path: PathBuf, source: std::io::Error },
    #[error("cannot open the store at {location}: {source}")]
    Store { location: String, source: store::OpenError },
    #[error("cannot use the stored secrets: {0}")]
    Secrets(String),
    #[error("cannot seed the store: {0}")]
    Seed(String),
    #[error("cannot set up the judge: {0}")]
    Judge(String),
    #[error("cannot set up the caller model: {0}")]
    Caller(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
}

/// Starts the service and returns once it accepts connections.
pub async fn start(options: Options) -> Result<Running, StartError> {
    if !options.public && !options.addr.ip().is_loopback() {
        return Err(StartError::NotLoopback(options.addr));
    }
    let data_dir = options.data_dir.clone();
    data_dir::prepare(&data_dir).map_err(|source| StartError::DataDir { path: data_dir.clone(), source })?;
    let (api_key, key_generated) = match options.api_key {
        Some(key) => (key, false),
        None => keyfile::load_or_create(&data_dir)
            .map_err(|source| StartError::DataDir { path: data_dir.clone(), source })?,
    };
    let (database, key_file) = (options.database.as_deref(), options.secrets_key_file.as_deref());
    let store = open_store(&data_dir, database, key_file, store::Opener::Service).await?;
    seal_secrets(&store).await?;
    let mut history_seeded = false;
    if options.seed {
        let (seeding, history) = (store.clone(), options.seed_history);
        let before = options.seed_history_before.unwrap_or_else(jiff::Timestamp::now);
        let seeded = tokio::task::spawn_blocking(move || seed::seed_if_empty(&seeding, history.then_some(before)))
            .await
            .map_err(|e| StartError::Seed(e.to_string()))?
            .map_err(|e| StartError::Seed(e.to_string()))?;
        history_seeded = seeded && history;
    }
    let judge = match &options.judge {
        Some(config) => metrics::judge::Judge::open_ai(config).map_err(StartError::Judge)?,
        None => metrics::judge::Judge::Rubric,
    };
    let caller =
        options.caller.as_ref().map(sim::conversation::ModelCaller::new).transpose().map_err(StartError::Caller)?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|source| StartError::Bind { addr: options.addr, source })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind { addr: options.addr, source })?;
    let judge = Arc::new(judge);
    let worker = leases::Worker::new(options.lease);
    let collector = metrics::collector::Collector::new(store.clone(), judge.clone(), worker.clone());
    let simulator =
        sim::runner::Simulator::new(store.clone(), judge, options.sim_speed, format!("http://{addr}"), worker.clone())
            .with_turn_timeout(options.agent_turn_timeout)
            .with_caller(caller);
    let sender = webhooks::Sender::new(store.clone(), options.webhook_retry);
    let store_for_leases = store.clone();
    let state_store = store.clone();
    let (closing_tx, closing) = tokio::sync::watch::channel(false);
    let state = AppState {
        closing,
        collector: collector.clone(),
        simulator: simulator.clone(),
        store,
        keys: Arc::new(Keys::new(
            api_key.expose(),
            options.read_only_api_key.as_ref().map(|k| k.expose()),
            &options.named_keys,
        )),
        limiter: Arc::new(RateLimiter::new(options.rate_limit)),
        failures: Arc::new(RateLimiter::auth_failures()),
        account: Arc::from("local"),
        readiness: Arc::default(),
        responses: response_budget::ResponseBudget::new(
            options.response_memory,
            options.response_wait,
            options.write_timeout,
        ),
    };
    let scheduler = sim::scheduler::Scheduler::new(state_store.clone(), simulator.clone());
    let alerter = alerts::Alerter::new(state_store.clone(), options.alert_quiet, options.alert_clock.clone());
    let engines = spawn_engines(Engines { collector, simulator: simulator.clone(), sender, scheduler, alerter }, {
        let (store, simulator, collector) = (store_for_leases, simulator.clone(), state.collector.clone());
        move || lease_keeper::spawn(store.clone(), worker.clone(), simulator.clone(), collector.clone())
    });
    if history_seeded {
        simulator.wake();
        seed::wait_for_history(&state_store).await;
    }
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
    let app = router(state);
    let task = tokio::spawn(server::serve(listener, app, options.read_timeout, options.write_timeout, async move {
        let _ = shutdown_rx.await;
        let _ = closing_tx.send(true);
    }));
    tracing::info!(%addr, "local service listening");
    Ok(Running { addr, api_key, key_generated, shutdown: Some(shutdown_tx), task, engines })
}

/// The service's background engines.
struct Engines {
    collector: metrics::collector::Collector,
    simulator: sim::runner::Simulator,
    sender: webhooks::Sender,
    scheduler: sim::scheduler::Scheduler,
    alerter: alerts::Alerter,
}

/// Starts every engine under `replica::duties::supervise`: one that panics is logged and
/// started again (on PostgreSQL the one-runner duties would otherwise stop here while this
/// replica keeps their lock, and the others keep standing by).
fn spawn_engines(engines: Engines, keeper: impl Fn() -> JoinHandle<()> + Send + 'static) -> Vec<JoinHandle<()>> {
    use replica::duties::supervise;
    let Engines { collector, simulator, sender, scheduler, alerter } = engines;
    let folding = simulator.clone();
    vec![
        supervise("metric collection", move || collector.clone().spawn()),
        supervise("folds", move || folding.clone().spawn_folds()),
        supervise("simulation scheduling", move || simulator.clone().spawn()),
        supervise("webhook sender", move || sender.clone().spawn()),
        supervise("lease keeper", keeper),
        supervise("plan scheduler", move || scheduler.clone().spawn()),
        supervise("alerts", move || alerter.clone().spawn()),
    ]
}

/// The SQLite file in `data_dir`, or the PostgreSQL database at `database`.
pub fn store_location(data_dir: &std::path::Path, database: Option<&str>) -> store::Location {
    match database {
        Some(url) => store::Location::Postgres(url.to_owned()),
        None => store::Location::Sqlite(data_dir.join(data_dir::DATABASE_FILE)),
    }
}

/// The secrets key file: the one named, or `secrets.key` in the data dir.
pub fn secrets_key_path(data_dir: &std::path::Path, named: Option<&std::path::Path>) -> PathBuf {
    named.map(std::path::Path::to_path_buf).unwrap_or_else(|| data_dir.join(data_dir::SECRETS_KEY_FILE))
}

/// Opens (and migrates) the store of a data dir, or of the database named, with the vault of
/// its secrets key file (made when there is none), for `opener` (only the service tries for
/// the duties). A SQLite file and its journals are kept private to their owner.
pub async fn open_store(
    data_dir: &std::path::Path,
    database: Option<&str>,
    secrets_key_file: Option<&std::path::Path>,
    opener: store::Opener,
) -> Result<Store, StartError> {
    let location = store_location(data_dir, database);
    let key_path = secrets_key_path(data_dir, secrets_key_file);
    let dir = data_dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let (vault, _) = vault::Vault::open(&key_path).map_err(|e| StartError::Secrets(e.to_string()))?;
        if let store::Location::Sqlite(file) = &location {
            data_dir::private_file(file).map_err(|source| StartError::DataDir { path: file.clone(), source })?;
            data_dir::restrict_journals(&dir).map_err(|source| StartError::DataDir { path: dir.clone(), source })?;
        }
        let store = Store::open_by(&location, opener)
            .map_err(|source| StartError::Store { location: location.display(), source })?
            .with_vault(Arc::new(vault));
        Ok(store)
    })
    .await
    .map_err(|e| StartError::Seed(e.to_string()))?
}

/// Refuses a key file that lacks keys the store's secrets were sealed with (a replica started
/// with another file than the others', or a lost file), then seals the secrets an older build
/// kept in clear.
async fn seal_secrets(store: &Store) -> Result<(), StartError> {
    let checking = store.clone();
    tokio::task::spawn_blocking(move || {
        let vault = checking.vault();
        let missing = checking
            .read_blocking(|conn| secrets::keys_missing(conn, &vault))
            .map_err(|e| StartError::Secrets(e.to_string()))?;
        if !missing.is_empty() {
            let file = vault.path().map(|p| p.display().to_string()).unwrap_or_default();
            return Err(StartError::Secrets(format!(
                "the store holds secrets sealed with key {} that the secrets key file {file} does not hold: start with \
                 the key file they were sealed with (--secrets-key-file)",
                missing.join(", ")
            )));
        }
        let sealed = secrets::seal_clear_values(&checking).map_err(|e| StartError::Secrets(e.to_string()))?;
        if sealed > 0 {
            tracing::info!(documents = sealed, "secrets kept in clear by an older build are sealed and masked");
        }
        Ok(())
    })
    .await
    .map_err(|e| StartError::Secrets(e.to_string()))?
}

fn router(state: AppState) -> Router {
    let (routes, document) = api();
    let screen = Arc::new(screen::Screen::from_document(&document));
    routes
        .fallback(routes::unknown_route)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(axum::middleware::from_fn(etag::conditional_get))
        .layer(axum::Extension(openapi::Served::new(&document)))
        .layer(axum::middleware::from_fn_with_state(screen, screen::screen))
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::authenticate))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(error_body::spec_error_bodies))
        .layer(axum::middleware::from_fn_with_state(state.responses.clone(), response_budget::hold))
        .with_state(state)
}

/// Every route, and the OpenAPI document generated from their handlers.
fn api() -> (Router<AppState>, serde_json::Value) {
    let (routes, mut document) = utoipa_axum::router::OpenApiRouter::with_openapi(openapi::base())
        .merge(routes::router())
        .merge(openapi::router())
        .split_for_parts();
    openapi::mark_public(&mut document, auth::is_public);
    let mut json = serde_json::to_value(&document).unwrap_or_default();
    openapi::tighten(&mut json);
    (routes, json)
}

/// The OpenAPI 3.1 document the service serves at `/openapi.json`.
pub fn openapi_document() -> serde_json::Value {
    api().1
}
