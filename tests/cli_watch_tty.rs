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
