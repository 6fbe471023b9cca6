//! On a terminal, waiting for a run draws a progress bar (indicatif) with the counts by status,
//! the rate and an ETA, and the verdict follows as a table.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]
#![cfg(unix)]

#[path = "support/pty.rs"]
mod pty;

use std::path::Path;
use std::time::Duration;

use pty::Pty;

const WAIT: Duration = Duration::from_secs(120);

#[test]
fn gate_on_a_terminal_shows_a_progress_bar_then_the_verdict() {
    let home = tempfile::tempdir().unwrap();
    let home_text = home.path().to_str().unwrap();
    // 20× real time: the seeded plan's nine calls take some seconds, long enough to see the bar.
    let args = ["gate", "--embedded", "Brightsmile reschedule regression", "--sim-speed", "20"];
    let mut pty = Pty::spawn(Path::new(env!("CARGO_BIN_EXE_switchboard")), &args, &[("HOME", home_text)], 120, 40);
    pty.wait_until("a bar with counts, rate and ETA", WAIT, |screen| {
        let text = screen.contents();
        text.contains("/9 ended") && text.contains("ETA") && text.contains("RUNNING")
    })
    .unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    let screen = pty.screen_text();
    assert!(screen.contains("9/9 ended"), "{screen}");
    assert!(screen.contains("gate PASSED") || screen.contains("gate FAILED"), "{screen}");
    assert!(screen.contains("CHECK") && screen.contains("REQUIRED"), "the verdict as a table: {screen}");
    assert_eq!(status.exit_code(), if screen.contains("gate PASSED") { 0 } else { 1 }, "{screen}");
}

/// `config apply` on a terminal asks before it deletes what the bundle no longer holds; `n`
/// applies nothing (exit 2), and `--yes` does not ask.
#[test]
fn config_apply_on_a_terminal_asks_before_deleting() {
    let home = tempfile::tempdir().unwrap();
    let home_text = home.path().to_str().unwrap();
    let kept = home.path().join("kept");
    let persona = |name: &str| format!("kind: persona\nname: {name}\naccent: US\ngender: MALE\nlanguage: EN\n");
    let both = home.path().join("both.yaml");
    let one = home.path().join("one.yaml");
    std::fs::write(&both, format!("{}---\n{}", persona("keep-me"), persona("drop-me"))).unwrap();
    std::fs::write(&one, persona("keep-me")).unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    let first = std::process::Command::new(binary)
        .env("HOME", home_text)
        .args(["--embedded", "--keep", kept.to_str().unwrap(), "config", "apply", "-f", both.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));

    let args = ["--data-dir", kept.to_str().unwrap(), "config", "apply", "-f", one.to_str().unwrap()];
    let mut pty = Pty::spawn(binary, &args, &[("HOME", home_text)], 120, 40);
    pty.wait_for("Delete 1 resource(s) the bundle no longer holds (persona/drop-me)? [y/N]", WAIT)
        .unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    assert!(pty.screen_text().contains("- persona/drop-me"), "the plan first:\n{}", pty.screen_text());
    pty.type_text("n\r");
    let status = pty.wait_exit(WAIT).unwrap();
    assert_eq!(status.exit_code(), 2, "{}", pty.screen_text());
    assert!(pty.screen_text().contains("nothing applied"), "{}", pty.screen_text());

    let args = ["--data-dir", kept.to_str().unwrap(), "config", "apply", "-f", one.to_str().unwrap(), "--yes"];
    let mut pty = Pty::spawn(binary, &args, &[("HOME", home_text)], 120, 40);
    let status = pty.wait_exit(WAIT).unwrap();
    assert_eq!(status.exit_code(), 0, "{}", pty.screen_text());
    assert!(pty.screen_text().contains("1 deleted"), "no question with --yes:\n{}", pty.screen_text());
}
