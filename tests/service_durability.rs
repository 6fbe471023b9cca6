//! Nothing acknowledged is lost: across a clean restart, and across SIGKILL mid-stream.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{no_retries, options, start_with};
use switchboard::api::model::{IssueInput, PersonaFields};
use switchboard::api::{ApiKey, Client, ListQuery};

#[tokio::test]
async fn a_restart_keeps_everything_and_does_not_seed_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let service = start_with(options(&path, true), dir).await;
    let before = service.client.list_personas(&ListQuery::default().limit(50)).await.unwrap().pagination.total;
    let persona = service
        .client
        .create_persona(&PersonaFields { name: Some("Restart Rita".into()), ..Default::default() })
        .await
        .unwrap();
    let key = service.running.api_key.clone();
    let support::Service { running, dir, .. } = service;
    running.shutdown().await.unwrap();

    let again = start_with(options(&path, true), dir).await;
    assert_eq!(again.running.api_key, key, "the generated key is kept in the data dir");
    let read = again.client.get_persona(persona.id).await.unwrap();
    assert_eq!(read.fields.name.as_deref(), Some("Restart Rita"));
    let after = again.client.list_personas(&ListQuery::default().limit(50)).await.unwrap().pagination.total;
    assert_eq!(after, before + 1);
}

#[cfg(unix)]
#[test]
fn the_generated_key_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let service = support::start(false).await;
        let mode = std::fs::metadata(service.dir.path().join("api_key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    });
}

fn spawn_serve(data_dir: &std::path::Path, key: &str) -> (support::serve::Serving, String) {
    support::serve::spawn_serve(data_dir, key, &["--no-seed"])
}

#[test]
fn sigkill_mid_stream_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-durability-test";
    let (mut child, url) = spawn_serve(dir.path(), key);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    runtime.block_on(async {
        let client = Client::new(&url, ApiKey::new(key), no_retries()).unwrap();
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let client = client.clone();
                let acknowledged = acknowledged.clone();
                tokio::spawn(async move {
                    for n in 0.. {
                        let input = IssueInput { title: Some(format!("writer {w} issue {n}")), ..Default::default() };
                        match client.create_issue(&input).await {
                            Ok(issue) => acknowledged.lock().unwrap().push(issue.id),
                            Err(_) => break, // the service is gone
                        }
                    }
                })
            })
            .collect();
        support::eventually(Duration::from_secs(30), || {
            let count = acknowledged.lock().unwrap().len();
            async move { (count >= 200).then_some(()) }
        })
        .await;
        child.kill().unwrap(); // SIGKILL: no shutdown, no flush
        child.wait().unwrap();
        for writer in writers {
            writer.await.unwrap();
        }
    });
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() >= 200);

    let (mut child, url) = spawn_serve(dir.path(), key);
    runtime.block_on(async {
        let client = Client::new(&url, ApiKey::new(key), no_retries()).unwrap();
        for id in &acknowledged {
            client.get_issue(*id).await.unwrap_or_else(|e| panic!("acknowledged issue {id} lost: {e}"));
        }
        let total =
            client.list_page::<serde_json::Value>("/v1/issue", &ListQuery::default()).await.unwrap().pagination.total;
        assert!(total as usize >= acknowledged.len());
    });
    child.kill().unwrap();
    child.wait().unwrap();
}

#[cfg(unix)]
#[test]
fn sigterm_stops_gracefully_and_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-sigterm-test";
    let (mut child, url) = spawn_serve(dir.path(), key);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    runtime.block_on(async {
        let client = Client::new(&url, ApiKey::new(key), no_retries()).unwrap();
        let writer = {
            let acknowledged = acknowledged.clone();
            tokio::spawn(async move {
                for n in 0.. {
                    let input = IssueInput { title: Some(format!("issue {n}")), ..Default::default() };
                    match client.create_issue(&input).await {
                        Ok(issue) => acknowledged.lock().unwrap().push(issue.id),
                        Err(_) => break,
                    }
                }
            })
        };
        support::eventually(Duration::from_secs(30), || {
            let count = acknowledged.lock().unwrap().len();
            async move { (count >= 50).then_some(()) }
        })
        .await;
        let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        writer.await.unwrap();
    });
    let exit = child.wait().unwrap();
    assert!(exit.success(), "serve exits cleanly on SIGTERM: {exit:?}");
    let acknowledged = acknowledged.lock().unwrap().clone();
    let (mut child, url) = spawn_serve(dir.path(), key);
    runtime.block_on(async {
        let client = Client::new(&url, ApiKey::new(key), no_retries()).unwrap();
        for id in &acknowledged {
            client.get_issue(*id).await.unwrap_or_else(|e| panic!("acknowledged issue {id} lost: {e}"));
        }
    });
    child.kill().unwrap();
    child.wait().unwrap();
}
