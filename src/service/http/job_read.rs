//! A run plan job as it is read: `{"data": job}` in the spec's shape, its simulation jobs
//! streamed from the store a page at a time, so a 100,000-simulation job is sent in bounded
//! memory and never built whole. Its entity tag comes from the job and its children's
//! revision (kept by triggers), so an unchanged job answers `304` without a child being read.

use axum::body::{Body, Bytes};

use super::error::{ServiceError, ServiceResult};
use super::etag;
use super::sim::jobs;
use super::store::{self, Kind, Store};
use crate::api::model::AttemptSummary;
use crate::service::store::StoreError;

/// Simulations sent per store read: about 300 KB of JSON (3 KB an ended simulation). A page is
/// what a client that stops reading leaves held, with what hyper queues, within the 1 MiB
/// share of the response budget a streamed read takes (`response_budget`).
const PAGE: usize = 100;

/// Pages read from the store at once, by all the job reads together: the rest of the store's
/// readers (SQLite has four) stay free for other requests. Thirty-two reads that each filled a
/// silent client's socket (about 4 MB, thirteen pages) at once held other requests' reads up
/// behind theirs.
static PAGE_READS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Everything of a job's read but its simulations: the opening of the body and its tag.
pub struct Head {
    /// `{"data":{…job members…,"simulationJobs":[`, to be followed by the simulations and `]}}`.
    pub opening: String,
    pub etag: String,
}

/// The job's members, counts and verdict; the tag covers the simulations (when they are
/// sent) through the children's revision. The revision is read first (each statement is its
/// own snapshot): a write after it makes the tag stale, so the next read answers 200, never a
/// 304 hiding a change.
pub fn head(conn: &crate::service::store::Conn, id: &str, with_simulations: bool) -> ServiceResult<Head> {
    let revision = if with_simulations { store::child_revision(conn, id)? } else { 0 };
    let job = summary(conn, id)?;
    let members = serde_json::to_string(&job)?;
    let members = members.strip_suffix('}').unwrap_or(&members);
    let separator = if job.is_empty() { "" } else { "," };
    let opening = format!("{{\"data\":{members}{separator}\"simulationJobs\":[");
    let etag = etag::tag_of(format!("{opening}\n{with_simulations}\n{revision}").as_bytes());
    Ok(Head { opening, etag })
}

/// The job as callers see it without its simulations: its own members (the engine's removed),
/// `simulationJobCount`, `counts`, `attemptSummary` and `pendingRetries`.
pub fn summary(
    conn: &crate::service::store::Conn,
    id: &str,
) -> ServiceResult<serde_json::Map<String, serde_json::Value>> {
    let raw = store::get_raw(conn, Kind::RunPlanJob, id)?.ok_or_else(|| ServiceError::not_found("run plan job", id))?;
    let mut job: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&raw)?;
    // The tally counts ended simulations by outcome as they end: no simulation is read for it.
    let by_outcome =
        job.get("tally").and_then(|t| t.get("byOutcome")).cloned().map(serde_json::from_value).transpose()?;
    for member in Kind::RunPlanJob.internal_members() {
        job.remove(*member);
    }
    let counts = store::simulation_counts(conn, id, by_outcome)?;
    job.insert("simulationJobCount".into(), counts.total.into());
    job.remove("simulationJobs");
    if !job.contains_key("attemptSummary") {
        // A job from before retries: every simulation is its test case's only attempt.
        let count = counts.total;
        let summary = AttemptSummary { attempt_count: count, test_case_count: count, ..Default::default() };
        job.insert("attemptSummary".into(), serde_json::to_value(summary)?);
    }
    job.insert("counts".into(), serde_json::to_value(&counts)?);
    job.insert("pendingRetries".into(), serde_json::to_value(jobs::pending_retries(conn, id)?)?);
    Ok(job)
}

/// The body: the opening, then each page of simulations as the client takes it, then the
/// closing. A simulation written while the body is sent may show its newer state; the tag,
/// taken before, then no longer matches, so the next conditional read gets it all again.
pub fn body(store: Store, id: String, head: Head, with_simulations: bool) -> Body {
    if !with_simulations {
        return Body::from(format!("{}]}}}}", head.opening));
    }
    enum Next {
        Opening(String),
        After(i64, bool),
        Done,
    }
    let pages = futures_util::stream::unfold(Next::Opening(head.opening), move |next| {
        let (store, id) = (store.clone(), id.clone());
        async move {
            let (after, first) = match next {
                Next::Opening(opening) => return Some((Ok(Bytes::from(opening)), Next::After(0, true))),
                Next::After(after, first) => (after, first),
                Next::Done => return None,
            };
            let page = match PAGE_READS.acquire().await {
                Ok(_turn) => {
                    store.read(move |c| store::children_after_raw(c, Kind::SimulationJob, &id, after, PAGE)).await
                }
                Err(closed) => Err(StoreError::backend(closed)),
            };
            let page = match page {
                Ok(page) => page,
                // The status line is sent; breaking the body tells the client it is incomplete.
                Err(e) => return Some((Err(std::io::Error::other(ServiceError::from(e).body.message)), Next::Done)),
            };
            let last = page.last().map(|(seq, _)| *seq);
            let mut chunk = String::with_capacity(page.iter().map(|(_, b)| b.len() + 1).sum::<usize>() + 4);
            for (index, (_, body)) in page.iter().enumerate() {
                if !(first && index == 0) {
                    chunk.push(',');
                }
                chunk.push_str(body);
            }
            match last {
                Some(last) if page.len() == PAGE => Some((Ok(Bytes::from(chunk)), Next::After(last, false))),
                _ => {
                    chunk.push_str("]}}");
                    Some((Ok(Bytes::from(chunk)), Next::Done))
                }
            }
        }
    });
    Body::from_stream(pages)
}
