//! The score samples of one target: a page of samples (offset paging) beside the selected
//! sample's reasoning, narrowed by condition (`f`) and metric (`F`).
//!
//! The condition and metric keys `f`/`F` cycle through come from every page of this target that
//! has been loaded, plus one unfiltered page of the largest size (100) asked for when the target
//! opens. The shown page alone would not do: the service orders samples by condition, so a first
//! page of 20 often holds a single condition. Keys that only appear past the 100th sample join
//! the cycle once a page holding them has been loaded.

use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Unbounded};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::api::model::{OffsetPagination, ScoreSample, ScoreSampleQuery, Target, benchmark_limits, percent};
use crate::columns::{Column, Holds, bench, fixed};
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, Request, Selection};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;
use crate::console::theme::Theme;
use crate::console::widgets::detail::{self, Lines, Scroll};
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::table::{self, Cell, Columns, Context, Shown};
use crate::console::widgets::text::{number, or_dash};

use Constraint::{Fill, Length, Percentage};

/// Samples per page.
pub const PAGE: i64 = benchmark_limits::LIMIT_DEFAULT;

/// A page of samples, in the service's order unless sorted by score (VALUE). The columns are
/// `bench samples`' own, read from the numbered rows; the screen draws VALUE and CALL its way.
const COLUMNS: &[Shown<Numbered>] = &[
    Shown::plain(Column::new("#", fixed(Length(4)), |(i, _): &Numbered| i.to_string()).by(in_order)),
    Shown::plain(crate::column_on!(bench::SAMPLE_CONDITION, Numbered).by(in_order)),
    Shown::plain(crate::column_on!(bench::SAMPLE_METRIC, Numbered).by(in_order)),
    Shown::drawn(
        crate::column_on!(bench::SAMPLE_VALUE, Numbered)
            .by(|a, b| score(&a.1).total_cmp(&score(&b.1)).then(a.0.cmp(&b.0))),
        |(_, s), cx| Cell::from(value_text(s)).style(value_style(s, cx.theme)),
    ),
    Shown::drawn(crate::column_on!(bench::SAMPLE_CALL, Numbered).by(in_order), |(_, s), _| {
        Cell::from(
            s.source_call_id.as_deref().map(|id| id.chars().take(8).collect::<String>()).unwrap_or_else(|| "—".into()),
        )
    }),
];

impl Holds<ScoreSample> for Numbered {
    fn item(&self) -> &ScoreSample {
        &self.1
    }
}

/// The order samples came in.
fn in_order(a: &Numbered, b: &Numbered) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
}

/// A sample with its position (from 1) among all samples of the current narrowing.
pub type Numbered = (u64, ScoreSample);

/// Which sample of an arriving page to select.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Select {
    First,
    Last,
    At(usize),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Focus {
    Samples,
    Reasoning,
}

pub struct SamplesView {
    /// What the service said about the target (from the targets list, then from each page).
    pub target: Target,
    suite: String,
    /// The suite version asked for; None reads the latest (a target opened by key).
    version: Option<String>,
    condition: Option<String>,
    metric: Option<String>,
    conditions: BTreeSet<String>,
    metrics: BTreeSet<String>,
    /// The query of the page shown and its pagination.
    shown: ScoreSampleQuery,
    pagination: Option<OffsetPagination>,
    pub samples: ListState<Numbered>,
    shape: Shape<Numbered>,
    /// The page asked for and not yet here, and which of its samples to select.
    pending: Option<(ScoreSampleQuery, Select)>,
    focus: Focus,
    scroll: Scroll,
    /// The source call asked to open (Enter); if the service does not have it, the reasoning
    /// gets the focus instead.
    opening: Option<uuid::Uuid>,
    /// Source calls the service said it does not have: their samples say so where Enter is
    /// offered, and offer what is possible instead.
    missing: std::collections::HashSet<String>,
}

impl SamplesView {
    /// Opens `target` of `suite` and asks for its first page and for the keys to narrow by.
    pub fn open(target: Target, suite: String, out: &mut Out) -> Self {
        let version = target.suite_version.clone();
        let mut view = SamplesView {
            target,
            suite,
            version,
            condition: None,
            metric: None,
            conditions: BTreeSet::new(),
            metrics: BTreeSet::new(),
            shown: ScoreSampleQuery::default(),
            pagination: None,
            samples: ListState::new(),
            shape: Shape::columns(|(_, s)| format!("{:?} {:?}", s.condition_key, s.metric_key), COLUMNS),
            pending: None,
            focus: Focus::Samples,
            scroll: Scroll::default(),
            opening: None,
            missing: Default::default(),
        };
        view.samples.load = Load::Loading;
        let keys = ScoreSampleQuery { limit: Some(benchmark_limits::LIMIT_MAX), ..view.query(0) };
        out.fetch(Request::ScoreSamples { target: view.target.target_key.clone(), query: keys });
        view.request(0, Select::First, out);
        view
    }

    fn query(&self, offset: i64) -> ScoreSampleQuery {
        ScoreSampleQuery {
            suite: Some(self.suite.clone()),
            suite_version: self.version.clone(),
            condition_key: self.condition.clone(),
            metric_key: self.metric.clone(),
            limit: Some(PAGE),
            offset: Some(offset),
        }
    }

    fn request(&mut self, offset: i64, select: Select, out: &mut Out) {
        let query = self.query(offset.max(0));
        out.fetch(Request::ScoreSamples { target: self.target.target_key.clone(), query: query.clone() });
        self.pending = Some((query, select));
    }

    /// `r`: the shown page again, keeping the selected row.
    pub fn refresh(&mut self, out: &mut Out) {
        self.request(self.offset(), Select::At(self.samples.selected), out);
    }

    fn offset(&self) -> i64 {
        self.shown.offset.unwrap_or(0)
    }

    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        if let (Request::Conversation(id), Some(opening)) = (request, self.opening)
            && *id == opening
        {
            // Opened over the tab, or not on this service (the app says so): then the reasoning.
            self.opening = None;
            if result.is_err() {
                self.missing.insert(opening.to_string());
                self.focus = Focus::Reasoning;
            }
            return true;
        }
        let Request::ScoreSamples { target, query } = request else { return false };
        let ours = *target == self.target.target_key
            && query.suite.as_deref() == Some(self.suite.as_str())
            && query.suite_version == self.version;
        if !ours {
            return false;
        }
        let asked = self.pending.as_ref().filter(|(q, _)| q == query).map(|(_, select)| *select);
        match result {
            Ok(Fetched::ScoreSamples(_, _, page)) => {
                for sample in &page.data {
                    self.conditions.extend(sample.condition_key.clone());
                    self.metrics.extend(sample.metric_key.clone());
                }
                let Some(select) = asked else { return true };
                self.pending = None;
                let total = page.pagination.total as i64;
                let offset = query.offset.unwrap_or(0);
                if page.data.is_empty() && offset > 0 && total > 0 {
                    // Fewer samples than before (a refresh): show the last page there is.
                    self.request((total - 1) / PAGE * PAGE, Select::Last, out);
                    return true;
                }
                if let Some(target) = &page.target {
                    self.target = target.clone();
                }
                let first = offset as u64 + 1;
                self.samples.items =
                    page.data.iter().cloned().enumerate().map(|(i, s)| (first + i as u64, s)).collect();
                self.samples.reshape(&self.shape);
                self.samples.load = Load::Fresh;
                let last = self.samples.len().saturating_sub(1);
                self.samples.selected = match select {
                    Select::First => 0,
                    Select::Last => last,
                    Select::At(at) => at.min(last),
                };
                if !matches!(select, Select::At(_)) {
                    self.scroll.top = 0;
                }
                self.shown = query.clone();
                self.pagination = Some(page.pagination.clone());
                true
            }
            Err(error) if asked.is_some() => {
                self.pending = None;
                self.samples.load = Load::Failed(error.message.clone());
                true
            }
            _ => false,
        }
    }

    /// `s`: the page's lowest scores first (`S` highest), again: as listed; the first row is
    /// selected, the one a reviewer reads first.
    fn sort(&mut self, highest: bool) {
        self.samples.sort = match self.samples.sort {
            Some((BY_SCORE, d)) if d == highest => None,
            _ => Some((BY_SCORE, highest)),
        };
        self.samples.reshape(&self.shape);
        self.samples.top();
        self.scroll.top = 0;
    }

    /// Moves the selection within the page.
    fn select(&mut self, action: Action) {
        let before = self.samples.selected;
        self.samples.navigate(action, &self.shape, COLUMNS.len());
        if self.samples.selected != before {
            self.scroll.top = 0;
        }
    }

    fn has_next_page(&self) -> bool {
        self.pagination.as_ref().is_some_and(|p| self.offset() + (self.samples.items.len() as i64) < p.total as i64)
    }

    /// The next sample, across a page boundary.
    fn next(&mut self, out: &mut Out) {
        if self.samples.selected + 1 < self.samples.len() {
            self.select(Action::Down);
        } else {
            self.next_page(out);
        }
    }

    /// The previous sample, across a page boundary.
    fn prev(&mut self, out: &mut Out) {
        if self.samples.selected > 0 {
            self.select(Action::Up);
        } else {
            self.prev_page(Select::Last, out);
        }
    }

    fn next_page(&mut self, out: &mut Out) {
        if self.has_next_page() {
            self.request(self.offset() + PAGE, Select::First, out);
        } else {
            out.info("this is the last sample");
        }
    }

    fn prev_page(&mut self, select: Select, out: &mut Out) {
        if self.offset() > 0 {
            self.request(self.offset() - PAGE, select, out);
        } else {
            out.info("this is the first sample");
        }
    }

    /// `f`/`F`: the next key of the loaded ones (in order), then all again; back to the first page.
    fn narrow(&mut self, metric: bool, out: &mut Out) {
        let (current, keys, what) = if metric {
            (&mut self.metric, &self.metrics, "metric")
        } else {
            (&mut self.condition, &self.conditions, "condition")
        };
        if keys.is_empty() {
            out.info(format!("no {what} keys loaded yet"));
            return;
        }
        *current = match current.take() {
            None => keys.first().cloned(),
            Some(key) => keys.range::<String, _>((Excluded(key), Unbounded)).next().cloned(),
        };
        self.request(0, Select::First, out);
    }

    pub fn action(&mut self, action: Action, out: &mut Out) -> bool {
        // While a page is on its way, keys that would ask for another one wait for it.
        let idle = self.pending.is_none();
        match action {
            Action::NextItem if idle => self.next(out),
            Action::PrevItem if idle => self.prev(out),
            Action::StatusFilter => self.narrow(false, out),
            Action::SecondFilter => self.narrow(true, out),
            Action::NextItem | Action::PrevItem => {}
            _ if self.focus == Focus::Reasoning => return self.scroll.action(action),
            Action::Open => self.open_source_call(out),
            Action::Detail if self.samples.selected().is_some() => self.focus = Focus::Reasoning,
            Action::Right if idle => self.next_page(out),
            Action::Left if idle => self.prev_page(Select::First, out),
            Action::PageDown if idle && self.samples.selected + 1 >= self.samples.len() => self.next_page(out),
            Action::PageUp if idle && self.samples.selected == 0 => self.prev_page(Select::Last, out),
            Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {
                self.select(action)
            }
            Action::Sort | Action::SortReverse => self.sort(action == Action::SortReverse),
            _ => return false,
        }
        true
    }

    /// Enter: the sample's source call over the tab when the service has it; the reasoning
    /// when the sample names none (or one that is no call id).
    fn open_source_call(&mut self, out: &mut Out) {
        let Some((_, sample)) = self.samples.selected() else { return };
        match sample.source_call_id.as_deref().map(|id| (id, id.parse::<uuid::Uuid>())) {
            Some((_, Ok(call))) => {
                self.opening = Some(call);
                out.open_call(call);
            }
            Some((id, Err(_))) => {
                out.error(format!("the source call {id} is not on this service"));
                self.missing.insert(id.to_string());
                self.focus = Focus::Reasoning;
            }
            None => self.focus = Focus::Reasoning,
        }
    }

    /// Esc: from the reasoning back to the table; false when already there.
    pub fn back(&mut self) -> bool {
        std::mem::replace(&mut self.focus, Focus::Samples) == Focus::Reasoning
    }

    pub fn selection(&self) -> Option<Selection> {
        let (_, sample) = self.samples.selected()?;
        Some(Selection::of(sample.source_call_id.clone().unwrap_or_else(|| self.target.target_key.clone()), sample))
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        let mut keys = if self.call_missing() {
            vec![(Action::Copy, "copy the call id (the call is not on this service)"), (Action::Down, "scroll")]
        } else if self.focus == Focus::Reasoning {
            vec![(Action::Down, "scroll the reasoning"), (Action::PageDown, "scroll a page")]
        } else {
            vec![(Action::Open, "the sample's call"), (Action::Detail, "focus the reasoning")]
        };
        keys.extend([
            (Action::Sort, "lowest score first on this page (again: as listed)"),
            (Action::SortReverse, "highest score first on this page"),
            (Action::NextItem, "next sample (into the next page)"),
            (Action::PrevItem, "previous sample (into the previous page)"),
            (Action::StatusFilter, "cycle the condition"),
            (Action::SecondFilter, "cycle the metric"),
        ]);
        if self.focus == Focus::Reasoning {
            keys.push((Action::Back, "back to the samples"));
        } else {
            keys.extend([
                (Action::Right, "next page"),
                (Action::Left, "previous page"),
                (Action::PageDown, "page down; at the page's last row, the next page"),
                (Action::PageUp, "page up; at the page's first row, the previous page"),
                (Action::Back, "back to the targets"),
            ]);
        }
        keys
    }

    /// Whether the selected sample's source call is known not to be on this service.
    fn call_missing(&self) -> bool {
        let call = self.samples.selected().and_then(|(_, s)| s.source_call_id.as_ref());
        call.is_some_and(|id| self.missing.contains(id))
    }

    /// "samples 21–40 of 63", or why there are none.
    pub fn paging(&self) -> String {
        match &self.pagination {
            None => "samples …".into(),
            Some(p) if self.samples.items.is_empty() => format!("no samples of {}", p.total),
            Some(p) => {
                let first = self.offset() + 1;
                format!("samples {first}–{} of {}", first + self.samples.items.len() as i64 - 1, p.total)
            }
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let [bar, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
        self.draw_bar(frame, bar, theme);
        let [top, bottom] = if body.width >= 120 {
            Layout::horizontal([Percentage(55), Percentage(45)]).areas(body)
        } else {
            Layout::vertical([Percentage(50), Percentage(50)]).areas(body)
        };
        let context = Context::new(theme, ctx.now, ctx.marks, &());
        let view = Columns {
            title: "score samples".into(),
            columns: COLUMNS,
            context,
            focused: self.focus == Focus::Samples,
            empty: "no samples match",
        };
        table::draw_columns(frame, top, &self.samples, view);
        let total = self.pagination.as_ref().map(|p| p.total).unwrap_or(0);
        let (title, lines) = match self.samples.selected() {
            Some((index, sample)) => {
                let mut lines = Vec::new();
                if self.call_missing() {
                    let copy = ctx.keys.first_key(Action::Copy);
                    let back = ctx.keys.first_key(Action::Back);
                    let text = format!(
                        "✗ its call is not on this service: {copy} copies the call id; {back} leads back to the targets"
                    );
                    lines.push(Line::styled(text, theme.error()));
                }
                lines.extend(reasoning(sample, theme));
                (format!("sample {index} of {total} · reasoning"), lines)
            }
            None => ("reasoning".to_string(), vec![Line::styled("no sample selected", theme.dim())]),
        };
        detail::draw(frame, bottom, &title, lines, &self.scroll, theme, self.focus == Focus::Reasoning);
    }

    fn draw_bar(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let key = |key: &Option<String>| match key {
            Some(key) => Span::styled(key.clone(), theme.highlight()),
            None => Span::styled("all", theme.dim()),
        };
        let mut spans = vec![
            Span::styled(format!(" {} ", self.paging()), theme.heading()),
            Span::styled("· condition ", theme.dim()),
            key(&self.condition),
            Span::styled(" · metric ", theme.dim()),
            key(&self.metric),
        ];
        if let Some((_, highest)) = self.samples.sort {
            let word = if highest { " · highest score first" } else { " · lowest score first" };
            spans.push(Span::styled(word, theme.highlight()));
        }
        if self.pending.is_some() {
            spans.push(Span::styled(" ⟳ loading", theme.dim()));
        }
        frame.render_widget(Line::from(spans), area);
    }
}

/// The column `s` sorts by: VALUE.
const BY_SCORE: usize = 3;

/// The ratings benchmark scorers give (empathy and the like): 1 to 5.
const RATING: (f64, f64) = (1.0, 5.0);

/// A sample's score in percent, the scale targets and run scores use: a pass 100 and a fail 0,
/// a fraction (0–1) times 100, a rating placed on its 1–5 scale (1 is 0 %, 5 is 100 %);
/// none for a number on no scale it can be read on.
fn percent_score(sample: &ScoreSample) -> Option<f64> {
    if let Some(passed) = sample.boolean_value {
        return Some(if passed { 100.0 } else { 0.0 });
    }
    match sample.numeric_value? {
        n if (0.0..=1.0).contains(&n) => Some(n * 100.0),
        n if (RATING.0..=RATING.1).contains(&n) => Some((n - RATING.0) / (RATING.1 - RATING.0) * 100.0),
        _ => None,
    }
}

/// A sample's score to order by: its percent; one on no scale sorts last.
fn score(sample: &ScoreSample) -> f64 {
    percent_score(sample).unwrap_or(f64::INFINITY)
}

/// A pass in the ok colour, a fail in the error colour.
fn value_style(sample: &ScoreSample, theme: &Theme) -> ratatui::style::Style {
    match sample.boolean_value {
        Some(true) => theme.ok(),
        Some(false) => theme.error(),
        None => ratatui::style::Style::new(),
    }
}

/// A sample's value as text: its percent with what it was ("100 % pass", "75 % 4/5"), or the
/// bare number when it is on no scale.
fn value_text(sample: &ScoreSample) -> String {
    let was = match (sample.boolean_value, sample.numeric_value) {
        (Some(passed), _) => Some(if passed { "pass".to_owned() } else { "fail".to_owned() }),
        (None, Some(n)) if n > 1.0 => Some(format!("{}/{}", number(n), number(RATING.1))),
        _ => None,
    };
    match (percent_score(sample), was) {
        (Some(p), Some(was)) => format!("{} {was}", percent(p)),
        (Some(p), None) => percent(p),
        (None, _) => sample.numeric_value.map(number).unwrap_or_else(|| "—".into()),
    }
}

/// The reasoning first (what a reviewer reads), then the sample's facts.
fn reasoning(sample: &ScoreSample, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Lines::new(theme);
    for line in or_dash(sample.reasoning.as_deref()).lines() {
        lines.line(Line::raw(line.to_string()));
    }
    lines
        .section("sample")
        .kv("condition", or_dash(sample.condition_key.as_deref()))
        .kv("metric", or_dash(sample.metric_key.as_deref()))
        .kv("value", value_text(sample))
        .kv("source call", or_dash(sample.source_call_id.as_deref()));
    lines.lines
}
