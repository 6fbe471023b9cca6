//! `GET /v1/events`: what changes, as a Server-Sent Events stream (local service extension),
//! resumable with `Last-Event-ID` and filterable by type and resource.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::watch;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::model::*;
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::Params;
use crate::service::http::openapi::{BadRequest, InternalError, TooManyRequests, Unauthorized};
use crate::service::store::outbox::{self, EventFilter};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stream))
}

/// Events read from the store per query while a stream catches up.
const BATCH: usize = 500;
/// A comment line this often keeps proxies from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Stream what changes (local service extension): Server-Sent Events, one per change, each
/// with its id (`id:`), its type (`event:`, the hosted webhook event types) and the event as
/// JSON (`data:`, an `Event`). Without `Last-Event-ID` or `after` the stream starts with the
/// next change; with either it first replays the kept events after that id, so a client that
/// reconnects loses nothing. Events are written with the change they announce, in its
/// transaction.
#[utoipa::path(
    get,
    path = "/v1/events",
    operation_id = "streamEvents",
    tag = "Events",
    params(
        EventQuery,
        ("Last-Event-ID" = Option<u64>, Header, description = "Resume after this event id"),
    ),
    responses(
        (status = 200, description = "A stream of events", content_type = "text/event-stream", body = Event),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn stream(
    State(state): State<AppState>,
    headers: HeaderMap,
    Params(query): Params<EventQuery>,
) -> ServiceResult<Response> {
    let resume = match headers.get("last-event-id") {
        None => None,
        Some(value) => Some(value.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()).ok_or_else(|| {
            ServiceError::invalid("Last-Event-ID", "Last-Event-ID must be an event id this stream sent (a number)")
        })?),
    };
    let mut newest = state.store.events();
    let after = match resume.or(query.after) {
        Some(id) => id.min(i64::MAX as u64) as i64,
        None => *newest.borrow_and_update(),
    };
    let filter = EventFilter {
        types: query.types().iter().map(|t| t.as_str().to_owned()).collect(),
        resource_ids: query.resource_ids(),
        with_children: query.children.as_deref() != Some(EventChildrenIncluded::Omitted.as_str()),
        without_data: query.data.as_deref() == Some(EventDataIncluded::Omitted.as_str()),
    };
    let reader =
        Reader { state: state.clone(), newest, closing: state.closing.clone(), filter, after, ready: VecDeque::new() };
    let events = futures_util::stream::unfold(reader, |mut reader| async move {
        let event = reader.next().await?;
        let json = serde_json::to_string(&event).unwrap_or_default();
        let sse = SseEvent::default().id(event.id.clone()).event(event.event_type.as_str()).data(json);
        Some((Ok::<_, Infallible>(sse), reader))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response())
}

/// One stream's place: the last event it passed, and those read but not yet sent.
struct Reader {
    state: AppState,
    newest: watch::Receiver<i64>,
    closing: watch::Receiver<bool>,
    filter: EventFilter,
    after: i64,
    ready: VecDeque<Event>,
}

impl Reader {
    /// The next event for this stream, waiting for one to commit; `None` ends the stream (the
    /// service stops, or the store failed).
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(event);
            }
            if *self.closing.borrow() {
                return None;
            }
            let upto = *self.newest.borrow_and_update();
            if upto > self.after {
                let (after, filter) = (self.after, self.filter.clone());
                let read =
                    self.state.store.read(move |conn| outbox::events_between(conn, after, upto, &filter, BATCH)).await;
                let Ok(events) = read else { return None };
                // A full batch may not reach `upto`: go on from its last event.
                self.after = if events.len() == BATCH {
                    events.last().and_then(|e| e.id.parse().ok()).unwrap_or(upto)
                } else {
                    upto
                };
                self.ready = events.into();
                continue;
            }
            tokio::select! {
                changed = self.newest.changed() => if changed.is_err() { return None },
                _ = self.closing.changed() => {}
            }
        }
    }
}
