//! The console's state and `update`: the only place state changes. Messages come in, effects
//! go out (drained by the runtime or by a test harness), and views draw what is here.

use std::collections::VecDeque;
use std::time::Duration;

mod call;
mod connection;
mod edit;
mod keys;
mod lookup;
mod prompt;
mod refresh;

pub use connection::Connection;
pub use prompt::{ALIASES, Prompt, completions};

use super::keymap::KeyMap;
use super::marks::{Collecting, Marks};
use super::message::{Effect, FailureKind, Fetched, Level, Message, Request, Write, WriteError, Written};
use super::out::Out;
use super::pane::Pane;
use super::panes;
use super::tab::Tab;
use super::theme::Theme;
use super::widgets::conversation::ConversationView;
use super::widgets::modal::Modal;
use crate::cache::Cache;

/// How the console is set up: from config and flags.
#[derive(Debug, Clone)]
pub struct Settings {
    pub keymap: KeyMap,
    pub theme: Theme,
    pub poll_interval: Duration,
    pub read_only: bool,
    /// What the header says the service is ("embedded 127.0.0.1:41234" or the base URL).
    pub service: String,
    /// The profile's name, or `--base-url` when the flag names a service no profile does.
    pub profile: String,
    /// Where the API key came from, for the words of a rejection (never the key).
    pub key_source: Option<String>,
}

/// A short note in the corner; errors also go to the log.
#[derive(Debug, Clone)]
pub struct Toast {
    pub level: Level,
    pub text: String,
    pub until: jiff::Timestamp,
}

/// One line of the log pane.
#[derive(Debug, Clone)]
pub struct LogLine {
    pub at: jiff::Timestamp,
    pub level: Level,
    pub text: String,
}

/// A window over the pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help,
    Raw { title: String, text: String, scroll: u16, source: RawSource },
    Log { scroll: u16 },
}

/// Where the raw view's text came from.
#[derive(Debug, Clone, PartialEq)]
pub enum RawSource {
    /// Re-encoded from the decoded item: members this build does not know are missing.
    Decoded,
    /// Shown as decoded while `GET path` is out.
    Loading(String),
    /// As the service sent it at this path.
    Sent(String),
    /// The `GET` failed (the message); shown as decoded.
    Failed(String),
}

/// Where the user was when the console last quit: the tab and the row selected there.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Place {
    tab: usize,
    selected: Option<String>,
}

/// The cache mark that keeps the `Place`.
const PLACE: &str = "place";

const TOAST_FOR: i64 = 5;
const LOG_KEEP: usize = 500;

pub struct App {
    pub settings: Settings,
    /// One pane per tab, in the order of `Tab::ALL`.
    pub panes: Vec<Box<dyn Pane>>,
    pub tab: Tab,
    pub connection: Connection,
    /// When the service last answered anything (for the heartbeat).
    last_heard: jiff::Timestamp,
    /// Whether the service has answered health once in this session: until then a lost
    /// connection is "cannot reach", not "disconnected".
    pub ever_connected: bool,
    /// How many items of each list could not be read, as last said (so a poll does not repeat it).
    unreadable_noted: std::collections::HashMap<super::message::ListKind, usize>,
    pub now: jiff::Timestamp,
    pub toasts: Vec<Toast>,
    pub log: VecDeque<LogLine>,
    pub overlay: Option<Overlay>,
    pub prompt: Option<Prompt>,
    pub cache: Option<Cache>,
    pub quit: bool,
    /// Requests sent and not yet answered, so a slow service is not asked twice.
    pub in_flight: Vec<Request>,
    /// Writes sent and not yet answered: an identical write is never sent twice.
    pub writes_in_flight: Vec<super::message::Write>,
    /// Effects for the runtime to perform.
    pub effects: Vec<Effect>,
    /// The event stream the runtime watches for the pane on screen.
    pub watching: Option<crate::api::model::EventQuery>,
    /// Marked calls and chats (space), across tabs.
    pub marks: Marks,
    /// The app's own form (file an issue, start a collection job), over any tab.
    pub modal: Modal,
    /// A call opened over the tab (`:call ID`, a sample's source call), until Esc.
    pub call: Option<ConversationView>,
    /// `C` waits for the policies and metrics its form offers.
    pub collecting: Option<Collecting>,
    /// When each list on screen is next asked for again.
    auto_refresh: refresh::AutoRefresh,
    /// What `:plan NAME` and the like can name: the lists read so far.
    known: lookup::Known,
}

impl App {
    /// The console on `settings`, showing the cache's lists (stale) and asking for fresh ones.
    pub fn new(settings: Settings, cache: Option<Cache>, now: jiff::Timestamp) -> App {
        let mut app = App {
            panes: panes::all(settings.poll_interval),
            settings,
            tab: Tab::Plans,
            connection: Connection::Connecting,
            last_heard: now,
            ever_connected: false,
            unreadable_noted: std::collections::HashMap::new(),
            now,
            toasts: Vec::new(),
            log: VecDeque::new(),
            overlay: None,
            prompt: None,
            cache,
            quit: false,
            in_flight: Vec::new(),
            writes_in_flight: Vec::new(),
            watching: None,
            effects: Vec::new(),
            marks: Marks::default(),
            modal: Modal::default(),
            call: None,
            collecting: None,
            auto_refresh: refresh::AutoRefresh::default(),
            known: lookup::Known::default(),
        };
        if let Some(cache) = &app.cache {
            for pane in &mut app.panes {
                pane.restore(cache);
            }
            for kind in super::message::ListKind::ALL {
                if let Some((listing, _)) = kind.from_cache(cache) {
                    app.known.learn(&listing);
                }
            }
        }
        app.request(Request::Health);
        let place = app.cache.as_ref().and_then(|c| c.mark::<Place>(PLACE)).unwrap_or_default();
        app.show_tab(Tab::at(place.tab));
        if let Some(id) = &place.selected {
            app.panes[app.tab.index()].reselect(id);
        }
        app
    }

    /// Keeps the tab and the selected row for the next launch (on quit).
    pub fn remember_place(&mut self) {
        let place = Place { tab: self.tab.index(), selected: self.pane().listed() };
        if let Some(cache) = &mut self.cache {
            cache.set_mark(PLACE, &place);
        }
    }

    /// Whether anything from an earlier session is on screen to fall back on.
    pub fn has_cached_data(&self) -> bool {
        self.cache.as_ref().is_some_and(|cache| !cache.is_empty())
    }

    pub fn pane(&self) -> &dyn Pane {
        self.panes[self.tab.index()].as_ref()
    }

    /// Applies one message; true when the screen must be drawn again.
    pub fn update(&mut self, message: Message) -> bool {
        let dirty = self.apply_message(message);
        self.keep_watch();
        dirty
    }

    /// Keeps the runtime's event watch on what the pane on screen wants, while connected.
    fn keep_watch(&mut self) {
        let wanted = match self.connection {
            Connection::Connected(_) => self.panes[self.tab.index()].watching(),
            _ => None,
        };
        if wanted != self.watching {
            self.watching = wanted.clone();
            self.effects.push(Effect::Watch(wanted));
        }
    }

    fn apply_message(&mut self, message: Message) -> bool {
        match message {
            Message::Key(key) => self.key(key),
            Message::Paste(text) => self.paste(&text),
            Message::Resize(..) => true,
            Message::Tick => self.tick(jiff::Timestamp::now()),
            Message::Reconnect => {
                self.request(Request::Health);
                false
            }
            Message::Fetched { request, result } => self.fetched(request, *result),
            Message::Written { write, result } => self.written(write, *result),
            Message::Events(events) => {
                let mut out = Out::default();
                let changed = self.panes[self.tab.index()].events(&events, &mut out);
                self.apply(out);
                changed
            }
            Message::Edited { edit, result } => self.edited(*edit, result),
            Message::Terminate => {
                self.quit = true;
                true
            }
        }
    }

    /// The poll timer at `now`: expire toasts and let panes poll.
    pub fn tick(&mut self, now: jiff::Timestamp) -> bool {
        self.now = now;
        let before = self.toasts.len();
        self.toasts.retain(|t| t.until > now);
        let mut dirty = before != self.toasts.len();
        self.heartbeat();
        if matches!(self.connection, Connection::Connected(_)) {
            let mut out = Out::default();
            dirty |= self.panes[self.tab.index()].tick(now, &mut out);
            self.apply(out);
            // The lists on screen are asked for again when due (never twice at once: `request`).
            if self.call.is_none() && !self.modal.is_open() {
                for kind in self.panes[self.tab.index()].visible_lists() {
                    if self.auto_refresh.due(kind) {
                        self.request(Request::List(kind));
                    }
                }
            }
        }
        dirty
    }

    fn request(&mut self, request: Request) {
        if !self.in_flight.contains(&request) {
            self.in_flight.push(request.clone());
            self.effects.push(Effect::Fetch(request));
        }
    }

    fn apply(&mut self, out: Out) {
        self.modal.adopt(out.modal);
        if let Some(call) = out.call {
            self.open_call(call);
        }
        for effect in out.effects {
            match effect {
                Effect::Fetch(request) => self.request(request),
                Effect::Write(_) if self.settings.read_only => {
                    self.toast(Level::Error, "read-only: writes are off (--read-only or the profile)".into())
                }
                Effect::Write(write) => {
                    if !self.writes_in_flight.contains(&write) {
                        self.writes_in_flight.push(write.clone());
                        self.effects.push(Effect::Write(write));
                    }
                }
                Effect::SetMark(key, value) => {
                    if let Some(cache) = &mut self.cache {
                        cache.set_mark(&key, &value);
                        self.effects.push(Effect::SaveCache);
                    }
                }
                other => self.effects.push(other),
            }
        }
        for (level, text) in out.toasts {
            self.toast(level, text);
        }
        if let Some(tab) = out.goto {
            self.show_tab(tab);
            if let Some(id) = out.open {
                let mut opened = Out::default();
                self.panes[self.tab.index()].open_by_id(&id, &mut opened);
                self.apply(opened);
            }
        }
    }

    pub fn toast(&mut self, level: Level, text: String) {
        if level == Level::Error {
            tracing::warn!("{text}");
        }
        self.log.push_back(LogLine { at: self.now, level, text: text.clone() });
        while self.log.len() > LOG_KEEP {
            self.log.pop_front();
        }
        self.toasts.retain(|t| t.text != text);
        self.toasts.push(Toast { level, text, until: self.now + jiff::SignedDuration::from_secs(TOAST_FOR) });
        if self.toasts.len() > 3 {
            self.toasts.remove(0);
        }
    }

    fn show_tab(&mut self, tab: Tab) {
        self.tab = tab;
        self.overlay = None;
        self.call = None;
        let mut out = Out::default();
        self.panes[self.tab.index()].show(&mut out);
        self.apply(out);
    }

    fn fetched(&mut self, request: Request, result: Result<Fetched, super::message::FetchError>) -> bool {
        self.in_flight.retain(|r| r != &request);
        if result.is_ok() {
            self.heard();
            // Any answer proves the service is back: ask health now rather than at the backoff.
            if request != Request::Health && matches!(self.connection, Connection::Disconnected { .. }) {
                self.request(Request::Health);
            }
        }
        match (&request, &result) {
            (Request::Health, Ok(Fetched::Health(health))) => {
                self.health_answered(health);
                return true;
            }
            (_, Err(error)) if error.kind == FailureKind::Unreachable => {
                self.disconnected(&error.message);
            }
            // A failed health check (a 502 from a proxy whose service died, a 503, a body that
            // does not read) means the service is not usable: say so and keep asking.
            (Request::Health, Err(error)) if error.kind == FailureKind::Other => {
                self.disconnected(&error.message);
            }
            (_, Err(error)) if error.kind == FailureKind::Rejected => {
                self.heard();
                self.rejected(401, &error.message);
            }
            (Request::List(_) | Request::Health, Err(error)) if error.kind != FailureKind::NotFound => {
                self.toast(Level::Error, error.message.clone());
            }
            // A service without labels (a local extension): the metrics pane shows the local
            // cache's, marked as such; nothing to say at every visit.
            (Request::Annotations, Err(error)) if error.kind == FailureKind::NotFound => {}
            // An alert an issue names that this service does not hold (a hand-filed issue, a
            // deleted alert): the issue says so in its words.
            (Request::Item(super::message::ListKind::Alerts, _), Err(error)) if error.kind == FailureKind::NotFound => {
            }
            // The open call's own absence is said in its words (`call_fetched`).
            (_, Err(error)) if !matches!(request, Request::List(_)) && !self.is_missing_call(&request, &result) => {
                self.toast(Level::Error, error.message.clone());
            }
            (_, Ok(Fetched::List(listing, unreadable))) => {
                self.known.learn(listing);
                self.auto_refresh.fetched(listing.kind(), listing.len());
                self.unreadable(listing.kind(), unreadable);
                if let Some(cache) = &mut self.cache {
                    listing.store(cache);
                    self.effects.push(Effect::SaveCache);
                }
            }
            (_, Ok(Fetched::BenchmarkSuites(suites))) => {
                if let Some(cache) = &mut self.cache {
                    cache.put_list(super::message::SUITES_CACHE_KEY, suites);
                    self.effects.push(Effect::SaveCache);
                }
            }
            _ => {}
        }
        if let (Request::Raw(path), Some(Overlay::Raw { text, source, .. })) = (&request, &mut self.overlay)
            && *source == RawSource::Loading(path.clone())
        {
            match &result {
                Ok(Fetched::Raw(body)) => {
                    *text = serde_json::to_string_pretty(body).unwrap_or_default();
                    *source = RawSource::Sent(path.clone());
                }
                Err(error) => *source = RawSource::Failed(error.message.clone()),
                Ok(_) => {}
            }
            return true;
        }
        let mut out = Out::default();
        let mut dirty = self.call_fetched(&request, &result);
        if let Some(collecting) = &mut self.collecting
            && collecting.fetched(&request, &result)
            && let Some(collecting) = self.collecting.take()
        {
            collecting.open(&mut out.modal, &self.marks);
            dirty = true;
        }
        for pane in &mut self.panes {
            dirty |= pane.fetched(&request, &result, &mut out);
        }
        self.apply(out);
        dirty || result.is_err()
    }

    fn written(&mut self, write: super::message::Write, result: Result<Written, WriteError>) -> bool {
        self.writes_in_flight.retain(|w| w != &write);
        if self.annotation_written(&write, &result) {
            return true;
        }
        if matches!(write, Write::ConfigDiff(_) | Write::ConfigApply(_)) {
            self.modal.written(&write, &result);
            match &result {
                Err(error) if error.unreachable => self.disconnected(&error.message),
                Err(error) if error.forbidden => self.forbidden(write.label()),
                _ => {
                    self.config_written(&write, &result);
                }
            }
            return true;
        }
        match &result {
            Ok(_) => {}
            Err(error) if error.unreachable => self.disconnected(&error.message),
            Err(error) if error.forbidden => self.forbidden(write.label()),
            Err(error) => self.toast(Level::Error, format!("could not {}: {}", write.label(), error.message)),
        }
        let mut out = Out::default();
        if self.modal.written(&write, &result)
            && let (Write::CreateIssue(_), Ok(Written::Issue(issue))) = (&write, &result)
        {
            self.marks.clear();
            out.jump(Tab::Issues, issue.id);
        }
        for pane in &mut self.panes {
            pane.written(&write, &result, &mut out);
        }
        // One toast per write: the pane's own words on what it did, or these.
        if result.is_ok() && out.toasts.is_empty() {
            self.toast(Level::Info, format!("done: {}", write.label()));
        }
        self.apply(out);
        true
    }

    /// Items of a list that could not be read were left out: each reason goes to the log, and
    /// one note says how many (once per list, not at every poll).
    fn unreadable(&mut self, kind: super::message::ListKind, reasons: &[String]) {
        if reasons.is_empty() || self.unreadable_noted.get(&kind) == Some(&reasons.len()) {
            return;
        }
        self.unreadable_noted.insert(kind, reasons.len());
        for reason in reasons {
            tracing::warn!(list = kind.label(), "an item could not be read: {reason}");
            self.log.push_back(LogLine {
                at: self.now,
                level: Level::Error,
                text: format!("{}: an item could not be read: {reason}", kind.label()),
            });
        }
        let n = reasons.len();
        let items = if n == 1 { "item" } else { "items" };
        self.toast(Level::Error, format!("{n} {items} of {} could not be read; see the log (L)", kind.label()));
    }

    fn refresh_all(&mut self) {
        let mut out = Out::default();
        match &mut self.call {
            Some(call) => call.refresh(&mut out),
            None => self.panes[self.tab.index()].refresh(&mut out),
        }
        self.apply(out);
    }
}
