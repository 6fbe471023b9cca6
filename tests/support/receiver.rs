//! A webhook receiver written for the tests, apart from the service's code: it keeps each
//! request, can answer 500 to the first few, and checks signatures the Standard Webhooks way.
//! Include with `#[path = "support/receiver.rs"] mod receiver;`.
#![allow(dead_code, reason = "each test crate uses a different part of the support module")]

use std::sync::{Arc, Mutex};

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// What the receiver saw: each request's headers and body.
#[derive(Clone, Default)]
pub struct Receiver {
    seen: Arc<Mutex<Vec<(axum::http::HeaderMap, String)>>>,
    /// Answer 500 to this many requests before accepting.
    fail_first: Arc<Mutex<usize>>,
}

impl Receiver {
    pub async fn listen(self, listener: tokio::net::TcpListener) {
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(
                |axum::extract::State(receiver): axum::extract::State<Receiver>,
                 headers: axum::http::HeaderMap,
                 body: String| async move {
                    receiver.seen.lock().unwrap().push((headers, body));
                    let mut fail = receiver.fail_first.lock().unwrap();
                    if *fail > 0 {
                        *fail -= 1;
                        axum::http::StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        axum::http::StatusCode::NO_CONTENT
                    }
                },
            ),
        );
        axum::serve(listener, app.with_state(self)).await.unwrap();
    }

    pub fn requests(&self) -> Vec<(axum::http::HeaderMap, String)> {
        self.seen.lock().unwrap().clone()
    }
}

/// The Standard Webhooks check a receiver makes.
pub fn verify(secret: &str, headers: &axum::http::HeaderMap, body: &str) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let key = base64::engine::general_purpose::STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{}", header("webhook-id"), header("webhook-timestamp"), body).as_bytes());
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    let fresh =
        header("webhook-timestamp").parse::<i64>().is_ok_and(|t| (jiff::Timestamp::now().as_second() - t).abs() < 300);
    fresh && header("webhook-signature").split(' ').any(|s| s == format!("v1,{expected}"))
}

/// A receiver listening on a local port, and its URL.
pub async fn receiver(fail_first: usize) -> (Receiver, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let receiver = Receiver { fail_first: Arc::new(Mutex::new(fail_first)), ..Default::default() };
    tokio::spawn(receiver.clone().listen(listener));
    (receiver, url)
}
