//! Interrupting `gate` (Ctrl-C, or SIGTERM as a CI runner sends when a job is cancelled):
//! with `--cancel-on-exit` the run is cancelled on the service; without it the run goes on.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::process::Stdio;
use std::time::Duration;

use cli::*;
use switchboard::api::model::RunPlanJobStatus;
use tokio::io::{AsyncBufReadExt, BufReader};

/// A service whose simulated calls take real time, so a run is surely still going when signalled.
async fn slow_service() -> support::Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        sim_speed: switchboard::service::SimSpeed::Factor(1.0),
        ..support::options(dir.path(), true)
    };
    support::start_with(options, dir).await
}

/// Starts `gate` on a slow plan, waits until it says which job it started, sends `signal`,
/// and returns the job id and how the command ended.
async fn gate_then_signal(
    service: &support::Service,
    signal: &str,
    extra: &[&str],
) -> (uuid::Uuid, std::process::Output) {
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    let plan =
        create_plan(&service.client, &plan_input(&format!("Slow {signal} {}", extra.len()), Some((&always, 100.0)), 2))
            .await;
    let mut child = against(home.path(), service)
        .args(["gate", "-o", "json", &plan.to_string()])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    let id = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let line = lines.next_line().await.unwrap().unwrap_or_else(|| panic!("gate ended early:\n{seen}"));
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.strip_prefix("gate: started run plan job ") {
                return rest.split_whitespace().next().unwrap().parse::<uuid::Uuid>().unwrap();
            }
        }
    })
    .await
    .expect("gate says which job it started");
    let pid = child.id().unwrap().to_string();
    let killed = tokio::process::Command::new("kill").args([&format!("-{signal}"), &pid]).status().await.unwrap();
    assert!(killed.success());
    let rest = tokio::spawn(async move {
        let mut rest = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            rest.push_str(&line);
            rest.push('\n');
        }
        rest
    });
    let mut output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await.unwrap().unwrap();
    output.stderr = format!("{seen}{}", rest.await.unwrap()).into_bytes();
    (id, output)
}

async fn status(service: &support::Service, id: uuid::Uuid) -> RunPlanJobStatus {
    service.client.get_run_plan_job(id).await.unwrap().status.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_with_cancel_on_exit_cancels_the_run() {
    let service = slow_service().await;
    let (id, output) = gate_then_signal(&service, "INT", &["--cancel-on-exit"]).await;
    assert_exit(&output, 130);
    assert!(stderr(&output).contains(&format!("cancelled run plan job {id}")), "{}", stderr(&output));
    let cancelled = status(&service, id).await;
    assert!(matches!(cancelled, RunPlanJobStatus::Cancelling | RunPlanJobStatus::Cancelled), "{cancelled}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_from_a_ci_runner_with_cancel_on_exit_cancels_the_run() {
    let service = slow_service().await;
    let (id, output) = gate_then_signal(&service, "TERM", &["--cancel-on-exit"]).await;
    assert_exit(&output, 143);
    let cancelled = status(&service, id).await;
    assert!(matches!(cancelled, RunPlanJobStatus::Cancelling | RunPlanJobStatus::Cancelled), "{cancelled}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_without_cancel_on_exit_leaves_the_run_going() {
    let service = slow_service().await;
    let (id, output) = gate_then_signal(&service, "INT", &[]).await;
    assert_exit(&output, 130);
    assert!(stderr(&output).contains("goes on"), "{}", stderr(&output));
    let running = status(&service, id).await;
    assert!(!running.is_terminal() && running != RunPlanJobStatus::Cancelling, "{running}");
}

/// A service that accepts connections and never answers: `gate` is still resolving its plan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_while_the_plan_is_being_resolved_starts_nothing() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (connected, mut on_connect) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
            let _ = connected.send(());
        }
    });
    let home = tempfile::tempdir().unwrap();
    let child = switchboard(home.path())
        .env("SWITCHBOARD_BASE_URL", format!("http://{address}"))
        .env("SWITCHBOARD_API_KEY", "sk-test-hanging")
        .args(["gate", "-o", "json", "Some plan", "--cancel-on-exit"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(60), on_connect.recv()).await.expect("gate connects").unwrap();
    let killed =
        tokio::process::Command::new("kill").args(["-INT", &child.id().unwrap().to_string()]).status().await.unwrap();
    assert!(killed.success());
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the interrupt ends gate, without waiting for the service")
        .unwrap();
    assert_exit(&output, 130);
    assert!(stderr(&output).contains("no run was started"), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_writes_the_reports_it_can_before_exiting() {
    let service = slow_service().await;
    let dir = tempfile::tempdir().unwrap();
    let (junit, report) = (dir.path().join("junit.xml"), dir.path().join("report.json"));
    let extra = ["--junit", junit.to_str().unwrap(), "--json", report.to_str().unwrap()];
    let (id, output) = gate_then_signal(&service, "TERM", &extra).await;
    assert_exit(&output, 143);
    assert!(std::fs::read_to_string(&junit).unwrap().contains("<testsuite"), "the JUnit report is written");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(report["runPlanJobId"], id.to_string());
    assert_eq!(report["result"], "FAILED", "an unfinished run is never a pass: {report}");
    assert!(report["message"].as_str().unwrap().contains("terminated (SIGTERM) before the run ended"), "{report}");
}
