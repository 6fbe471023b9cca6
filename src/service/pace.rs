//! A pace: the least time between two runs of a background task that many events wake (the
//! event publisher at every commit, the webhook sender at every published event). The wakes of
//! those milliseconds cost one run, and a wake after a quiet while runs at once: the wait counts
//! from the last run, not from the wake. Each task sleeps the rest in its own way (a thread,
//! or a tokio task), so the pace only tells how long.

use std::time::{Duration, Instant};

/// When a paced task last ran, and the least time between two runs.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    least: Duration,
    last: Option<Instant>,
}

impl Pace {
    /// A pace of `least` between runs; the first run waits for nothing.
    pub const fn new(least: Duration) -> Pace {
        Pace { least, last: None }
    }

    /// How long the next run must still wait: zero when the last began `least` ago or more.
    pub fn rest(&self) -> Duration {
        self.last.map_or(Duration::ZERO, |last| self.least.saturating_sub(last.elapsed()))
    }

    /// Notes that a run begins now.
    pub fn begin(&mut self) {
        self.last = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_waits_only_for_what_is_left_of_the_pace_since_the_last() {
        let hour = Duration::from_secs(3600);
        let mut pace = Pace::new(hour);
        assert_eq!(pace.rest(), Duration::ZERO, "the first run waits for nothing");
        pace.begin();
        let rest = pace.rest();
        assert!(rest > hour - Duration::from_secs(60) && rest <= hour, "just begun: about the whole pace, {rest:?}");
        let mut quick = Pace::new(Duration::ZERO);
        quick.begin();
        assert_eq!(quick.rest(), Duration::ZERO, "a pace of nothing never waits");
    }
}
