//! Whether the service answers, and what the header says until it does: a rejected key and a
//! lost service stay on screen (not in a fading toast) and clear by themselves once the service
//! answers again. Health is asked again on a backoff while either lasts, and on a heartbeat
//! while all is well, so a service that dies behind an idle view is noticed.

use std::time::Duration;

use super::App;
use crate::api::model::{Health, KeyScope};
use crate::console::message::{Effect, Level, Request};

/// Whether the service answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    Connecting,
    Connected(Health),
    /// Unreachable since `since`; the `attempt`-th retry is `retry_in` away.
    Disconnected {
        attempt: u32,
        retry_in: Duration,
        reason: String,
        since: jiff::Timestamp,
    },
    /// The service answers but refuses the key (401); health is asked again on a backoff.
    Rejected {
        status: u16,
        attempt: u32,
        reason: String,
    },
}

impl Connection {
    /// What the header says; `ever_connected` tells a lost service from one never reached.
    pub fn state(&self, ever_connected: bool) -> String {
        match self {
            Connection::Connecting => "connecting…".into(),
            Connection::Connected(health) if health.authenticated => format!("account {}", health.account),
            Connection::Connected(_) => "key not accepted".into(),
            Connection::Disconnected { since, .. } if ever_connected => format!("disconnected since {}", clock(*since)),
            Connection::Disconnected { .. } => "cannot reach the service".into(),
            Connection::Rejected { status, .. } => format!("key rejected ({status})"),
        }
    }

    pub fn is_up(&self) -> bool {
        matches!(self, Connection::Connected(h) if h.authenticated)
    }
}

/// `12:04:31`, in UTC like every time the console shows.
fn clock(at: jiff::Timestamp) -> String {
    at.strftime("%H:%M:%S").to_string()
}

/// Longest wait between tries while the service is down or refuses the key.
const RETRY_MAX: Duration = Duration::from_secs(15);

/// While all is well, health is asked when nothing has answered for this many poll intervals
/// (and at least this long), so a dead service is noticed behind any view.
const HEARTBEAT_POLLS: u32 = 5;
const HEARTBEAT_MIN: Duration = Duration::from_secs(5);

fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(500u64.saturating_mul(1 << attempt.min(5))).min(RETRY_MAX)
}

impl App {
    /// Health answered.
    pub(super) fn health_answered(&mut self, health: &Health) {
        let was_down = matches!(self.connection, Connection::Disconnected { .. } | Connection::Rejected { .. });
        if !health.authenticated {
            // The hosted health says `authenticated: false` where ours answers 401: the same.
            self.rejected(401, "the service did not accept the API key");
            return;
        }
        self.connection = Connection::Connected(health.clone());
        self.ever_connected = true;
        if health.scope == Some(KeyScope::Read) && !self.settings.read_only {
            self.settings.read_only = true;
            self.toast(Level::Info, "this key can only read (the service says so): writes are off".into());
        }
        if was_down && health.authenticated {
            self.toast(Level::Info, "reconnected".into());
            self.refresh_all();
        }
    }

    /// The service refused a write with 403: the key may read, not write. Writes are turned off
    /// rather than refused one by one.
    pub(super) fn forbidden(&mut self, what: &str) {
        if !self.settings.read_only {
            self.settings.read_only = true;
            let text = format!(
                "the service refused to {what} (403, permission denied): this key can only read, writes are off"
            );
            self.toast(Level::Error, text);
        }
    }

    /// A request could not reach the service.
    pub(super) fn disconnected(&mut self, reason: &str) {
        let (attempt, since) = match &self.connection {
            Connection::Disconnected { attempt, since, .. } => (attempt + 1, *since),
            _ => {
                self.toast(Level::Error, format!("disconnected: {reason}"));
                (1, self.now)
            }
        };
        let retry_in = backoff(attempt);
        self.connection = Connection::Disconnected { attempt, retry_in, reason: reason.to_string(), since };
        self.retry_after(retry_in);
    }

    /// The service refused the key (401).
    pub(super) fn rejected(&mut self, status: u16, reason: &str) {
        let attempt = match &self.connection {
            Connection::Rejected { attempt, .. } => attempt + 1,
            _ => {
                self.toast(Level::Error, format!("the service rejected the key ({status}): {reason}"));
                1
            }
        };
        self.connection = Connection::Rejected { status, attempt, reason: reason.to_string() };
        self.retry_after(backoff(attempt));
    }

    fn retry_after(&mut self, after: Duration) {
        if !self.effects.iter().any(|e| matches!(e, Effect::ReconnectAfter(_))) {
            self.effects.push(Effect::ReconnectAfter(after));
        }
    }

    /// Something answered: the heartbeat starts over.
    pub(super) fn heard(&mut self) {
        self.last_heard = self.now;
    }

    /// On the poll timer: ask for health when nothing has answered for a while.
    pub(super) fn heartbeat(&mut self) {
        let quiet = (self.settings.poll_interval * HEARTBEAT_POLLS).max(HEARTBEAT_MIN);
        let quiet = jiff::SignedDuration::try_from(quiet).unwrap_or(jiff::SignedDuration::from_secs(5));
        if self.connection.is_up() && self.now.duration_since(self.last_heard) >= quiet {
            self.request(Request::Health);
            self.last_heard = self.now;
        }
    }
}
