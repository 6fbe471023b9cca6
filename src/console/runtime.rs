//! The runtime around `App`: it performs the effects the app asks for (fetches, writes, the
//! editor, the event watch, the cache), turns their answers into messages, and draws only when
//! something changed and the queue is empty. One method per effect, as slumber's loop has.

use std::time::{Duration, Instant};

use color_eyre::eyre::Result;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::app::App;
use super::message::{Edit, Effect, FailureKind, FetchError, Message, Request, Write, WriteError};
use super::{editor, tasks, tui, view};
use crate::api::Client;
use crate::api::model::EventQuery;
use crate::connect::{ConnectError, Running};

/// The least time between two writes of the cache while the console runs (it is written on
/// quit whatever the time).
const CACHE_SAVE_EVERY: Duration = Duration::from_secs(5);

/// What connecting answers: a client, and the embedded service when one was started.
pub type Connected = Result<(Client, Option<Running>), ConnectError>;

/// The console while it runs: the app, the terminal, and the effects under way.
pub struct Runtime {
    app: App,
    tx: UnboundedSender<Message>,
    rx: UnboundedReceiver<Message>,
    terminal: tui::Tui,
    gate: std::sync::Arc<editor::InputGate>,
    /// Taken once it answers: a spent receiver must not be polled again.
    connecting: Option<oneshot::Receiver<Connected>>,
    client: Option<Client>,
    embedded: Option<Running>,
    /// Fetches asked for before the client was ready.
    waiting: Vec<Request>,
    /// The event stream the open view watches, if any (one at a time).
    watch: Watch,
    cache: CacheSaver,
    /// Whether the screen is out of date.
    dirty: bool,
}

#[derive(Default)]
struct Watch {
    task: Option<JoinHandle<()>>,
    query: Option<EventQuery>,
}

/// Writes the cache at most every `CACHE_SAVE_EVERY`, off the task that draws.
struct CacheSaver {
    dirty: bool,
    saved: Instant,
}

/// What the loop waits for next.
enum Next {
    Message(Message),
    Connected(Connected),
    /// The queue closed or the connecting task went away.
    End,
}

impl Runtime {
    pub fn new(
        app: App,
        (tx, rx): (UnboundedSender<Message>, UnboundedReceiver<Message>),
        terminal: tui::Tui,
        gate: std::sync::Arc<editor::InputGate>,
        connecting: oneshot::Receiver<Connected>,
    ) -> Runtime {
        Runtime {
            app,
            tx,
            rx,
            terminal,
            gate,
            connecting: Some(connecting),
            client: None,
            embedded: None,
            waiting: Vec::new(),
            watch: Watch::default(),
            cache: CacheSaver { dirty: false, saved: Instant::now() },
            dirty: true,
        }
    }

    /// Performs effects, draws and handles messages until the user quits; then gives back the
    /// app (to remember its place) and the embedded service (to shut down).
    pub async fn run(mut self) -> Result<(App, Option<Running>)> {
        loop {
            self.perform_effects().await;
            if self.app.quit {
                break;
            }
            self.draw()?;
            match self.next().await {
                Next::Message(message) => self.handle(message),
                Next::Connected(connected) => self.connected(connected),
                Next::End => break,
            }
        }
        Ok((self.app, self.embedded))
    }

    /// Draws when something changed since the last frame.
    pub fn draw(&mut self) -> Result<()> {
        if std::mem::take(&mut self.dirty) {
            self.terminal.draw(|frame| view::draw(frame, &self.app))?;
        }
        Ok(())
    }

    async fn perform_effects(&mut self) {
        for effect in std::mem::take(&mut self.app.effects) {
            match effect {
                Effect::Fetch(request) => self.fetch(request),
                Effect::Write(write) => self.write(write),
                Effect::ReconnectAfter(after) => self.reconnect_after(after),
                Effect::Copy(text) => tui::copy(&text),
                Effect::Edit(edit) => self.edit(edit).await,
                Effect::SaveCache => self.cache.dirty = true,
                // The app applies marks to its cache itself; none reach the runtime.
                Effect::SetMark(..) => {}
                Effect::Watch(query) => self.watch(query),
            }
        }
    }

    fn fetch(&mut self, request: Request) {
        match &self.client {
            Some(client) => spawn_fetch(client.clone(), request, self.tx.clone()),
            None => self.waiting.push(request),
        }
    }

    fn write(&mut self, write: Write) {
        match &self.client {
            Some(client) => spawn_write(client.clone(), write, self.tx.clone()),
            None => {
                let error = WriteError {
                    missing_route: false,
                    unreachable: true,
                    forbidden: false,
                    message: "not connected yet".into(),
                    fields: vec![],
                };
                let _ = self.tx.send(Message::Written { write, result: Box::new(Err(error)) });
            }
        }
    }

    fn reconnect_after(&self, after: Duration) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let _ = tx.send(Message::Reconnect);
        });
    }

    /// Hands the terminal to the editor; its answer comes back as a message.
    async fn edit(&mut self, edit: Box<Edit>) {
        let result = hand_over(&mut self.terminal, &self.gate, edit.text.clone()).await;
        let _ = self.tx.send(Message::Edited { edit, result });
        self.dirty = true;
    }

    /// Watches `query`'s events instead of the last one's (none: stops watching).
    fn watch(&mut self, query: Option<EventQuery>) {
        if let Some(task) = self.watch.task.take() {
            task.abort();
        }
        self.watch.query = query;
        self.start_watch();
    }

    fn start_watch(&mut self) {
        if let (Some(query), Some(client)) = (&self.watch.query, &self.client) {
            let task = tokio::spawn(tasks::watch(client.clone(), query.clone(), self.tx.clone()));
            self.watch.task = Some(task);
        }
    }

    /// The next message, or the connection's answer while it is out.
    async fn next(&mut self) -> Next {
        let still_connecting = self.connecting.is_some();
        let connecting = async {
            match self.connecting.as_mut() {
                Some(rx) => rx.await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            message = self.rx.recv() => message.map_or(Next::End, Next::Message),
            connected = connecting, if still_connecting => {
                self.connecting = None;
                connected.map_or(Next::End, Next::Connected)
            }
        }
    }

    /// Connecting answered: send what waited, or say why it failed as a failed health check.
    fn connected(&mut self, connected: Connected) {
        match connected {
            Ok((client, running)) => {
                if let Some(running) = &running {
                    self.app.settings.service = format!("embedded {}", running.addr);
                }
                for request in self.waiting.drain(..) {
                    spawn_fetch(client.clone(), request, self.tx.clone());
                }
                self.client = Some(client);
                self.embedded = running;
                self.start_watch();
                self.dirty = true;
            }
            Err(error) => self.handle(Message::Fetched {
                request: Request::Health,
                result: Box::new(Err(FetchError { kind: FailureKind::Other, message: format!("{error:#}") })),
            }),
        }
    }

    /// A message, and every other one already queued: a burst costs one frame.
    fn handle(&mut self, message: Message) {
        if matches!(message, Message::Tick) {
            self.save_cache_if_due();
        }
        self.dirty |= self.app.update(message);
        while let Ok(message) = self.rx.try_recv() {
            self.dirty |= self.app.update(message);
        }
    }

    /// A list that refreshes itself must not cost a disk sync per poll on the thread that
    /// draws: the cache is written at most every few seconds, on a blocking task.
    fn save_cache_if_due(&mut self) {
        if !self.cache.dirty || self.cache.saved.elapsed() < CACHE_SAVE_EVERY {
            return;
        }
        if let Some(cache) = &self.app.cache {
            let snapshot = cache.snapshot();
            tokio::task::spawn_blocking(move || {
                if let Err(error) = snapshot.write() {
                    tracing::warn!("cache not saved: {error}");
                }
            });
        }
        self.cache = CacheSaver { dirty: false, saved: Instant::now() };
    }
}

fn spawn_fetch(client: Client, request: Request, tx: UnboundedSender<Message>) {
    tokio::spawn(async move {
        let result = tasks::perform(&client, &request).await;
        if let Err(error) = &result {
            tracing::debug!(?request, "request failed: {}", error.message);
        }
        let _ = tx.send(Message::Fetched { request, result: Box::new(result) });
    });
}

fn spawn_write(client: Client, write: Write, tx: UnboundedSender<Message>) {
    tokio::spawn(async move {
        let result = tasks::write(&client, &write).await;
        let _ = tx.send(Message::Written { write, result: Box::new(result) });
    });
}

/// Gives the terminal to the editor on `text` and takes it back: the input thread parks
/// first (so the editor gets every key), and the terminal is set up again however the editor
/// ended.
async fn hand_over(terminal: &mut tui::Tui, gate: &editor::InputGate, text: String) -> Result<String, String> {
    if !gate.pause().await {
        gate.resume();
        return Err("the console could not hand the terminal over; try again".into());
    }
    tui::restore();
    let edited = tokio::task::spawn_blocking(move || editor::edit(&text))
        .await
        .unwrap_or_else(|e| Err(format!("the editor task failed: {e}")));
    let resumed = tui::resume(terminal);
    gate.resume();
    resumed.map_err(|e| format!("cannot take the terminal back: {e}"))?;
    edited
}
