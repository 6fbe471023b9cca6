//! The store's own error: what went wrong with stored data, in the store's words and never
//! HTTP's. The route edge maps it to the wire once (`From<StoreError> for ServiceError`);
//! engines match on its variants.

use super::Kind;

/// Why a store operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// No document of this kind (its label) has this id.
    #[error("no {kind} {id}")]
    NotFound { kind: &'static str, id: String },
    /// Text neither engine keeps alike (NUL): the engines fail the one simulation or job that
    /// produced it, never the scheduler.
    #[error("the text holds a NUL character (\\u0000), which the store cannot keep")]
    Unstorable,
    /// This replica no longer holds the work it was writing for (its lease ran out and another
    /// replica took it over): its part ends there.
    #[error("this replica no longer holds {kind} {id}")]
    LeaseLost { kind: &'static str, id: String },
    /// A list cursor this service did not issue.
    #[error("cursor is not one this service issued")]
    BadCursor,
    /// Busy with a conflicting change, or out of reach: the same work may succeed if tried again.
    #[error("{0}")]
    Unavailable(&'static str),
    /// A fault of the store or of the data it holds; the text is for the log, never a caller.
    #[error("{0}")]
    Backend(String),
}

/// A store operation's result.
pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// No document of `kind` has `id`.
    pub fn not_found(kind: Kind, id: &str) -> Self {
        StoreError::NotFound { kind: kind.label(), id: id.to_owned() }
    }

    /// A fault, described for the log.
    pub fn backend(cause: impl std::fmt::Display) -> Self {
        StoreError::Backend(cause.to_string())
    }

    /// Whether it is the store's own failure (busy, out of reach, a fault), which a later try
    /// may not meet; a missing document, text it cannot keep or a lost lease stay as they are.
    pub fn may_pass(&self) -> bool {
        matches!(self, StoreError::Unavailable(_) | StoreError::Backend(_))
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        // The extended code tells a busy lock (5) from a stale snapshot (517) or a recovery (261).
        match error.sqlite_error() {
            Some(failure) => StoreError::Backend(format!("store: {error} (code {})", failure.extended_code)),
            None => StoreError::Backend(format!("store: {error}")),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> Self {
        StoreError::Backend(format!("json: {error}"))
    }
}
