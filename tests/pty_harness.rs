//! The pty harness itself, driven by small `bash` scripts: screen and mode tracking, terminal
//! restore checks, key encoding, waits and their errors, resizing, and cleanup.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]
#![cfg(unix)]

#[path = "support/pty.rs"]
mod pty;

use std::path::Path;
use std::time::Duration;

use pty::Pty;

/// Generous: waits return as soon as their condition holds.
const WAIT: Duration = Duration::from_secs(10);

fn bash(script: &str, args: &[&str]) -> Pty {
    bash_sized(script, args, 80, 24)
}

fn bash_sized(script: &str, args: &[&str], cols: u16, rows: u16) -> Pty {
    let mut argv = vec!["-c", script, "bash"];
    argv.extend_from_slice(args);
    Pty::spawn(Path::new("bash"), &argv, &[], cols, rows)
}

#[test]
fn leaving_the_alternate_screen_and_showing_the_cursor_counts_as_restored() {
    let mut pty = bash(
        r#"printf '\033[?1049h\033[?25l\033[?1000h\033[?1006h\033[?2004h'
           printf 'in the alternate screen\n'
           read -r line
           printf '\033[?2004l\033[?1006l\033[?1000l\033[?1049l\033[?25h'
           printf 'read: %s\n' "$line""#,
        &[],
    );
    pty.wait_for("in the alternate screen", WAIT).unwrap();
    let during = pty.restored();
    assert!(!during.main_screen && !during.cursor_visible, "{during}");
    assert!(!during.mouse_off && !during.bracketed_paste_off, "{during}");
    assert!(during.termios, "bash's plain `read` keeps the tty cooked: {during}");
    assert!(!during.all());

    pty.type_text("hello\n");
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success(), "{status}");
    let after = pty.restored();
    assert!(after.all(), "{after}");
    let screen = pty.screen_text();
    assert!(screen.contains("read: hello"), "{screen}");
    assert!(!screen.contains("in the alternate screen"), "the main screen is back:\n{screen}");
    let raw = pty.raw_output();
    for disable in [&b"\x1b[?1000l"[..], b"\x1b[?2004l"] {
        assert!(raw.windows(disable.len()).any(|w| w == disable), "{}", String::from_utf8_lossy(disable));
    }
}

#[test]
fn raw_mode_left_behind_is_reported() {
    let mut pty = bash("stty raw -echo; printf 'raw and gone\\r\\n'", &[]);
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success(), "{status}");
    pty.wait_for("raw and gone", WAIT).unwrap();
    let restored = pty.restored();
    assert!(restored.main_screen && restored.cursor_visible, "{restored}");
    assert!(!restored.termios && !restored.all(), "{restored}");
    for flag in ["ICANON", "ECHO", "ISIG", "OPOST"] {
        assert!(restored.termios_detail.contains(flag), "{flag} missing from: {restored}");
    }
}

#[test]
fn raw_mode_undone_with_the_saved_settings_is_restored() {
    // What crossterm does: save the settings, go raw, put the saved settings back.
    let mut pty =
        bash(r#"saved=$(stty -g); stty raw -echo; printf 'raw\r\n'; head -c 1 >/dev/null; stty "$saved""#, &[]);
    pty.wait_for("raw", WAIT).unwrap();
    let during = pty.restored();
    assert!(!during.termios, "{during}");
    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let after = pty.restored();
    assert!(after.all(), "{after}");
}

/// Runs `setup` then reads `n` bytes in raw mode and returns them as hex, e.g. "1b 5b 41".
fn bytes_received(setup: &str, n: usize, press: impl FnOnce(&mut Pty)) -> String {
    let script = format!(
        r#"{setup}; stty raw -echo; printf 'ready\r\n'
           bytes=$(head -c "$1" | od -An -tx1 -v); stty sane; echo "got:" $bytes ":end""#
    );
    // Wide enough for the whole answer on one row.
    let mut pty = bash_sized(&script, &[&n.to_string()], 400, 24);
    pty.wait_for("ready", WAIT).unwrap();
    press(&mut pty);
    pty.wait_for(":end", WAIT).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let screen = pty.screen_text();
    let line = screen.lines().find(|l| l.starts_with("got:")).unwrap_or_else(|| panic!("{screen}"));
    line.trim_start_matches("got:").trim_end_matches(":end").trim().to_owned()
}

#[test]
fn keys_arrive_as_xterm_sends_them() {
    let keys = [
        ("Up", "1b 5b 41"),
        ("Down", "1b 5b 42"),
        ("Right", "1b 5b 43"),
        ("Left", "1b 5b 44"),
        ("Home", "1b 5b 48"),
        ("End", "1b 5b 46"),
        ("PageUp", "1b 5b 35 7e"),
        ("PageDown", "1b 5b 36 7e"),
        ("Tab", "09"),
        ("BackTab", "1b 5b 5a"),
        ("Enter", "0d"),
        ("Esc", "1b"),
        ("Backspace", "7f"),
        ("C-c", "03"),
        ("C-a", "01"),
        ("M-x", "1b 78"),
        ("F1", "1b 4f 50"),
        ("F5", "1b 5b 31 35 7e"),
        ("F12", "1b 5b 32 34 7e"),
        ("q", "71"),
        (":", "3a"),
        ("é", "c3 a9"),
    ];
    let expected: Vec<&str> = keys.iter().map(|(_, hex)| *hex).chain(["61 0d 62"]).collect();
    let expected = expected.join(" ");
    let n = expected.split(' ').count();
    let got = bytes_received("true", n, |pty| {
        for (key, _) in keys {
            pty.key(key);
        }
        pty.type_text("a\nb");
    });
    assert_eq!(got, expected);
}

#[test]
fn cursor_keys_follow_application_cursor_mode() {
    let got = bytes_received(r"printf '\033[?1h'", 6, |pty| {
        assert!(pty.with_screen(vt100::Screen::application_cursor));
        pty.key("Up");
        pty.key("Home");
    });
    assert_eq!(got, "1b 4f 41 1b 4f 48");
}

#[test]
#[should_panic(expected = "unknown key name")]
fn unknown_key_names_panic() {
    let mut pty = bash("read -r _", &[]);
    pty.key("Hyper-x");
}

#[test]
fn wait_for_times_out_with_the_screen_in_the_error() {
    let pty = bash("printf 'something else\\n'; read -r _", &[]);
    pty.wait_for("something else", WAIT).unwrap();
    let err = pty.wait_for("never printed", Duration::from_millis(300)).unwrap_err();
    assert!(err.contains("timed out"), "{err}");
    assert!(err.contains("\"never printed\""), "{err}");
    assert!(err.contains("something else"), "the error shows the screen: {err}");
}

#[test]
fn waiting_stops_when_the_output_ends() {
    let pty = bash("echo bye", &[]);
    // It stops because the output ended, not because the 30 s ran out.
    let err = pty.wait_for("never printed", Duration::from_secs(30)).unwrap_err();
    assert!(err.contains("output ended") && err.contains("bye"), "{err}");
    assert!(!err.contains("timed out"), "{err}");
}

#[test]
fn wait_until_sees_screen_state() {
    let mut pty = bash(r#"read -r _; printf '\033[5;10Hhere'; read -r _"#, &[]);
    pty.type_text("\n");
    pty.wait_until("cursor after 'here' on row 5", WAIT, |s| s.cursor_position() == (4, 13)).unwrap();
    assert_eq!(pty.screen_text().lines().nth(4), Some("         here"));
}

#[test]
fn terminal_queries_are_answered() {
    // Cursor position report, as crossterm's `cursor::position()` asks for it.
    let mut pty = bash(
        r#"stty raw -echo; printf '\033[3;5H\033[6n'; IFS= read -r -d R reply; stty sane
           printf '\nreply:%s\n' "${reply#?}""#,
        &[],
    );
    pty.wait_for("reply:", WAIT).unwrap();
    assert!(pty.screen_text().contains("reply:[3;5"), "{}", pty.screen_text());
    assert!(pty.wait_exit(WAIT).unwrap().success());
}

#[test]
fn resize_reaches_the_program_and_the_screen() {
    let mut pty = bash(r#"printf 'size:%s\n' "$(stty size)"; read -r _; printf 'size:%s\n' "$(stty size)""#, &[]);
    pty.wait_for("size:24 80", WAIT).unwrap();
    pty.resize(100, 30);
    assert_eq!(pty.with_screen(|s| s.size()).0.get(), 30);
    pty.type_text("\n");
    pty.wait_for("size:30 100", WAIT).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}

#[test]
fn lots_of_output_never_blocks_the_program() {
    let mut pty = bash("seq 1 100000; echo done", &[]);
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert!(pty.screen_text().contains("100000\ndone"), "{}", pty.screen_text());
    assert!(pty.raw_output().len() > 500_000);
}

#[test]
fn env_is_exactly_what_was_given() {
    let mut pty = Pty::spawn(
        Path::new("bash"),
        &["-c", r#"echo "[$TERM] [$GREETING] [${HOME-unset}]""#],
        &[("GREETING", "hi")],
        80,
        24,
    );
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert!(pty.screen_text().contains("[xterm-256color] [hi] [unset]"), "{}", pty.screen_text());
}

#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(target_os = "linux")]
#[test]
fn drop_kills_a_running_program() {
    let pty = bash("printf 'sleeping\\n'; exec sleep 60", &[]);
    pty.wait_for("sleeping", WAIT).unwrap();
    let pid = pty.pid().unwrap();
    assert!(alive(pid));
    drop(pty);
    assert!(!alive(pid), "{pid} still running");
}

#[cfg(target_os = "linux")]
#[test]
fn wait_exit_kills_on_timeout() {
    let mut pty = bash("printf 'sleeping\\n'; exec sleep 60", &[]);
    pty.wait_for("sleeping", WAIT).unwrap();
    let pid = pty.pid().unwrap();
    let err = pty.wait_exit(Duration::from_millis(200)).unwrap_err();
    assert!(err.contains("timed out") && err.contains("sleeping"), "{err}");
    assert!(!alive(pid), "{pid} still running");
}
