//! Every replica hears of what the others commit: a connection of its own LISTENs for newly
//! published events (the streams and webhook senders wake), and for work announced by another
//! replica (a run created there: the schedulers wake). Reconnects after a lost connection,
//! and then reads what it may have missed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use tokio::sync::watch;

use super::publisher::{self, PUBLISHED};
use crate::service::store::db::{Arg, Conn};
use crate::service::store::error::StoreResult;
use crate::service::store::rounds::guarded;

/// The channel work is announced on (`announce_work`); the payload is empty.
const WORK: &str = "sb_work";

/// Tells every replica's scheduler, this one's too, that there is work to schedule.
pub(in crate::service::store) fn announce_work(conn: &Conn) -> StoreResult<()> {
    conn.execute("SELECT pg_notify(?1, '')", &[Arg::from(WORK)]).map(drop)
}

/// What the listener tells of: the newest published event's id, and how many announcements of
/// work it heard.
pub(super) struct Heard {
    pub(super) events: Arc<watch::Sender<i64>>,
    pub(super) work: Arc<watch::Sender<u64>>,
}

pub(super) fn spawn(config: postgres::Config, heard: Heard, stopping: Arc<AtomicBool>) -> std::io::Result<()> {
    std::thread::Builder::new().name("listener".into()).spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            match config.connect(NoTls) {
                Ok(client) => {
                    if let Some(Err(e)) = guarded("the listener", || listen(client, &heard, &stopping)) {
                        tracing::warn!("store: listener: {e}; reconnecting");
                    }
                }
                Err(e) => tracing::warn!("store: listener cannot connect: {e}"),
            }
            if !stopping.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    })?;
    Ok(())
}

fn listen(mut client: Client, heard: &Heard, stopping: &AtomicBool) -> Result<(), postgres::Error> {
    client.batch_execute(&format!("LISTEN {PUBLISHED}; LISTEN {WORK}"))?;
    // What was published while this replica was not listening; and work may have been
    // announced meanwhile, so the schedulers look once.
    advance(&heard.events, publisher::published(&mut client)?);
    heard.work.send_modify(|announced| *announced += 1);
    while !stopping.load(Ordering::Relaxed) {
        {
            let mut inbox = client.notifications();
            let mut notifications = inbox.timeout_iter(Duration::from_millis(500));
            while let Some(notification) = notifications.next()? {
                match notification.channel() {
                    WORK => heard.work.send_modify(|announced| *announced += 1),
                    _ => advance(&heard.events, notification.payload().parse().unwrap_or(0)),
                }
            }
        }
        // No notification within the timeout, or the server went away.
        if client.is_closed() {
            return Ok(());
        }
    }
    Ok(())
}

/// Moves the newest published id forward (never back), waking whoever waits on it.
fn advance(events: &watch::Sender<i64>, newest: i64) {
    events.send_if_modified(|seen| {
        let moved = newest > *seen;
        if moved {
            *seen = newest;
        }
        moved
    });
}
