//! The HTTP/1.1 connection loop: bounded header reads, a write deadline, the client's address
//! on every request, graceful shutdown, and the spec's error body even on the answers hyper
//! writes by itself (400, 414, 431 for a request it cannot parse).

use std::io::{self, IoSlice};
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

use super::write_deadline::WriteDeadline;

/// A client must send its whole request head within this time, and the body it declared
/// within this time again, or it is disconnected (a late body gets a 408 first).
pub const READ_TIMEOUT: Duration = Duration::from_secs(15);

/// A client must take at least 64 KiB of its answer (or all of it) within this time whenever
/// the socket is full, or it is disconnected and the answer dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a request's body may take to arrive; on every request, for `extract::Body`.
#[derive(Debug, Clone, Copy)]
pub struct BodyDeadline(pub Duration);

/// The most a request's head may take before it is refused with a 431: hyper's read buffer,
/// which it fills at most this much at a time, so a head longer than this is refused however
/// its bytes arrive (with hyper's default of about 400 KiB, a head between that and twice it
/// got through or not by the reads' timing). A URI longer than 64 KiB fits in it, and is
/// refused as too long a URI (414).
const MAX_HEAD_BYTES: usize = 128 * 1024;

/// In-flight requests get this long to finish when the service stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    read_timeout: Duration,
    write_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    // `max_buf_size` also bounds what hyper queues of an answer before it asks the body for
    // more. Vectored writes queue a body's chunks as they are: flattening copies each into a
    // buffer of the connection's, which then stays as large as the largest chunk it was sent
    // for as long as the connection lives. The response budget counts those chunks, so they
    // must be what hyper holds.
    builder.timer(TokioTimer::new()).header_read_timeout(read_timeout).max_buf_size(MAX_HEAD_BYTES).writev(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors and the like: wait a moment rather than spin.
                Err(error) => {
                    tracing::warn!("accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(BodyDeadline(read_timeout));
            let mut app = app.clone();
            async move { tower_service::Service::call(&mut app, request).await }
        });
        let stream = SpecErrors::new(WriteDeadline::new(stream, write_timeout));
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = watched.await {
                tracing::debug!(%peer, "connection ended: {error}");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await.is_err() {
        tracing::warn!("connections still open after {SHUTDOWN_GRACE:?}; stopping anyway");
    }
    Ok(())
}

/// The client's address, as the connection loop records it on each request.
pub type Peer = ConnectInfo<SocketAddr>;

/// A TCP stream that rewrites hyper's own bodiless error answers into the spec's error body.
/// The service itself never sends an error without a body, so a 4xx head with
/// `content-length: 0` can only be hyper's.
struct SpecErrors {
    stream: WriteDeadline,
    /// The replacement being written, how much of it is out, and how many bytes of the
    /// caller's buffer it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl SpecErrors {
    fn new(stream: WriteDeadline) -> Self {
        SpecErrors { stream, pending: None }
    }
}

/// Whether `buf` starts one of the heads hyper writes for a request it cannot parse: only
/// those are searched and replaced; bodies and other heads pass as they are.
fn is_hypers_error_head(buf: &[u8]) -> bool {
    [&b"HTTP/1.1 400 "[..], b"HTTP/1.1 414 ", b"HTTP/1.1 431 "].iter().any(|s| buf.starts_with(s))
}

/// The head hyper wrote for a request it could not parse, as the spec's error response.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let status = match head.get(..13)? {
        b"HTTP/1.1 400 " => 400,
        b"HTTP/1.1 414 " => 414,
        b"HTTP/1.1 431 " => 431,
        _ => return None,
    };
    let text = std::str::from_utf8(head).ok()?;
    if !text.contains("\r\ncontent-length: 0\r\n") {
        return None;
    }
    let (code, message) = match status {
        414 => ("uri_too_long", "the request URI is too long"),
        431 => ("headers_too_large", "the request headers are too large"),
        _ => ("malformed_request", "the request is not valid HTTP/1.1"),
    };
    let body = crate::api::ErrorBody::new(crate::api::ErrorType::Validation, code, message);
    let body = serde_json::to_vec(&body).ok()?;
    let status_line = text.split("\r\n").next()?;
    let date = text.split("\r\n").find(|line| line.starts_with("date: ")).unwrap_or("");
    let mut out = format!(
        "{status_line}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{date}{}\r\n",
        body.len(),
        if date.is_empty() { "" } else { "\r\n" },
    )
    .into_bytes();
    out.extend_from_slice(&body);
    Some(out)
}

impl AsyncRead for SpecErrors {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for SpecErrors {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.pending.is_none() && !is_hypers_error_head(buf) {
            return Pin::new(&mut self.stream).poll_write(cx, buf);
        }
        if self.pending.is_none() {
            let head_len = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4);
            match head_len.and_then(|len| replacement(&buf[..len]).map(|r| (r, len))) {
                Some((bytes, len)) => self.pending = Some((bytes, 0, len)),
                None => return Pin::new(&mut self.stream).poll_write(cx, buf),
            }
        }
        let this = &mut *self;
        while let Some((bytes, written, stands_for)) = this.pending.as_mut() {
            if *written >= bytes.len() {
                let stands_for = *stands_for;
                this.pending = None;
                return Poll::Ready(Ok(stands_for));
            }
            let n = ready!(Pin::new(&mut this.stream).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(0))
    }

    /// hyper's error heads have no body, so one comes first and alone: it goes through
    /// `poll_write` to be replaced, and every other write is passed on whole.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().find(|buf| !buf.is_empty()).map(|buf| &buf[..]);
        match first {
            Some(first) if self.pending.is_some() || is_hypers_error_head(first) => self.poll_write(cx, first),
            _ => Pin::new(&mut self.stream).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
