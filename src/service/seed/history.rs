//! The seeded plan's last three nightly runs, so that a newcomer's jobs tab opens on history
//! with verdicts rather than an empty list. They are real runs: PENDING jobs of the seeded plan,
//! started as any run is, whose replay sets their clock back to the night they stand for and,
//! for the newest, has the reference agent answer as a build with a regression on one edge
//! case. The simulation engine runs them as soon as the service starts, as fast as it can, each
//! on a clock of its own set to its night (`Replay`); the first start waits for them to end
//! (`settled`), so no one sees last month's run as PENDING.

use crate::service::store::Tx;

use crate::api::model::{JobTrigger, RunPlan, RunPlanJobStatus, Timestamp};
use crate::service::error::{DomainError, DomainResult};
use crate::service::sim::jobs::{self, Replay};
use crate::service::sim::start;
use crate::service::store::{self, Kind};

/// "Brightsmile reschedule regression", as `assets/seed/run_plans.json` holds it.
const NIGHTLY_PLAN: &str = "def19c4f-3b29-5880-ab66-2113c56938c5";

/// Each night (02:00 at the clinic, UTC−7) and the reference agent's build that night: the
/// newest ignores a caller's keypad choice of another time.
const NIGHTS: &[(&str, Option<&str>)] = &[
    ("2026-10-28T09:00:00Z", None),
    ("2026-10-29T09:00:00Z", None),
    ("2026-10-30T09:00:00Z", Some("IGNORES_KEYPAD_CHOICE")),
];

pub fn nightly_runs(tx: &Tx) -> DomainResult<()> {
    let plan: RunPlan = store::require(tx, Kind::RunPlan, NIGHTLY_PLAN)?;
    for (night, build) in NIGHTS {
        let at: jiff::Timestamp =
            night.parse().map_err(|e| DomainError::fault(format!("seeded night {night}: {e}")))?;
        let job = start::start_job_at(tx, &plan, None, "", Timestamp::from(at), JobTrigger::Scheduled)?;
        let replay = Replay { starts_at: Timestamp::from(at), reference_build: build.map(str::to_owned) };
        jobs::set_replay(tx, &job.simulation_run_plan_job_id.to_string(), &replay)?;
    }
    Ok(())
}

/// Whether every job of the seeded history has ended (none in a status that can still change).
pub fn settled(conn: &store::Conn) -> DomainResult<bool> {
    let open: Vec<&str> =
        RunPlanJobStatus::KNOWN.iter().filter(|s| !s.is_terminal()).map(RunPlanJobStatus::as_str).collect();
    Ok(store::count_children(conn, Kind::RunPlanJob, NIGHTLY_PLAN, &open)? == 0)
}
