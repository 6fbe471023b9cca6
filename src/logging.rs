//! Logs go to a file in the data dir: stdout belongs to the screen. The log folder is its
//! owner's alone (0700): logs name resources and hosts, and the appender makes its files with
//! the default permissions.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Starts file logging at `level` (a tracing filter such as `info` or `switchboard=debug`).
/// Keep the guard alive until exit so buffered lines are written.
pub fn init(log_dir: &Path, level: &str) -> std::io::Result<WorkerGuard> {
    crate::private_files::private_dir(log_dir)?;
    let appender = tracing_appender::rolling::daily(log_dir, "switchboard.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_writer(writer).with_ansi(false).with_env_filter(filter).try_init().ok();
    Ok(guard)
}
