//! A service without some routes: a proxy on 127.0.0.1 in front of a real local service that
//! answers 404 `no route` for the hidden paths, as a service without those local extensions
//! (the hosted one) does, and passes every other request through unchanged. Also how a test
//! shows that a client never asked for a route: hide it and see the client still work.
#![allow(dead_code, reason = "each test crate uses a different part of the support module")]

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(Clone)]
struct Target {
    base: String,
    hidden: fn(&str) -> bool,
    http: reqwest::Client,
}

/// Starts the proxy in front of `base`; its base URL. A path `hidden` says yes to is answered
/// 404 without reaching the service.
pub async fn without(base: &str, hidden: fn(&str) -> bool) -> String {
    let target = Target { base: base.trim_end_matches('/').to_owned(), hidden, http: reqwest::Client::new() };
    let app = axum::Router::new().fallback(forward).with_state(target);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

async fn forward(State(target): State<Target>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    if (target.hidden)(&path) {
        let body = serde_json::json!({
            "type": "not_found",
            "code": "resource_not_found",
            "message": format!("no route {} {path}", request.method()),
        });
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    let query = request.uri().query().map(|q| format!("?{q}")).unwrap_or_default();
    let method = reqwest::Method::from_bytes(request.method().as_str().as_bytes()).unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    for name in ["authorization", "content-type", "if-none-match", "accept"] {
        if let Some(value) = request.headers().get(name) {
            headers.insert(name, reqwest::header::HeaderValue::from_bytes(value.as_bytes()).unwrap());
        }
    }
    let body = axum::body::to_bytes(request.into_body(), usize::MAX).await.unwrap();
    let reply = target
        .http
        .request(method, format!("{}{path}{query}", target.base))
        .headers(headers)
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    let status = StatusCode::from_u16(reply.status().as_u16()).unwrap();
    let mut out = HeaderMap::new();
    for (name, value) in reply.headers() {
        if matches!(name.as_str(), "content-type" | "etag" | "retry-after") {
            out.insert(
                axum::http::HeaderName::from_bytes(name.as_str().as_bytes()).unwrap(),
                axum::http::HeaderValue::from_bytes(value.as_bytes()).unwrap(),
            );
        }
    }
    let bytes = reply.bytes().await.unwrap();
    (status, out, Body::from(bytes)).into_response()
}
