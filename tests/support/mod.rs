//! Shared by the service tests: a real local service on 127.0.0.1, started in-process.
#![allow(dead_code, reason = "each test crate uses a different part of the support module")]

pub mod chat_model;
pub mod proxy;
pub mod serve;

use std::time::{Duration, Instant};

use switchboard::api::{ApiKey, Client, ClientConfig};
use switchboard::service::{self, Options, Running};

pub struct Service {
    pub running: Running,
    pub client: Client,
    pub dir: tempfile::TempDir,
}

impl Service {
    pub fn base_url(&self) -> String {
        self.running.base_url()
    }

    /// A client for this service with another key.
    pub fn client_with(&self, key: &str) -> Client {
        Client::new(&self.base_url(), ApiKey::new(key), no_retries()).unwrap()
    }
}

/// Tests assert on the first answer, so the client does not retry.
pub fn no_retries() -> ClientConfig {
    ClientConfig { max_retries: 0, ..Default::default() }
}

pub fn options(dir: &std::path::Path, seed: bool) -> Options {
    // Simulated calls run 200 times faster than real time: a minute takes 0.3 s.
    Options {
        seed,
        rate_limit: 100_000,
        sim_speed: switchboard::service::SimSpeed::Factor(200.0),
        database: database_for(dir),
        // The seeded nights stay 28 to 30 October 2026 whatever the day the suite runs.
        seed_history_before: Some(SEEDED_HISTORY_BEFORE.parse().expect("a timestamp")),
        ..Options::local(dir.to_path_buf())
    }
}

/// The instant the suite's seeded nightly runs lead up to (`Options::seed_history_before`).
pub const SEEDED_HISTORY_BEFORE: &str = "2026-10-31T00:00:00Z";

/// Which store the service suite runs on: SQLite by default, PostgreSQL with
/// `SWITCHBOARD_TEST_STORE=postgres` (`.ci/run` runs the suite both ways).
pub fn on_postgres() -> bool {
    std::env::var("SWITCHBOARD_TEST_STORE").is_ok_and(|store| store == "postgres")
}

/// With `on_postgres`, the database of the service whose data dir is `dir`: a new one on the
/// test server the first time, the same one when a test starts a service on that dir again.
pub fn database_for(dir: &std::path::Path) -> Option<String> {
    static DATABASES: std::sync::Mutex<Vec<(std::path::PathBuf, String)>> = std::sync::Mutex::new(Vec::new());
    if !on_postgres() {
        return None;
    }
    let mut databases = DATABASES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, url)) = databases.iter().find(|(d, _)| d == dir) {
        return Some(url.clone());
    }
    let server = switchboard::service::store::test_server::TestServer::shared().unwrap();
    let url = server.fresh_database().unwrap();
    databases.push((dir.to_path_buf(), url.clone()));
    Some(url)
}

pub async fn start(seed: bool) -> Service {
    let dir = tempfile::tempdir().unwrap();
    start_with(options(dir.path(), seed), dir).await
}

pub async fn start_with(options: Options, dir: tempfile::TempDir) -> Service {
    let running = service::start(options).await.expect("service starts");
    let client = Client::new(&running.base_url(), running.api_key.clone(), no_retries()).unwrap();
    Service { running, client, dir }
}

/// Polls `check` until it returns Some, or panics after `deadline`.
pub async fn eventually<T, F, Fut>(deadline: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(started.elapsed() < deadline, "condition not met within {deadline:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A raw request, for what the typed client does not send (bad bodies, no key).
pub async fn raw(
    base: &str,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    body: Option<Vec<u8>>,
) -> (u16, serde_json::Value, reqwest::header::HeaderMap) {
    let mut request = reqwest::Client::new().request(method, format!("{base}{path}"));
    if let Some(key) = key {
        request = request.header("authorization", key);
    }
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.unwrap();
    let value = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, value, headers)
}

/// A seed file, to find ids the tests need without hard-coding them.
pub fn seed(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/seed").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The seeded items of a file that satisfy `pick`.
pub fn seeded(name: &str, pick: impl Fn(&serde_json::Value) -> bool) -> Vec<serde_json::Value> {
    seed(name).as_array().unwrap().iter().filter(|v| pick(v)).cloned().collect()
}

/// How many calls of `agent` the seed posts as production traffic (assets/seed/production_calls.json),
/// beside the calls of calls.json.
pub fn seeded_production_calls(agent: &str) -> usize {
    let traffic = seed("production_calls");
    if traffic["agent"] == agent { traffic["calls"].as_array().unwrap().len() } else { 0 }
}

/// A threshold on call duration that every call meets (`> 0 s`) or none does (`< 0.001 s`).
pub async fn duration_check(client: &Client, always: bool) -> switchboard::api::model::MetricDefinition {
    use switchboard::api::model::{ThresholdInput, ThresholdOperator};
    let (operator, value, name) = if always {
        (ThresholdOperator::GreaterThan, "0", "Call lasted")
    } else {
        (ThresholdOperator::LessThan, "0.001", "Call was instant")
    };
    let input = ThresholdInput {
        name: Some(name.into()),
        operator: Some(operator),
        value: Some(value.into()),
        ..Default::default()
    };
    client.create_threshold("call_duration", &input).await.expect("threshold created")
}

/// The seeded dental front desk's own scripted flow and its endpoint.
pub fn dental() -> (serde_json::Value, serde_json::Value) {
    let dentist = seeded("agents", |a| a["name"].as_str().unwrap().contains("Dental")).remove(0);
    let agent = dentist["id"].as_str().unwrap().to_owned();
    let flow = seeded("customer_flows", |f| {
        f["type"] == "SCRIPTED" && f["source"] != "SERVICE" && f["agents"][0]["id"] == agent.as_str()
    })
    .remove(0);
    let endpoint = seeded("agent_endpoints", |e| e["agentId"] == agent.as_str()).remove(0);
    (flow, endpoint)
}

pub fn id_of(value: &serde_json::Value) -> uuid::Uuid {
    value["id"].as_str().unwrap().parse().unwrap()
}

/// Changes the store of the service whose data dir is `dir` behind the service's back (for
/// tests of what it does with data it did not write): `sqlite` on its file, or `postgres` on its
/// database. The rows changed.
pub fn tamper(dir: &std::path::Path, sqlite: &str, postgres: &str) -> usize {
    match database_for(dir) {
        None => {
            let db = rusqlite::Connection::open(dir.join("switchboard.db")).unwrap();
            db.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
            db.execute(sqlite, []).unwrap()
        }
        Some(url) => {
            let statement = postgres.to_owned();
            // The synchronous client may not run on an async test's thread.
            std::thread::spawn(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                client.execute(statement.as_str(), &[]).unwrap() as usize
            })
            .join()
            .unwrap()
        }
    }
}

/// Runs the `switchboard …` lines of the first `sh` block after `marker` in `docs/DOC` as
/// written, each by a shell with a private home, against `service`; each must exit 0. Their
/// outputs, in order (piped, so JSON where the command prints it).
pub async fn run_documented_examples(service: &Service, doc: &str, marker: &str) -> Vec<String> {
    let home = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(doc)).unwrap();
    let after = text.split(marker).nth(1).unwrap_or_else(|| panic!("{doc} has no {marker:?}"));
    let block = after.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("its examples");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_switchboard"), bin.join("switchboard")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut outputs = Vec::new();
    for line in block.lines().filter(|l| l.starts_with("switchboard ")) {
        let output = tokio::process::Command::new("sh")
            .args(["-c", line])
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", &path)
            .env("SWITCHBOARD_BASE_URL", service.base_url())
            .env("SWITCHBOARD_API_KEY", service.running.api_key.expose())
            .output()
            .await
            .unwrap();
        assert!(output.status.success(), "{line}: {}", String::from_utf8_lossy(&output.stderr));
        outputs.push(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    outputs
}
