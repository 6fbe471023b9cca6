//! Alerts at work: one replica (the one holding the deployment's duties, `replica::duties`;
//! its windows' claims keep two from deciding one window) watches the enabled threshold
//! alerts, and decides each window once its end has passed and no call for it has arrived for
//! the quiet period, in window order (`window`); the rules are `threshold`'s, the issues they
//! open and resolve `issues`'s. A simulation trigger acts when a run ends (`simulation`); an
//! alert's webhooks and Slack channels are `actions`'.

pub mod actions;
pub mod issues;
pub mod simulation;
pub mod status;
pub mod threshold;
pub mod window;

use std::sync::Arc;
use std::time::Duration;

use crate::service::store::Store;
use crate::service::store::StoreResult;

/// How long a window waits after its end, and after its latest call, before it is decided.
pub const DEFAULT_QUIET: Duration = Duration::from_secs(10);

/// What tells the engine the time: the system's, or one a test holds back so that a window
/// waits for every call the test posts to it.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> jiff::Timestamp + Send + Sync>);

impl Clock {
    pub fn new(now: impl Fn() -> jiff::Timestamp + Send + Sync + 'static) -> Clock {
        Clock(Arc::new(now))
    }

    pub fn now(&self) -> jiff::Timestamp {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new(jiff::Timestamp::now)
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// The alert engine of one replica.
#[derive(Clone)]
pub struct Alerter {
    store: Store,
    quiet: Duration,
    clock: Clock,
}

impl Alerter {
    pub fn new(store: Store, quiet: Duration, clock: Clock) -> Alerter {
        Alerter { store, quiet, clock }
    }

    /// How often it looks: a tenth of the quiet period, between 50 ms and 1 s.
    fn tick_every(&self) -> Duration {
        (self.quiet / 10).clamp(Duration::from_millis(50), Duration::from_secs(1))
    }

    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                // The replica holding the deployment's duties ticks; the others stand by.
                if self.store.holds_duties()
                    && let Err(e) = self.tick().await
                {
                    tracing::error!("alert engine: {e}");
                }
                tokio::time::sleep(self.tick_every()).await;
            }
        })
    }

    /// Decides every window that is ready now; how many this replica decided.
    pub async fn tick(&self) -> StoreResult<usize> {
        let now = self.clock.now();
        let watched = self.store.read(window::watched).await?;
        let mut decided = 0;
        for alert in watched {
            decided += window::decide_ready(&self.store, &alert, now, self.quiet).await?;
        }
        Ok(decided)
    }
}
