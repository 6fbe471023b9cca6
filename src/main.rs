use std::process::ExitCode;

use switchboard::cli;
use switchboard::config::Paths;

fn main() -> ExitCode {
    // Panics restore the terminal and print the message; errors never print a trace (cli::main).
    let _ = color_eyre::install();
    let cli = cli::parse();
    let _log_guard =
        Paths::platform().ok().and_then(|paths| switchboard::logging::init(&paths.log_dir, &cli.global.log_level).ok());
    cli::main_on_runtime(cli)
}
