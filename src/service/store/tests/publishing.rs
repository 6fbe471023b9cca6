//! The event publisher (PostgreSQL): the events of commits in quick succession are published
//! together, at most once a pace, and still numbered in the order they were written.

use ::postgres::fallible_iterator::FallibleIterator;

use super::*;
use crate::service::store::postgres::{PUBLISH_PACE, PUBLISHED};

#[test]
fn commits_in_quick_succession_are_published_together_in_the_order_written() {
    let server = test_server::TestServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&Location::Postgres(url.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let mut listener = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
    listener.batch_execute(&format!("LISTEN {PUBLISHED}")).unwrap_or_else(|e| panic!("{e}"));
    let newest = store.events();

    let began = Instant::now();
    for n in 0..20 {
        write(&store, |tx| insert(tx, &issue(&format!("i{n:02}"), "OPEN")));
    }
    eventually("every event is published", || *newest.borrow() >= 20);
    let elapsed = began.elapsed();

    // Each publishing that numbered events told the channel once, the newest id its payload.
    let mut told = Vec::new();
    let mut notifications = listener.notifications();
    let mut heard = notifications.timeout_iter(Duration::from_millis(300));
    while let Some(notification) = heard.next().unwrap_or_else(|e| panic!("{e}")) {
        told.push(notification.payload().parse::<i64>().unwrap_or_else(|e| panic!("{e}")));
    }
    let most = elapsed.as_millis() / PUBLISH_PACE.as_millis() + 1;
    assert!(
        !told.is_empty() && told.len() as u128 <= most,
        "{} publishings in {elapsed:?}: at most one a pace ({most})",
        told.len()
    );
    assert!(told.windows(2).all(|w| w[0] < w[1]) && told.last() == Some(&20), "told {told:?}");

    let events = read(&store, |c| outbox::events_between(c, 0, i64::MAX, &outbox::EventFilter::default(), 50));
    let written: Vec<String> = (0..20).map(|n| format!("i{n:02}")).collect();
    assert_eq!(events.iter().map(|e| e.resource_id.clone()).collect::<Vec<_>>(), written, "in the order written");
    assert_eq!(
        events.iter().map(|e| e.id.clone()).collect::<Vec<_>>(),
        (1..=20).map(|n: i64| n.to_string()).collect::<Vec<_>>()
    );
}
