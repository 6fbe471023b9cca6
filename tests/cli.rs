//! The binary: help, version, `config path` and `health` against a service on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::process::{Command, Output};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

const KEY: &str = "sk-cli-test-1f2e3d4c";

/// The binary with a private home, so no real config, cache or data is touched.
fn switchboard(home: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .env_clear()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    command
}

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn help_lists_the_commands_and_version_works() {
    let home = tempfile::tempdir().unwrap();
    let output = switchboard(home.path()).arg("--help").output().unwrap();
    let (stdout, _) = text(&output);
    assert!(output.status.success());
    for command in ["config", "health", "--profile", "--base-url"] {
        assert!(stdout.contains(command), "{command} missing from:\n{stdout}");
    }
    let output = switchboard(home.path()).arg("--version").output().unwrap();
    assert_eq!(text(&output).0.trim(), format!("switchboard {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn config_path_prints_every_location_under_the_platform_dirs() {
    let home = tempfile::tempdir().unwrap();
    let output = switchboard(home.path()).args(["config", "path"]).output().unwrap();
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    let root = home.path().to_str().unwrap();
    for label in ["config", "cache", "data", "logs"] {
        let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {stdout}"));
        assert!(line.contains(root), "{line}");
    }
    assert!(stdout.contains("config.toml"));
}

async fn health(headers: HeaderMap) -> Response {
    match headers.get("authorization").and_then(|v| v.to_str().ok()) {
        Some(auth) if auth == format!("Bearer {KEY}") => {
            axum::Json(json!({"authenticated": true, "account": "brightsmile-dental"})).into_response()
        }
        other => {
            let message = format!("key {} is not valid", other.unwrap_or("none"));
            let body = json!({"type": "authentication", "code": "unauthorized", "message": message});
            (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
        }
    }
}

fn service() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            listener.set_nonblocking(true).unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, Router::new().route("/v1/health", get(health))).await.unwrap();
        });
    });
    format!("http://{addr}")
}

#[test]
fn health_prints_authenticated_and_account() {
    let home = tempfile::tempdir().unwrap();
    let base = service();
    let output = switchboard(home.path())
        .args(["health", "--output", "table", "--base-url", &base])
        .env("SWITCHBOARD_API_KEY", KEY)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("authenticated  true"), "{stdout}");
    assert!(stdout.contains("account        brightsmile-dental"), "{stdout}");
    let output = switchboard(home.path())
        .args(["health", "--json", "--base-url", &base])
        .env("SWITCHBOARD_API_KEY", KEY)
        .output()
        .unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(parsed, json!({"authenticated": true, "account": "brightsmile-dental"}));
}

#[test]
fn a_refused_key_is_a_readable_error_without_the_key() {
    let home = tempfile::tempdir().unwrap();
    let base = service();
    let wrong = "sk-wrong-key-9a8b7c";
    let output = switchboard(home.path())
        .args(["health", "--base-url", &base])
        .env("SWITCHBOARD_API_KEY", wrong)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(3), "a refused key is exit 3");
    assert!(stderr.contains("401") && stderr.contains("unauthorized"), "{stderr}");
    assert!(
        !stderr.contains("Location:") && !stderr.contains("src/cli"),
        "no source location reaches a user: {stderr}"
    );
    assert!(!stderr.contains(wrong) && !stdout.contains(wrong), "{stderr}");
}

#[test]
fn a_profile_from_the_config_file_is_used() {
    let home = tempfile::tempdir().unwrap();
    let base = service();
    let config_dir = home.path().join("config").join("switchboard");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::write(
        config_dir.join("config.toml"),
        format!("[profiles.dev]\nbase_url = \"{base}\"\napi_key_env = \"DEV_KEY\"\n"),
    )
    .unwrap();
    let output = switchboard(home.path())
        .args(["--profile", "dev", "health", "-o", "table"])
        .env("DEV_KEY", KEY)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("profile        dev"));
    let output = switchboard(home.path()).args(["--profile", "nope", "health"]).output().unwrap();
    assert!(text(&output).1.contains("no profile named \"nope\""));
}

#[test]
fn serve_help_points_at_the_safe_ways_to_give_the_key() {
    let home = tempfile::tempdir().unwrap();
    let output = switchboard(home.path()).args(["serve", "--help"]).output().unwrap();
    let (stdout, _) = text(&output);
    assert!(output.status.success());
    assert!(stdout.contains("--api-key-file"), "{stdout}");
    assert!(stdout.contains("SWITCHBOARD_API_KEY"), "{stdout}");
    assert!(stdout.contains("process list"), "the help says why --api-key is unsafe:\n{stdout}");
}

#[tokio::test]
async fn serve_reads_its_key_from_a_file() {
    use std::io::{BufRead, BufReader};
    let home = tempfile::tempdir().unwrap();
    let key_file = home.path().join("key");
    std::fs::write(&key_file, format!("  {KEY}\n")).unwrap();
    let mut child = switchboard(home.path())
        .args(["serve", "--addr", "127.0.0.1:0", "--no-seed", "--api-key-file"])
        .arg(&key_file)
        .arg("--data-dir")
        .arg(home.path().join("service"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout).lines().map_while(Result::ok).find(|l| l.starts_with("listening on "));
    let base = line.expect("serve prints its address").trim_start_matches("listening on ").to_owned();
    let client = reqwest::Client::new();
    let mut statuses = Vec::new();
    for key in [KEY, "sk-not-it"] {
        let response = client.get(format!("{base}/v1/health")).bearer_auth(key).send().await;
        statuses.push(response.map(|r| r.status().as_u16()).unwrap_or(0));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(statuses, [200, 401], "the key in the file is the service's key, and no other");
    assert!(!home.path().join("service").join("api_key").exists(), "no key was generated");
}

#[test]
fn serve_refuses_a_keys_file_with_a_bad_line_naming_the_line_not_the_key() {
    let home = tempfile::tempdir().unwrap();
    let keys = home.path().join("keys");
    std::fs::write(&keys, "alice sk-alice-0123456789abcdef\nbob sk-short\n").unwrap();
    let output = switchboard(home.path())
        .args(["serve", "--addr", "127.0.0.1:0", "--no-seed", "--api-keys-file"])
        .arg(&keys)
        .arg("--data-dir")
        .arg(home.path().join("service"))
        .output()
        .unwrap();
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "a usage error: {stderr}");
    assert!(stderr.contains("line 2: bob's key is shorter than 16 characters"), "{stderr}");
    assert!(!stderr.contains("sk-short") && !stderr.contains("sk-alice"), "no key is shown: {stderr}");
}
