//! Headless commands for scripts and CI, noun–verb like `gh`, built on the same client as the
//! console and on the service's verdict. One file per noun; output formats in `output.rs`,
//! exit codes in `exit.rs`, reports in `report/`.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod agent;
mod alert;
mod api_cmd;
mod auth;
mod bench;
mod call;
mod colour;
mod config;
mod decode_words;
mod diff;
mod exit;
mod fields;
mod file_kind;
mod flaky;
mod gate;
mod help;
mod ids;
mod input;
mod issue;
mod job;
mod jq;
mod judge;
mod listing;
mod markdown;
mod metric;
mod output;
mod plan;
mod plan_keep;
pub mod report;
mod run;
mod secrets;
mod select;
mod serve;
mod session;
mod signals;
pub mod traffic;
mod watch;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use self::config::ConfigCommand;
pub use self::exit::{EXIT_CODES, Exit, Failure, Outcome};
pub use self::output::Format;
use self::session::Session;
use crate::config::Paths;
use crate::connect::Selection;

/// Terminal console, local service and headless commands for the Simulation and Call-Analytics Service.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags every command takes; help lists them apart from a command's own, as `gh` does.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Inherited flags")]
pub struct GlobalArgs {
    /// Profile from config.toml (`local` is the embedded service) [default: $SWITCHBOARD_PROFILE].
    #[arg(long, global = true)]
    pub profile: Option<String>,
    /// Talk to this service instead of the profile's; the key comes from SWITCHBOARD_API_KEY or
    /// `login` [default: $SWITCHBOARD_BASE_URL].
    #[arg(long, global = true)]
    pub base_url: Option<String>,
    /// Run the command against a throwaway local service: fresh data dir, seeded, stopped when the command ends.
    #[arg(long, global = true)]
    pub embedded: bool,
    /// With --embedded: keep the service's data in DIR (created, or reused so that later runs
    /// add to it and can be compared with earlier ones; open it again with --data-dir DIR).
    #[arg(long, global = true, value_name = "DIR", requires = "embedded")]
    pub keep: Option<PathBuf>,
    /// Open the local service kept in DIR (by --embedded --keep DIR): the console, and every
    /// command, read and write it.
    #[arg(long, global = true, value_name = "DIR", conflicts_with_all = ["embedded", "base_url", "profile"])]
    pub data_dir: Option<PathBuf>,
    /// Hide and refuse every write.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// How reads print: a table on a terminal and JSON when piped (auto), or as named.
    #[arg(long, short = 'o', global = true, value_enum, default_value = "auto", alias = "format")]
    pub output: Format,
    /// Colour verdicts and failed checks: on a terminal unless NO_COLOR is set (auto), or as named.
    #[arg(long, global = true, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: colour::ColourChoice,
    /// Log filter, e.g. info or switchboard=debug (logs go to a file, never the screen; debug also shows error details).
    #[arg(long, global = true, default_value = "info", env = "SWITCHBOARD_LOG")]
    pub log_level: String,
    /// Use this config file instead of the platform one.
    #[arg(long, global = true, env = "SWITCHBOARD_CONFIG")]
    pub config: Option<PathBuf>,
}

/// The environment's defaults of `--profile` and `--base-url`.
const PROFILE_ENV: &str = "SWITCHBOARD_PROFILE";
const BASE_URL_ENV: &str = "SWITCHBOARD_BASE_URL";

impl GlobalArgs {
    /// Fills `--profile` and `--base-url` from the environment where no flag picks the service.
    /// Read here rather than by clap's `env`, which counts an environment value as given: usage
    /// lines then showed `--base-url` as if required, and `--data-dir` or `--embedded` conflicted
    /// with a variable set for other commands.
    pub fn with_environment(mut self, lookup: impl Fn(&str) -> Option<String>) -> GlobalArgs {
        if self.data_dir.is_some() || self.embedded {
            return self;
        }
        let set = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        if self.base_url.is_none() {
            self.base_url = set(BASE_URL_ENV);
        }
        if self.profile.is_none() {
            self.profile = set(PROFILE_ENV);
        }
        self
    }

    /// Which service the flags pick.
    pub fn selection(&self) -> Selection {
        Selection {
            profile: self.profile.clone(),
            base_url: self.base_url.clone(),
            read_only: self.read_only,
            config: self.config.clone(),
            data_dir: self.data_dir.clone(),
        }
    }

    /// Whether errors show their details (`--log-level debug` or `RUST_BACKTRACE`).
    fn verbose(&self) -> bool {
        let level = self.log_level.to_ascii_lowercase();
        level.contains("debug")
            || level.contains("trace")
            || std::env::var_os("RUST_BACKTRACE").is_some_and(|v| !v.is_empty() && v != "0")
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the local service: the whole interface over embedded SQLite.
    Serve(serve::ServeArgs),
    /// The local service's stored secrets: rotate the key that encrypts them.
    #[command(subcommand)]
    Secrets(secrets::SecretsCommand),
    /// Run plans: list, show, create from a JSON or YAML file.
    #[command(subcommand)]
    Plan(plan::PlanCommand),
    /// Start a run of a saved plan (or an inline plan from a file); prints the run plan job id.
    Run(run::RunArgs),
    /// Run plan jobs: list, show, watch live, cancel.
    #[command(subcommand)]
    Job(job::JobCommand),
    /// Run a plan, wait for it and judge it by the service's verdict: exit 0 PASSED, 1 FAILED, 6 TIMED_OUT.
    Gate(Box<gate::GateArgs>),
    /// Compare two runs test case by test case: regressions (beyond chance), fixes, flaky checks, metric shifts.
    Diff(diff::DiffArgs),
    /// How steady each test case × check of a plan has been over its last runs, worst first.
    Flaky(flaky::FlakyArgs),
    /// How far each judge agrees with people's labels (per metric version, with Cohen's κ); label a value.
    #[command(subcommand)]
    Judge(judge::JudgeCommand),
    /// Issues: list, show, file, update.
    #[command(subcommand)]
    Issue(issue::IssueCommand),
    /// Alerts and where each stands: list, show.
    #[command(subcommand)]
    Alert(alert::AlertCommand),
    /// Post production-like calls at a steady rate (one agent degrading on command), to watch alerts or load-test.
    Traffic(traffic::TrafficArgs),
    /// Metric definitions and a collection job's values.
    #[command(subcommand)]
    Metric(metric::MetricCommand),
    /// Calls, with their transcripts.
    #[command(subcommand)]
    Call(call::CallCommand),
    /// Benchmark suites and the scorer's samples.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Any route of the interface, like `gh api`: auth, retries and paging handled.
    Api(api_cmd::ApiArgs),
    /// Write a starter suite (agent, flows, persona, metrics, plan; every member commented) for
    /// your own agent, that `config apply` and `gate --suite` run unchanged.
    Init(config::init::InitArgs),
    /// Store a key for a profile (read without echo, or from stdin with --with-token).
    Login(auth::LoginArgs),
    /// Forget the stored key of a profile.
    Logout,
    /// Which key is in use and where it comes from (never the key).
    #[command(subcommand)]
    Auth(auth::AuthCommand),
    /// Where configuration lives; tests as code: apply, diff and export bundles.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check the key against the service: prints `authenticated` and `account`.
    Health {
        /// Print JSON instead of text (same as --output json).
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script.
    Completion {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The command line's definition, with every command's examples, exit codes and `--json`/`--jq`.
pub fn command() -> clap::Command {
    help::decorate(Cli::command())
}

/// Parses the process's arguments (exiting with usage on a bad one); `--json`/`--jq` given to
/// the command make its output JSON, selected.
pub fn parse() -> Cli {
    let matches = command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.global = cli.global.with_environment(|name| std::env::var(name).ok());
    let selection = help::selection(&matches);
    if selection.is_some() {
        cli.global.output = Format::Json;
    }
    output::configure(selection, cli.global.color.enabled(cli.global.output.is_machine()));
    cli
}

/// The runtime a command runs on: `tokio`'s multi-threaded one, on `serve --threads` workers
/// when given (else one a core, or `TOKIO_WORKER_THREADS`).
pub fn runtime(cli: &Cli) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(Command::Serve(serve::ServeArgs { threads: Some(threads), .. })) = &cli.command {
        builder.worker_threads(usize::from(*threads));
    }
    builder.enable_all().build()
}

/// Runs the command line (`main`) on its runtime (`runtime`); one that cannot start is an
/// internal failure, reported as any other.
pub fn main_on_runtime(cli: Cli) -> ExitCode {
    match runtime(&cli) {
        Ok(runtime) => runtime.block_on(main(cli)),
        Err(e) => {
            let failure = Failure::new(Exit::Internal, "runtime", format!("cannot start the runtime: {e}"));
            report_failure(&failure, &cli.global);
            failure.exit.into()
        }
    }
}

/// Runs the command line: a headless command, or the console when none is given. Errors are
/// printed here, as words (or the error body with `--output json`), never as a trace.
pub async fn main(cli: Cli) -> ExitCode {
    let global = cli.global.clone();
    let outcome = match cli.command {
        Some(command) => run(command, &global).await,
        None => console(&global).await,
    };
    match outcome {
        Ok(exit) => exit.into(),
        Err(failure) => {
            report_failure(&failure, &global);
            failure.exit.into()
        }
    }
}

async fn console(global: &GlobalArgs) -> Outcome {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::usage(
            "the console needs a terminal, and this is not one (stdin or stdout is redirected); \
             for scripts and CI use a headless command: switchboard --help",
        ));
    }
    match crate::console::run(&global.selection()).await {
        Ok(code) if code == ExitCode::SUCCESS => Ok(Exit::Ok),
        Ok(_) => Ok(Exit::Internal),
        Err(report) => {
            Err(Failure::new(Exit::Internal, "console", report.to_string()).with_detail(format!("{report:?}")))
        }
    }
}

fn report_failure(failure: &Failure, global: &GlobalArgs) {
    if global.output == Format::Json && !output::selecting() {
        if let Ok(text) = serde_json::to_string_pretty(&failure.body) {
            eprintln!("{text}");
        }
    } else {
        eprintln!("error: {}", failure.describe());
    }
    if global.verbose()
        && let Some(detail) = &failure.detail
    {
        eprintln!("details: {detail}");
    }
}

/// Runs one headless command.
pub async fn run(command: Command, global: &GlobalArgs) -> Outcome {
    let format = global.output;
    match command {
        Command::Config(ConfigCommand::Path) => config_path(&crate::connect::Context::paths(&global.selection())?),
        Command::Config(ConfigCommand::Apply(args)) => {
            connected(global, None, async |s| config::apply(args, s).await).await
        }
        Command::Config(ConfigCommand::Diff(args)) => {
            connected(global, None, async |s| config::diff(args, s).await).await
        }
        Command::Config(ConfigCommand::Export(args)) => {
            connected(global, None, async |s| config::export(args, s).await).await
        }
        Command::Serve(args) => serve::run(args, global.config.clone()).await,
        Command::Secrets(command) => secrets::run(command, global.config.clone()).await,
        Command::Completion { shell } => {
            clap_complete::generate(shell, &mut self::command(), "switchboard", &mut std::io::stdout());
            Ok(Exit::Ok)
        }
        Command::Init(args) => config::init::run(args),
        Command::Login(args) => auth::login(args, global).await,
        Command::Logout => auth::logout(global),
        Command::Auth(command) => auth::run(command, global).await,
        Command::Health { json } => {
            let format = if json { Format::Json } else { format };
            connected(global, None, async |s| auth::health(s, format).await).await
        }
        Command::Gate(args) => connected(global, args.sim_speed, async |s| gate::run(*args, s).await).await,
        Command::Run(args) => connected(global, args.sim_speed, async |s| run::run(args, s).await).await,
        Command::Plan(command) => connected(global, None, async |s| plan::run(command, s).await).await,
        Command::Job(command) => connected(global, None, async |s| job::run(command, s).await).await,
        Command::Diff(args) => connected(global, None, async |s| diff::run(args, s).await).await,
        Command::Flaky(args) => connected(global, None, async |s| flaky::run(args, s).await).await,
        Command::Judge(command) => connected(global, None, async |s| judge::run(command, s).await).await,
        Command::Issue(command) => connected(global, None, async |s| issue::run(command, s).await).await,
        Command::Alert(command) => connected(global, None, async |s| alert::run(command, s).await).await,
        Command::Traffic(args) => {
            // Bad flags are told before any service is reached.
            let plan = args.plan()?;
            connected(global, None, async |s| traffic::run(plan, s).await).await
        }
        Command::Metric(command) => connected(global, None, async |s| metric::run(command, s).await).await,
        Command::Call(command) => connected(global, None, async |s| call::run(command, s).await).await,
        Command::Bench(command) => connected(global, None, async |s| bench::run(command, s).await).await,
        Command::Api(args) => connected(global, None, async |s| api_cmd::run(args, s).await).await,
    }
}

/// Runs `command` on a session, and stops whatever service the session started, however the
/// command ends.
async fn connected(
    global: &GlobalArgs,
    sim_speed: Option<crate::service::SimSpeed>,
    command: impl AsyncFnOnce(&Session) -> Outcome,
) -> Outcome {
    let session = Session::open(global, sim_speed).await?;
    let outcome = command(&session).await;
    session.close().await;
    outcome
}

fn config_path(paths: &Paths) -> Outcome {
    let text = format!(
        "config       {}\ncredentials  {}\ncache        {}\ndata         {}\nlogs         {}\n",
        paths.config_file.display(),
        paths.credentials_file.display(),
        paths.cache_dir.display(),
        paths.data_dir.display(),
        paths.log_dir.display()
    );
    output::emit(&text)?;
    Ok(Exit::Ok)
}
