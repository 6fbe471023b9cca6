//! Stale and disconnected: the cache shows at once, a lost service leaves the screen usable
//! under a banner, and the console recovers by itself when the service returns.

use switchboard::cache::Cache;
use switchboard::console::app::Connection;
use switchboard::console::message::{Effect, Message};
use switchboard::console::tab::Tab;
use switchboard::service;

use crate::harness::{Harness, now, settings};
use crate::support;

#[tokio::test]
async fn cached_lists_show_at_once_marked_stale_then_fresh() {
    let cache_dir = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    // A first session fills the cache.
    let (cache, _) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let mut first = Harness::on(service, Some(cache)).await;
    first.key("6").await;
    assert!(first.performed.contains(&Effect::SaveCache));
    first.app.cache.as_ref().unwrap().save().unwrap();

    // The next session draws the cached personas before any answer arrives.
    let (cache, warning) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    assert!(warning.is_none());
    let mut app = switchboard::console::app::App::new(settings(), Some(cache), now());
    app.update(Message::Key(switchboard::console::keymap::parse_key("6").unwrap()));
    first.app = app;
    let screen = first.render(80, 24);
    assert!(screen.contains("Callum Reid") && screen.contains("stale (cached)"), "{screen}");
    first.settle().await;
    let screen = first.render(80, 24);
    assert!(screen.contains("Callum Reid") && !screen.contains("stale"), "{screen}");
}

#[tokio::test]
async fn cached_benchmark_suites_show_at_once_marked_stale() {
    let cache_dir = tempfile::tempdir().unwrap();
    let (cache, _) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let mut first = Harness::on(support::start(true).await, Some(cache)).await;
    first.key("7").await;
    first.app.cache.as_ref().unwrap().save().unwrap();

    let (cache, _) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let mut app = switchboard::console::app::App::new(settings(), Some(cache), now());
    app.update(Message::Key(switchboard::console::keymap::parse_key("7").unwrap()));
    first.app = app;
    let screen = first.render(80, 24);
    assert!(screen.contains("voice-agent-reception-v1") && screen.contains("stale (cached)"), "{screen}");
    first.settle().await;
    let screen = first.render(80, 24);
    assert!(screen.contains("voice-agent-reception-v1") && !screen.contains("stale"), "{screen}");
}

#[tokio::test]
async fn losing_the_service_shows_a_banner_keeps_data_and_recovers() {
    let mut h = Harness::seeded().await;
    h.key("6").await;
    let addr = h.service.running.addr;

    // Stop the service; the data dir stays.
    h.service.running.take_shutdown().unwrap().send(()).unwrap();
    h.service.running.wait().await.unwrap();

    h.key("r").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("DISCONNECTED"), "{screen}");
    assert!(screen.contains("Callum Reid"), "cached rows stay on screen:\n{screen}");
    let Connection::Disconnected { retry_in: first_wait, .. } = h.app.connection.clone() else { panic!() };
    assert!(h.performed.iter().any(|e| matches!(e, Effect::ReconnectAfter(_))));

    // Retries back off while the service is away; keys keep working.
    h.app.update(Message::Reconnect);
    h.settle().await;
    let Connection::Disconnected { retry_in: second_wait, attempt, .. } = h.app.connection.clone() else { panic!() };
    assert!(second_wait > first_wait, "{first_wait:?} then {second_wait:?}");
    assert_eq!(attempt, 2);
    h.keys(&["j", "?", "esc", "1", "6"]).await;
    assert!(h.render(160, 48).contains("DISCONNECTED"));

    // The service returns on the same address: the next retry reconnects and refreshes.
    let options = service::Options { addr, ..support::options(h.service.dir.path(), false) };
    let _back = service::start(options).await.expect("restarts on the same port");
    h.app.update(Message::Reconnect);
    h.settle().await;
    assert!(matches!(h.app.connection, Connection::Connected(_)), "{:?}", h.app.connection);
    let screen = h.render(80, 24);
    assert!(!screen.contains("DISCONNECTED") && screen.contains("reconnected"), "{screen}");
    assert!(screen.contains("Callum Reid"));
}

#[tokio::test]
async fn a_list_the_service_does_not_offer_says_so_and_opens_by_id() {
    use switchboard::console::message::{FailureKind, FetchError, ListKind, Request};
    let mut h = Harness::seeded().await;
    h.key("6").await;
    // A service without a persona listing answers 404 on the list route.
    h.app.update(Message::Fetched {
        request: Request::List(ListKind::Personas),
        result: Box::new(Err(FetchError { kind: FailureKind::NotFound, message: "404 not_found".into() })),
    });
    let screen = h.render(80, 24);
    assert!(screen.contains("this service does not list these"), "{screen}");
    // Opening one by id still works.
    let id = support::id_of(&support::seed("personas")[0]);
    h.key("o").await;
    h.type_text(&id.to_string()).await;
    h.key("enter").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("traits"), "{screen}");
}

/// `12:04:31` as the header writes it (UTC).
fn clock(at: jiff::Timestamp) -> String {
    at.strftime("%H:%M:%S").to_string()
}

#[tokio::test]
async fn a_rejected_key_stays_in_the_header_until_the_service_accepts_it() {
    let service = support::start(true).await;
    let wrong = service.client_with("sk-not-the-key-0123456789");
    let app = switchboard::console::app::App::new(settings(), None, now());
    let mut h = Harness { app, service, client: wrong, performed: Vec::new() };
    h.settle().await;
    let screen = h.render(120, 30);
    assert!(screen.contains("key rejected (401)") && screen.contains("KEY REJECTED"), "{screen}");
    assert!(!screen.contains("connecting…"), "{screen}");
    // Long after every toast has faded, it still says so; retries keep asking.
    h.app.tick(now() + jiff::SignedDuration::from_secs(120));
    let screen = h.render(120, 30);
    assert!(screen.contains("key rejected (401)"), "{screen}");
    assert!(h.performed.iter().any(|e| matches!(e, Effect::ReconnectAfter(_))));
    // The service accepts the key again (here: the right one): the next retry clears it.
    h.client = h.service.client.clone();
    h.app.update(Message::Reconnect);
    h.settle().await;
    let screen = h.render(120, 30);
    assert!(screen.contains("account local") && !screen.contains("KEY REJECTED"), "{screen}");
    assert!(screen.contains("Brightsmile"), "the tab refreshed: {screen}");
}

#[tokio::test]
async fn a_service_that_dies_behind_an_idle_view_is_noticed_and_the_header_says_since_when() {
    let mut h = Harness::seeded().await;
    h.keys(&["5", "enter"]).await; // a flow's step graph: a view that polls nothing
    let addr = h.service.running.addr;
    h.service.running.take_shutdown().unwrap().send(()).unwrap();
    h.service.running.wait().await.unwrap();

    // No key pressed: the heartbeat asks for health once the service has been quiet a while.
    let later = now() + jiff::SignedDuration::from_secs(10);
    h.app.tick(later);
    h.settle().await;
    let expected = format!("disconnected since {}", clock(later));
    let screen = h.render(120, 30);
    assert!(screen.contains(&expected), "{expected}:\n{screen}");
    // It stays said, with the first time it was noticed.
    h.app.update(Message::Reconnect);
    h.settle().await;
    h.app.tick(later + jiff::SignedDuration::from_secs(300));
    assert!(h.render(120, 30).contains(&expected));

    let options = service::Options { addr, ..support::options(h.service.dir.path(), false) };
    let _back = service::start(options).await.expect("restarts on the same port");
    h.app.update(Message::Reconnect);
    h.settle().await;
    let screen = h.render(120, 30);
    assert!(screen.contains("account local") && !screen.contains("disconnected"), "{screen}");
}

/// A seeded service that also takes a read-only key, and the console on that key.
async fn on_read_only_key(drop_health: bool) -> (Harness, uuid::Uuid) {
    let dir = tempfile::tempdir().unwrap();
    let read_key = "sk-read-only-0123456789";
    let options = service::Options {
        read_only_api_key: Some(switchboard::api::ApiKey::new(read_key)),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let client = service.client_with(read_key);
    let mut app = switchboard::console::app::App::new(settings(), None, now());
    if drop_health {
        // A service that does not state a key's scope: its health says nothing of it.
        app.effects.retain(|e| *e != Effect::Fetch(switchboard::console::message::Request::Health));
        app.in_flight.clear();
        let health = switchboard::api::model::Health {
            authenticated: true,
            account: "elsewhere".into(),
            status: None,
            timestamp: None,
            version: None,
            scope: None,
        };
        let request = switchboard::console::message::Request::Health;
        let result = Box::new(Ok(switchboard::console::message::Fetched::Health(health)));
        app.update(Message::Fetched { request, result });
    }
    let dana =
        support::seeded("personas", |p| p["name"] == "dana-whitfield")[0]["id"].as_str().unwrap().parse().unwrap();
    let mut h = Harness { app, service, client, performed: Vec::new() };
    h.settle().await;
    (h, dana)
}

#[tokio::test]
async fn a_read_only_key_is_recognised_from_health_without_writing() {
    let (mut h, _) = on_read_only_key(false).await;
    assert!(h.app.settings.read_only, "the service said the key can only read");
    assert!(h.render(160, 48).contains("read-only"), "{}", h.render(160, 48));
    h.keys(&["6", "/"]).await;
    h.type_text("Dana Whitfield").await;
    h.keys(&["enter", "d"]).await;
    assert!(!h.app.modal.is_open(), "no write is even offered");
    assert!(!h.performed.iter().any(|e| matches!(e, Effect::Write(_))), "nothing was written");
}

#[tokio::test]
async fn the_first_refused_write_switches_to_read_only_where_health_says_nothing() {
    let (mut h, dana) = on_read_only_key(true).await;
    assert!(!h.app.settings.read_only);
    h.keys(&["6", "/"]).await;
    h.type_text("Dana Whitfield").await;
    h.keys(&["enter", "d", "y"]).await;
    assert!(h.app.settings.read_only, "the 403 switched the console to read-only");
    let screen = h.render(160, 48);
    assert!(screen.contains("read-only"), "{screen}");
    assert!(h.app.log.iter().any(|l| l.text.contains("403") && l.text.contains("can only read")), "said why");
    assert!(h.service.client.get_persona(dana).await.is_ok(), "nothing was deleted");
    // Writes are now off: the next one is not offered.
    h.key("d").await;
    assert!(!h.app.modal.is_open());
}

/// A health check that fails without a refused connection (a proxy's 502 once its service
/// died, a 503, a body that does not read) keeps the retries going, and so does a health that
/// answers `authenticated: false` (the hosted shape of a refused key): neither ends the chain.
#[test]
fn every_failed_health_check_keeps_the_retries_going() {
    use switchboard::console::message::{FailureKind, FetchError, Fetched, Request};
    let mut app = switchboard::console::app::App::new(settings(), None, now());
    let failed = |message: &str| Message::Fetched {
        request: Request::Health,
        result: Box::new(Err(FetchError { kind: FailureKind::Other, message: message.into() })),
    };
    for attempt in 0..3 {
        app.effects.clear();
        app.update(failed("HTTP 502 Bad Gateway"));
        assert!(matches!(app.connection, Connection::Disconnected { .. }), "attempt {attempt}: {:?}", app.connection);
        assert!(app.effects.iter().any(|e| matches!(e, Effect::ReconnectAfter(_))), "attempt {attempt}");
        app.effects.clear();
        app.update(Message::Reconnect);
        assert!(app.effects.iter().any(|e| matches!(e, Effect::Fetch(Request::Health))));
    }
    let refused: switchboard::api::model::Health =
        serde_json::from_value(serde_json::json!({"authenticated": false, "account": ""})).unwrap();
    for _ in 0..2 {
        app.effects.clear();
        app.update(Message::Fetched {
            request: Request::Health,
            result: Box::new(Ok(Fetched::Health(refused.clone()))),
        });
        assert!(matches!(app.connection, Connection::Rejected { .. }), "{:?}", app.connection);
        assert!(app.effects.iter().any(|e| matches!(e, Effect::ReconnectAfter(_))));
        app.update(Message::Reconnect);
    }
}

/// A service never reached is not "disconnected since", and with nothing cached the banner
/// does not promise cached data.
#[test]
fn a_service_never_reached_says_so_and_promises_no_cached_data() {
    use switchboard::console::message::{FailureKind, FetchError, Request};
    let mut app = switchboard::console::app::App::new(settings(), None, now());
    app.update(Message::Fetched {
        request: Request::Health,
        result: Box::new(Err(FetchError { kind: FailureKind::Unreachable, message: "connection refused".into() })),
    });
    let screen = render(&app);
    assert!(screen.contains("cannot reach the service") && !screen.contains("disconnected since"), "{screen}");
    assert!(screen.contains("NOT CONNECTED") && screen.contains("nothing cached to show"), "{screen}");
    assert!(!screen.contains("showing cached data"), "{screen}");
}

/// A rejected key is said to be the one from where it came, not "set SWITCHBOARD_API_KEY" when
/// it is set.
#[test]
fn a_rejected_key_says_where_it_came_from() {
    let mut with_source = settings();
    with_source.key_source = Some("environment ($SWITCHBOARD_API_KEY)".into());
    let mut app = switchboard::console::app::App::new(with_source, None, now());
    let refused: switchboard::api::model::Health =
        serde_json::from_value(serde_json::json!({"authenticated": false, "account": ""})).unwrap();
    app.update(Message::Fetched {
        request: switchboard::console::message::Request::Health,
        result: Box::new(Ok(switchboard::console::message::Fetched::Health(refused))),
    });
    let screen = render(&app);
    assert!(screen.contains("the key from the environment ($SWITCHBOARD_API_KEY) was refused"), "{screen}");
    assert!(!screen.contains("set SWITCHBOARD_API_KEY"), "{screen}");
}

fn render(app: &switchboard::console::app::App) -> String {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 10)).unwrap();
    terminal.draw(|frame| switchboard::console::view::draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    (0..buffer.area.height)
        .map(|y| (0..buffer.area.width).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A relaunch opens on the tab and the row the last session quit on.
#[tokio::test]
async fn a_relaunch_restores_the_last_tab_and_selection() {
    let cache_dir = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let (cache, _) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let mut first = Harness::on(service, Some(cache)).await;
    first.keys(&["6", "j", "j"]).await;
    let chosen = first.app.pane().selection().map(|s| s.id).expect("a persona is selected");
    first.app.remember_place();
    first.app.cache.as_ref().unwrap().save().unwrap();

    let (cache, _) = Cache::load(cache_dir.path(), "local", "http://127.0.0.1:8787");
    let app = switchboard::console::app::App::new(settings(), Some(cache), now());
    assert_eq!(app.tab, Tab::Catalog, "the personas tab again");
    assert_eq!(app.pane().selection().map(|s| s.id), Some(chosen), "the same row");
}
