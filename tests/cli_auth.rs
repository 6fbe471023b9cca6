//! `login`, `auth status` and `logout` against a real local service: the key is checked before
//! it is stored, kept in a 0600 credentials file in a 0700 directory (never config.toml), used
//! by later commands, never shown, and forgotten on logout.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::process::Stdio;

use cli::*;
use tokio::io::AsyncWriteExt;

async fn login(home: &std::path::Path, key: &str) -> std::process::Output {
    login_with(home, key, &["--profile", "dev"]).await
}

async fn login_with(home: &std::path::Path, key: &str, flags: &[&str]) -> std::process::Output {
    let mut child = switchboard(home)
        .args(["login", "--with-token"])
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{key}\n").as_bytes()).await.unwrap();
    child.wait_with_output().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_checks_and_stores_the_key_and_logout_forgets_it() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let config_dir = home.path().join("config").join("switchboard");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = format!("[profiles.dev]\nbase_url = \"{}\"\n", service.base_url());
    std::fs::write(config_dir.join("config.toml"), &config).unwrap();
    let key = service.running.api_key.expose().to_string();

    let refused = login(home.path(), "sk-not-the-key-4d3c").await;
    assert_exit(&refused, 3);
    let credentials = config_dir.join("credentials").join("credentials.toml");
    assert!(!credentials.exists(), "a refused key is not stored");

    let accepted = login(home.path(), &key).await;
    assert_exit(&accepted, 0);
    assert!(stderr(&accepted).contains("logged in"), "{}", stderr(&accepted));
    assert!(!stdout(&accepted).contains(&key) && !stderr(&accepted).contains(&key));
    assert!(std::fs::read_to_string(&credentials).unwrap().contains(&key));
    assert_eq!(std::fs::read_to_string(config_dir.join("config.toml")).unwrap(), config, "config.toml is untouched");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&credentials), 0o600);
        assert_eq!(mode(credentials.parent().unwrap()), 0o700);
    }

    // Later commands use the stored key; status says where it comes from, not what it is.
    let health = run(switchboard(home.path()).args(["--profile", "dev", "health", "-o", "table"])).await;
    assert_exit(&health, 0);
    assert!(stdout(&health).contains("authenticated  true"), "{}", stdout(&health));
    // The key belongs to the service it was checked against: pointing the profile at another
    // one does not send it there.
    let elsewhere =
        run(switchboard(home.path()).args(["--profile", "dev", "--base-url", "http://127.0.0.1:9", "health"])).await;
    assert_exit(&elsewhere, 3);
    assert!(stderr(&elsewhere).contains("switchboard login"), "{}", stderr(&elsewhere));
    let status = run(switchboard(home.path()).args(["--profile", "dev", "auth", "status", "-o", "json"])).await;
    assert_exit(&status, 0);
    let body = json(&status);
    assert_eq!(body["data"]["keySource"], "credentials file (switchboard login)");
    assert_eq!(body["data"]["key"], "valid", "status asks the service about the key: {body}");
    assert!(!stdout(&status).contains(&key));
    let status = run(switchboard(home.path())
        .args(["--profile", "dev", "auth", "status", "-o", "json"])
        .env("SWITCHBOARD_API_KEY", "sk-from-env"))
    .await;
    assert_eq!(json(&status)["data"]["keySource"], "environment ($SWITCHBOARD_API_KEY)", "the environment wins");
    assert_eq!(json(&status)["data"]["key"], "rejected", "a key the service refuses is said so");
    assert_exit(&status, 3);

    let logout = run(switchboard(home.path()).args(["--profile", "dev", "logout"])).await;
    assert_exit(&logout, 0);
    assert!(!std::fs::read_to_string(&credentials).unwrap().contains(&key));
    let without = run(switchboard(home.path()).args(["--profile", "dev", "health"])).await;
    assert_exit(&without, 3);
    assert!(stderr(&without).contains("switchboard login"), "{}", stderr(&without));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_with_a_base_url_names_the_profile_it_wrote_and_auth_status_agrees() {
    let service = support::start(true).await;
    let home = tempfile::tempdir().unwrap();
    let url = service.base_url();
    let key = service.running.api_key.expose().to_string();
    let logged = login_with(home.path(), &key, &["--base-url", &url]).await;
    assert_exit(&logged, 0);
    assert!(stderr(&logged).contains(&format!("profile local with --base-url {url}")), "{}", stderr(&logged));
    let status = run(switchboard(home.path()).args(["auth", "status", "-o", "json"])).await;
    assert_exit(&status, 0);
    let body = json(&status);
    assert_eq!(body["data"]["profile"], "local");
    assert_eq!(body["data"]["storedKeyFor"], url.as_str(), "status shows the key login stored: {body}");
    let pointed = run(switchboard(home.path()).args(["auth", "status", "--base-url", &url, "-o", "json"])).await;
    assert_exit(&pointed, 0);
    let body = json(&pointed);
    assert_eq!(body["data"]["keySource"], "credentials file (switchboard login)");
    assert_eq!(body["data"]["key"], "valid");
    assert!(!stdout(&pointed).contains(&key) && !stderr(&logged).contains(&key));
}
