//! A run plan job's simulation jobs as table rows: their columns (fewer on narrow screens, and
//! roomier on wide ones), what `/` searches and how each column sorts. VERDICT comes first, so
//! `s` sorts failing first.

use ratatui::layout::Constraint::{Fill, Length};

use super::progress::sim_status;
use super::verdict::{is_failing, outcome};
use crate::api::model::SimulationJob;
use crate::columns::simulation::{STATUS, VERDICT, WHY};
use crate::columns::{Column, by, fit, fixed};
use crate::console::panes::section::text_cmp;
use crate::console::widgets::table::{Cell, Context, Shown, col, fitted};
use crate::console::widgets::text::{duration_ms, or_dash, when};

/// Wider than this, statuses get room for ones this build does not know and two more columns
/// show; from `WIDEST` on, the flow too and the last two columns.
const WIDE: u16 = 120;
const WIDEST: u16 = 180;

const PERSONA: Column<SimulationJob> =
    Column::new("PERSONA", fit(7, 24), persona).by(|a, b| text_cmp(Some(&persona(a)), Some(&persona(b))));
const FLOW: Column<SimulationJob> =
    Column::new("VARIANT / SCENARIO", fixed(Fill(2)), flow).by(|a, b| text_cmp(Some(&flow(a)), Some(&flow(b))));
const TOOK: Column<SimulationJob> = Column::new("TOOK", fixed(Length(7)), |s: &SimulationJob| {
    took_ms(s, jiff::Timestamp::now()).map(duration_ms).unwrap_or_else(|| "—".into())
})
.by(|a, b| by(took_ms(a, jiff::Timestamp::MAX), took_ms(b, jiff::Timestamp::MAX)));
const STAGE: Column<SimulationJob> = Column::new("STAGE", fit(5, 10), stage).by(|a, b| stage(a).cmp(&stage(b)));
const ENDPOINT: Column<SimulationJob> =
    Column::new("ENDPOINT", fit(8, 24), endpoint).by(|a, b| endpoint(a).cmp(&endpoint(b)));
const STARTED: Column<SimulationJob> =
    Column::new("STARTED", fixed(Length(19)), |s: &SimulationJob| when(s.started_at.as_ref()))
        .by(|a, b| by(a.started_at.as_ref(), b.started_at.as_ref()));

/// Every column, in order; narrower screens show fewer.
pub const COLUMNS: &[Shown<SimulationJob>] = &[
    // VERDICT, STATUS and WHY are the CLI's too; the screen draws its own words for them.
    Shown::drawn(VERDICT, |s, cx| status_cell(cx, outcome(s))),
    Shown::drawn(STATUS, |s, cx| status_cell(cx, sim_status(s))).wider(WIDE, fitted("STATUS", 6, 18)),
    Shown::drawn(PERSONA, persona_cell),
    Shown::drawn(FLOW, |s, cx| Cell::from(flow_text(s, cx.width < WIDEST)))
        .wider(WIDEST, col("FLOW › VARIANT / SCENARIO", Fill(2))),
    Shown::drawn(WHY, |s, cx| {
        Cell::from(s.why_in_brief()).style(if is_failing(s) { cx.theme.error() } else { cx.theme.dim() })
    }),
    Shown::drawn(TOOK, |s, cx| Cell::from(took_ms(s, cx.now).map(duration_ms).unwrap_or_else(|| "—".into())))
        .at_least(WIDE),
    Shown::drawn(STAGE, |s, cx| status_cell(cx, stage(s))).at_least(WIDE).wider(WIDE, fitted("STAGE", 5, 18)),
    Shown::plain(ENDPOINT).at_least(WIDEST),
    Shown::plain(STARTED).at_least(WIDEST),
];

/// A status word in its colour.
fn status_cell(cx: &Context<'_, ()>, word: String) -> Cell<'static> {
    let style = cx.theme.status(&word);
    Cell::from(word).style(style)
}

/// The persona, after the marker when its call is marked.
fn persona_cell(s: &SimulationJob, cx: &Context<'_, ()>) -> Cell<'static> {
    match cx.marks.contains(s.call_id) {
        true => Cell::from(format!("{} {}", crate::console::marks::MARKER, persona(s))).style(cx.theme.key()),
        false => Cell::from(persona(s)),
    }
}

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
