//! The terminal console: one message queue (keys, HTTP results, timers), `update` changes
//! state and asks for effects, views draw state, and the loop draws only when something
//! changed and the queue is empty.

pub mod app;
pub mod editor;
pub mod flow_graph;
pub mod keymap;
pub mod marks;
pub mod message;
pub mod out;
pub mod pane;
pub mod panes;
pub mod poll;
mod runtime;
pub mod tab;
pub mod tasks;
pub mod templates;
pub mod theme;
pub mod tui;
pub mod view;
pub mod widgets;

use std::process::ExitCode;
use std::time::Duration;

use color_eyre::eyre::Result;
use crossterm::event::Event;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use self::app::{App, Settings};
use self::message::Message;
use self::runtime::Runtime;
use crate::cache::Cache;
use crate::config::Target;
use crate::connect::{Context, Selection};

/// The settings the resolved profile asks for, plus warnings about the key bindings.
pub fn settings(context: &Context) -> (Settings, Vec<String>) {
    let resolved = &context.resolved;
    let (keymap, warnings) = keymap::KeyMap::new(&resolved.keys);
    let service = match &resolved.target {
        Target::Embedded => "embedded local service".to_string(),
        Target::Remote { base_url } => base_url.clone(),
    };
    let settings = Settings {
        keymap,
        theme: theme::Theme::from_env(&resolved.theme),
        poll_interval: resolved.poll_interval,
        read_only: resolved.read_only,
        service,
        profile: profile_label(resolved),
        key_source: resolved.key_source.as_ref().map(ToString::to_string),
    };
    (settings, warnings)
}

/// The profile as the header names it: `--base-url` when the flag points the local profile
/// at another service (its name would be untrue there).
fn profile_label(resolved: &crate::config::Resolved) -> String {
    match (&resolved.target, resolved.profile.as_str()) {
        (Target::Remote { .. }, crate::config::LOCAL_PROFILE) => "--base-url".to_string(),
        _ => resolved.profile.clone(),
    }
}

/// Runs the console until the user quits; `switchboard` with no subcommand.
pub async fn run(selection: &Selection) -> Result<ExitCode> {
    let context = Context::load(selection)?;
    let (settings, key_warnings) = settings(&context);
    let identity = context.service_identity();
    let (cache, cache_warning) = Cache::load(&context.paths.cache_dir, &context.resolved.profile, &identity);
    let poll = settings.poll_interval;
    let mut app = App::new(settings, Some(cache), jiff::Timestamp::now());
    for warning in context.resolved.warnings.iter().chain(&key_warnings).chain(&cache_warning) {
        app.toast(message::Level::Error, warning.clone());
    }

    let (tx, rx) = unbounded_channel();
    let terminal = tui::enter()?;
    let gate = editor::InputGate::new();
    spawn_input(tx.clone(), gate.clone());
    spawn_timers(tx.clone(), poll);
    // Connecting (and starting the embedded service) runs beside the first frame.
    let (connected_tx, connecting) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _ = connected_tx.send(context.connect().await);
    });

    let mut runtime = Runtime::new(app, (tx, rx), terminal, gate, connecting);
    runtime.draw()?;
    test_hooks::panic_if_asked();
    let (mut app, embedded) = runtime.run().await?;

    tui::restore();
    app.remember_place();
    save(&app);
    if let Some(running) = embedded {
        let _ = tokio::time::timeout(Duration::from_secs(5), running.shutdown()).await;
    }
    Ok(ExitCode::SUCCESS)
}

fn save(app: &App) {
    if let Some(cache) = &app.cache
        && let Err(error) = cache.save()
    {
        tracing::warn!("cache not saved: {error}");
    }
}

/// Hooks the end-to-end tests use, outside the loop and only in debug builds.
mod test_hooks {
    /// With `SWITCHBOARD_TEST_PANIC` set, panics once the first frame is drawn, so a test can
    /// prove the terminal is restored before the panic is reported.
    #[cfg(debug_assertions)]
    pub fn panic_if_asked() {
        if std::env::var_os("SWITCHBOARD_TEST_PANIC").is_some() {
            panic!("forced panic: SWITCHBOARD_TEST_PANIC is set");
        }
    }

    #[cfg(not(debug_assertions))]
    pub fn panic_if_asked() {}
}

/// Terminal input on its own thread: crossterm's read blocks, so the thread polls and stops
/// reading while the editor has the terminal.
fn spawn_input(tx: UnboundedSender<Message>, gate: std::sync::Arc<editor::InputGate>) {
    std::thread::spawn(move || {
        loop {
            if gate.hold() {
                std::thread::sleep(editor::INPUT_POLL);
                continue;
            }
            match crossterm::event::poll(editor::INPUT_POLL) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => {
                    let _ = tx.send(Message::Terminate);
                    break;
                }
            }
            let message = match crossterm::event::read() {
                Ok(Event::Key(key)) => Message::Key(key),
                Ok(Event::Paste(text)) => Message::Paste(text),
                Ok(Event::Resize(w, h)) => Message::Resize(w, h),
                Ok(_) => continue,
                Err(_) => Message::Terminate,
            };
            let end = matches!(message, Message::Terminate);
            if tx.send(message).is_err() || end {
                break;
            }
        }
    });
}

/// The poll timer and the signals that end the console.
fn spawn_timers(tx: UnboundedSender<Message>, poll: Duration) {
    let ticks = tx.clone();
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(poll.max(Duration::from_millis(100)));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            interval.tick().await;
            if ticks.send(Message::Tick).is_err() {
                break;
            }
        }
    });
    #[cfg(unix)]
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup)) = (signal(SignalKind::terminate()), signal(SignalKind::hangup())) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = hup.recv() => {}
        }
        let _ = tx.send(Message::Terminate);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Overrides};

    #[test]
    fn the_header_never_calls_another_service_local() {
        let config = Config::default();
        let local = config.resolve(&Overrides::default()).unwrap();
        assert_eq!(profile_label(&local), "local");
        let elsewhere = Overrides {
            base_url: Some("https://api.example.test".into()),
            api_key: Some(crate::api::ApiKey::new("sk-test")),
            ..Overrides::default()
        };
        assert_eq!(profile_label(&config.resolve(&elsewhere).unwrap()), "--base-url");
    }
}
