//! Tab 7: benchmarks. Suites → Enter → the suite's targets (sortable; `s` sorts by score
//! first) → Enter → the target's score samples, page by page, with each sample's reasoning.
//! Esc goes back one level. Benchmark reads are not cursor lists, so the lists here are
//! fetched with their own requests (no cache across sessions).

mod samples;

use crate::console::widgets::table::Cell;
use ratatui::Frame;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use super::section::status_cell;
use crate::api::model::{SuiteEntry, Target};
use crate::cache::Cache;
use crate::columns::bench::{self, state};
use crate::console::keymap::Action;
use crate::console::message::{FailureKind, FetchError, Fetched, Request, SUITES_CACHE_KEY, Selection};
use crate::console::out::Out;
use crate::console::pane::{Pane, ViewCtx};
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::table::{self, Columns, Context, Shown};
use crate::console::widgets::text::{fit, when};
use samples::SamplesView;

use Constraint::{Fill, Length};

const SUITE_COLUMNS: &[Shown<SuiteEntry>] = &[
    Shown::plain(bench::SUITE),
    Shown::plain(bench::SUITE_VERSION.titled("LATEST")),
    Shown::drawn(bench::SUITE_PUBLISHED, |s, _| Cell::from(date(s.latest_published_at.as_ref()))),
    Shown::plain(bench::SUITE_TARGETS),
];

const TARGET_COLUMNS: &[Shown<Target>] = &[
    Shown::plain(bench::TARGETS[0]),
    Shown::plain(bench::TARGETS[1]),
    Shown::plain(bench::TARGETS[2]),
    Shown::drawn(bench::TARGETS[3], |t, cx| status_cell(cx.theme, state(t))),
    Shown::plain(bench::TARGETS[4]),
    Shown::plain(bench::TARGETS[5]),
    Shown::plain(bench::TARGETS[6]),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Suites,
    Targets,
    Samples,
}

pub struct Bench {
    suites: ListState<SuiteEntry>,
    suites_shape: Shape<SuiteEntry>,
    /// The suite whose targets are listed.
    suite: Option<String>,
    targets: ListState<Target>,
    targets_shape: Shape<Target>,
    samples: Option<SamplesView>,
    view: View,
}

impl Default for Bench {
    fn default() -> Self {
        Self::new()
    }
}

fn date(ts: Option<&crate::api::model::Timestamp>) -> String {
    when(ts).chars().take(10).collect()
}

fn target_id(t: &Target) -> String {
    format!("{}@{}", t.target_key, t.suite_version.as_deref().unwrap_or(""))
}

impl Bench {
    pub fn new() -> Self {
        Bench {
            suites: ListState::new(),
            suites_shape: Shape::columns(|s| s.suite.clone(), SUITE_COLUMNS),
            suite: None,
            targets: ListState::new(),
            targets_shape: Shape::columns(
                |t| format!("{} {} {}", t.target_key, t.target_name.as_deref().unwrap_or(""), state(t).unwrap_or("")),
                TARGET_COLUMNS,
            ),
            samples: None,
            view: View::Suites,
        }
    }

    fn request_suites(&mut self, out: &mut Out) {
        if self.suites.load == Load::Idle {
            self.suites.load = Load::Loading;
        }
        self.suites.fetching = true;
        out.fetch(Request::BenchmarkSuites);
    }

    fn request_targets(&mut self, out: &mut Out) {
        if let Some(suite) = &self.suite {
            self.targets.fetching = true;
            out.fetch(Request::BenchmarkTargets(suite.clone()));
        }
    }

    /// Lists `suite`'s targets; a suite already listed is shown as it was.
    fn open_suite(&mut self, suite: String, out: &mut Out) {
        self.view = View::Targets;
        if self.suite.as_ref() == Some(&suite) && !matches!(self.targets.load, Load::Failed(_)) {
            return;
        }
        self.suite = Some(suite);
        self.targets = ListState::new();
        self.targets.load = Load::Loading;
        self.request_targets(out);
    }

    fn open_target(&mut self, target: Target, out: &mut Out) {
        let Some(suite) = self.suite.clone() else { return };
        self.samples = Some(SamplesView::open(target, suite, out));
        self.view = View::Samples;
    }

    /// Where we are: benchmarks › suite › target version.
    fn breadcrumb(&self, ctx: &ViewCtx) -> Line<'static> {
        let theme = ctx.theme;
        let mut parts = vec!["benchmarks".to_string()];
        if self.view != View::Suites
            && let Some(suite) = &self.suite
        {
            parts.push(suite.clone());
        }
        if let (View::Samples, Some(s)) = (self.view, &self.samples) {
            let t = &s.target;
            parts.push(format!(
                "{} {}",
                t.target_name.as_deref().unwrap_or(&t.target_key),
                t.suite_version.as_deref().unwrap_or("(latest)")
            ));
        }
        let last = parts.len() - 1;
        let mut spans = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" › ", theme.dim()));
            }
            spans.push(Span::styled(part, if i == last { theme.heading() } else { theme.dim() }));
        }
        spans.insert(0, Span::raw(" "));
        Line::from(spans)
    }
}

/// Takes a list's fetch result into `list`; a 404 means the service does not offer it.
fn take<T: Clone>(
    list: &mut ListState<T>,
    shape: &Shape<T>,
    result: Result<&[T], &FetchError>,
    id: impl Fn(&T) -> String,
) -> bool {
    list.fetching = false;
    match result {
        Ok(items) => {
            list.replace(items.to_vec(), id, shape);
            list.load = Load::Fresh;
        }
        Err(error) if error.kind == FailureKind::NotFound => list.load = Load::Unavailable,
        Err(error) => list.load = Load::Failed(error.message.clone()),
    }
    true
}

impl Pane for Bench {
    fn show(&mut self, out: &mut Out) {
        if matches!(self.suites.load, Load::Idle | Load::Stale(_)) && !self.suites.fetching {
            self.request_suites(out);
        }
    }

    fn refresh(&mut self, out: &mut Out) {
        match self.view {
            View::Suites => self.request_suites(out),
            View::Targets => self.request_targets(out),
            View::Samples => self.samples.iter_mut().for_each(|s| s.refresh(out)),
        }
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        match self.view {
            View::Suites => match action {
                Action::Open => match self.suites.selected() {
                    Some(s) => {
                        let suite = s.suite.clone();
                        self.open_suite(suite, out);
                        true
                    }
                    None => false,
                },
                _ => self.suites.navigate(action, &self.suites_shape, SUITE_COLUMNS.len()),
            },
            View::Targets => match action {
                Action::Open => match self.targets.selected() {
                    Some(t) => {
                        let target = t.clone();
                        self.open_target(target, out);
                        true
                    }
                    None => false,
                },
                _ => self.targets.navigate(action, &self.targets_shape, TARGET_COLUMNS.len()),
            },
            View::Samples => self.samples.as_mut().is_some_and(|s| s.action(action, out)),
        }
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        match (request, result) {
            (Request::BenchmarkSuites, Ok(Fetched::BenchmarkSuites(items))) => {
                take(&mut self.suites, &self.suites_shape, Ok(items), |s| s.suite.clone())
            }
            (Request::BenchmarkSuites, Err(e)) => {
                take(&mut self.suites, &self.suites_shape, Err(e), |s| s.suite.clone())
            }
            (Request::BenchmarkTargets(suite), _) if self.suite.as_ref() != Some(suite) => false,
            (Request::BenchmarkTargets(_), Ok(Fetched::BenchmarkTargets(_, items))) => {
                take(&mut self.targets, &self.targets_shape, Ok(items), target_id)
            }
            // A 404 here is an unknown suite, not a service without target lists.
            (Request::BenchmarkTargets(_), Err(e)) => {
                self.targets.fetching = false;
                self.targets.load = Load::Failed(e.message.clone());
                true
            }
            (Request::ScoreSamples { .. } | Request::Conversation(_), _) => {
                self.samples.as_mut().is_some_and(|s| s.fetched(request, result, out))
            }
            _ => false,
        }
    }

    fn back(&mut self) -> bool {
        match self.view {
            View::Suites => false,
            View::Targets => {
                self.view = View::Suites;
                true
            }
            View::Samples => {
                if !self.samples.as_mut().is_some_and(|s| s.back()) {
                    self.samples = None;
                    self.view = View::Targets;
                }
                true
            }
        }
    }

    fn filter(&self) -> String {
        match self.view {
            View::Suites => self.suites.filter.clone(),
            View::Targets => self.targets.filter.clone(),
            View::Samples => String::new(),
        }
    }

    fn set_filter(&mut self, text: &str) {
        fn apply<T>(list: &mut ListState<T>, shape: &Shape<T>, text: &str) {
            list.filter = text.to_string();
            list.reshape(shape);
        }
        match self.view {
            View::Suites => apply(&mut self.suites, &self.suites_shape, text),
            View::Targets => apply(&mut self.targets, &self.targets_shape, text),
            View::Samples => {}
        }
    }

    fn selection(&self) -> Option<Selection> {
        match self.view {
            View::Suites => self.suites.selected().map(|s| Selection::of(&s.suite, s)),
            View::Targets => self.targets.selected().map(|t| Selection::of(&t.target_key, t)),
            View::Samples => self.samples.as_ref().and_then(|s| s.selection()),
        }
    }

    /// A suite by name from the suites; a target by key (latest version) from further in.
    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        match (self.view, &self.suite) {
            (View::Suites, _) | (_, None) => self.open_suite(id.to_string(), out),
            (_, Some(suite)) => {
                let target = Target {
                    target_key: id.to_string(),
                    target_name: None,
                    suite: Some(suite.clone()),
                    suite_version: None,
                    publication_id: None,
                    iterations: None,
                    sample_call_count: None,
                    published_at: None,
                    superseded_at: None,
                    is_current: None,
                    score: None,
                };
                self.open_target(target, out);
            }
        }
        true
    }

    /// The suites from the last session, stale until fresh ones arrive.
    fn restore(&mut self, cache: &Cache) {
        if let Some((items, at)) = cache.list::<SuiteEntry>(SUITES_CACHE_KEY) {
            self.suites.replace(items, |s| s.suite.clone(), &self.suites_shape);
            self.suites.load = Load::Stale(at);
        }
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        match self.view {
            View::Suites => vec![
                (Action::Open, "the suite's targets"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::OpenById, "open a suite by name"),
            ],
            View::Targets => vec![
                (Action::Open, "the target's score samples"),
                (Action::Sort, "sort by the next column (score first)"),
                (Action::SortReverse, "reverse the sort"),
                (Action::Back, "back to the suites"),
                (Action::OpenById, "open a target by key"),
            ],
            View::Samples => self.samples.as_ref().map(|s| s.help()).unwrap_or_default(),
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let [bar, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
        frame.render_widget(self.breadcrumb(ctx), bar);
        match (self.view, &self.samples) {
            (View::Samples, Some(samples)) => samples.draw(frame, body, ctx),
            (View::Suites, _) => {
                let view = Columns {
                    title: "suites".into(),
                    columns: SUITE_COLUMNS,
                    context: Context::new(theme, ctx.now, ctx.marks, &()),
                    focused: true,
                    empty: "no suite has published results",
                };
                table::draw_columns(frame, body, &self.suites, view);
            }
            _ => {
                // The suites list counts current targets; superseded publications are counted apart.
                let current = self.targets.items.iter().filter(|t| state(t) != Some("SUPERSEDED")).count();
                let superseded = self.targets.items.len() - current;
                let mut title =
                    format!("targets of {} · {current} current", fit(self.suite.as_deref().unwrap_or("?"), 40));
                if superseded > 0 {
                    title.push_str(&format!(", {superseded} superseded"));
                }
                let view = Columns {
                    title,
                    columns: TARGET_COLUMNS,
                    context: Context::new(theme, ctx.now, ctx.marks, &()),
                    focused: true,
                    empty: "this suite has no targets",
                };
                table::draw_columns(frame, body, &self.targets, view);
            }
        }
    }
}
