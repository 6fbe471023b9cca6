//! The real binary in a real pseudo-terminal: `switchboard` with no arguments starts the
//! embedded service on seeded data, every tab opens, help opens, and every way out
//! (q, Ctrl-C, SIGTERM, a panic) leaves the terminal as it found it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]
#![cfg(unix)]

#[path = "support/pty.rs"]
mod pty;

use std::path::Path;
use std::time::Duration;

use pty::Pty;

const WAIT: Duration = Duration::from_secs(60);

/// The console with its own home (config, cache, data and logs inside `home`).
fn console(home: &Path, extra_env: &[(&str, &str)], args: &[&str]) -> Pty {
    console_at(home, extra_env, args, 100, 30)
}

/// [`console`] in a `cols`×`rows` terminal.
fn console_at(home: &Path, extra_env: &[(&str, &str)], args: &[&str], cols: u16, rows: u16) -> Pty {
    let home = home.to_str().unwrap();
    let mut env = vec![("HOME", home), ("XDG_CONFIG_HOME", ""), ("XDG_DATA_HOME", ""), ("XDG_CACHE_HOME", "")];
    env.retain(|(_, v)| !v.is_empty());
    env.extend_from_slice(extra_env);
    Pty::spawn(Path::new(env!("CARGO_BIN_EXE_switchboard")), args, &env, cols, rows)
}

fn assert_restored(pty: &Pty) {
    let restored = pty.restored();
    assert!(restored.all(), "terminal not restored: {restored}\n{}", pty.screen_text());
}

#[test]
fn first_run_visits_every_tab_opens_help_and_quits_cleanly() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[], &[]);
    pty.wait_for("account", WAIT).unwrap();
    pty.wait_for("embedded 127.0.0.1:", WAIT).unwrap();
    // Every tab by its number key, each showing its own seeded data.
    let tabs = [
        ("1", "Brightsmile reschedule regression"),
        ("2", "run plan jobs"),
        ("3", "Call duration"),
        ("4", "Receptionist discloses appointment"),
        ("5", "Reschedule a cleaning"),
        ("6", "Callum Reid"),
        ("7", "voice-agent-reception-v1"),
    ];
    for (key, text) in tabs {
        pty.key(key);
        pty.wait_for(text, WAIT).unwrap_or_else(|e| panic!("tab {key}: {e}"));
    }
    pty.key("?");
    pty.wait_for("help · esc closes", WAIT).unwrap();
    pty.key("Esc");
    pty.wait_until("help closed", WAIT, |s| !s.contents().contains("help · esc closes")).unwrap();
    // Resizing redraws at the new size.
    pty.resize(80, 24);
    pty.wait_for("1 plans", WAIT).unwrap();
    pty.key("q");
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success(), "{status:?}");
    assert_restored(&pty);
    // Logs went to a file in the data dir, never to the screen.
    let logs = home.path().join(".local/share/switchboard/logs");
    assert!(std::fs::read_dir(&logs).map(|d| d.count() > 0).unwrap_or(false), "no log file in {logs:?}");
}

#[test]
fn ctrl_c_quits_and_restores() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[], &[]);
    pty.wait_for("account", WAIT).unwrap();
    pty.key("C-c");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);
}

#[test]
fn sigterm_restores_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[], &[]);
    pty.wait_for("account", WAIT).unwrap();
    let pid = pty.pid().expect("child pid");
    let killed = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    pty.wait_exit(WAIT).unwrap();
    assert_restored(&pty);
}

// The panic hook's trigger is compiled into debug builds only (`console::test_hooks`).
#[cfg(debug_assertions)]
#[test]
fn a_panic_restores_the_terminal_before_reporting() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[("SWITCHBOARD_TEST_PANIC", "1"), ("RUST_BACKTRACE", "0")], &[]);
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(!status.success());
    assert_restored(&pty);
    let output = String::from_utf8_lossy(&pty.raw_output()).to_string();
    assert!(output.contains("forced panic"), "the panic is reported after restoring:\n{output}");
}

#[test]
fn cached_lists_show_on_the_next_start() {
    let home = tempfile::tempdir().unwrap();
    let mut first = console(home.path(), &[], &[]);
    first.wait_for("account", WAIT).unwrap();
    first.key("6");
    first.wait_for("Callum Reid", WAIT).unwrap();
    first.key("q");
    first.wait_exit(WAIT).unwrap();
    let caches = walk(&home.path().join(".cache/switchboard"));
    let cache = caches.iter().find(|p| p.file_name().unwrap().to_str().unwrap().starts_with("local-")).unwrap();
    let text = std::fs::read_to_string(cache).unwrap_or_else(|e| panic!("{cache:?}: {e}"));
    assert!(text.contains("Callum Reid"));
    let mut second = console(home.path(), &[], &[]);
    second.key("6");
    second.wait_for("Callum Reid", WAIT).unwrap();
    second.key("q");
    second.wait_exit(WAIT).unwrap();
    assert_restored(&second);

    // The same profile pointed at another address (nothing listens there) never shows the
    // embedded service's cached lists as that address's.
    let elsewhere = "http://127.0.0.1:9";
    let mut third =
        console(home.path(), &[("SWITCHBOARD_API_KEY", "sb-any-key-0123456789")], &["--base-url", elsewhere]);
    third.wait_for(elsewhere, WAIT).unwrap();
    third.key("6");
    third.wait_for("disconnected", WAIT).unwrap();
    third.key("1");
    third.wait_until("the plans tab", WAIT, |s| s.contents().contains("run plans")).unwrap();
    let screen = third.screen_text();
    assert!(!screen.contains("Callum Reid") && !screen.contains("Brightsmile"), "another address's cache:\n{screen}");
    third.key("q");
    third.wait_exit(WAIT).unwrap();
    assert_restored(&third);
}

#[test]
fn keys_are_rebindable_in_config_toml() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/switchboard");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[keys]\nquit = [\"x\"]\n").unwrap();
    let mut pty = console(home.path(), &[], &[]);
    pty.wait_for("account", WAIT).unwrap();
    pty.key("q");
    pty.key("?");
    // q is no longer quit, so the console is still there to open help; help shows the new key.
    pty.wait_until("help naming x for quit", WAIT, |s| {
        s.contents().lines().any(|l| l.contains(" x ") && l.contains("quit"))
    })
    .unwrap();
    pty.key("Esc");
    pty.wait_until("help closed", WAIT, |s| !s.contents().contains("help · esc closes")).unwrap();
    pty.key("x");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);
}

#[test]
fn no_color_draws_without_colours() {
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[("NO_COLOR", "1")], &[]);
    pty.wait_for("account", WAIT).unwrap();
    pty.key("6");
    pty.wait_for("Callum Reid", WAIT).unwrap();
    pty.key("q");
    pty.wait_exit(WAIT).unwrap();
    let output = pty.raw_output();
    let text = String::from_utf8_lossy(&output);
    // crossterm writes colours as SGR 38;5;n / 48;5;n or 30–37 / 90–97.
    for colour in ["38;5;", "48;5;", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[91m"] {
        assert!(!text.contains(colour), "NO_COLOR output contains {colour:?}");
    }
    assert!(text.contains("\x1b[7m") || text.contains(";7m"), "the selection is still shown, by reversing");
}

#[test]
fn base_url_opens_any_service_and_never_shows_the_key() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key = "sb-e2e-secret-key-0123456789";
    let options = switchboard::service::Options {
        api_key: Some(switchboard::api::ApiKey::new(key)),
        ..switchboard::service::Options::local(dir.path().to_path_buf())
    };
    let running = runtime.block_on(switchboard::service::start(options)).unwrap();
    let base_url = running.base_url();
    let home = tempfile::tempdir().unwrap();
    let mut pty = console(home.path(), &[("SWITCHBOARD_API_KEY", key)], &["--base-url", &base_url]);
    pty.wait_for(&base_url, WAIT).unwrap();
    pty.wait_for("account", WAIT).unwrap();
    pty.key("6");
    pty.wait_for("Callum Reid", WAIT).unwrap();
    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert!(!String::from_utf8_lossy(&pty.raw_output()).contains(key), "the key reached the screen");
    for entry in walk(home.path()) {
        let text = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&text).contains(key), "the key is in {entry:?}");
    }
    runtime.block_on(running.shutdown()).unwrap();
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

#[path = "console_e2e/journeys.rs"]
mod journeys;

#[test]
fn the_console_stays_responsive_while_the_service_hangs() {
    // A service that accepts connections and never answers a byte.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let held = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let holder = held.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            holder.lock().unwrap().push(stream); // kept open, never read or written
        }
    });
    // Requests would wait ten minutes for it: every key below works long before any answer.
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/switchboard");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[client]\nrequest_timeout_ms = 600000\nmax_retries = 0\n").unwrap();
    let mut pty = console(home.path(), &[("SWITCHBOARD_API_KEY", "sb-any-key-0123456789")], &["--base-url", &base_url]);
    pty.wait_for("connecting…", WAIT).unwrap();
    pty.wait_until("a request is out", WAIT, |_| !held.lock().unwrap().is_empty()).unwrap();
    pty.key("?");
    pty.wait_for("help · esc closes", WAIT).unwrap();
    pty.key("Esc");
    pty.wait_until("help closed", WAIT, |s| !s.contents().contains("help · esc closes")).unwrap();
    for (key, title) in [("4", "issues"), ("6", "personas"), ("2", "run plan jobs")] {
        pty.key(key);
        pty.wait_until(title, WAIT, |s| s.contents().lines().any(|l| l.starts_with('┌') && l.contains(title))).unwrap();
    }
    assert!(pty.screen_text().contains("connecting…"), "still waiting on the service:\n{}", pty.screen_text());
    pty.key("q");
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_restored(&pty);
}

/// `c` on the metrics tab: a commented metric template in $EDITOR; the file saved with a name
/// of the user's is shown as a create, made on `y`, and listed.
#[test]
fn c_creates_a_metric_from_its_template_in_the_editor() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let script = home.path().join("edit.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ngrep -q '^kind: metric' \"$1\" && grep -q '^# ' \"$1\" && echo template >> {log}\nsed -i -e 's/^name: new_metric.*/name: greets_by_name/' -e 's/^displayName: .*/displayName: Greets By Name From The Pty/' \"$1\"\n",
            log = home.path().join("edits.log").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor = script.to_str().unwrap();
    let mut pty = console_at(home.path(), &[("EDITOR", editor), ("VISUAL", editor)], &[], 120, 40);
    pty.wait_for("account", WAIT).unwrap();
    pty.key("3");
    pty.wait_for("definitions", WAIT).unwrap();
    pty.key("c");
    pty.wait_for("create metric/greets_by_name", WAIT).unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    let edits = std::fs::read_to_string(home.path().join("edits.log")).unwrap();
    assert_eq!(edits, "template\n", "the editor got the commented template");
    pty.key("y");
    pty.wait_for("applied: create metric/greets_by_name", WAIT)
        .unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    pty.key("/");
    pty.type_text("greets");
    pty.wait_for("Greets By Name From The Pty", WAIT).unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    // Ctrl-C quits from the filter prompt too (Esc then q could read as Alt-q).
    pty.key("C-c");
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success(), "{status:?}");
    assert_restored(&pty);
}

/// k9s' `e` on a persona: the terminal goes to $EDITOR on its YAML and comes back; a refusal
/// reopens the file with the service's reasons on top; the change is shown and applied only
/// after `y`; the terminal is restored at the end.
#[test]
fn e_edits_a_persona_in_the_editor_reopens_a_refusal_and_applies_after_yes() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    // First save: an accent the service refuses. Second save (the file reopened with the
    // reasons on top): the accent mended and a new display name.
    let script = home.path().join("edit.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif grep -q '^#! Not applied' \"$1\"; then\n  grep -q '^#!   - .*accent' \"$1\" && echo reopened-with-the-reason >> {log}\n  sed -i -e 's/^accent: MARS/accent: US/' -e '/^displayName:/d' \"$1\"\n  echo 'displayName: Edited In The Editor' >> \"$1\"\nelse\n  echo first >> {log}\n  sed -i 's/^accent: .*/accent: MARS/' \"$1\"\nfi\n",
            log = home.path().join("edits.log").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor = script.to_str().unwrap();
    let mut pty = console_at(home.path(), &[("EDITOR", editor), ("VISUAL", editor)], &[], 120, 40);
    pty.wait_for("account", WAIT).unwrap();
    pty.key("6");
    pty.wait_for("Callum Reid", WAIT).unwrap();
    pty.key("e");
    pty.wait_for("Apply this change?", WAIT).unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    let screen = pty.screen_text();
    assert!(screen.contains("update persona/") && screen.contains("displayName"), "the change is shown:\n{screen}");
    let edits = std::fs::read_to_string(home.path().join("edits.log")).unwrap();
    assert_eq!(edits, "first\nreopened-with-the-reason\n", "the refusal reopened the file with its reason");
    pty.key("y");
    pty.wait_for("Edited In The Editor", WAIT).unwrap_or_else(|e| panic!("{e}\n{}", pty.screen_text()));
    pty.key("q");
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success(), "{status:?}");
    assert_restored(&pty);
}
