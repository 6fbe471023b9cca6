//! A pseudo-terminal harness for end-to-end tests of a real program.
//!
//! [`Pty::spawn`] starts a program on the slave side of a fresh pty. A background thread reads
//! everything the program writes and feeds it to a [`vt100::Parser`], so the program never blocks
//! on a full pty buffer and tests can look at the screen as a terminal would show it. Tests wait
//! for what they expect with [`Pty::wait_for`] / [`Pty::wait_until`] (they wake on new output
//! and give up at a deadline, never sleep-and-hope), type with [`Pty::key`] /
//! [`Pty::type_text`], and after [`Pty::wait_exit`] check [`Pty::restored`]: did the program
//! leave the terminal as it found it?
//!
//! Include it from an integration test with
//! `#[path = "support/pty.rs"] mod pty;`.
#![allow(dead_code, reason = "each test crate uses a different part of the pty harness")]

use std::fmt;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize};

/// How often [`Pty::wait_exit`] asks whether the child has exited when no output wakes it.
const EXIT_POLL: Duration = Duration::from_millis(10);

/// A program running in a pseudo-terminal, with a vt100 screen of what it wrote.
///
/// Dropping it kills the program if it is still running.
pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    shared: Arc<Shared>,
    exit: Option<ExitStatus>,
    /// Lists how the pty's termios differs from before the program started. A closure over
    /// that first termios because its type is nix's, and naming it would need a nix dependency.
    termios_changes: TermiosCheck,
}

type TermiosCheck = Box<dyn Fn(&dyn MasterPty) -> Result<Vec<String>, String> + Send>;

/// State shared with the reader thread.
struct Shared {
    state: Mutex<State>,
    /// Notified after every chunk of output and at end of output.
    changed: Condvar,
}

struct State {
    parser: vt100::Parser<Replies>,
    raw: Vec<u8>,
    /// The reader saw end of output: every process holding the slave side has closed it.
    eof: bool,
}

impl Pty {
    /// Spawns `program args` in a `cols`×`rows` pty, in the test's current directory.
    ///
    /// The environment is hermetic: only `PATH` is inherited, `TERM=xterm-256color` is set, and
    /// exactly `env` is added (portable-pty also always sets `SHELL`). Pass `HOME`/`XDG_*` if the
    /// program looks for files there. Panics if the program can't be started.
    pub fn spawn(program: &Path, args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        let cwd = std::env::current_dir().expect("current dir");
        Pty::spawn_in(&cwd, program, args, env, cols, rows)
    }

    /// [`Pty::spawn`] with the working directory `cwd`.
    pub fn spawn_in(cwd: &Path, program: &Path, args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        let (Some(rows_nz), Some(cols_nz)) = (NonZeroU16::new(rows), NonZeroU16::new(cols)) else {
            panic!("a pty needs at least one row and column, not {cols}x{rows}");
        };
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        let pair = portable_pty::native_pty_system().openpty(size).expect("open a pty");
        let termios_changes = termios_check(&*pair.master);

        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.cwd(cwd);
        command.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        command.env("TERM", "xterm-256color");
        for (key, value) in env {
            command.env(key, value);
        }

        let reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("pty writer")));
        let child =
            pair.slave.spawn_command(command).unwrap_or_else(|e| panic!("spawn {} in a pty: {e:#}", program.display()));
        // Only the child holds the slave side now, so its exit ends our reads.
        drop(pair.slave);

        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                parser: vt100::Parser::new_with_callbacks(rows_nz, cols_nz, 0, Replies::default()),
                raw: Vec::new(),
                eof: false,
            }),
            changed: Condvar::new(),
        });
        {
            let shared = Arc::clone(&shared);
            let writer = Arc::clone(&writer);
            std::thread::Builder::new()
                .name("pty-reader".into())
                .spawn(move || read_output(reader, &shared, &writer))
                .expect("spawn the pty reader thread");
        }

        Pty { child, master: pair.master, writer, shared, exit: None, termios_changes }
    }

    /// Writes raw bytes to the program's terminal input.
    pub fn send(&mut self, bytes: &[u8]) {
        let mut writer = lock(&self.writer);
        writer.write_all(bytes).and_then(|()| writer.flush()).unwrap_or_else(|e| panic!("write to the pty: {e}"));
    }

    /// Presses one key, sending what xterm sends for it.
    ///
    /// Names: `Enter`, `Tab`, `BackTab`, `Esc`, `Backspace`, `Space`, `Up`, `Down`, `Left`,
    /// `Right`, `Home`, `End`, `PageUp`, `PageDown`, `Insert`, `Delete`, `F1`–`F12`; `C-x` for
    /// Ctrl with a letter or one of `@[\]^_`; `M-x` for Alt (Esc prefix) with any key; and any
    /// single character (`q`, `:`, `é`), sent as UTF-8. Arrows, Home and End follow the
    /// program's cursor-key mode (DECCKM) as a real terminal does. Panics on an unknown name.
    ///
    /// Each call is one write, but the program may still read two quick keys in one read, so
    /// wait for `Esc` to take effect before sending a key that could be read as its Alt variant.
    pub fn key(&mut self, key: &str) {
        let application_cursor = self.with_screen(vt100::Screen::application_cursor);
        let bytes = key_bytes(key, application_cursor).unwrap_or_else(|| panic!("unknown key name {key:?}"));
        self.send(&bytes);
    }

    /// Types `text` as-is, except that each `\n` is sent as Enter (`\r`), as a keyboard would.
    pub fn type_text(&mut self, text: &str) {
        self.send(text.replace('\n', "\r").as_bytes());
    }

    /// The screen's text: every row, trailing blanks trimmed, joined by `\n`.
    pub fn screen_text(&self) -> String {
        self.with_screen(screen_text)
    }

    /// Runs `f` on the current screen (cells, colours, cursor, modes).
    pub fn with_screen<R>(&self, f: impl FnOnce(&vt100::Screen) -> R) -> R {
        f(lock(&self.shared.state).parser.screen())
    }

    /// Everything the program has written so far, escape sequences included.
    pub fn raw_output(&self) -> Vec<u8> {
        lock(&self.shared.state).raw.clone()
    }

    /// Waits until the screen text contains `needle`. The error shows the last screen.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> Result<(), String> {
        self.wait_until(&format!("{needle:?} on screen"), timeout, |screen| screen_text(screen).contains(needle))
    }

    /// Waits until `pred` holds for the screen, checking after each chunk of output, up to
    /// `timeout`. Fails early if the output ends (the program exited) with `pred` still false.
    /// The error names `what` and shows the last screen.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&vt100::Screen) -> bool,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared.state);
        loop {
            if pred(state.parser.screen()) {
                return Ok(());
            }
            if state.eof {
                let screen = describe(state.parser.screen());
                return Err(format!("output ended (the program exited?) while waiting for {what}\n{screen}"));
            }
            let now = Instant::now();
            if now >= deadline {
                let screen = describe(state.parser.screen());
                return Err(format!("timed out after {timeout:?} waiting for {what}\n{screen}"));
            }
            state = self.shared.changed.wait_timeout(state, deadline - now).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Resizes the terminal; the program gets `SIGWINCH`.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let (Some(rows_nz), Some(cols_nz)) = (NonZeroU16::new(rows), NonZeroU16::new(cols)) else {
            panic!("a pty needs at least one row and column, not {cols}x{rows}");
        };
        // Like a terminal emulator: the screen first, then tell the program.
        lock(&self.shared.state).parser.set_size(rows_nz, cols_nz);
        self.master
            .resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 })
            .unwrap_or_else(|e| panic!("resize the pty: {e:#}"));
    }

    /// Waits for the program to exit and for all its output to be read, so the screen and
    /// [`Pty::restored`] are final. On timeout the program is killed and the error shows the
    /// last screen.
    pub fn wait_exit(&mut self, timeout: Duration) -> Result<ExitStatus, String> {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = &self.exit {
                break status.clone();
            }
            match self.child.try_wait() {
                Ok(Some(status)) => self.exit = Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    self.kill();
                    return Err(format!(
                        "timed out after {timeout:?} waiting for the program to exit; killed it\n{}",
                        self.describe()
                    ));
                }
                Ok(None) => {
                    // Output (or its end) usually comes with exiting, so wake on it too.
                    let state = lock(&self.shared.state);
                    let wait = EXIT_POLL.min(deadline.saturating_duration_since(Instant::now()));
                    drop(self.shared.changed.wait_timeout(state, wait).unwrap_or_else(PoisonError::into_inner));
                }
                Err(e) => return Err(format!("waiting for the program: {e}")),
            }
        };
        // Drain: the reader sees the end of output once nothing holds the slave side open.
        let mut state = lock(&self.shared.state);
        while !state.eof {
            let now = Instant::now();
            if now >= deadline {
                drop(state);
                return Err(format!(
                    "the program exited ({status}) but its terminal is still open after {timeout:?} \
                     (a process it started still holds it?)\n{}",
                    self.describe()
                ));
            }
            state = self.shared.changed.wait_timeout(state, deadline - now).unwrap_or_else(PoisonError::into_inner).0;
        }
        Ok(status)
    }

    /// The program's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// Whether the terminal is as the program found it; meaningful once it has exited
    /// (see [`Pty::wait_exit`]).
    pub fn restored(&self) -> Restored {
        let (main_screen, cursor_visible, mouse_off, bracketed_paste_off) = self.with_screen(|screen| {
            (
                !screen.alternate_screen(),
                !screen.hide_cursor(),
                screen.mouse_protocol_mode() == vt100::MouseProtocolMode::None,
                !screen.bracketed_paste(),
            )
        });
        let (termios, termios_detail) = match (self.termios_changes)(&*self.master) {
            Ok(changes) => (changes.is_empty(), changes.join("; ")),
            Err(e) => (false, e),
        };
        Restored { main_screen, cursor_visible, mouse_off, bracketed_paste_off, termios, termios_detail }
    }

    fn describe(&self) -> String {
        self.with_screen(describe)
    }

    /// Kills the program (SIGHUP, then SIGKILL after a grace period) and reaps it.
    fn kill(&mut self) {
        if self.exit.is_some() {
            return;
        }
        let _ = self.child.kill();
        if let Ok(status) = self.child.wait() {
            self.exit = Some(status);
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if self.exit.is_none() && !matches!(self.child.try_wait(), Ok(Some(_))) {
            self.kill();
        }
    }
}

/// Snapshots the pty's termios now (before the program starts) and returns a check listing how
/// a later termios differs from it, by flag name. Read through the master, the termios is the
/// slave side's, the one the program changes; on Linux it stays readable after the program has
/// exited and closed the slave side (the self-tests rely on this).
#[cfg(unix)]
fn termios_check(master: &dyn MasterPty) -> TermiosCheck {
    let before = master.get_termios();
    Box::new(move |master| {
        let (Some(before), Some(now)) = (&before, master.get_termios()) else {
            return Err("termios could not be read from the pty".into());
        };
        let mut changes = Vec::new();
        macro_rules! compare {
            ($field:ident, $label:literal) => {
                let cleared = before.$field.difference(now.$field);
                let set = now.$field.difference(before.$field);
                if !cleared.is_empty() {
                    changes.push(format!("{} cleared {cleared:?}", $label));
                }
                if !set.is_empty() {
                    changes.push(format!("{} set {set:?}", $label));
                }
            };
        }
        compare!(local_flags, "local flags");
        compare!(input_flags, "input flags");
        compare!(output_flags, "output flags");
        Ok(changes)
    })
}

#[cfg(not(unix))]
fn termios_check(_: &dyn MasterPty) -> TermiosCheck {
    Box::new(|_| Ok(Vec::new()))
}

/// What [`Pty::restored`] found. Each field is `true` when that part is restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The program left the alternate screen.
    pub main_screen: bool,
    /// The cursor is shown.
    pub cursor_visible: bool,
    /// Mouse reporting is off.
    pub mouse_off: bool,
    /// Bracketed paste is off.
    pub bracketed_paste_off: bool,
    /// (unix) The pty's input, output and local mode flags equal those before the program
    /// started: a fresh pty is in canonical mode with echo, so this implies both, and also
    /// catches the other things raw mode turns off (signals, CR/LF translation). Always `true`
    /// where there is no termios.
    pub termios: bool,
    /// What differs in termios, for messages; empty when `termios` is `true` on unix.
    pub termios_detail: String,
}

impl Restored {
    /// Everything is restored.
    pub fn all(&self) -> bool {
        self.main_screen && self.cursor_visible && self.mouse_off && self.bracketed_paste_off && self.termios
    }
}

impl fmt::Display for Restored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yes_no = |b: bool| if b { "yes" } else { "NO" };
        write!(
            f,
            "main screen: {}, cursor visible: {}, mouse off: {}, bracketed paste off: {}, termios restored: {}",
            yes_no(self.main_screen),
            yes_no(self.cursor_visible),
            yes_no(self.mouse_off),
            yes_no(self.bracketed_paste_off),
            yes_no(self.termios),
        )?;
        if !self.termios_detail.is_empty() {
            write!(f, " ({})", self.termios_detail)?;
        }
        Ok(())
    }
}

/// Answers the queries a real terminal answers, so programs that ask (crossterm's cursor
/// position and keyboard-enhancement checks) don't stall waiting for a reply.
#[derive(Default)]
struct Replies {
    pending: Vec<u8>,
}

impl vt100::Callbacks for Replies {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        match (i1, c, first) {
            // Device status report: "OK".
            (None, 'n', 5) => self.pending.extend_from_slice(b"\x1b[0n"),
            // Cursor position report, 1-based.
            (None, 'n', 6) => {
                let (row, col) = screen.cursor_position();
                self.pending.extend_from_slice(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
            }
            // Primary device attributes: a VT220 with no extras.
            (None, 'c', 0) => self.pending.extend_from_slice(b"\x1b[?62c"),
            _ => {}
        }
    }
}

fn read_output(mut reader: Box<dyn Read + Send>, shared: &Shared, writer: &Mutex<Box<dyn Write + Send>>) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO (the slave side closed) is already turned into Ok(0) by portable-pty.
            Err(_) => break,
        };
        let replies = {
            let mut state = lock(&shared.state);
            state.raw.extend_from_slice(&buf[..n]);
            state.parser.process(&buf[..n]);
            std::mem::take(&mut state.parser.callbacks_mut().pending)
        };
        shared.changed.notify_all();
        if !replies.is_empty() {
            let mut writer = lock(writer);
            let _ = writer.write_all(&replies).and_then(|()| writer.flush());
        }
    }
    lock(&shared.state).eof = true;
    shared.changed.notify_all();
}

/// Locks, ignoring poison: a failed assertion in one `wait_until` predicate shouldn't hide the
/// screen from the next.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn screen_text(screen: &vt100::Screen) -> String {
    let (_, cols) = screen.size();
    screen.rows(0, cols.get()).map(|row| row.trim_end().to_owned()).collect::<Vec<_>>().join("\n")
}

/// The screen for an error message: its state, then its rows, trailing empty rows elided.
fn describe(screen: &vt100::Screen) -> String {
    let (rows, cols) = screen.size();
    let (cursor_row, cursor_col) = screen.cursor_position();
    let text = screen_text(screen);
    let lines: Vec<&str> = text.split('\n').collect();
    let shown = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
    let mut out = format!(
        "--- screen {cols}x{rows}, {}, cursor {} at row {cursor_row} col {cursor_col} ---\n",
        if screen.alternate_screen() { "alternate screen" } else { "main screen" },
        if screen.hide_cursor() { "hidden" } else { "visible" },
    );
    for (i, line) in lines[..shown].iter().enumerate() {
        out.push_str(&format!("{i:>3}|{line}\n"));
    }
    if shown < lines.len() {
        out.push_str(&format!("   ({} empty rows)\n", lines.len() - shown));
    }
    out.push_str("---");
    out
}

/// What xterm sends for the key called `name`.
fn key_bytes(name: &str, application_cursor: bool) -> Option<Vec<u8>> {
    let csi_or_ss3 = |c: char| format!("{}{c}", if application_cursor { "\x1bO" } else { "\x1b[" });
    let fixed = match name {
        "Enter" => "\r".into(),
        "Tab" => "\t".into(),
        "BackTab" => "\x1b[Z".into(),
        "Esc" => "\x1b".into(),
        "Backspace" => "\x7f".into(),
        "Space" => " ".into(),
        "Up" => csi_or_ss3('A'),
        "Down" => csi_or_ss3('B'),
        "Right" => csi_or_ss3('C'),
        "Left" => csi_or_ss3('D'),
        "Home" => csi_or_ss3('H'),
        "End" => csi_or_ss3('F'),
        "Insert" => "\x1b[2~".into(),
        "Delete" => "\x1b[3~".into(),
        "PageUp" => "\x1b[5~".into(),
        "PageDown" => "\x1b[6~".into(),
        "F1" => "\x1bOP".into(),
        "F2" => "\x1bOQ".into(),
        "F3" => "\x1bOR".into(),
        "F4" => "\x1bOS".into(),
        "F5" => "\x1b[15~".into(),
        "F6" => "\x1b[17~".into(),
        "F7" => "\x1b[18~".into(),
        "F8" => "\x1b[19~".into(),
        "F9" => "\x1b[20~".into(),
        "F10" => "\x1b[21~".into(),
        "F11" => "\x1b[23~".into(),
        "F12" => "\x1b[24~".into(),
        _ => String::new(),
    };
    if !fixed.is_empty() {
        return Some(fixed.into_bytes());
    }
    if let Some(rest) = name.strip_prefix("C-") {
        let mut chars = rest.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else { return None };
        let c = c.to_ascii_uppercase();
        return ('@'..='_').contains(&c).then(|| vec![c as u8 & 0x1f]);
    }
    if let Some(rest) = name.strip_prefix("M-") {
        let mut bytes = vec![0x1b];
        bytes.extend(key_bytes(rest, application_cursor)?);
        return Some(bytes);
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(_), None) => Some(name.as_bytes().to_vec()),
        _ => None,
    }
}
