//! Reading the local service's event stream (`GET /v1/events`, Server-Sent Events).

use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use super::client::Client;
use super::error::Error;
use super::model::{Event, EventQuery};

/// An open event stream. Remember `last_id` to resume after a dropped connection.
pub struct EventStream {
    inner: BoxStream<'static, Result<eventsource_stream::Event, String>>,
    /// The id of the last event read, for `Last-Event-ID` on a reconnect.
    pub last_id: Option<String>,
}

impl Client {
    /// Opens the event stream; with `last_event_id` it replays what came after that event.
    /// A service without the route answers 404 (`Error::Api`).
    pub async fn events(&self, query: &EventQuery, last_event_id: Option<&str>) -> Result<EventStream, Error> {
        let headers: Vec<(&str, String)> =
            last_event_id.map(|id| ("last-event-id", id.to_owned())).into_iter().collect();
        let response = self.open_stream("/v1/events", query, &headers).await?;
        let inner = eventsource_stream::EventStream::new(response.bytes_stream())
            .map(|item| item.map_err(|e| e.to_string()))
            .boxed();
        Ok(EventStream { inner, last_id: last_event_id.map(str::to_owned) })
    }
}

impl EventStream {
    /// The next event; `Ok(None)` when the service ended the stream.
    pub async fn next(&mut self) -> Result<Option<Event>, Error> {
        while let Some(item) = self.inner.next().await {
            let message =
                item.map_err(|e| Error::Connect { method: "GET".into(), path: "/v1/events".into(), message: e })?;
            if message.data.is_empty() {
                continue;
            }
            let event: Event = serde_json::from_str(&message.data).map_err(|e| Error::Decode {
                method: "GET".into(),
                path: "/v1/events".into(),
                status: 200,
                message: e.to_string(),
            })?;
            self.last_id = Some(event.id.clone());
            return Ok(Some(event));
        }
        Ok(None)
    }
}
