//! The store's background threads (the event publisher and listener, the duties and the
//! presence on PostgreSQL; the checkpointer and the progress writer on SQLite) loop for the
//! process's life, one round at a time; each round's work (its statement, its check; not the
//! waiting and connecting around it) runs `guarded`. A panic in one is logged and the next runs:
//! left to unwind, it would end its thread without a word, and the replica would go on as if
//! the thread still did its part (events never published, a count of the replicas never
//! updated, a lock believed held).

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs one round of `what`'s work: its value, or `None` when it panicked (logged as an error
/// naming `what`, with the panic's message).
pub(super) fn guarded<T>(what: &str, work: impl FnOnce() -> T) -> Option<T> {
    // Unwind safety: what a round shares with the next is reset by its thread on `None` (a
    // connection dropped, a lock given up), is a lock that recovers from poisoning, or is a
    // SQLite connection, whose statements are finalized as they unwind.
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Some(value),
        Err(panic) => {
            tracing::error!("store: {what} failed unexpectedly ({}); its thread goes on", message(panic.as_ref()));
            None
        }
    }
}

/// A panic's message, when it has one.
fn message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_that_panics_is_none_and_the_next_round_runs() {
        let mut ran = Vec::new();
        let outcomes: Vec<Option<usize>> = (0..3)
            .map(|n| {
                guarded("a round", || {
                    ran.push(n);
                    assert!(n != 1, "round {n} fails");
                    n * 10
                })
            })
            .collect();
        assert_eq!(outcomes, [Some(0), None, Some(20)]);
        assert_eq!(ran, [0, 1, 2], "every round ran, the one after the panic too");
    }

    #[test]
    fn a_panics_message_is_told_whether_borrowed_or_owned() {
        let borrowed = catch_unwind(|| panic!("plain")).unwrap_err();
        let owned = catch_unwind(|| panic!("with {}", "an argument")).unwrap_err();
        let other = catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(message(borrowed.as_ref()), "plain");
        assert_eq!(message(owned.as_ref()), "with an argument");
        assert_eq!(message(other.as_ref()), "a panic without a message");
    }
}
