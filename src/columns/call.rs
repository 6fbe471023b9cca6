//! A call's lines (`switchboard call get`); the console shows a call as its conversation.

use super::{Column, or_dash};
use crate::api::model::Call;

/// One call in full.
pub const DETAIL: &[Column<Call>] = &[
    Column::text("ID", |x: &Call| x.id.to_string()),
    Column::text("STATUS", |x: &Call| or_dash(x.status.as_ref())),
    Column::text("ENDED", |x: &Call| or_dash(x.ended_status.as_ref())),
    Column::text("DURATION", |x: &Call| or_dash(x.duration_ms.map(|ms| format!("{:.1}s", ms as f64 / 1000.0)))),
    Column::text("STARTED", |x: &Call| or_dash(x.started_at.as_ref())),
    Column::text("AGENT ID", |x: &Call| or_dash(x.agent_id)),
    Column::text("SIMULATION JOB", |x: &Call| or_dash(x.simulation_job_id)),
    Column::text("RUN PLAN JOB", |x: &Call| or_dash(x.simulation_run_plan_job_id)),
    Column::text("END REASON", |x: &Call| or_dash(x.end_reason.as_ref())),
];
