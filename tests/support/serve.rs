//! `switchboard serve` as a process of its own, for the tests that kill it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Starts `switchboard serve` on `data_dir` (and, with `on_postgres`, that dir's database) with
/// `extra` arguments, and returns it with its base URL, read from its "listening on" line.
pub fn spawn_serve(data_dir: &std::path::Path, key: &str, extra: &[&str]) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--rate-limit", "100000", "--data-dir"])
        .arg(data_dir)
        .args(extra)
        .env("SWITCHBOARD_API_KEY", key)
        .env("XDG_DATA_HOME", data_dir.join("xdg"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(url) = super::database_for(data_dir) {
        command.env("SWITCHBOARD_DATABASE_URL", url);
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let url = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.trim().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}
