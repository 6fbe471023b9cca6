//! A plan's flaky checks (`!` on a plan): over its last N ended runs, how steady each test case
//! × check was — iterations that agreed within a run, and results that held between runs with
//! nothing changed in agent endpoint, flow or metric version — worst first. The runs are read
//! and compared on a task (`Request::Flaky`), client-side, as `switchboard flaky` does; `n`
//! and `p` read more or fewer runs, `a` lists the steady checks too.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use uuid::Uuid;

use crate::columns::flaky;
use crate::compare::flaky::{PlanStability, Stability};
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, Request};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::table::{self, Cell, Columns, Context, Shown};

use Constraint::{Fill, Length};

/// Runs read when the view opens, as `switchboard flaky` reads by default.
pub const DEFAULT_RUNS: usize = 10;
/// How many runs `n` and `p` add or take away, and the bounds the CLI keeps too.
const STEP: usize = 5;
const MIN_RUNS: usize = 2;
const MAX_RUNS: usize = 200;

/// The columns `switchboard flaky` prints, in its order, drawn for the view (which knows the
/// flow every test case shares). Narrow screens leave out MIXED RUNS (HISTORY shows them: `2/3`).
const COLUMNS: &[Shown<Stability, FlakyView>] = &[
    Shown::drawn(flaky::STABILITY, stability_cell),
    Shown::drawn(flaky::TEST_CASE, test_case_cell),
    Shown::plain(flaky::CHECK),
    Shown::plain(flaky::FLIPS),
    Shown::plain(flaky::MIXED_RUNS).at_least(100),
    Shown::plain(flaky::HISTORY),
];

/// The stability, in FLAKY's colour when the check wavered.
fn stability_cell(s: &Stability, cx: &Context<'_, FlakyView>) -> Cell<'static> {
    let style = if s.unsteady() { cx.theme.status("FLAKY") } else { cx.theme.dim() };
    Cell::from((flaky::STABILITY.text)(s)).style(style)
}

/// The test case without the flow every row shares (said once in the title).
fn test_case_cell(s: &Stability, cx: &Context<'_, FlakyView>) -> Cell<'static> {
    let shared = cx.of.shared.as_deref().and_then(|shared| s.test_case.strip_prefix(shared));
    Cell::from(shared.unwrap_or(&s.test_case).to_owned())
}

fn haystack(s: &Stability) -> String {
    format!("{} {}", s.test_case, s.metric_name)
}

pub struct FlakyView {
    pub plan: Uuid,
    /// How many of the plan's last ended runs are asked for.
    pub runs: usize,
    report: Option<PlanStability>,
    /// "Flow · " when every test case is of that one flow: said once in the title, not per row.
    shared: Option<String>,
    /// Steady checks are listed too (`a`).
    pub all: bool,
    rows: ListState<Stability>,
}

/// Whether a check is shown: an unsteady one always, a steady one with `all`.
fn shape(all: bool) -> Shape<Stability> {
    Shape::columns(haystack, COLUMNS).keeping(move |s: &Stability| all || s.unsteady())
}

impl FlakyView {
    /// Opens the view on plan `plan` and asks for its last runs.
    pub fn open(plan: Uuid, out: &mut Out) -> FlakyView {
        let mut view =
            FlakyView { plan, runs: DEFAULT_RUNS, report: None, shared: None, all: false, rows: ListState::new() };
        view.refresh(out);
        view
    }

    pub fn request(&self) -> Request {
        Request::Flaky { plan: self.plan, runs: self.runs }
    }

    pub fn refresh(&mut self, out: &mut Out) {
        if self.report.is_none() {
            self.rows.load = Load::Loading;
        }
        self.rows.fetching = true;
        out.fetch(self.request());
    }

    /// Takes the answer to this view's request; true when it was one.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        if *request != self.request() {
            return false;
        }
        self.rows.fetching = false;
        match result {
            Ok(Fetched::Flaky(report)) => {
                let id = |s: &Stability| format!("{:?}/{}", s.key, s.metric_definition_id);
                self.rows.replace(report.checks.clone(), id, &shape(self.all));
                self.rows.load = Load::Fresh;
                let flow = |s: &Stability| s.test_case.split_once(" · ").map(|(f, _)| format!("{f} · "));
                let first = report.checks.first().and_then(flow);
                self.shared = first.filter(|f| report.checks.iter().all(|s| s.test_case.starts_with(f.as_str())));
                self.report = Some(report.as_ref().clone());
            }
            Err(error) => self.rows.load = Load::Failed(error.message.clone()),
            Ok(_) => return false,
        }
        true
    }

    pub fn action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::NextItem | Action::PrevItem => {
                let runs = match action {
                    Action::NextItem => (self.runs + STEP).min(MAX_RUNS),
                    _ => self.runs.saturating_sub(STEP).max(MIN_RUNS),
                };
                if runs == self.runs {
                    out.info(format!("{runs} runs is as far as this view goes"));
                    return false;
                }
                self.runs = runs;
                self.refresh(out);
                true
            }
            Action::ToggleAll => {
                self.all = !self.all;
                self.rows.reshape(&shape(self.all));
                true
            }
            other => self.rows.navigate(other, &shape(self.all), COLUMNS.len()),
        }
    }

    pub fn filter(&self) -> String {
        self.rows.filter.clone()
    }

    pub fn set_filter(&mut self, text: &str) {
        self.rows.filter = text.into();
        self.rows.reshape(&shape(self.all));
    }

    /// The selected test case × check, as raw JSON and copy see it.
    pub fn selected(&self) -> Option<&Stability> {
        self.rows.selected()
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        vec![
            (Action::NextItem, "read 5 more runs"),
            (Action::PrevItem, "read 5 fewer runs"),
            (Action::ToggleAll, "list steady checks too, or only unsteady ones"),
            (Action::Sort, "sort by the next column"),
            (Action::SortReverse, "reverse the sort"),
            (Action::Back, "back to the plans"),
        ]
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, plan: &str) {
        let theme = ctx.theme;
        let [summary, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
        let mut spans = vec![Span::styled(" flaky ", theme.heading()), Span::styled(format!("{plan} "), theme.dim())];
        match &self.report {
            Some(report) => {
                let unsteady = report.checks.iter().filter(|s| s.unsteady()).count();
                let style = if unsteady > 0 { theme.status("FLAKY") } else { theme.ok() };
                spans.push(Span::styled(format!("· {unsteady} of {} unsteady ", report.checks.len()), style));
                spans.push(Span::styled(
                    format!("· the last {} ended runs (asked {}) ", report.run_plan_job_ids.len(), self.runs),
                    theme.dim(),
                ));
                if report.run_plan_job_ids.len() < 2 {
                    spans.push(Span::styled("· flips need two runs", theme.error()));
                }
            }
            None => spans.push(Span::styled(format!("· the last {} ended runs", self.runs), theme.dim())),
        }
        frame.render_widget(Line::from(spans), summary);
        let which = if self.all { "all" } else { "unsteady only; a lists all" };
        let title = match &self.shared {
            Some(flow) => {
                format!("test cases of {} × check, least steady first ({which})", flow.trim_end_matches(" · "))
            }
            None => format!("test case × check, least steady first ({which})"),
        };
        let empty =
            if self.all { "no check was judged in these runs" } else { "every check held steady: a lists them" };
        let context = Context::new(theme, ctx.now, ctx.marks, self);
        let view = Columns { title, columns: COLUMNS, context, focused: true, empty };
        table::draw_columns(frame, body, &self.rows, view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::diff::Rate;
    use crate::compare::run::CaseKey;
    use crate::console::message::Effect;

    fn check(name: &str, flips: usize, mixed_runs: usize) -> Stability {
        let key = CaseKey {
            flow_id: None,
            variant_id: None,
            scenario_id: Some(Uuid::new_v5(&Uuid::NAMESPACE_OID, name.as_bytes())),
            persona_id: None,
            endpoint_id: None,
            variables: Default::default(),
        };
        let observations = 3 + 2;
        let steady = 3 - mixed_runs + 2 - flips;
        Stability {
            test_case: name.into(),
            key,
            metric_definition_id: Uuid::from_u128(1),
            metric_name: "Task completion".into(),
            runs: 3,
            mixed_runs,
            comparisons: 2,
            flips,
            stability: Some(steady as f64 / observations as f64),
            history: vec![Some(Rate { passed: 3, evaluated: 3, pass_rate: Some(100.0) }); 3],
        }
    }

    fn asked(out: &Out) -> Vec<usize> {
        out.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Fetch(Request::Flaky { runs, .. }) => Some(*runs),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn answers_fill_the_table_unsteady_first_and_n_p_ask_again_within_bounds() {
        let plan = Uuid::from_u128(7);
        let mut out = Out::default();
        let mut view = FlakyView::open(plan, &mut out);
        assert_eq!(asked(&out), vec![DEFAULT_RUNS], "opening asks for the last ten runs");
        assert_eq!(view.rows.load, Load::Loading);

        let report = PlanStability {
            run_plan_id: plan,
            run_plan_job_ids: vec![Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3)],
            checks: vec![check("Booking not saved", 0, 3), check("Presses 2", 1, 0), check("Happy path", 0, 0)],
        };
        let answer = Ok(Fetched::Flaky(Box::new(report.clone())));
        assert!(view.fetched(&view.request(), &answer));
        assert_eq!(view.rows.load, Load::Fresh);
        let shown: Vec<&str> = view.rows.view.iter().map(|&i| view.rows.items[i].test_case.as_str()).collect();
        assert_eq!(shown, vec!["Booking not saved", "Presses 2"], "steady checks are left out");
        assert_eq!(view.selected().map(|s| s.test_case.as_str()), Some("Booking not saved"));

        // a: the steady one too; again: not.
        let mut out = Out::default();
        assert!(view.action(Action::ToggleAll, &mut out));
        assert_eq!(view.rows.view.len(), 3);
        assert!(view.action(Action::ToggleAll, &mut out));
        assert_eq!(view.rows.view.len(), 2);

        // n: five more runs, asked again; the answer to the old question is not this view's now.
        let mut out = Out::default();
        assert!(view.action(Action::NextItem, &mut out));
        assert_eq!(asked(&out), vec![DEFAULT_RUNS + STEP]);
        let stale = Request::Flaky { plan, runs: DEFAULT_RUNS };
        assert!(!view.fetched(&stale, &answer), "an answer for ten runs is not taken for fifteen");
        // p, down to two runs and no fewer.
        for expected in [10, 5, 2] {
            let mut out = Out::default();
            assert!(view.action(Action::PrevItem, &mut out));
            assert_eq!(asked(&out), vec![expected]);
        }
        let mut out = Out::default();
        assert!(!view.action(Action::PrevItem, &mut out));
        assert!(asked(&out).is_empty() && !out.toasts.is_empty(), "at two runs, p says so and asks nothing");

        // A failed read is shown as failed, the rows kept.
        let failed = Err(FetchError { kind: crate::console::message::FailureKind::Other, message: "boom".into() });
        assert!(view.fetched(&view.request(), &failed));
        assert_eq!(view.rows.load, Load::Failed("boom".into()));
        assert_eq!(view.rows.items.len(), 3);
    }
}
