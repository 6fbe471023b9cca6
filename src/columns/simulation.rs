//! A run's simulation jobs' columns: the console's simulations table of a job, the
//! SIMULATIONS and NOT SCORED tables `job get`, `job watch` and `gate` print, and the gate's
//! Markdown report's worst failing and not scored simulations.

use super::{Column, Holds, fit, fixed};
use crate::api::model::{SimulationJob, SimulationOutcome};

use ratatui::layout::Constraint::Fill;

/// Failing first when sorted by VERDICT: failed, error, not evaluated, passed, then running.
fn outcome_rank(s: &SimulationJob) -> u8 {
    match &s.outcome {
        Some(SimulationOutcome::Failed) => 0,
        Some(SimulationOutcome::Error) => 1,
        Some(SimulationOutcome::NotEvaluated) => 2,
        Some(SimulationOutcome::Passed) => 3,
        Some(SimulationOutcome::Unknown(_)) => 4,
        None => 5,
    }
}

fn status(s: &SimulationJob) -> String {
    s.status.as_ref().map(|s| s.to_string()).unwrap_or_else(|| "—".into())
}

/// A simulation as a test case: flow, variant, persona and iteration.
pub fn case_name(sim: &SimulationJob) -> String {
    let mut parts = Vec::new();
    if let Some(flow) = &sim.customer_flow {
        parts.extend(crate::compare::run::flow_parts(flow));
    } else if let Some(scenario) = &sim.scenario {
        parts.push(scenario.description.clone().unwrap_or_else(|| scenario.id.to_string()));
    }
    if let Some(persona) = &sim.persona {
        parts.push(persona.label());
    }
    parts.push(format!("#{}", sim.iteration.unwrap_or(0) + 1));
    parts.join(" · ")
}

/// The outcome, `…` until there is one; the console also tells an ended simulation without
/// one (`—`) in its own cell.
pub const VERDICT: Column<SimulationJob> = Column::new("VERDICT", fit(6, 13), |s: &SimulationJob| {
    s.outcome.as_ref().map(|o| o.to_string()).unwrap_or_else(|| "…".into())
})
.by(|a, b| outcome_rank(a).cmp(&outcome_rank(b)));

pub const STATUS: Column<SimulationJob> =
    Column::new("STATUS", fit(6, 10), status).by(|a, b| status(a).cmp(&status(b)));

/// Why it did not pass, in full; the console's cell says it in brief, and sorts by that.
pub const WHY: Column<SimulationJob> = Column::new("WHY", fixed(Fill(4)), |s: &SimulationJob| s.why_not_passed())
    .by(|a, b| a.why_in_brief().cmp(&b.why_in_brief()));

pub const TEST_CASE: Column<SimulationJob> = Column::text("TEST CASE", case_name);

pub const ID: Column<SimulationJob> = Column::text("ID", |s: &SimulationJob| s.simulation_job_id.to_string());

/// What the SIMULATIONS table of `job get` prints.
pub const CLI: &[Column<SimulationJob>] = &[VERDICT, STATUS, TEST_CASE, WHY, ID];

/// How many characters of a reason a Markdown cell holds (the JSON report keeps them whole).
const BRIEF: usize = 400;

/// `text` cut to a Markdown cell's length, with `…` where cut.
pub fn brief(text: &str) -> String {
    crate::api::validate::clip(text, BRIEF)
}

/// The test case, in the Markdown report's word.
pub const SIMULATION: Column<SimulationJob> = TEST_CASE.titled("SIMULATION");

/// The outcome; the Markdown report lists only simulations that have one.
pub const OUTCOME: Column<SimulationJob> =
    Column::text("OUTCOME", |s: &SimulationJob| s.outcome.as_ref().map(|o| o.to_string()).unwrap_or_default());

/// Why it did not pass, cut to a Markdown cell.
pub const WHY_BRIEF: Column<SimulationJob> = Column::text("WHY", |s: &SimulationJob| brief(&s.why_not_passed()));

/// The call, as Markdown code (so it is copied whole).
pub const CALL: Column<SimulationJob> =
    Column::text("CALL", |s: &SimulationJob| s.call_id.map(|c| format!("`{c}`")).unwrap_or_default());

/// The Markdown report's worst failing simulations.
pub const WORST: &[Column<SimulationJob>] = &[SIMULATION, OUTCOME, WHY_BRIEF, CALL];

/// A simulation that counts for no check, with why: a row of NOT SCORED.
pub type Unscored<'a> = (&'a SimulationJob, String);

impl Holds<SimulationJob> for Unscored<'_> {
    fn item(&self) -> &SimulationJob {
        self.0
    }
}

/// NOT SCORED as a terminal prints it (a function, as rows that borrow have a lifetime a
/// constant cannot name).
pub const fn not_scored<'a>() -> [Column<Unscored<'a>>; 3] {
    [
        crate::column_on!(TEST_CASE, Unscored<'a>),
        Column::text("WHY", |(_, why): &Unscored<'a>| why.clone()),
        crate::column_on!(ID, Unscored<'a>),
    ]
}

/// NOT SCORED as the Markdown report shows it.
pub const fn not_scored_markdown<'a>() -> [Column<Unscored<'a>>; 3] {
    [
        crate::column_on!(SIMULATION, Unscored<'a>),
        Column::text("WHY", |(_, why): &Unscored<'a>| brief(why)),
        crate::column_on!(CALL, Unscored<'a>),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{row, titles};

    fn sim(status: &str, outcome: Option<&str>) -> SimulationJob {
        serde_json::from_value(serde_json::json!({
            "simulationJobId": "00000000-0000-0000-0000-000000000007",
            "status": status,
            "outcome": outcome,
            "iteration": 1,
            "customerFlow": {"id": "00000000-0000-0000-0000-000000000001", "title": "Reschedule", "happyPath": true},
        }))
        .unwrap()
    }

    #[test]
    fn the_cli_row_is_the_outcome_status_test_case_why_and_id() {
        assert_eq!(titles(CLI), ["VERDICT", "STATUS", "TEST CASE", "WHY", "ID"]);
        let running = row(CLI, &sim("PROCESSING", None));
        assert_eq!(running[..3], ["…", "PROCESSING", "Reschedule · happy path · #2"]);
        assert_eq!(running[4], "00000000-0000-0000-0000-000000000007");
        assert_eq!(row(CLI, &sim("COMPLETED", Some("FAILED")))[0], "FAILED");
    }

    #[test]
    fn a_simulation_not_scored_reads_its_test_case_and_id_beside_why() {
        let sim = sim("COMPLETED", Some("NOT_EVALUATED"));
        let unscored: Unscored = (&sim, "no value on this call".into());
        assert_eq!(titles(&not_scored()), ["TEST CASE", "WHY", "ID"]);
        assert_eq!(
            row(&not_scored(), &unscored),
            ["Reschedule · happy path · #2", "no value on this call", "00000000-0000-0000-0000-000000000007"]
        );
        assert_eq!(row(&not_scored_markdown(), &unscored)[2], "", "no call: an empty cell");
        assert_eq!(brief(&"x".repeat(401)).chars().count(), 401, "400 and the …");
    }

    #[test]
    fn verdict_sorts_failing_first_and_the_unfinished_last() {
        let (failed, passed, running) =
            (sim("COMPLETED", Some("FAILED")), sim("COMPLETED", Some("PASSED")), sim("PROCESSING", None));
        assert_eq!(VERDICT.compare(&failed, &passed), std::cmp::Ordering::Less);
        assert_eq!(VERDICT.compare(&running, &passed), std::cmp::Ordering::Greater);
    }
}
