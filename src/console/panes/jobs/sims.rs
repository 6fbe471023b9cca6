//! A run plan job's simulation jobs as table rows: columns (fewer on narrow screens), cells,
//! what `/` searches and how each column sorts. VERDICT comes first, so `s` sorts failing first.

use crate::console::widgets::table::Cell;
use ratatui::layout::Constraint::{Fill, Length};

use super::progress::sim_status;
use super::verdict::{is_failing, outcome};
use crate::api::model::{SimulationJob, SimulationOutcome};
use crate::console::panes::section::text_cmp;
use crate::console::theme::Theme;
use crate::console::widgets::list::by;
use crate::console::widgets::table::{Head, col, fitted};
use crate::console::widgets::text::{duration_ms, fit, or_dash, when};

/// Every column, in order; narrower screens show fewer (see `columns`).
pub const COLUMNS: &[Head] = &[
    fitted("VERDICT", 6, 13),
    fitted("STATUS", 6, 10),
    fitted("PERSONA", 7, 24),
    col("VARIANT / SCENARIO", Fill(2)),
    col("WHY", Fill(4)),
    col("TOOK", Length(7)),
    fitted("STAGE", 5, 10),
    fitted("ENDPOINT", 8, 24),
    col("STARTED", Length(19)),
];
/// The widest screens give statuses room for ones this build does not know, and show the flow too.
const WIDE_STATUS: Head = fitted("STATUS", 6, 18);
const WIDE_STAGE: Head = fitted("STAGE", 5, 18);
const WIDE_FLOW: Head = col("FLOW › VARIANT / SCENARIO", Fill(2));
/// How many columns show below 120 columns, below 180, and from 180 on.
const NARROW: usize = 5;
const WIDE: usize = 7;

pub fn id(s: &SimulationJob) -> String {
    s.simulation_job_id.to_string()
}

pub fn persona(s: &SimulationJob) -> String {
    s.persona.as_ref().map(|p| p.label()).unwrap_or_else(|| "—".into())
}

/// `flow › variant`, or the deprecated scenario.
pub fn flow(s: &SimulationJob) -> String {
    flow_text(s, false)
}

/// The variant alone where room is short: every row of a job usually shares its flow.
fn flow_text(s: &SimulationJob, short: bool) -> String {
    match (&s.customer_flow, &s.scenario) {
        (Some(f), _) => {
            let title = f.title.clone().unwrap_or_else(|| f.id.to_string());
            let variant = f.variant_title.clone().or_else(|| (f.happy_path == Some(true)).then(|| "happy path".into()));
            match variant {
                Some(v) if short => v,
                Some(v) => format!("{title} › {v}"),
                None => title,
            }
        }
        (None, Some(scenario)) => {
            format!("scenario: {}", scenario.description.clone().unwrap_or(scenario.id.to_string()))
        }
        (None, None) => "—".into(),
    }
}

pub fn endpoint(s: &SimulationJob) -> String {
    s.agent_endpoint.as_ref().and_then(|e| e.name.clone().or(e.phone_number.clone())).unwrap_or_else(|| "—".into())
}

pub fn stage(s: &SimulationJob) -> String {
    or_dash(s.processing_status.as_ref().map(|p| p.as_str()))
}

/// How long a simulation took (or has taken so far).
pub fn took_ms(s: &SimulationJob, now: jiff::Timestamp) -> Option<i64> {
    let start = s.started_at.as_ref()?.parse()?;
    let end = s.completed_at.as_ref().and_then(|t| t.parse()).unwrap_or(now);
    Some((end.as_millisecond() - start.as_millisecond()).max(0))
}

pub fn haystack(s: &SimulationJob) -> String {
    let (status, stage, persona, flow) = (sim_status(s), stage(s), persona(s), flow(s));
    format!(
        "{} {status} {stage} {persona} {flow} {} {} {}",
        outcome(s),
        s.why_in_brief(),
        endpoint(s),
        s.simulation_job_id
    )
}

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

pub fn compare(a: &SimulationJob, b: &SimulationJob, column: usize) -> std::cmp::Ordering {
    match column {
        0 => outcome_rank(a).cmp(&outcome_rank(b)),
        1 => sim_status(a).cmp(&sim_status(b)),
        2 => text_cmp(Some(&persona(a)), Some(&persona(b))),
        3 => text_cmp(Some(&flow(a)), Some(&flow(b))),
        4 => a.why_in_brief().cmp(&b.why_in_brief()),
        5 => by(took_ms(a, jiff::Timestamp::MAX), took_ms(b, jiff::Timestamp::MAX)),
        6 => stage(a).cmp(&stage(b)),
        7 => endpoint(a).cmp(&endpoint(b)),
        _ => by(a.started_at.as_ref(), b.started_at.as_ref()),
    }
}

/// The columns for a table `width` cells wide.
pub fn columns(width: u16) -> Vec<Head> {
    let mut columns = COLUMNS.to_vec();
    if width >= 120 {
        columns[1] = WIDE_STATUS;
        columns[6] = WIDE_STAGE;
    }
    if width >= 180 {
        columns[3] = WIDE_FLOW;
    }
    columns.truncate(shown(width));
    columns
}

fn shown(width: u16) -> usize {
    match width {
        0..120 => NARROW,
        120..180 => WIDE,
        _ => COLUMNS.len(),
    }
}

/// A row's cells, matching `columns(width)`; a marked call shows the marker before its persona.
pub fn cells(s: &SimulationJob, theme: &Theme, width: u16, now: jiff::Timestamp, marked: bool) -> Vec<Cell<'static>> {
    let (status, stage, verdict) = (sim_status(s), stage(s), outcome(s));
    let wide = width >= 120;
    let mut cells = vec![
        Cell::from(verdict.clone()).style(theme.status(&verdict)),
        Cell::from(if wide { status.clone() } else { fit(&status, 10) }).style(theme.status(&status)),
        match marked {
            true => Cell::from(format!("{} {}", crate::console::marks::MARKER, persona(s))).style(theme.key()),
            false => Cell::from(persona(s)),
        },
        Cell::from(flow_text(s, width < 180)),
        Cell::from(s.why_in_brief()).style(if is_failing(s) { theme.error() } else { theme.dim() }),
        Cell::from(took_ms(s, now).map(duration_ms).unwrap_or_else(|| "—".into())),
        Cell::from(stage.clone()).style(theme.status(&stage)),
        Cell::from(endpoint(s)),
        Cell::from(when(s.started_at.as_ref())),
    ];
    cells.truncate(shown(width));
    cells
}
