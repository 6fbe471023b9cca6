//! Whether this replica can serve, for a load balancer's checks (`GET /ready`): not while it is
//! stopping, nor while its store does not answer. Probes come without a key and without a rate
//! limit, so one check runs at a time and its answer is shared for a second.

use std::time::{Duration, Instant};

use axum::http::StatusCode;

use super::error::ServiceError;
use super::store::Store;

/// How long the store has to answer: less than balancers wait for an answer.
const WITHIN: Duration = Duration::from_secs(2);
/// How long an answer is given again without asking the store.
const FRESH: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct Readiness {
    /// The last answer and when it was made; `Err` holds what the log was told.
    last: tokio::sync::Mutex<Option<(Instant, Result<(), ()>)>>,
}

impl Readiness {
    /// Ready, or the 503 that says why not (never the store's own words, which may name hosts).
    pub async fn check(&self, store: &Store, closing: bool) -> Result<(), ServiceError> {
        if closing {
            return Err(unavailable("the service is stopping"));
        }
        // Probes arriving while a check runs wait for it and take its answer.
        let mut last = self.last.lock().await;
        let answer = match *last {
            Some((at, answer)) if at.elapsed() < FRESH => answer,
            _ => {
                let answer = store.ping(WITHIN).await.map_err(|e| {
                    tracing::warn!("not ready: the store did not answer: {e}");
                });
                *last = Some((Instant::now(), answer));
                answer
            }
        };
        answer.map_err(|()| unavailable(&format!("the store did not answer within {} s", WITHIN.as_secs())))
    }
}

fn unavailable(why: &str) -> ServiceError {
    ServiceError::new(StatusCode::SERVICE_UNAVAILABLE, crate::api::ErrorType::Internal, "store_unavailable", why)
}
