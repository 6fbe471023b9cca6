//! The deployment's one-runner duties (`replica::duties`): one replica at a time holds a
//! session-level advisory lock on a connection of its own, and while it holds it runs the
//! duties that need one runner (publishing events, sending webhooks, the alert engine's ticks,
//! folding ends). The lock frees when its connection drops — its replica stopped, died or lost
//! the database — and another replica's next try takes it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::{Client, NoTls};

/// The duties' advisory lock (one key: apart from the picks' two-key locks).
const LOCK: i64 = 0x5b_d0_7e_55;

/// How often a replica without the duties tries to take them, and the holder checks that its
/// connection (and so its lock) is still there.
pub(in crate::service::store) const TRY_EVERY: Duration = Duration::from_secs(1);

/// Tries once for the duties, so that a replica alone on its database holds them from its
/// start, then keeps trying (or holding) on a thread of its own until `stopping`. `held` says
/// whether this replica holds them now.
pub(super) fn spawn(config: postgres::Config, held: Arc<AtomicBool>, stopping: Arc<AtomicBool>) -> std::io::Result<()> {
    let mut client = config.connect(NoTls).ok();
    if let Some(c) = client.as_mut() {
        held.store(try_lock(c).unwrap_or(false), Ordering::Relaxed);
    }
    std::thread::Builder::new().name("replica-duties".into()).spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            std::thread::sleep(TRY_EVERY);
            let Some(c) = client.as_mut().filter(|c| !c.is_closed()) else {
                held.store(false, Ordering::Relaxed);
                client = config.connect(NoTls).map_err(|e| tracing::debug!("store: duties cannot connect: {e}")).ok();
                continue;
            };
            let answered = match held.load(Ordering::Relaxed) {
                // Still connected means still holding: the lock goes only with the session.
                true => c.simple_query("").map(|_| true),
                false => try_lock(c),
            };
            match answered {
                Ok(holds) => held.store(holds, Ordering::Relaxed),
                Err(e) => {
                    tracing::warn!("store: the duties' connection: {e}; reconnecting");
                    held.store(false, Ordering::Relaxed);
                    client = None;
                }
            }
        }
        // Dropping the connection frees the lock for another replica at once.
        held.store(false, Ordering::Relaxed);
    })?;
    Ok(())
}

fn try_lock(client: &mut Client) -> Result<bool, postgres::Error> {
    Ok(client.query_one("SELECT pg_try_advisory_lock($1)", &[&LOCK])?.get(0))
}
