//! The service's HTTP floor: the connection loop, the request screen, auth, extractors, error
//! bodies, conditional GETs, the response budget, the OpenAPI document and the routes. Rules
//! about resources live in the domain modules beside it; the routes hand them typed input.

pub(super) mod auth;
pub mod error;
pub(super) mod error_body;
pub(super) mod etag;
pub(super) mod extract;
pub(super) mod job_read;
pub(super) mod keyfile;
pub mod named_keys;
pub mod openapi;
pub(super) mod readiness;
pub(super) mod response_budget;
pub(super) mod routes;
pub(super) mod screen;
pub(super) mod server;
mod write_deadline;

// The floor's files name their neighbours as `super::…`, as they did on the flat floor.
use super::{AppState, MAX_BODY_BYTES, data_dir, sim, store};
