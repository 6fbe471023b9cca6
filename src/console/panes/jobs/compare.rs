//! Two runs compared (`m` marks the base in the jobs list, `=` on another opens this): the
//! test cases sorted by how much worse they got, each with its worst check's change and pass
//! rates; Enter opens the pair side by side, base on the left and head on the right, each
//! with the judge's reasoning for the check that flipped above its transcript. The runs are
//! read and compared on a task (`Request::Comparison`), client-side, from any service.

use std::rc::Rc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use uuid::Uuid;

use crate::columns::diff::rate;
use crate::columns::{Column, fit, fixed};
use crate::compare::diff::{CaseChange, CheckChange, SimRef};
use crate::compare::{Change, Diff};
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, Request, Selection};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;
use crate::console::widgets::conversation::ConversationView;
use crate::console::widgets::detail::{self, Scroll};
use crate::console::widgets::list::{ListState, Load, Shape, by};
use crate::console::widgets::table::{self, Cell, Columns, Context, Shown};
use crate::console::widgets::text::fit_line;
use crate::console::widgets::transcript;

use Constraint::{Fill, Length};

/// Sorted by anything else, the rows go by how much worse they got.
const COLUMNS: &[Shown<Row>] = &[
    Shown::drawn(Column::new("CHANGE", fit(9, 9), word).by(|a, b| a.change().cmp(&b.change())), |r, cx| {
        Cell::from(word(r)).style(cx.theme.status(r.change().as_str()))
    }),
    Shown::plain(Column::new("WORSE BY", fixed(Length(10)), worse_by).by(worse_first)),
    Shown::plain(
        Column::new("TEST CASE", fixed(Fill(2)), |r: &Row| r.short.clone()).by(|a, b| a.case.name.cmp(&b.case.name)),
    ),
    Shown::plain(
        Column::new("CHECK", fixed(Fill(1)), |r: &Row| {
            r.check.as_ref().map(|c| c.name.clone()).unwrap_or_else(|| "—".into())
        })
        .by(|a, b| text_of(a).cmp(text_of(b))),
    ),
    Shown::plain(Column::new("BASE", fixed(Length(13)), |r: &Row| side_rate(r, true)).by(worse_first)),
    Shown::plain(Column::new("HEAD", fixed(Length(13)), |r: &Row| side_rate(r, false)).by(worse_first)),
];

/// The row's change in a word: its check's label, else the test case's change.
fn word(r: &Row) -> String {
    r.check.as_ref().map_or_else(|| r.case.change.as_str().to_owned(), |c| c.label())
}

/// The base's (else the head's) pass rate of the row's check.
fn side_rate(r: &Row, base: bool) -> String {
    r.check.as_ref().map_or_else(|| "—".into(), |c| rate(if base { &c.base } else { &c.head }))
}

/// One test case × check as the table lists it: the header counts these, so every one it
/// counts (a FIXED check beside a FLAKY one on the same test case included) has its row.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub case: CaseChange,
    /// The test case's name without the flow every test case shares (then said in the title).
    pub short: String,
    /// The check of this row (none for a test case judged by no check).
    pub check: Option<CheckChange>,
}

impl Row {
    /// The rows of one test case, one per check, worst first.
    fn of(case: &CaseChange, shared: Option<&str>) -> Vec<Row> {
        let short = shared.and_then(|s| case.name.strip_prefix(s)).unwrap_or(&case.name).to_owned();
        let mut checks: Vec<&CheckChange> = case.checks.iter().collect();
        checks.sort_by(|a, b| a.change.cmp(&b.change).then(by(a.delta, b.delta)));
        if checks.is_empty() {
            return vec![Row { case: case.clone(), short, check: None }];
        }
        checks.into_iter().map(|c| Row { case: case.clone(), short: short.clone(), check: Some(c.clone()) }).collect()
    }

    /// The row's change: its check's, else the test case's.
    fn change(&self) -> Change {
        self.check.as_ref().map_or(self.case.change, |c| c.change)
    }

    /// How far the pass rate fell, in points (negative when it rose).
    fn drop(&self) -> f64 {
        self.check.as_ref().and_then(|c| c.delta).map_or(f64::NEG_INFINITY, |d| -d)
    }
}

/// The table's order: what changed first (a regression, then a fix), what held last.
fn rank(change: Change) -> u8 {
    match change {
        Change::Regressed => 0,
        Change::Unscored => 1,
        Change::Fixed => 2,
        Change::Flaky => 3,
        Change::Gone => 4,
        Change::New => 5,
        Change::Unchanged => 6,
    }
}

fn haystack(row: &Row) -> String {
    let check = row.check.as_ref().map(|c| c.name.as_str()).unwrap_or_default();
    format!("{} {} {check}", row.change().as_str(), row.case.name)
}

/// Most points lost first.
fn worse_first(a: &Row, b: &Row) -> std::cmp::Ordering {
    b.drop().total_cmp(&a.drop()).then(a.change().cmp(&b.change()))
}

fn text_of(row: &Row) -> &str {
    row.check.as_ref().map_or("", |c| c.name.as_str())
}

/// `WORSE BY`: points lost, `better 100` where it rose, `same` where it held.
fn worse_by(row: &Row) -> String {
    match row.check.as_ref().and_then(|c| c.delta) {
        Some(d) if d < -0.05 => format!("{:.0} pts", -d),
        Some(d) if d > 0.05 => format!("better {d:.0}"),
        Some(_) => "same".into(),
        None => "—".into(),
    }
}

/// Whether the base run started after the head run: a comparison the wrong way round, whose
/// FIXED are regressions and the other way about.
/// How a simulation came out on a check: failed, passed, or (in neither list) not judged, so
/// an abstained or missing value never reads as a pass.
fn verdict_mark(
    sim: &SimRef,
    check: Uuid,
    theme: &crate::console::theme::Theme,
) -> (&'static str, ratatui::style::Style) {
    if sim.failed.contains(&check) {
        ("✗ failed", theme.error())
    } else if sim.passed.contains(&check) {
        ("✓ passed", theme.ok())
    } else {
        ("? not judged", theme.warn())
    }
}

/// The two simulations of a pair and their calls.
struct Pair {
    case: Row,
    base: Option<(SimRef, ConversationView)>,
    head: Option<(SimRef, ConversationView)>,
    scroll: Scroll,
}

/// The simulation of one side to show: for the flipped check, one that came out the way this
/// side differs (failed where the other passed), else the first.
fn pick(sims: &[SimRef], check: Option<Uuid>, failed: bool) -> Option<SimRef> {
    let wanted = |s: &&SimRef| check.is_none_or(|c| s.failed.contains(&c) == failed);
    sims.iter().find(wanted).or(sims.first()).cloned()
}

pub struct CompareView {
    pub base: Uuid,
    pub head: Uuid,
    diff: Option<Rc<Diff>>,
    /// The flow every test case is of, when there is one.
    flow: Option<String>,
    rows: ListState<Row>,
    shape: Shape<Row>,
    pair: Option<Pair>,
}

impl CompareView {
    /// Opens the comparison of `head` against `base` and asks for it.
    pub fn open(base: Uuid, head: Uuid, out: &mut Out) -> CompareView {
        let mut view = CompareView {
            base,
            head,
            diff: None,
            flow: None,
            rows: ListState::new(),
            shape: Shape::columns(haystack, COLUMNS),
            pair: None,
        };
        view.refresh(out);
        view
    }

    fn request(&self) -> Request {
        Request::Comparison { base: self.base, head: self.head }
    }

    pub fn refresh(&mut self, out: &mut Out) {
        if self.diff.is_none() {
            self.rows.load = Load::Loading;
        }
        out.fetch(self.request());
        if let Some(pair) = &mut self.pair {
            for (_, view) in pair.base.iter_mut().chain(pair.head.iter_mut()) {
                view.refresh(out);
            }
        }
    }

    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        if *request == self.request() {
            match result {
                Ok(Fetched::Comparison(diff)) => {
                    // "Flow · " when every test case is of that one flow.
                    let flow = |c: &CaseChange| c.name.split_once(" · ").map(|(f, _)| format!("{f} · "));
                    let first = diff.cases.first().and_then(flow);
                    let shared = first.filter(|f| diff.cases.iter().all(|c| c.name.starts_with(f.as_str())));
                    self.flow = shared.as_ref().map(|f| f.trim_end_matches(" · ").to_owned());
                    let mut rows: Vec<Row> = diff.cases.iter().flat_map(|c| Row::of(c, shared.as_deref())).collect();
                    rows.sort_by_key(|r| rank(r.change()));
                    let key =
                        |r: &Row| format!("{:?}/{:?}", r.case.key, r.check.as_ref().map(|c| c.metric_definition_id));
                    self.rows.replace(rows, key, &self.shape);
                    self.rows.load = Load::Fresh;
                    self.diff = Some(Rc::new(diff.as_ref().clone()));
                }
                Err(error) => self.rows.load = Load::Failed(error.message.clone()),
                Ok(_) => return false,
            }
            return true;
        }
        let Some(pair) = &mut self.pair else { return false };
        let mut changed = false;
        for (_, view) in pair.base.iter_mut().chain(pair.head.iter_mut()) {
            changed |= view.fetched(request, result);
        }
        changed
    }

    pub fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if let Some(pair) = &mut self.pair {
            return pair.scroll.action(action);
        }
        match action {
            Action::Open => {
                let Some(row) = self.rows.selected().cloned() else { return false };
                let check = row.check.as_ref().map(|c| c.metric_definition_id);
                // The base side shows a pass where the head failed (a regression), and the
                // other way round for a fix.
                let head_failed = row.check.as_ref().is_none_or(|c| c.change != Change::Fixed);
                let open = |sim: Option<SimRef>, out: &mut Out| {
                    let sim = sim?;
                    let view = ConversationView::open(sim.call_id?, out);
                    Some((sim, view))
                };
                let base = open(pick(&row.case.base_simulations, check, !head_failed), out);
                let head = open(pick(&row.case.head_simulations, check, head_failed), out);
                self.pair = Some(Pair { case: row, base, head, scroll: Scroll::default() });
                true
            }
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::PageUp => self.step(-20),
            Action::PageDown => self.step(20),
            Action::Top => self.step(isize::MIN / 2),
            Action::Bottom => self.step(isize::MAX / 2),
            Action::Sort => {
                self.rows.cycle_sort(COLUMNS.len());
                self.rows.reshape(&self.shape);
                true
            }
            Action::SortReverse => {
                self.rows.reverse_sort();
                self.rows.reshape(&self.shape);
                true
            }
            _ => false,
        }
    }

    fn step(&mut self, by: isize) -> bool {
        self.rows.move_by(by);
        true
    }

    /// Esc: closes the pair; false when the table is showing (the view closes).
    pub fn back(&mut self) -> bool {
        self.pair.take().is_some()
    }

    pub fn filter(&self) -> String {
        self.rows.filter.clone()
    }

    pub fn set_filter(&mut self, text: &str) {
        self.rows.filter = text.into();
        self.rows.reshape(&self.shape);
    }

    pub fn selection(&self) -> Option<Selection> {
        let row = match &self.pair {
            Some(pair) => &pair.case,
            None => self.rows.selected()?,
        };
        Some(Selection::of(self.head, row))
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        match &self.pair {
            Some(_) => vec![(Action::Down, "scroll the reasoning"), (Action::Back, "back to the comparison")],
            None => vec![
                (Action::Open, "the pair side by side: transcripts and the judges' reasoning"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::Back, "back to the jobs"),
            ],
        }
    }

    /// `names` names a run for people (plan and when it was made).
    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, names: (&str, &str)) {
        let theme = ctx.theme;
        let [summary, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
        // The counts and a backwards warning come before the names, which are what a narrow
        // screen cuts.
        let mut spans = vec![Span::styled(" compare", theme.heading())];
        if let Some(diff) = &self.diff {
            for (change, count) in &diff.counts {
                spans.push(Span::styled(format!(" {} {count}", change.as_str()), theme.status(change.as_str())));
            }
            if diff.backwards() {
                spans.push(Span::styled(format!("  {}", crate::compare::diff::BACKWARDS), theme.warn()));
            }
        }
        spans.extend([
            Span::styled(format!("  base {} ", names.0), theme.dim()),
            Span::styled("→ ", theme.key()),
            Span::styled(format!("head {}", names.1), theme.dim()),
        ]);
        if let Some(diff) = &self.diff {
            spans.push(Span::styled(format!("  (test case × check, Fisher p ≤ {})", diff.alpha), theme.dim()));
        }
        frame.render_widget(fit_line(Line::from(spans), summary.width as usize), summary);
        match &self.pair {
            Some(pair) => self.draw_pair(frame, body, ctx, pair),
            None => {
                let title = match &self.flow {
                    Some(flow) => format!("test case × check of {flow}, worst first"),
                    None => "test case × check, worst first".into(),
                };
                let context = Context::new(theme, ctx.now, ctx.marks, &());
                let view =
                    Columns { title, columns: COLUMNS, context, focused: true, empty: "no test case in either run" };
                table::draw_columns(frame, body, &self.rows, view);
            }
        }
    }

    fn draw_pair(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, pair: &Pair) {
        let theme = ctx.theme;
        let check = pair.case.check.as_ref();
        let [top, sides] = Layout::vertical([Length(2), Fill(1)]).areas(area);
        let title = match check {
            Some(c) => format!(" {} · {} · {} → {}", pair.case.case.name, c.label(), rate(&c.base), rate(&c.head)),
            None => format!(" {}", pair.case.case.name),
        };
        let differences: Vec<String> = pair.case.case.differences.iter().map(|d| d.in_words()).collect();
        let second = if differences.is_empty() {
            " nothing the interface shows changed between the runs for this test case".to_owned()
        } else {
            format!(" changed: {}", differences.join(" · "))
        };
        frame.render_widget(
            ratatui::widgets::Paragraph::new(vec![
                Line::from(Span::styled(title, theme.heading())),
                Line::from(Span::styled(second, theme.dim())),
            ]),
            top,
        );
        let [left, right] = Layout::horizontal([Fill(1), Fill(1)]).areas(sides);
        for (area, side, label) in [(left, &pair.base, "base"), (right, &pair.head, "head")] {
            self.draw_side(frame, area, ctx, side.as_ref(), label, check, &pair.scroll);
        }
    }

    #[allow(clippy::too_many_arguments, reason = "one side of the pair, drawn twice")]
    fn draw_side(
        &self,
        frame: &mut Frame,
        area: Rect,
        ctx: &ViewCtx,
        side: Option<&(SimRef, ConversationView)>,
        label: &str,
        check: Option<&CheckChange>,
        scroll: &Scroll,
    ) {
        let theme = ctx.theme;
        let Some((sim, view)) = side else {
            let lines = vec![Line::from(format!("no {label} simulation of this test case has a call"))];
            detail::draw(frame, area, label, lines, scroll, theme, false);
            return;
        };
        let [reason, talk] = Layout::vertical([Constraint::Percentage(35), Fill(1)]).areas(area);
        let mut lines = Vec::new();
        if let Some(check) = check {
            let (mark, style) = verdict_mark(sim, check.metric_definition_id, theme);
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} "), style),
                Span::styled(check.name.clone(), theme.heading()),
            ]));
            // The judge's words: from the job where it failed, else the call's value.
            let from_job = sim.reasons.get(&check.metric_definition_id).cloned();
            let from_call = view
                .values
                .items
                .iter()
                .find(|r| r.metric.id == check.metric_definition_id)
                .and_then(|r| r.value.value_reasoning.clone());
            let words = from_job.or(from_call).unwrap_or_else(|| match view.values.load {
                Load::Loading | Load::Idle => "…".into(),
                _ => "the judge gave no reasoning".into(),
            });
            lines.push(Line::from(words));
        }
        detail::draw(frame, reason, &format!("{label} · the judge's reasoning"), lines, scroll, theme, false);
        transcript::draw(frame, talk, &view.transcript, false, theme);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::compare::context::Edits;
    use crate::compare::run::CheckRef;
    use crate::compare::run::testing::{case, run, sim};
    use crate::console::theme::Theme;

    /// The pair of a check the base passed and the head could not judge (its value abstained).
    fn abstained_pair() -> CompareView {
        let id = Uuid::from_u128(7);
        let check = CheckRef { id, name: "Card checked before loans read out".into(), version_id: None, version: None };
        let base = run(1, vec![case("Renew a book", 1)], vec![check.clone()], vec![sim(0, &[true])]);
        let head = run(2, vec![case("Renew a book", 1)], vec![check], vec![sim(0, &[])]);
        let diff = Diff::of(&base, &head, &Edits::default());
        let row = Row::of(&diff.cases[0], None).remove(0);
        let mut out = Out::default();
        let side = |sim: &SimRef, call: u128, words: &str, out: &mut Out| {
            let sim = SimRef { reasons: BTreeMap::from([(id, words.to_owned())]), ..sim.clone() };
            (sim, ConversationView::open(Uuid::from_u128(call), out))
        };
        let base = side(&row.case.base_simulations[0], 11, "The card and PIN were checked first.", &mut out);
        let head = side(&row.case.head_simulations[0], 12, "Cannot tell: the caller's answer is lost.", &mut out);
        let mut view = CompareView::open(Uuid::from_u128(1), Uuid::from_u128(2), &mut out);
        view.diff = Some(Rc::new(diff));
        view.pair = Some(Pair { case: row, base: Some(base), head: Some(head), scroll: Scroll::default() });
        view
    }

    /// A check that passed on the one base iteration and failed on the one head iteration, in
    /// runs given oldest first, and the same runs given newest first.
    #[test]
    fn a_flip_on_one_iteration_reads_as_the_cli_says_and_backwards_is_flagged() {
        let check = CheckRef { id: Uuid::from_u128(7), name: "Loans renewed".into(), version_id: None, version: None };
        let good = run(1, vec![case("Renew a book", 1)], vec![check.clone()], vec![sim(0, &[true])]);
        let bad = run(2, vec![case("Renew a book", 1)], vec![check], vec![sim(0, &[false])]);
        let diff = Diff::of(&good, &bad, &Edits::default());
        let row = Row::of(&diff.cases[0], None).remove(0);
        assert_eq!(row.change(), Change::Regressed);
        assert_eq!(word(&row), "REGRESSED (every iteration flipped, too few to test)", "the CLI's label");
        assert!(!diff.backwards());
        let reversed = Diff::of(&bad, &good, &Edits::default());
        assert!(reversed.backwards() && reversed.cases[0].change == Change::Fixed, "{reversed:#?}");
    }

    #[test]
    fn an_abstained_value_in_the_pair_reads_not_judged_never_passed() {
        let view = abstained_pair();
        let (theme, keys, marks) = (Theme::new("mono", true), Default::default(), Default::default());
        let ctx = ViewCtx { theme: &theme, now: jiff::Timestamp::UNIX_EPOCH, keys: &keys, marks: &marks };
        let mut terminal = Terminal::new(TestBackend::new(120, 16)).expect("a test terminal");
        terminal.draw(|f| view.draw(f, f.area(), &ctx, ("base", "head"))).expect("drawn");
        let buffer = terminal.backend().buffer();
        let width = buffer.area.width as usize;
        let cells: Vec<&str> = buffer.content().iter().map(|c| c.symbol()).collect();
        let screen: String = cells.chunks(width).map(|l| l.concat().trim_end().to_owned() + "\n").collect();
        assert!(screen.contains("UNSCORED") && screen.contains("✓ passed Card checked"), "{screen}");
        assert!(screen.contains("? not judged Card checked"), "the head's abstained value: {screen}");
        assert_eq!(screen.matches("✓ passed").count(), 1, "only the base passed: {screen}");
        insta::assert_snapshot!(screen);
    }
}
