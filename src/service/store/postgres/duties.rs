//! The deployment's one-runner duties (`replica::duties`): one replica at a time holds a
//! session-level advisory lock on a connection of its own, and while it holds it runs the
//! duties that need one runner (publishing events, sending webhooks, the alert engine's ticks,
//! folding ends). The lock frees when its connection drops — its replica stopped, died or lost
//! the database — and another replica's next try takes it.
//!
//! A holder cut off from the database without a word (a network partition, a failover) cannot
//! tell at once that the server dropped its session, and so its lock: it believes it holds the
//! duties only for `GIVE_UP` after it sent the last check the server answered, and a replica
//! that takes the lock starts them only `TAKE_OVER_AFTER` later. The arithmetic: the holder's
//! last answered check was sent at `q`; the server answered it, so the session (and the lock)
//! still lived then, and the taker's lock is granted at some `a > q`. The holder stops at
//! `q + GIVE_UP < a + GIVE_UP < a + TAKE_OVER_AFTER`, when the taker starts: never both.
//! (Both count on their own monotonic clocks; `MARGIN` covers their drift and the taker's
//! learning of `a` after it.) A duty step the holder began before `q + GIVE_UP` may still be
//! finishing: each is safe on two replicas, and a cut-off holder's writes fail anyway.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::Client;

use super::watched::reconnect;

use crate::service::store::rounds::guarded;

/// The duties' advisory lock (one key: apart from the picks' two-key locks).
pub(in crate::service::store) const LOCK: i64 = 0x5b_d0_7e_55;

/// How often a replica without the duties tries to take them, and the holder checks that its
/// connection (and so its lock) is still there. Kept apart from `replica::duties::LOOK_AGAIN`
/// (the same second): this paces round trips, that how stale an engine's cheap read may be.
pub(in crate::service::store) const TRY_EVERY: Duration = Duration::from_secs(1);

/// How long after sending its last answered check the holder still runs the duties: a check
/// each `TRY_EVERY` leaves two more seconds for answers slowed by load before it pauses them.
pub(in crate::service::store) const GIVE_UP: Duration = Duration::from_secs(3);

/// Clock drift and the taker's learning of its grant, on top of `GIVE_UP` (see the top).
const MARGIN: Duration = Duration::from_secs(1);

/// How long a replica that took the lock waits before it runs the duties: a holder cut off
/// has given them up by then.
pub(in crate::service::store) const TAKE_OVER_AFTER: Duration = GIVE_UP.saturating_add(MARGIN);

/// Whether this replica holds the duties now, as its duties thread last found.
#[derive(Default)]
pub(super) struct Held(Mutex<Option<Hold>>);

/// The lock this replica's session holds: since when, and when it last sent a check the
/// server answered.
#[derive(Clone, Copy, Debug)]
struct Hold {
    taken: Instant,
    checked: Instant,
}

impl Hold {
    /// Whether the duties run here at `now`: the wait for a cut-off holder is over and the
    /// last answered check is recent.
    fn runs_at(&self, now: Instant) -> bool {
        now >= self.taken + TAKE_OVER_AFTER && now < self.checked + GIVE_UP
    }
}

impl Held {
    /// Whether this replica runs the duties now.
    pub(super) fn now(&self) -> bool {
        self.hold().is_some_and(|hold| hold.runs_at(Instant::now()))
    }

    fn hold(&self) -> Option<Hold> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lock was taken by a check sent at `sent` and answered at `answered`, or a check
    /// sent then found it still held. A lock newly taken counts from the answer: the server
    /// granted it between the send and the answer, and a taker's wait starts no earlier.
    fn checked(&self, sent: Instant, answered: Instant) {
        let mut hold = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let taken = hold.map_or(answered, |h| h.taken);
        *hold = Some(Hold { taken, checked: sent });
    }

    /// The lock taken at this replica's start runs the duties at once. A replica whose lock is
    /// free at its start is nearly always alone (the first, or one restarted after its
    /// predecessor stopped): waiting `TAKE_OVER_AFTER` there delayed every start's events
    /// (a seeded database's among them) and folds by 4 s, to guard against a holder cut off in
    /// the last seconds, whose overlap costs only work done twice (each duty is safe on two).
    fn run_at_once(&self) {
        let mut hold = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = hold.as_mut() {
            h.taken = h.taken.checked_sub(TAKE_OVER_AFTER).unwrap_or(h.taken);
        }
    }

    fn lost(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Tries once for the duties (a replica that takes them at its start runs them at once:
/// `Held::run_at_once`), then keeps trying (or holding) on a thread of its own until `stopping`.
pub(super) fn spawn(config: postgres::Config, held: Arc<Held>, stopping: Arc<AtomicBool>) -> std::io::Result<()> {
    let config = super::watched::watched(config, GIVE_UP);
    // This replica's duties sessions: one given up on is ended by the next (`watched::reconnect`).
    let mut sessions = Vec::new();
    let mut client = reconnect(&config, &mut sessions, "duties");
    if let Some(c) = client.as_mut() {
        check(c, &held).unwrap_or_else(|_| held.lost());
        held.run_at_once();
    }
    std::thread::Builder::new().name("replica-duties".into()).spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            std::thread::sleep(TRY_EVERY);
            let Some(c) = client.as_mut().filter(|c| !c.is_closed()) else {
                held.lost();
                client = reconnect(&config, &mut sessions, "duties");
                continue;
            };
            // Given up on any failure, a panic too: the lock goes with the dropped connection.
            let checked = guarded("the duties' check", || check(c, &held));
            if let Some(Err(e)) = &checked {
                tracing::warn!("store: the duties' connection: {e}; reconnecting");
            }
            if !matches!(checked, Some(Ok(()))) {
                held.lost();
                client = None;
            }
        }
        // Dropping the connection frees the lock for another replica at once.
        held.lost();
    })?;
    Ok(())
}

/// Takes the lock, or checks it is still held (it goes only with the session, so a holder's
/// answered round trip is enough), and notes the answer.
fn check(client: &mut Client, held: &Held) -> Result<(), postgres::Error> {
    let sent = Instant::now();
    let holds = match held.hold() {
        Some(_) => client.simple_query("").map(|_| true)?,
        None => client.query_one("SELECT pg_try_advisory_lock($1)", &[&LOCK])?.get(0),
    };
    if holds {
        held.checked(sent, Instant::now());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taker_runs_the_duties_only_after_a_cut_off_holder_gave_them_up() {
        let granted = Instant::now();
        // The holder's last answered check was sent before the server granted the taker.
        let holder = Hold { taken: granted - Duration::from_secs(60), checked: granted - Duration::from_millis(1) };
        let taker = Hold { taken: granted, checked: granted };
        assert!(holder.runs_at(granted), "the holder runs them until it has heard nothing for a while");
        assert!(!taker.runs_at(granted), "the taker waits");
        let holder_stops = (0..100)
            .map(|tenth| granted + Duration::from_millis(tenth * 100))
            .find(|at| !holder.runs_at(*at))
            .unwrap_or_else(|| panic!("the holder never gave up"));
        let fresh = |at: Instant| Hold { checked: at, ..taker };
        let taker_starts = (0..100)
            .map(|tenth| granted + Duration::from_millis(tenth * 100))
            .find(|at| fresh(*at).runs_at(*at))
            .unwrap_or_else(|| panic!("the taker never started"));
        assert!(holder_stops < taker_starts, "never both: {holder_stops:?} vs {taker_starts:?}");
    }

    #[test]
    fn a_holder_whose_checks_go_unanswered_stops_running_the_duties() {
        let held = Held::default();
        let start = Instant::now() - TAKE_OVER_AFTER - Duration::from_secs(1);
        held.checked(start, start);
        assert!(!held.now(), "a check sent long ago and none answered since");
        let now = Instant::now();
        held.checked(now, now);
        assert!(held.now(), "an answered check, long after the lock was taken");
        held.lost();
        assert!(!held.now());
    }
}
