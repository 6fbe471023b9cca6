//! The write deadline of a connection: a client that stops taking its answer is dropped, so
//! the answer's buffers are freed instead of waiting on it for ever.

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// How much a waiting client must take within each write deadline to keep its connection: a
/// reader that takes a few bytes now and then (it opens its window just enough) would hold its
/// answer for ever under a deadline that any progress resets. 64 KiB in 15 s is about 4 KB/s,
/// far below any real link.
const MIN_PROGRESS: usize = 64 * 1024;

/// A TCP stream whose writes fail with `TimedOut` once they have waited on the client for the
/// deadline without it taking `MIN_PROGRESS` bytes (or all there was to send). The error makes
/// hyper end the connection and drop the response it was writing.
pub struct WriteDeadline {
    stream: TcpStream,
    timeout: Duration,
    /// Armed when a write finds the socket full; disarmed by enough progress or a flush.
    stall: Option<Stall>,
    /// Kept between stalls so that arming one does not allocate.
    timer: Pin<Box<Sleep>>,
}

/// A wait on the client: what it has taken since the wait began.
struct Stall {
    taken: usize,
}

impl WriteDeadline {
    pub fn new(stream: TcpStream, timeout: Duration) -> Self {
        WriteDeadline { stream, timeout, stall: None, timer: Box::pin(tokio::time::sleep(timeout)) }
    }

    /// Bytes the client took: enough of them ends the wait.
    fn took(&mut self, bytes: usize) {
        if let Some(stall) = &mut self.stall {
            stall.taken += bytes;
            if stall.taken >= MIN_PROGRESS {
                self.stall = None;
            }
        }
    }

    /// The socket is full: starts the wait if none is running, and fails the write once the
    /// deadline has passed. The timer wakes this task then, so a stalled client is dropped
    /// even if nothing else happens on its connection.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if self.stall.is_none() {
            self.timer.as_mut().reset(Instant::now() + self.timeout);
            self.stall = Some(Stall { taken: 0 });
        }
        if self.timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        // An abortive close: the kernel drops what is still queued for this client at once,
        // where a graceful one would keep it while probing a closed window for minutes.
        let _ = self.stream.set_zero_linger();
        let timeout = self.timeout;
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("the client took too little of its answer in {timeout:?}"),
        )))
    }

    /// `written` on success, through the deadline when the socket is full.
    fn watch(&mut self, cx: &mut Context<'_>, written: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        match written {
            Poll::Ready(Ok(n)) => {
                self.took(n);
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => self.stalled(cx),
        }
    }
}

impl AsyncRead for WriteDeadline {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteDeadline {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.watch(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.watch(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    /// hyper flushes the stream only once its own buffer is all written: whatever the client
    /// was waited on for, it has taken.
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.stream).poll_flush(cx);
        if let Poll::Ready(Ok(())) = flushed {
            self.stall = None;
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A connected pair: the deadline's side, and a client with a small receive buffer.
    async fn pair(timeout: Duration) -> (WriteDeadline, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let (client, accepted) = tokio::join!(socket.connect(listener.local_addr().unwrap()), listener.accept());
        (WriteDeadline::new(accepted.unwrap().0, timeout), client.unwrap())
    }

    #[tokio::test]
    async fn a_client_that_takes_nothing_fails_the_write_at_the_deadline() {
        let (mut server, _client) = pair(Duration::from_secs(1)).await;
        let chunk = vec![7u8; 64 * 1024];
        let started = Instant::now();
        let error = loop {
            if let Err(error) = server.write_all(&chunk).await {
                break error;
            }
        };
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_secs(1), "failed after {:?}", started.elapsed());
    }

    /// 256 bytes every 50 ms: about 5 KB a second, less than `MIN_PROGRESS` a deadline.
    #[tokio::test]
    async fn a_client_that_takes_a_trickle_fails_the_write_too() {
        let (mut server, mut client) = pair(Duration::from_secs(1)).await;
        tokio::spawn(async move {
            let mut some = [0u8; 256];
            while let Ok(1..) = client.read(&mut some).await {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let chunk = vec![7u8; 64 * 1024];
        let error = loop {
            if let Err(error) = server.write_all(&chunk).await {
                break error;
            }
        };
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test]
    async fn a_client_that_reads_keeps_its_connection() {
        let (mut server, mut client) = pair(Duration::from_secs(5)).await;
        let reader = tokio::spawn(async move {
            let mut buffer = vec![0u8; 64 * 1024];
            let mut total = 0;
            while let Ok(n @ 1..) = client.read(&mut buffer).await {
                total += n;
            }
            total
        });
        let chunk = vec![7u8; 64 * 1024];
        for _ in 0..128 {
            server.write_all(&chunk).await.unwrap();
        }
        drop(server);
        assert_eq!(reader.await.unwrap(), 128 * chunk.len());
    }
}
