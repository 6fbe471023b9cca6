//! `switchboard serve` as a process of its own, for the tests that kill it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A `serve` process, killed when dropped: a test that fails leaves none running.
pub struct Serving(Child);

impl std::ops::Deref for Serving {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Serving {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts `switchboard serve` on `data_dir` (and, with `on_postgres`, that dir's database) with
/// `extra` arguments, and returns it with its base URL, read from its "listening on" line.
pub fn spawn_serve(data_dir: &std::path::Path, key: &str, extra: &[&str]) -> (Serving, String) {
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
    let mut child = Serving(command.spawn().unwrap());
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

/// One secrets key file for several replicas of one database, as a deployment shares it
/// (`--secrets-key-file`): each replica's data dir would otherwise make its own.
pub struct SharedSecretsKey {
    /// Kept until the replicas are done with the file in it.
    _dir: tempfile::TempDir,
    path: String,
}

impl SharedSecretsKey {
    pub fn fresh() -> SharedSecretsKey {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.key").to_str().unwrap().to_owned();
        SharedSecretsKey { _dir: dir, path }
    }

    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Rows of `sql` on the database at `url` (the synchronous client, on a thread of its own).
pub fn query(url: &str, sql: &str) -> Vec<postgres::Row> {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client.query(sql.as_str(), &[]).unwrap()
    })
    .join()
    .unwrap()
}

/// The one number `sql` selects on the database at `url`.
pub fn count(url: &str, sql: &str) -> i64 {
    query(url, sql)[0].get(0)
}
