//! Drives the console's `App` against a real seeded local service: keys go in through
//! `update`, effects are performed with a real client until none are left, and the screen
//! is rendered on a `TestBackend`.
#![allow(dead_code, reason = "not every journey uses every helper")]

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::api::Client;
use switchboard::console::app::{App, Settings};
use switchboard::console::keymap::{KeyMap, parse_key};
use switchboard::console::message::{Effect, Message};
use switchboard::console::{tasks, theme::Theme, view};

use crate::support::{self, Service};

/// The instant every test's clock reads, so "ago" columns are stable in snapshots.
pub const NOW: &str = "2026-11-21T12:00:00Z";

pub struct Harness {
    pub app: App,
    pub service: Service,
    pub client: Client,
    /// Effects performed so far, for asserting on copies and saves.
    pub performed: Vec<Effect>,
}

pub fn settings() -> Settings {
    Settings {
        keymap: KeyMap::default(),
        theme: Theme::new("default", false),
        poll_interval: Duration::from_secs(1),
        read_only: false,
        service: "local test service".into(),
        profile: "local".into(),
        key_source: None,
    }
}

pub fn now() -> jiff::Timestamp {
    NOW.parse().unwrap()
}

impl Harness {
    /// The console on a freshly seeded service, first screen loaded.
    pub async fn seeded() -> Harness {
        let service = support::start(true).await;
        Harness::on(service, None).await
    }

    /// The console on a freshly seeded service whose simulated calls run `factor` times faster
    /// than real time (the suite's default is 200×): slow enough that a run is still going
    /// when the test looks.
    pub async fn seeded_at(factor: f64) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let options = switchboard::service::Options {
            sim_speed: switchboard::service::SimSpeed::Factor(factor),
            ..support::options(dir.path(), true)
        };
        Harness::on(support::start_with(options, dir).await, None).await
    }

    pub async fn on(service: Service, cache: Option<switchboard::cache::Cache>) -> Harness {
        let client = service.client.clone();
        let app = App::new(settings(), cache, now());
        let mut harness = Harness { app, service, client, performed: Vec::new() };
        harness.settle().await;
        harness
    }

    /// Performs effects (and the messages they produce) until there are none left.
    pub async fn settle(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let effects = std::mem::take(&mut self.app.effects);
            if effects.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "effects did not settle: {effects:?}");
            for effect in effects {
                if let Effect::Fetch(request) = &effect {
                    let result = tasks::perform(&self.client, request).await;
                    self.app.update(Message::Fetched { request: request.clone(), result: Box::new(result) });
                }
                if let Effect::Write(write) = &effect {
                    let result = tasks::write(&self.client, write).await;
                    self.app.update(Message::Written { write: write.clone(), result: Box::new(result) });
                }
                self.performed.push(effect);
            }
        }
    }

    /// Presses one key by its config name ("j", "enter", "ctrl-c", "shift-tab") and settles.
    pub async fn key(&mut self, key: &str) {
        let event = parse_key(key).unwrap_or_else(|| panic!("{key:?} is not a key"));
        self.app.update(Message::Key(event));
        self.settle().await;
    }

    pub async fn keys(&mut self, keys: &[&str]) {
        for key in keys {
            self.key(key).await;
        }
    }

    /// Types text into whatever prompt is open.
    pub async fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let key = if c == ' ' { "space".to_string() } else { c.to_string() };
            self.key(&key).await;
        }
    }

    /// A poll tick at the fixed clock, then settle.
    pub async fn tick(&mut self) {
        self.app.tick(now());
        self.settle().await;
    }

    /// Ticks until `done` holds, or fails after `timeout` with the screen.
    pub async fn wait_until(&mut self, what: &str, timeout: Duration, done: impl Fn(&App) -> bool) {
        let deadline = Instant::now() + timeout;
        while !done(&self.app) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}:\n{}", self.render(160, 48));
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.tick().await;
        }
    }

    /// The screen at `width`×`height` as text, one line per row.
    pub fn render(&self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|frame| view::draw(frame, &self.app)).unwrap();
        screen(terminal.backend())
    }
}

/// A TestBackend's buffer as plain text, trailing spaces trimmed.
pub fn screen(backend: &TestBackend) -> String {
    let buffer = backend.buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..buffer.area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buffer[(x, y)].symbol();
            skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
            line.push_str(symbol);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Snapshot filters: ids and times that differ from run to run.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "[uuid]"),
        // An id cut to its first eight digits where room is short.
        (r"\b[0-9a-f]{8}…", "[id]…"),
        (r"\b20\d\d-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?", "[time]"),
    ]
}

/// Asserts a snapshot of the screen with run-to-run noise filtered out.
#[macro_export]
macro_rules! assert_screen {
    ($name:expr, $screen:expr) => {
        insta::with_settings!({ filters => $crate::harness::filters(), snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $screen);
        });
    };
}
