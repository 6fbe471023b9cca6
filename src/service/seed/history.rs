//! The seeded plan's last three nightly runs, so that a newcomer's jobs tab opens on history
//! with verdicts rather than an empty list. They are real runs: PENDING jobs of the seeded plan,
//! started as any run is, whose replay sets their clock back to the night they stand for and,
//! for the newest, has the reference agent answer as a build with a regression on one edge
//! case. The nights are the three before the first start (tests pin that instant), so the
//! newest run is a day old, never weeks. The simulation engine runs them as soon as the service
//! starts, as fast as it can, each on a clock of its own set to its night (`Replay`); the first
//! start waits for them to end (`settled`), so no one sees last night's run as PENDING.

use crate::service::store::Tx;

use crate::api::model::{JobTrigger, RunPlan, RunPlanJobStatus, Timestamp};
use crate::service::error::{DomainError, DomainResult};
use crate::service::sim::jobs::{self, Replay};
use crate::service::sim::start;
use crate::service::store::{self, Kind};

/// "Brightsmile reschedule regression", as `assets/seed/run_plans.json` holds it.
const NIGHTLY_PLAN: &str = "def19c4f-3b29-5880-ab66-2113c56938c5";

/// Each night's reference agent build, oldest first: the newest ignores a caller's keypad
/// choice of another time.
const BUILDS: [Option<&str>; 3] = [None, None, Some("IGNORES_KEYPAD_CHOICE")];

/// The nights' runs start at 09:00 UTC (02:00 at the clinic, UTC−7).
const NIGHTLY_HOUR: i8 = 9;

pub fn nightly_runs(tx: &Tx, before: jiff::Timestamp) -> DomainResult<()> {
    let plan: RunPlan = store::require(tx, Kind::RunPlan, NIGHTLY_PLAN)?;
    for (at, build) in nights(before)?.into_iter().zip(BUILDS) {
        let job = start::start_job_at(tx, &plan, None, "", Timestamp::from(at), JobTrigger::Scheduled)?;
        let replay = Replay { starts_at: Timestamp::from(at), reference_build: build.map(str::to_owned) };
        jobs::set_replay(tx, &job.simulation_run_plan_job_id.to_string(), &replay)?;
    }
    Ok(())
}

/// The three nights' starts, oldest first: 09:00 UTC on each of the three days before the day
/// of `before` (so even the newest run, of yesterday, ended before `before`).
fn nights(before: jiff::Timestamp) -> DomainResult<Vec<jiff::Timestamp>> {
    let fault = |e: jiff::Error| DomainError::fault(format!("the seeded nights before {before}: {e}"));
    let today = before.to_zoned(jiff::tz::TimeZone::UTC).date();
    (1..=3i64)
        .rev()
        .map(|days| {
            let day = today.checked_sub(jiff::Span::new().days(days)).map_err(fault)?;
            let at = day.at(NIGHTLY_HOUR, 0, 0, 0).to_zoned(jiff::tz::TimeZone::UTC).map_err(fault)?;
            Ok(at.timestamp())
        })
        .collect()
}

/// Whether every job of the seeded history has ended (none in a status that can still change).
pub fn settled(conn: &store::Conn) -> DomainResult<bool> {
    let open: Vec<&str> =
        RunPlanJobStatus::KNOWN.iter().filter(|s| !s.is_terminal()).map(RunPlanJobStatus::as_str).collect();
    Ok(store::count_children(conn, Kind::RunPlanJob, NIGHTLY_PLAN, &open)? == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nights_are_the_three_before_the_given_day_at_nine_utc() {
        let at = |text: &str| text.parse::<jiff::Timestamp>().expect("a timestamp");
        let late: Vec<String> =
            nights(at("2026-11-27T20:40:00Z")).expect("nights").iter().map(ToString::to_string).collect();
        assert_eq!(late, ["2026-11-24T09:00:00Z", "2026-11-25T09:00:00Z", "2026-11-26T09:00:00Z"]);
        // Just after midnight, yesterday's night is still the newest: it has ended.
        let early = nights(at("2026-10-31T00:00:01Z")).expect("nights");
        assert_eq!(early[2].to_string(), "2026-10-30T09:00:00Z");
    }
}
