//! Every replica hears of what the others commit: a connection of its own LISTENs for newly
//! published events (the streams and webhook senders wake). Reconnects after a lost
//! connection, and then reads what it may have missed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use tokio::sync::watch;

use super::publisher::{self, PUBLISHED};
use crate::service::store::rounds::guarded;

pub(super) fn spawn(
    config: postgres::Config,
    events: Arc<watch::Sender<i64>>,
    stopping: Arc<AtomicBool>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name("event-listener".into()).spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            match config.connect(NoTls) {
                Ok(client) => {
                    if let Some(Err(e)) = guarded("the event listener", || listen(client, &events, &stopping)) {
                        tracing::warn!("store: event listener: {e}; reconnecting");
                    }
                }
                Err(e) => tracing::warn!("store: event listener cannot connect: {e}"),
            }
            if !stopping.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    })?;
    Ok(())
}

fn listen(mut client: Client, events: &watch::Sender<i64>, stopping: &AtomicBool) -> Result<(), postgres::Error> {
    client.batch_execute(&format!("LISTEN {PUBLISHED}"))?;
    // What was published while this replica was not listening.
    advance(events, publisher::published(&mut client)?);
    while !stopping.load(Ordering::Relaxed) {
        {
            let mut notifications = client.notifications();
            let mut heard = notifications.timeout_iter(Duration::from_millis(500));
            while let Some(notification) = heard.next()? {
                advance(events, notification.payload().parse().unwrap_or(0));
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
