use std::process::ExitCode;

use clap::Parser;
use color_eyre::eyre::Result;
use switchboard::cli::{Cli, run};
use switchboard::config::Paths;

#[tokio::main]
async fn main() -> Result<ExitCode> {
    color_eyre::install()?;
    let cli = Cli::parse();
    let _log_guard =
        Paths::platform().ok().and_then(|paths| switchboard::logging::init(&paths.log_dir, &cli.global.log_level).ok());
    match cli.command {
        Some(command) => run(command, &cli.global).await,
        None => switchboard::console::run(&cli.global).await,
    }
}
