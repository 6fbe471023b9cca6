//! A cap on the memory the service holds for answers on their way out. Every answer larger than
//! 64 KiB takes a share of one budget before it is sent and keeps it until the last of its
//! bytes has left the process (handed to the socket, or dropped with a connection that went or
//! was dropped for not reading). An answer that cannot get its share within a short wait is
//! refused with 503 `service_busy` and `Retry-After`, so however many clients stop reading,
//! the service holds at most the budget for them; small answers never wait.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::{ServiceError, ServiceResult};

/// Answers up to this size are sent without a share: nearly every answer is one, and none of
/// them may wait behind a large one.
const SMALL_BYTES: u64 = 64 * 1024;

/// The share of an answer streamed in pages (a job read): the most it holds at once. hyper asks
/// for the next page only while less than 128 KiB is queued (`max_buf_size`), and a page is
/// about 300 KB (`job_read::PAGE`), read as rows and joined into one chunk: 128 KiB queued, a
/// chunk queued after it, and the next page's rows and chunk while they are built.
const STREAM_SHARE_BYTES: u64 = 1024 * 1024;

/// The budget's default: 32 streamed answers at once, or fewer larger whole ones. A larger one
/// lets more silent clients in at once, and each costs more than its share while it is let in:
/// the kernel takes up to 4 MB of an answer before a socket is full on loopback, thirteen pages
/// read and sent for nothing. 1,000 silent clients of a 10,000-simulation job put
/// `GET /v1/persona`'s p99 at 10.3 ms (max 102 ms) with 128 MiB, 4.1 ms (max 22 ms) with 32.
pub const DEFAULT_BYTES: usize = 32 * 1024 * 1024;

/// How long an answer waits for its share by default before it is refused.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(2);

/// Shares are counted in KiB, so that any answer's share fits the semaphore's `u32`.
const UNIT: u64 = 1024;

/// The budget, shared by every connection.
#[derive(Clone)]
pub struct ResponseBudget {
    permits: Arc<Semaphore>,
    units: u32,
    wait: Duration,
    /// What a refused client is told: by then a share held by a client that stopped reading
    /// has been freed by the write deadline.
    retry_after_secs: u64,
}

impl ResponseBudget {
    pub fn new(bytes: usize, wait: Duration, write_timeout: Duration) -> Self {
        let units = u32::try_from(bytes as u64 / UNIT).unwrap_or(u32::MAX).max(1);
        let retry_after_secs = write_timeout.as_secs_f64().ceil().max(1.0) as u64;
        ResponseBudget { permits: Arc::new(Semaphore::new(units as usize)), units, wait, retry_after_secs }
    }

    /// The share `response` must hold while it is sent, in units; `None` for a small answer
    /// or an event stream (which holds an event at a time, for as long as its client watches).
    fn share_of(&self, response: &Response) -> Option<u32> {
        if response.extensions().get::<Holds>().is_some() {
            return None;
        }
        let bytes = match response.body().size_hint().exact() {
            Some(bytes) if bytes <= SMALL_BYTES => return None,
            Some(bytes) => bytes,
            None if super::etag::is_event_stream(response.headers()) => return None,
            None => STREAM_SHARE_BYTES,
        };
        Some(self.units_of(bytes))
    }

    /// An answer larger than the whole budget takes all of it: it waits for the others.
    fn units_of(&self, bytes: u64) -> u32 {
        u32::try_from(bytes.div_ceil(UNIT)).unwrap_or(u32::MAX).min(self.units)
    }

    /// The share of a streamed answer, taken before it is built, or the 503 to answer when
    /// none is free within the wait.
    pub async fn stream_share(&self) -> ServiceResult<Share> {
        match self.take(self.units_of(STREAM_SHARE_BYTES)).await {
            Some(permit) => Ok(Share(Arc::new(permit))),
            None => Err(ServiceError::busy(self.retry_after_secs)),
        }
    }

    /// The share, or `None` when it is not free within the wait.
    async fn take(&self, units: u32) -> Option<OwnedSemaphorePermit> {
        tokio::time::timeout(self.wait, self.permits.clone().acquire_many_owned(units)).await.ok()?.ok()
    }
}

/// A share taken by a route before it builds its answer (the job read): a read that is to be
/// refused is refused before it costs a store read. 1,000 whole job reads at once, each reading
/// its job's head before it waited, queued a thousand store reads ahead of every other request.
pub struct Share(Arc<OwnedSemaphorePermit>);

/// Marks an answer whose body holds a share already.
#[derive(Clone, Copy)]
struct Holds;

impl Share {
    /// `response` with its body holding this share.
    pub fn hold(self, response: Response) -> Response {
        let mut response = response.map(|body| Body::new(Held { body, share: self.0 }));
        response.extensions_mut().insert(Holds);
        response
    }
}

/// The middleware: a large answer is sent holding its share, or refused with 503.
pub async fn hold(State(budget): State<ResponseBudget>, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let Some(units) = budget.share_of(&response) else { return response };
    match budget.take(units).await {
        Some(share) => response.map(|body| Body::new(Held { body, share: Arc::new(share) })),
        None => ServiceError::busy(budget.retry_after_secs).into_response(),
    }
}

/// A body holding its share. The share goes with the last of its bytes, not with the body:
/// hyper drops the body once it has taken its last chunk, which may still be queued for a
/// client that does not read.
struct Held {
    body: Body,
    share: Arc<OwnedSemaphorePermit>,
}

/// A chunk of a held body, holding the share with it.
struct Holding {
    bytes: Bytes,
    _share: Arc<OwnedSemaphorePermit>,
}

impl AsRef<[u8]> for Holding {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl HttpBody for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let share = self.share.clone();
        Pin::new(&mut self.body)
            .poll_frame(cx)
            .map_ok(|frame| frame.map_data(|bytes| Bytes::from_owner(Holding { bytes, _share: share })))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{StatusCode, header};

    fn budget(bytes: usize) -> ResponseBudget {
        ResponseBudget::new(bytes, Duration::from_millis(50), Duration::from_secs(15))
    }

    fn answer(body: Body) -> Response {
        Response::new(body)
    }

    #[test]
    fn small_answers_and_event_streams_take_no_share() {
        let budget = budget(DEFAULT_BYTES);
        assert_eq!(budget.share_of(&answer(Body::from(vec![0u8; 64 * 1024]))), None);
        let mut events = answer(Body::from_stream(futures_util::stream::empty::<Result<Bytes, std::io::Error>>()));
        events.headers_mut().insert(header::CONTENT_TYPE, "text/event-stream".parse().unwrap());
        assert_eq!(budget.share_of(&events), None);
    }

    #[test]
    fn large_and_streamed_answers_take_their_share_at_most_the_budget() {
        let budget = budget(4 * 1024 * 1024);
        assert_eq!(budget.share_of(&answer(Body::from(vec![0u8; 100 * 1024]))), Some(100));
        let stream = Body::from_stream(futures_util::stream::empty::<Result<Bytes, std::io::Error>>());
        assert_eq!(budget.share_of(&answer(stream)), Some(1024));
        assert_eq!(budget.share_of(&answer(Body::from(vec![0u8; 5 * 1024 * 1024]))), Some(4096));
    }

    #[tokio::test]
    async fn a_share_is_free_again_only_once_the_bytes_are_gone() {
        let budget = budget(1024 * 1024);
        let share = Arc::new(budget.take(1024).await.unwrap());
        let held = Held { body: Body::from(vec![1u8; 100 * 1024]), share };
        let mut body = Body::new(held);
        let chunk =
            axum::body::HttpBody::poll_frame(Pin::new(&mut body), &mut Context::from_waker(std::task::Waker::noop()));
        let Poll::Ready(Some(Ok(frame))) = chunk else { panic!("the body's chunk") };
        drop(body);
        assert!(budget.take(1).await.is_none(), "the chunk still holds the share");
        drop(frame);
        assert!(budget.take(1024).await.is_some());
    }

    #[tokio::test]
    async fn an_answer_refused_for_want_of_a_share_is_the_spec_error() {
        let error = ServiceError::busy(15);
        let response = error.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "15");
    }
}
