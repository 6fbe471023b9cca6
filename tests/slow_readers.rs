//! Clients that ask for a large answer and do not read it (issue 27): the write deadline drops
//! them, the response budget refuses large answers past its cap with 503 `service_busy` and
//! takes them again once the shares are freed, and other requests are served meanwhile.
//! On SQLite, and on PostgreSQL with `SWITCHBOARD_TEST_STORE=postgres`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;
#[path = "support/wide_plan.rs"]
mod wide_plan;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use reqwest::Method;
use support::Service;
use switchboard::api::model::*;
use switchboard::service::Options;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Simulations in the job read: enough that its answer is far more than the kernel's socket
/// buffers and hyper's queue hold for a client that reads nothing.
const SIMULATIONS: u64 = 3_000;

/// A job large enough to fill what a silent client's connection holds, cancelled at once and
/// settled so the engine leaves it alone: its read's path, size and entity tag.
async fn large_job(service: &Service) -> (String, usize, String) {
    let plan = wide_plan::wide_plan(&service.client, "Slow readers", SIMULATIONS, 1, &["call_duration"]).await;
    let run = service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let id = run.simulation_run_plan_job_id;
    service.client.cancel_run_plan_job(id).await.unwrap();
    // Simulations the engine had started finish before the job is CANCELLED: until then its
    // read (and entity tag) still changes.
    support::eventually(Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        (job.status == Some(RunPlanJobStatus::Cancelled)).then_some(())
    })
    .await;
    let path = format!("/v1/simulation/plan/job/{id}");
    let whole = reqwest::Client::new()
        .get(format!("{}{path}", service.base_url()))
        .bearer_auth(service.running.api_key.expose())
        .send()
        .await
        .unwrap();
    assert_eq!(whole.status(), 200);
    let etag = whole.headers()["etag"].to_str().unwrap().to_owned();
    let size = whole.bytes().await.unwrap().len();
    assert!(size > 6 << 20, "the job's read is {size} bytes: too small to fill a connection's buffers");
    (path, size, etag)
}

/// A client with a small receive buffer that sends the read of `path` and reads nothing.
async fn silent_reader(service: &Service, path: &str) -> TcpStream {
    let addr: SocketAddr = service.running.addr;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let key = service.running.api_key.expose();
    let request = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {key}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Everything the client can still read: the bytes, until the end or a reset.
async fn read_what_is_left(stream: &mut TcpStream) -> usize {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0;
    let reading = async {
        while let Ok(n @ 1..) = stream.read(&mut buffer).await {
            total += n;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), reading).await.expect("the connection ends");
    total
}

/// Polls until every client has seen the service reset its connection (without reading,
/// which would let the service go on sending).
async fn until_all_reset(clients: &[TcpStream]) {
    let reset: Vec<AtomicBool> = clients.iter().map(|_| AtomicBool::new(false)).collect();
    support::eventually(Duration::from_secs(30), || {
        let all = clients.iter().zip(&reset).all(|(client, reset)| {
            // `take_error` reads (and clears) the socket's pending error: a reset sets it.
            if matches!(client.take_error(), Ok(Some(_))) {
                reset.store(true, Ordering::Relaxed);
            }
            reset.load(Ordering::Relaxed)
        });
        std::future::ready(all.then_some(()))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_do_not_read_are_dropped_while_others_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options { write_timeout: Duration::from_secs(1), ..support::options(dir.path(), true) };
    let service = support::start_with(options, dir).await;
    let (path, size, _) = large_job(&service).await;
    let key = format!("Bearer {}", service.running.api_key.expose());

    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(silent_reader(&service, &path).await);
    }
    let (status, _, _) = support::raw(&service.base_url(), Method::GET, "/v1/persona", Some(&key), None).await;
    assert_eq!(status, 200, "a small answer is served while the silent clients are held");

    until_all_reset(&silent).await;
    for client in &mut silent {
        let got = read_what_is_left(client).await;
        assert!(got < size, "a dropped client got {got} of {size} bytes");
    }
    let (status, _, _) = support::raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
    assert_eq!(status, 200, "the dropped clients' shares of the budget are free again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_answers_past_the_cap_are_refused_busy_until_the_shares_are_freed() {
    let dir = tempfile::tempdir().unwrap();
    // Room for two streamed reads; a write deadline longer than the test, so the silent
    // clients hold their shares until they go.
    let options = Options {
        write_timeout: Duration::from_secs(600),
        response_memory: 2 << 20,
        response_wait: Duration::from_millis(200),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let (path, _, etag) = large_job(&service).await;
    let key = format!("Bearer {}", service.running.api_key.expose());

    let mut silent = Vec::new();
    for _ in 0..2 {
        let mut client = silent_reader(&service, &path).await;
        let mut status_line = [0u8; 12];
        client.read_exact(&mut status_line).await.unwrap();
        assert_eq!(&status_line, b"HTTP/1.1 200", "a share was free");
        silent.push(client);
    }

    let (status, body, headers) = support::raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "service_busy", "{body}");
    assert_eq!(body["type"], "internal", "{body}");
    assert_eq!(headers["retry-after"], "600");
    for small in ["/v1/persona", &format!("{path}?simulationJobs=none")] {
        let (status, _, _) = support::raw(&service.base_url(), Method::GET, small, Some(&key), None).await;
        assert_eq!(status, 200, "{small} is small: it never waits on the budget");
    }
    let unchanged = reqwest::Client::new()
        .get(format!("{}{path}", service.base_url()))
        .header("authorization", &key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(unchanged.status(), 304, "a conditional read of an unchanged job needs no share");

    // A client that goes frees its share: the service's write fails and drops the answer.
    drop(silent);
    support::eventually(Duration::from_secs(30), || async {
        let (status, _, _) = support::raw(&service.base_url(), Method::GET, &path, Some(&key), None).await;
        (status == 200).then_some(())
    })
    .await;
}
