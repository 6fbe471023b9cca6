//! The terminal console: one message queue (keys, HTTP results, timers), `update` changes
//! state and asks for effects, views draw state, and the loop draws only when something
//! changed and the queue is empty.

pub mod app;
pub mod editor;
pub mod flow_graph;
pub mod keymap;
pub mod marks;
pub mod message;
pub mod pane;
pub mod panes;
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
use self::message::{Effect, FailureKind, FetchError, Message, Request, Write, WriteError};
use crate::api::Client;
use crate::cache::Cache;
use crate::config::Target;
use crate::connect::{Context, Selection};

/// The least time between two writes of the cache while the console runs (it is written on
/// quit whatever the time).
const CACHE_SAVE_EVERY: Duration = Duration::from_secs(5);

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
        app.toast(pane::Level::Error, warning.clone());
    }

    let (tx, mut rx) = unbounded_channel();
    let mut terminal = tui::enter()?;
    let gate = editor::InputGate::new();
    spawn_input(tx.clone(), gate.clone());
    spawn_timers(tx.clone(), poll);

    // Connecting (and starting the embedded service) runs beside the first frame.
    let (client_tx, client_rx) = tokio::sync::oneshot::channel();
    // Taken once it answers: a spent receiver must not be polled again.
    let mut client_rx = Some(client_rx);
    tokio::spawn(async move {
        let _ = client_tx.send(context.connect().await);
    });
    let mut client: Option<Client> = None;
    let mut embedded = None;
    let mut waiting: Vec<Request> = Vec::new();
    let mut cache_dirty = false;
    let mut cache_saved = std::time::Instant::now();
    let mut dirty = true;
    // The event stream the open view watches, if any (one at a time).
    let mut watcher: Option<tokio::task::JoinHandle<()>> = None;
    let mut watching: Option<crate::api::model::EventQuery> = None;
    let force_panic = std::env::var_os("SWITCHBOARD_TEST_PANIC").is_some();

    loop {
        for effect in std::mem::take(&mut app.effects) {
            match effect {
                Effect::Fetch(request) => match &client {
                    Some(client) => spawn_fetch(client.clone(), request, tx.clone()),
                    None => waiting.push(request),
                },
                Effect::Write(write) => match &client {
                    Some(client) => spawn_write(client.clone(), write, tx.clone()),
                    None => {
                        let error = WriteError {
                            missing_route: false,
                            unreachable: true,
                            forbidden: false,
                            message: "not connected yet".into(),
                            fields: vec![],
                        };
                        let _ = tx.send(Message::Written { write, result: Box::new(Err(error)) });
                    }
                },
                Effect::ReconnectAfter(after) => {
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(after).await;
                        let _ = tx.send(Message::Reconnect);
                    });
                }
                Effect::Copy(text) => tui::copy(&text),
                Effect::Edit(edit) => {
                    let result = hand_over(&mut terminal, &gate, edit.text.clone()).await;
                    let _ = tx.send(Message::Edited { edit, result });
                    dirty = true;
                }
                Effect::SaveCache => cache_dirty = true,
                // The app applies marks to its cache itself; none reach the runtime.
                Effect::SetMark(..) => {}
                Effect::Watch(query) => {
                    if let Some(task) = watcher.take() {
                        task.abort();
                    }
                    watching = query;
                    if let (Some(query), Some(client)) = (&watching, &client) {
                        watcher = Some(tokio::spawn(tasks::watch(client.clone(), query.clone(), tx.clone())));
                    }
                }
            }
        }
        if app.quit {
            break;
        }
        if dirty {
            terminal.draw(|frame| view::draw(frame, &app))?;
            dirty = false;
            // Lets the end-to-end tests prove the terminal is restored after a panic.
            if force_panic {
                panic!("forced panic: SWITCHBOARD_TEST_PANIC is set");
            }
        }
        let message = tokio::select! {
            message = rx.recv() => match message { Some(m) => m, None => break },
            connected = async {
                match client_rx.as_mut() {
                    Some(rx) => rx.await,
                    None => std::future::pending().await,
                }
            }, if client_rx.is_some() => {
                client_rx = None;
                match connected {
                    Ok(Ok((connected, running))) => {
                        if let Some(running) = &running {
                            app.settings.service = format!("embedded {}", running.addr);
                        }
                        for request in waiting.drain(..) {
                            spawn_fetch(connected.clone(), request, tx.clone());
                        }
                        if let Some(query) = &watching {
                            watcher = Some(tokio::spawn(tasks::watch(connected.clone(), query.clone(), tx.clone())));
                        }
                        client = Some(connected);
                        embedded = running;
                        dirty = true;
                        continue;
                    }
                    Ok(Err(error)) => Message::Fetched {
                        request: Request::Health,
                        result: Box::new(Err(FetchError { kind: FailureKind::Other, message: format!("{error:#}") })),
                    },
                    Err(_) => break,
                }
            }
        };
        // The cache is written at most every few seconds, and off this task: a list that
        // refreshes itself must not cost a disk sync per poll on the thread that draws.
        if matches!(message, Message::Tick) && cache_dirty && cache_saved.elapsed() >= CACHE_SAVE_EVERY {
            if let Some(cache) = &app.cache {
                let snapshot = cache.snapshot();
                tokio::task::spawn_blocking(move || {
                    if let Err(error) = snapshot.write() {
                        tracing::warn!("cache not saved: {error}");
                    }
                });
            }
            cache_dirty = false;
            cache_saved = std::time::Instant::now();
        }
        dirty |= app.update(message);
        while let Ok(message) = rx.try_recv() {
            dirty |= app.update(message);
        }
    }

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

fn spawn_fetch(client: Client, request: Request, tx: UnboundedSender<Message>) {
    tokio::spawn(async move {
        let result = tasks::perform(&client, &request).await;
        if let Err(error) = &result {
            tracing::debug!(?request, "request failed: {}", error.message);
        }
        let _ = tx.send(Message::Fetched { request, result: Box::new(result) });
    });
}

fn spawn_write(client: Client, write: Write, tx: UnboundedSender<Message>) {
    tokio::spawn(async move {
        let result = tasks::write(&client, &write).await;
        let _ = tx.send(Message::Written { write, result: Box::new(result) });
    });
}

/// Gives the terminal to the editor on `text` and takes it back: the input thread parks
/// first (so the editor gets every key), and the terminal is set up again however the editor
/// ended.
async fn hand_over(terminal: &mut tui::Tui, gate: &editor::InputGate, text: String) -> Result<String, String> {
    if !gate.pause().await {
        gate.resume();
        return Err("the console could not hand the terminal over; try again".into());
    }
    tui::restore();
    let edited = tokio::task::spawn_blocking(move || editor::edit(&text))
        .await
        .unwrap_or_else(|e| Err(format!("the editor task failed: {e}")));
    let resumed = tui::resume(terminal);
    gate.resume();
    resumed.map_err(|e| format!("cannot take the terminal back: {e}"))?;
    edited
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
