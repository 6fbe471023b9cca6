//! The domain's error: why a rule about a resource refused a request, in the domain's words
//! and never HTTP's. The route edge maps it to the wire once (`From<DomainError> for
//! ServiceError` in `http/error.rs`); engines match on its variants.

use crate::api::validate::{ECHO_CHARS, Violation, clip};
use crate::service::config::violation::ConfigViolation;
use crate::service::store::StoreError;

/// What a caller reads of a fault; its cause goes to the log only.
pub const FAULT_MESSAGE: &str = "internal error; see the service log";

/// Why a domain rule refused, or what failed under it.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// One field at fault (its path from the body's root) and why.
    #[error("{message}")]
    Invalid { param: String, message: String },
    /// Every field at fault in a request, at once (what `validate()` found).
    #[error("{}", refused_message(.0))]
    Refused(Vec<Violation>),
    /// Every problem of a config bundle, each naming its resource (`KIND/NAME`).
    #[error("{}", config_message(.0))]
    ConfigRefused(Vec<ConfigViolation>),
    /// No `what` (a resource's name in words) has this id.
    #[error("no {what} {}", clip(.id, ECHO_CHARS))]
    NotFound { what: &'static str, id: String },
    /// The change collides with what is stored or what uses it (a slug taken, a flow a run
    /// needs); `code` tells which.
    #[error("{message}")]
    Conflict { param: String, code: &'static str, message: String },
    /// The service's own failure; the text is for the log, never a caller.
    #[error("{0}")]
    Fault(String),
    /// The store's failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A domain operation's result.
pub type DomainResult<T> = Result<T, DomainError>;

impl DomainError {
    /// One field at fault.
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        DomainError::Invalid { param: param.into(), message: message.into() }
    }

    /// Ok when nothing is at fault, else every violation at once.
    pub fn check(violations: Vec<Violation>) -> DomainResult<()> {
        if violations.is_empty() { Ok(()) } else { Err(DomainError::Refused(violations)) }
    }

    /// No `what` has `id`.
    pub fn not_found(what: &'static str, id: &str) -> Self {
        DomainError::NotFound { what, id: id.to_owned() }
    }

    /// The change collides with what is stored; `code` says how.
    pub fn conflict(param: impl Into<String>, code: &'static str, message: impl Into<String>) -> Self {
        DomainError::Conflict { param: param.into(), code, message: message.into() }
    }

    /// The service's own failure, described for the log.
    pub fn fault(cause: impl std::fmt::Display) -> Self {
        DomainError::Fault(cause.to_string())
    }

    /// The words a caller may read, as the wire's error message has them: a fault's cause
    /// (the store's too) is logged here and never told.
    pub fn told(&self) -> String {
        match self {
            DomainError::Fault(cause) | DomainError::Store(StoreError::Backend(cause)) => {
                tracing::error!("internal error: {cause}");
                FAULT_MESSAGE.to_owned()
            }
            DomainError::Store(StoreError::NotFound { kind, id }) => DomainError::not_found(kind, id).to_string(),
            other => other.to_string(),
        }
    }
}

impl From<serde_json::Error> for DomainError {
    fn from(error: serde_json::Error) -> Self {
        DomainError::Fault(format!("json: {error}"))
    }
}

/// The first violation's words, as the wire's message has them.
fn refused_message(violations: &[Violation]) -> &str {
    violations.first().map_or("invalid request", |v| v.message.as_str())
}

fn config_message(problems: &[ConfigViolation]) -> String {
    problems.first().map_or("invalid request".to_owned(), |p| format!("{}: {}", p.config_key, p.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::validate::ViolationCode;
    use crate::service::store::Kind;

    #[test]
    fn a_fault_is_told_without_its_cause() {
        assert_eq!(DomainError::fault("disk on fire").told(), FAULT_MESSAGE);
        assert_eq!(DomainError::from(StoreError::backend("store: disk I/O error")).told(), FAULT_MESSAGE);
    }

    #[test]
    fn a_refusal_is_told_in_its_own_words() {
        assert_eq!(DomainError::invalid("name", "name is required").told(), "name is required");
        assert_eq!(DomainError::from(StoreError::not_found(Kind::Agent, "a1")).told(), "no agent a1");
        let first = Violation { param: "a".into(), code: ViolationCode::InvalidParameter, message: "a: bad".into() };
        assert_eq!(DomainError::Refused(vec![first]).told(), "a: bad");
    }
}
