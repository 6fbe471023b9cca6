//! Handing the terminal to the user's editor (`$VISUAL`, else `$EDITOR`, else `vi`, as kubectl
//! and k9s do) and taking it back. The input thread stops reading first, so every key goes to
//! the editor; the terminal is restored before and set up again after, whatever the editor did.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Tells the input thread to stop reading keys, and lets the runtime know it has.
#[derive(Debug, Default)]
pub struct InputGate {
    paused: AtomicBool,
    parked: AtomicBool,
}

/// How long the input thread may take to notice a pause: its poll interval and then some.
const PARK_DEADLINE: Duration = Duration::from_secs(2);
/// How often the input thread looks for keys (and for a pause).
pub const INPUT_POLL: Duration = Duration::from_millis(50);

impl InputGate {
    pub fn new() -> Arc<InputGate> {
        Arc::new(InputGate::default())
    }

    /// Asks the input thread to stop reading, and waits (with a deadline) until it has.
    pub async fn pause(&self) -> bool {
        self.paused.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + PARK_DEADLINE;
        while !self.parked.load(Ordering::SeqCst) {
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }

    /// The input thread's side: true (having said so) while paused.
    pub fn hold(&self) -> bool {
        let paused = self.paused.load(Ordering::SeqCst);
        self.parked.store(paused, Ordering::SeqCst);
        paused
    }
}

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi`. It may carry arguments
/// (`code --wait`), as a shell would read them.
pub fn command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Writes `text` to a private temporary file named `*.yaml`, runs the editor on it, and
/// reads it back. The terminal must already be handed over.
pub fn edit(text: &str) -> Result<String, String> {
    let mut file = tempfile::Builder::new()
        .prefix("switchboard-")
        .suffix(".yaml")
        .tempfile()
        .map_err(|e| format!("cannot make a file to edit: {e}"))?;
    file.write_all(text.as_bytes()).and_then(|_| file.flush()).map_err(|e| format!("cannot write the file: {e}"))?;
    let editor = command();
    // Through the shell, so that `EDITOR="code --wait"` works; the path is an argument, never
    // spliced into the command text.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status()
        .map_err(|e| format!("cannot start the editor ({editor}): {e}"))?;
    if !status.success() {
        return Err(format!("the editor ({editor}) exited with {status}; nothing was changed"));
    }
    std::fs::read_to_string(file.path()).map_err(|e| format!("cannot read the edited file: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_pause_waits_for_the_input_thread_to_park() {
        let gate = InputGate::new();
        let thread_gate = gate.clone();
        let reader = std::thread::spawn(move || {
            // The input loop: hold while paused, else poll.
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if thread_gate.hold() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            false
        });
        assert!(gate.pause().await, "the reader parked");
        assert!(reader.join().unwrap());
        gate.resume();
        assert!(!gate.hold(), "resumed");
    }
}
