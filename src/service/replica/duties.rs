//! The duties one runner in the deployment does: publishing events, sending webhooks, the
//! alert engine's and the plan scheduler's ticks, and folding simulations' ends into their
//! jobs. Each is safe on several replicas (their claims and locks see to it), but on two they
//! did the same work twice and waited on each other's locks (issue 33: a second replica added
//! service CPU, round trips and lock waits, not throughput). So one replica at a time runs
//! them: the one holding a session-level advisory lock on a connection of its own
//! (`store::postgres::duties`, asked through `Store::holds_duties`). The lock frees when that
//! connection drops — its replica stopped, was killed or lost the database — and another
//! replica takes the duties over within a second. On SQLite, one process, they always run.

use std::time::Duration;

/// How long a replica without the duties waits before it asks again.
pub const LOOK_AGAIN: Duration = Duration::from_secs(1);
