//! Terminal setup and teardown in one place. The terminal is restored on every way out:
//! normal quit, Ctrl-C (a key in raw mode), SIGTERM (a message), and panic (the hook).

use std::io::{Write, stdout};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Tui = Terminal<CrosstermBackend<std::io::Stdout>>;

/// Raw mode, the alternate screen, bracketed paste; and a panic hook that undoes them first.
pub fn enter() -> std::io::Result<Tui> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
    // No `clear()`: it asks the terminal for the cursor position, which not every pty answers.
    Terminal::new(CrosstermBackend::new(stdout()))
}

/// Takes the terminal back after another program had it (the editor): raw mode, the
/// alternate screen and bracketed paste again, and a whole redraw.
pub fn resume(terminal: &mut Tui) -> std::io::Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
    terminal.clear()
}

/// Leaves the alternate screen and raw mode; safe to call more than once.
pub fn restore() {
    let _ = execute!(stdout(), DisableBracketedPaste, LeaveAlternateScreen, crossterm::cursor::Show);
    let _ = disable_raw_mode();
    let _ = stdout().flush();
}

/// Puts `text` on the clipboard of the terminal (and of the machine behind SSH) with OSC 52.
pub fn copy(text: &str) {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = stdout();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}
