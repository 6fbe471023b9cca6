//! A throwaway PostgreSQL server for tests and benchmarks: `initdb` in a temporary directory,
//! listening on a free loopback port, gone when its owner drops it or its process ends (the
//! shell that watches it reads the process's pipe, and stops the server and removes its files
//! when the pipe closes, even after a SIGKILL).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where PostgreSQL's programs are looked for, besides `$SWITCHBOARD_PG_BIN` and the PATH.
const DEBIAN_BINS: &str = "/usr/lib/postgresql";

/// How the server runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` off: for tests, whose data need not survive a power cut.
    Scratch,
    /// PostgreSQL's defaults: for benchmarks that should measure what a deployment pays.
    Default,
}

/// A running server; it stops when this is dropped.
pub struct TestServer {
    port: u16,
    /// The watching shell's stdin: closing it stops the server.
    stop: Mutex<Option<ChildStdin>>,
    watcher: Mutex<Child>,
    databases: std::sync::atomic::AtomicU32,
}

impl TestServer {
    /// One server for the whole process, started on first use.
    pub fn shared() -> Result<&'static TestServer, String> {
        static SHARED: OnceLock<Result<TestServer, String>> = OnceLock::new();
        SHARED.get_or_init(|| TestServer::start(Durability::Scratch)).as_ref().map_err(Clone::clone)
    }

    /// Starts a server of its own.
    pub fn start(durability: Durability) -> Result<TestServer, String> {
        let bin = binaries()?;
        let dir = tempfile::Builder::new().prefix("switchboard-pg-").tempdir().map_err(|e| e.to_string())?.keep();
        let data = dir.join("data");
        let runner = Runner::for_current_user(&dir)?;
        let initdb = runner
            .command(&bin.join("initdb"))
            .args(["-D"])
            .arg(&data)
            .args(["-U", "switchboard", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
            .output()
            .map_err(|e| format!("cannot run initdb: {e}"))?;
        if !initdb.status.success() {
            return Err(format!("initdb failed: {}", String::from_utf8_lossy(&initdb.stderr)));
        }
        let port = free_port()?;
        let mut settings = vec![
            "-c".to_owned(),
            "listen_addresses=127.0.0.1".to_owned(),
            "-c".to_owned(),
            "max_connections=400".to_owned(),
            "-k".to_owned(),
            dir.display().to_string(),
            "-p".to_owned(),
            port.to_string(),
        ];
        // More settings for a profile of a benchmark, such as
        // `shared_preload_libraries=pg_stat_statements`.
        if let Ok(extra) = std::env::var("SWITCHBOARD_TEST_PG_SETTINGS") {
            settings.extend(extra.split_whitespace().flat_map(|setting| ["-c".to_owned(), setting.to_owned()]));
        }
        if durability == Durability::Scratch {
            settings.extend(["-c", "fsync=off", "-c", "full_page_writes=off"].map(str::to_owned));
        }
        let postgres = runner.command_line(&bin.join("postgres"), &data, &settings);
        // The shell stops the server (a fast shutdown) and removes its files once its stdin
        // closes: when this is dropped, or when the process that started it ends in any way.
        let script = format!(
            "{postgres} >{log} 2>&1 & pid=$!; read _; kill -INT $pid; wait $pid; rm -rf '{dir}'",
            log = shell_quote(&dir.join("log").display().to_string()),
            dir = dir.display()
        );
        let mut watcher = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start postgres: {e}"))?;
        let stop = watcher.stdin.take();
        let server =
            TestServer { port, stop: Mutex::new(stop), watcher: Mutex::new(watcher), databases: Default::default() };
        server.wait_until_ready(&dir)?;
        Ok(server)
    }

    /// A store on a new database of the shared server, for the library's own tests.
    #[cfg(test)]
    pub(crate) fn fresh_store() -> crate::service::store::Store {
        let server = TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
        let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
        let location = crate::service::store::Location::Postgres(url);
        crate::service::store::Store::open(&location).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A store on each engine, PostgreSQL first (a new database of the shared server), then
    /// SQLite in a directory of its own; each with the directory it keeps.
    #[cfg(test)]
    pub(crate) fn both_engines() -> Vec<(tempfile::TempDir, crate::service::store::Store)> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
        let sqlite =
            crate::service::store::Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
        let unused = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
        vec![(unused, TestServer::fresh_store()), (dir, sqlite)]
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://switchboard@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database: its URL.
    pub fn fresh_database(&self) -> Result<String, String> {
        let n = self.databases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("t{}_{n}", std::process::id());
        on_server(&self.url("postgres"), |client| {
            client.batch_execute(&format!("CREATE DATABASE {name}")).map_err(|e| e.to_string())
        })?;
        Ok(self.url(&name))
    }

    /// Drops database `url` of this server (one `fresh_database` made), its connections ended
    /// first: a benchmark's run done with, so that a long series does not fill the disk.
    pub fn drop_database(&self, url: &str) -> Result<(), String> {
        // A name `fresh_database` gave, on this server: nothing else reaches the SQL.
        let name = url
            .strip_prefix(&self.url(""))
            .filter(|n| n.starts_with('t') && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let name = name.ok_or_else(|| format!("not a database of this server: {url}"))?;
        on_server(&self.url("postgres"), |client| {
            client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).map_err(|e| e.to_string())
        })
    }

    fn wait_until_ready(&self, dir: &Path) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match on_server(&self.url("postgres"), |_| Ok(())) {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() >= deadline => {
                    let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
                    return Err(format!("postgres did not start: {e}\n{log}"));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let stop = self.stop.lock().map(|mut s| s.take()).unwrap_or(None);
        if let Some(mut stop) = stop {
            let _ = stop.write_all(b"\n");
        }
        if let Ok(mut watcher) = self.watcher.lock() {
            let _ = watcher.wait();
        }
    }
}

/// Runs PostgreSQL's programs as the current user, or, for root (which PostgreSQL refuses),
/// as the `postgres` user with the directory handed to it.
struct Runner {
    as_postgres: bool,
}

impl Runner {
    fn for_current_user(dir: &Path) -> Result<Runner, String> {
        let root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false);
        if root {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir)
                .status()
                .map_err(|e| format!("cannot hand the server's directory to the postgres user: {e}"))?;
            if !status.success() {
                return Err("cannot hand the server's directory to the postgres user (is there one?)".into());
            }
        }
        Ok(Runner { as_postgres: root })
    }

    fn command(&self, program: &Path) -> Command {
        match self.as_postgres {
            false => Command::new(program),
            true => {
                let mut command = Command::new("setpriv");
                command.args(["--reuid=postgres", "--regid=postgres", "--init-groups"]).arg(program);
                command
            }
        }
    }

    /// The shell words that run `program -D data settings…`.
    fn command_line(&self, program: &Path, data: &Path, settings: &[String]) -> String {
        let mut words = Vec::new();
        if self.as_postgres {
            words.extend(["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"].map(str::to_owned));
        }
        words.push(program.display().to_string());
        words.push("-D".to_owned());
        words.push(data.display().to_string());
        words.extend(settings.iter().cloned());
        words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
    }
}

fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The directory holding `initdb` and `postgres`.
fn binaries() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("SWITCHBOARD_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file());
    if let Some(dir) = on_path {
        return Ok(dir);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir(DEBIAN_BINS)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    versions.retain(|dir| dir.join("initdb").is_file());
    versions.sort_by_key(|dir| dir.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str()?.parse::<u32>().ok()));
    versions.pop().ok_or_else(|| {
        "PostgreSQL's programs (initdb, postgres) were not found: install PostgreSQL 15 \
         (apt-get install postgresql-15) or set SWITCHBOARD_PG_BIN to their directory"
            .to_owned()
    })
}

/// Runs `f` with a client of the server. The synchronous client runs a runtime of its own,
/// which a thread already inside one (an async test) may not start: the client is made, used
/// and dropped on a thread of its own.
fn on_server<T: Send>(
    url: &str,
    f: impl FnOnce(&mut postgres::Client) -> Result<T, String> + Send,
) -> Result<T, String> {
    std::thread::scope(|scope| {
        let work = scope.spawn(|| {
            let mut client = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
            f(&mut client)
        });
        work.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dropped database is gone, its open connections ended with it; a URL not of a database
    /// this server names is refused, not passed into SQL.
    #[test]
    fn a_dropped_database_is_gone_even_with_a_connection_open() {
        let server = TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
        let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
        // Kept open across the drop.
        let open = postgres::Client::connect(&url, postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
        server.drop_database(&url).unwrap_or_else(|e| panic!("{e}"));
        drop(open);
        let again = postgres::Client::connect(&url, postgres::NoTls).err();
        let again = again.and_then(|e| e.as_db_error().map(|db| db.code().clone()));
        assert_eq!(again, Some(postgres::error::SqlState::INVALID_CATALOG_NAME), "the database is gone");
        for url in [server.url("t1; DROP DATABASE postgres"), server.url(""), "postgres://elsewhere/t1".into()] {
            let refused = server.drop_database(&url);
            assert!(refused.is_err_and(|e| e.contains("not a database of this server")), "{url}");
        }
    }
}
