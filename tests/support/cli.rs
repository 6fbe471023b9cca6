//! Shared by the headless command tests: the real binary with a private home, run against a
//! real local service started in this process (or `--embedded`). Include with
//! `#[path = "support/cli.rs"] mod cli;` next to `mod support;`.
#![allow(dead_code, reason = "each test crate uses a different part of the support module")]

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use switchboard::api::Client;
use switchboard::api::model::{MetricReference, RunPlanInput};

/// The binary with a private home, so no real config, credentials, cache or data is touched.
pub fn switchboard(home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .env_clear()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .kill_on_drop(true);
    command
}

/// The binary pointed at `service` with its key.
pub fn against(home: &Path, service: &crate::support::Service) -> tokio::process::Command {
    let mut command = switchboard(home);
    command
        .env("SWITCHBOARD_BASE_URL", service.base_url())
        .env("SWITCHBOARD_API_KEY", service.running.api_key.expose());
    command
}

/// Runs a command to its end.
pub async fn run(command: &mut tokio::process::Command) -> Output {
    command.output().await.expect("the binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code, with both streams in the message when it is not `expected`.
pub fn assert_exit(output: &Output, expected: i32) {
    assert_eq!(
        output.status.code(),
        Some(expected),
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        stdout(output),
        stderr(output)
    );
    assert!(
        !stderr(output).contains("Location:") && !stderr(output).contains("src/"),
        "no source location reaches a user:\n{}",
        stderr(output)
    );
}

pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(output)))
}

/// The seeded reschedule flow (a scripted flow with a happy path and edge cases).
pub const RESCHEDULE_FLOW: &str = "4ac0ac43-3a5c-5293-9370-3b46530ffc59";
/// The seeded Brightsmile production endpoint (dialled through the reference agent).
pub const BRIGHTSMILE_ENDPOINT: &str = "bcb0de1f-8846-5342-819b-3bb8440c298c";
pub const SEEDED_PLAN: &str = "Brightsmile reschedule regression";

/// The slug of a threshold on call duration that every call meets or none does
/// (`support::duration_check`).
pub async fn duration_check(client: &Client, always: bool) -> String {
    crate::support::duration_check(client, always).await.slug.expect("the threshold has a slug")
}

/// A plan of the reschedule flow's happy path judged on one check at `min_pass_rate`.
pub fn plan_input(name: &str, check: Option<(&str, f64)>, iterations: i64) -> RunPlanInput {
    let mut metrics = vec![MetricReference::by_slug("call_duration")];
    if let Some((slug, bar)) = check {
        metrics.push(MetricReference { min_pass_rate: Some(bar), ..MetricReference::by_slug(slug) });
    }
    serde_json::from_value(serde_json::json!({
        "name": name,
        "direction": "INBOUND",
        "iterationCount": iterations,
        "maxSimulationDurationSeconds": 300,
        "flows": [{"id": RESCHEDULE_FLOW, "happyPath": true}],
        "agentEndpoints": [{"id": BRIGHTSMILE_ENDPOINT}],
        "metrics": metrics,
        "includeFlowMetrics": false,
        "includeAutomaticMetrics": false,
    }))
    .unwrap()
}

/// Creates the plan on the service; its id.
pub async fn create_plan(client: &Client, input: &RunPlanInput) -> uuid::Uuid {
    client.create_run_plan(input).await.expect("plan created").run_plan.id
}

/// Polls `check` until true, or panics after `deadline`.
pub async fn until(deadline: Duration, what: &str, mut check: impl AsyncFnMut() -> bool) {
    let started = std::time::Instant::now();
    while !check().await {
        assert!(started.elapsed() < deadline, "{what}: not within {deadline:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Every YAML block of `doc` (a file under `docs/`) that holds `marker`, as the file has them.
pub fn yaml_blocks(doc: &str, marker: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{}/docs/{doc}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    text.split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .filter(|block| block.contains(marker))
        .map(str::to_owned)
        .collect()
}

/// The YAML block of `doc` that holds `marker`, as the file has it.
pub fn yaml_block(doc: &str, marker: &str) -> String {
    yaml_blocks(doc, marker).into_iter().next().unwrap_or_else(|| panic!("docs/{doc} has a YAML block with {marker:?}"))
}
