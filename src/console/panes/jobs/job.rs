//! One run plan job, live: progress gauge, counts, elapsed/ETA, throughput, and its simulation
//! jobs. Polled while it runs; a simulation job opens its call's transcript beside its values.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, LineGauge, Paragraph, Sparkline, Wrap};
use uuid::Uuid;

use super::progress::{Progress, sim_status};
use super::sims::{self, endpoint, flow, persona};
use super::verdict::{self, is_failing, outcome};
use crate::api::model::{RunPlanJob, SimulationJob};
use crate::console::keymap::Action;
use crate::console::message::{FailureKind, FetchError, Fetched, Request, Selection};
use crate::console::out::Out;
use crate::console::pane::ViewCtx;
use crate::console::widgets::conversation::ConversationView;
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::table::{self, Columns, Context};
use crate::console::widgets::text::{duration_ms, fit, fit_line, when};

use Constraint::{Fill, Length};

pub struct JobView {
    pub id: Uuid,
    /// The job without its simulation jobs (those are in `sims`).
    pub job: Option<RunPlanJob>,
    pub error: Option<String>,
    pub progress: Progress,
    pub sims: ListState<SimulationJob>,
    shape: Shape<SimulationJob>,
    status_filter: Option<String>,
    outcome_filter: Option<String>,
    /// The simulation job whose call is open.
    pub sim: Option<SimView>,
    /// Whether poll ticks fetch the job again: until it ends (or turns out not to exist).
    pub polling: bool,
    /// The tag of the last read, so an unchanged job costs a 304 and nothing more.
    etag: Option<String>,
    /// The service pages the simulations (it answered `counts` without them): only the rows
    /// on screen are read, a page at a time, and the counts come from the job.
    pub windowed: bool,
    /// Where the next page of rows starts, when there are more than those read.
    more: Option<String>,
    /// How many simulations pass the filters, by the last page's count.
    window_total: Option<u64>,
    /// Events about this job arrive, so the rows follow them and polling is only a safety net.
    pub events_live: bool,
    /// A row read (or the open simulation) may have changed unseen: an event without its
    /// resource named it, or the stream (re)opened. It is read again at the next tick, once
    /// however many changes came.
    rows_stale: bool,
    open_stale: bool,
    /// A simulation changed since the job was last read: it is read again at the next tick
    /// (a big run changes hundreds a second; its counts are redrawn once a tick, not each time).
    summary_stale: bool,
    ticks: u64,
    /// The clock of the last tick, for what `counts` say ended since the read before.
    now: jiff::Timestamp,
}

/// With events arriving, the job is still read every this many ticks: a safety net for an
/// event the stream could not send (a reconnect past what it keeps).
const POLL_EVERY_WITH_EVENTS: u64 = 5;
/// Rows read per page of a windowed job (the service's largest page).
const WINDOW_MAX: i64 = 50;

pub struct SimView {
    pub sim: SimulationJob,
    pub conversation: ConversationView,
}

/// A poll interval as people say it: `1s`, `2.5s`, `500ms`.
fn every(ms: i64) -> String {
    if ms % 1000 == 0 { format!("{}s", ms / 1000) } else { duration_ms(ms) }
}

impl JobView {
    /// Opens job `id` and asks for it.
    pub fn open(id: Uuid, out: &mut Out) -> Self {
        let mut sims = ListState::new();
        sims.load = Load::Loading;
        out.fetch(Request::JobSummary { id, etag: None });
        JobView {
            id,
            job: None,
            error: None,
            progress: Progress::default(),
            sims,
            shape: Shape::columns(sims::haystack, sims::COLUMNS),
            status_filter: None,
            outcome_filter: None,
            sim: None,
            polling: true,
            etag: None,
            windowed: false,
            more: None,
            window_total: None,
            events_live: false,
            rows_stale: false,
            open_stale: false,
            summary_stale: false,
            ticks: 0,
            now: jiff::Timestamp::now(),
        }
    }

    pub fn refresh(&mut self, out: &mut Out) {
        self.rows_stale |= self.windowed;
        self.etag = None;
        out.fetch(Request::JobSummary { id: self.id, etag: None });
        if let Some(sim) = &mut self.sim {
            sim.conversation.refresh(out);
        }
    }

    /// The poll timer: read the job again while it runs (a 304 when it has not changed);
    /// true when a redraw is needed.
    pub fn tick(&mut self, now: jiff::Timestamp, out: &mut Out) -> bool {
        self.now = now;
        self.ticks += 1;
        // Paged, the events name only the rows read: the counts are read at every tick (a 304
        // when nothing changed).
        let due = !self.events_live || self.windowed || self.ticks.is_multiple_of(POLL_EVERY_WITH_EVENTS);
        if std::mem::take(&mut self.summary_stale) || (self.polling && due) {
            out.fetch(Request::JobSummary { id: self.id, etag: self.etag.clone() });
        }
        if std::mem::take(&mut self.rows_stale) {
            self.fetch_window(None, out);
        }
        if std::mem::take(&mut self.open_stale)
            && let Some(open) = &self.sim
        {
            out.fetch(Request::SimulationJob(open.sim.simulation_job_id));
        }
        self.polling
    }

    /// The events this view wants while its job runs. Once the rows are paged: the job's own
    /// and those of the rows read and the open simulation, each with the row as it now is (a
    /// big run ends hundreds of simulations a second and a few rows show; its counts are read
    /// at every tick). Before that: the job's and all its simulations', without their
    /// resources (the view then reads again what they name).
    pub fn watching(&self) -> Option<crate::api::model::EventQuery> {
        use crate::api::model::{EVENT_RESOURCES_MAX, EventChildrenIncluded, EventQuery};
        if !self.polling {
            return None;
        }
        if !self.windowed {
            let query = EventQuery { resource_id: Some(self.id.to_string()), ..Default::default() };
            return Some(query.without_data());
        }
        // The rows read, in their order; past 98 of them, the 98 around the selection, moving a
        // page of 49 at a time so that scrolling seldom changes the query (and restarts the stream).
        let page = (EVENT_RESOURCES_MAX - 2) / 2;
        let items = &self.sims.items;
        let mut rows: Vec<Uuid> = if items.len() < EVENT_RESOURCES_MAX - 1 {
            items.iter().map(|s| s.simulation_job_id).collect()
        } else {
            let start = (self.sims.selected / page).saturating_sub(1) * page;
            let shown = self.sims.view.iter().skip(start).take(2 * page);
            shown.filter_map(|&at| items.get(at)).map(|s| s.simulation_job_id).collect()
        };
        if let Some(open) = self.sim.as_ref().map(|o| o.sim.simulation_job_id)
            && !rows.contains(&open)
        {
            rows.push(open);
        }
        let named = std::iter::once(self.id).chain(rows);
        Some(EventQuery {
            resource_id: Some(named.map(|id| id.to_string()).collect::<Vec<_>>().join(",")),
            children: Some(EventChildrenIncluded::Omitted.as_str().to_owned()),
            ..Default::default()
        })
    }

    /// Changes announced about this job: a simulation's new state goes into its row (when the
    /// row is on screen): at once when the event carries it, else by reading the rows again at
    /// the next tick; and the job is read again for its counts and verdict (at once when the
    /// job itself changed, else at the next tick).
    pub fn events(&mut self, events: &[crate::api::model::Event], out: &mut Out) -> bool {
        let id = self.id.to_string();
        if events.is_empty() {
            // The stream (re)opened: changes will be told from now on, and what changed before
            // it opened (while the query changed, say) is read once at the next tick.
            self.events_live = true;
            self.rows_stale |= self.windowed;
            self.open_stale |= self.sim.is_some();
            return false;
        }
        let ours: Vec<_> =
            events.iter().filter(|e| e.resource_id == id || e.parent_id.as_deref() == Some(id.as_str())).collect();
        if ours.is_empty() {
            return false;
        }
        self.events_live = true;
        let mut patched = false;
        let open = self.sim.as_ref().map(|o| o.sim.simulation_job_id);
        for event in ours.iter().filter(|e| e.parent_id.as_deref() == Some(id.as_str())) {
            // A big run ends hundreds of simulations a second and a few rows show: only a row on
            // screen (or the one open) is decoded.
            let Ok(simulation) = event.resource_id.parse::<Uuid>() else { continue };
            let row = self.sims.items.iter().position(|s| s.simulation_job_id == simulation);
            if row.is_none() && open != Some(simulation) {
                continue;
            }
            if event.data.is_none() {
                self.rows_stale |= row.is_some() && self.windowed;
                self.open_stale |= open == Some(simulation);
                continue;
            }
            let Ok(fresh) = event.data_as::<SimulationJob>() else { continue };
            if let Some(row) = row.and_then(|at| self.sims.items.get_mut(at)) {
                *row = fresh.clone();
                patched = true;
            }
            self.follow(&fresh);
        }
        if patched {
            self.sims.reshape(&self.shape);
        }
        // The job's own change (it started or ended) is read at once; its simulations' at the
        // next tick.
        if ours.iter().any(|e| e.resource_id == id) {
            out.fetch(Request::JobSummary { id: self.id, etag: self.etag.clone() });
        } else {
            self.summary_stale = true;
        }
        patched
    }

    /// The open simulation follows its fresh copy: the call view's failed checks too.
    fn follow(&mut self, fresh: &SimulationJob) {
        if let Some(open) = &mut self.sim
            && open.sim.simulation_job_id == fresh.simulation_job_id
        {
            open.conversation.failed_checks = fresh.failed_checks.clone();
            open.sim = fresh.clone();
        }
    }

    /// A whole job with its simulation jobs (a service that does not page them).
    fn take_job(&mut self, job: &RunPlanJob) {
        let mut job = job.clone();
        let sims = std::mem::take(&mut job.simulation_jobs);
        self.windowed = false;
        self.progress = Progress::of(&job, &sims);
        self.polling = !job.has_ended();
        if let Some(fresh) =
            sims.iter().find(|s| self.sim.as_ref().is_some_and(|o| o.sim.simulation_job_id == s.simulation_job_id))
        {
            self.follow(&fresh.clone());
        }
        self.sims.replace(sims, sims::id, &self.shape);
        self.sims.load = Load::Fresh;
        self.job = Some(job);
        self.error = None;
    }

    /// The job without its simulations, with their counts: the rows on screen are read again
    /// (unless events keep them current and none was added).
    fn take_summary(&mut self, job: &RunPlanJob, out: &mut Out) {
        let counts = job.counts.clone().unwrap_or_default();
        let grew = self.progress.total != counts.total as usize;
        self.progress = Progress::of_counts(job, &counts, &self.progress, self.now);
        self.polling = !job.has_ended();
        if !self.windowed || !self.events_live || grew || !self.polling {
            self.fetch_window(None, out);
        }
        self.windowed = true;
        self.job = Some(job.clone());
        self.error = None;
    }

    /// Asks for the rows on screen (from the top), or the page after `cursor`.
    fn fetch_window(&self, cursor: Option<String>, out: &mut Out) {
        let limit = (self.sims.page() as i64 + 1).clamp(10, WINDOW_MAX);
        // In the order a whole job lists them (as made): the rows read the same either way.
        let mut query = crate::api::ListQuery::default().limit(limit).filter("sort", "createdAt");
        query.cursor = cursor;
        if let Some(status) = &self.status_filter {
            query = query.filter("status", status);
        }
        if let Some(outcome) = &self.outcome_filter {
            query = query.filter("outcome", outcome);
        }
        out.fetch(Request::JobWindow { id: self.id, query });
    }

    /// Rows read: the first page replaces (or updates in place) what is shown, a later page
    /// adds to it.
    fn take_window(&mut self, first: bool, page: &crate::api::model::CursorPage<SimulationJob>) {
        // The rows shown stay in place until `replace`, which keeps the selection by them.
        let mut rows = if first { Vec::new() } else { self.sims.items.clone() };
        if first && self.sims.items.len() > page.data.len() {
            // More rows were read by scrolling: keep them, updated where the page has them.
            rows = self.sims.items.clone();
            for fresh in &page.data {
                match rows.iter_mut().find(|s| s.simulation_job_id == fresh.simulation_job_id) {
                    Some(row) => *row = fresh.clone(),
                    None => rows.push(fresh.clone()),
                }
            }
        } else {
            rows.extend(page.data.iter().cloned());
            if first {
                self.more = page.pagination.next_cursor.clone();
            }
        }
        if !first {
            self.more = page.pagination.next_cursor.clone();
        }
        for fresh in &page.data {
            self.follow(fresh);
        }
        self.window_total = Some(page.pagination.total);
        self.sims.replace(rows, sims::id, &self.shape);
        self.sims.load = Load::Fresh;
    }

    /// Near the end of the rows read, the next page of a windowed job is asked for.
    fn read_ahead(&self, out: &mut Out) {
        let near_end = self.sims.selected + 2 >= self.sims.len();
        if self.windowed
            && near_end
            && let Some(cursor) = &self.more
        {
            self.fetch_window(Some(cursor.clone()), out);
        }
    }

    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        match (request, result) {
            (Request::RunPlanJob(id), Ok(Fetched::RunPlanJob(job))) if *id == self.id => {
                self.take_job(job);
                true
            }
            (Request::JobSummary { id, .. }, Ok(Fetched::JobSummary { job, etag })) if *id == self.id => {
                let Some(job) = job else { return false };
                self.etag = etag.clone();
                if job.counts.is_some() && job.simulation_jobs.is_empty() {
                    self.take_summary(job, out);
                } else {
                    self.take_job(job);
                }
                true
            }
            (Request::JobWindow { id, query }, Ok(Fetched::JobWindow(page))) if *id == self.id => {
                self.take_window(query.cursor.is_none(), page);
                true
            }
            (Request::SimulationJob(id), Ok(Fetched::SimulationJob(fresh)))
                if self.sim.as_ref().is_some_and(|o| o.sim.simulation_job_id == *id) =>
            {
                if let Some(row) = self.sims.items.iter_mut().find(|s| s.simulation_job_id == *id) {
                    *row = (**fresh).clone();
                    self.sims.reshape(&self.shape);
                }
                self.follow(fresh);
                true
            }
            (Request::JobWindow { id, .. }, Err(error)) if *id == self.id => {
                self.error = Some(error.message.clone());
                true
            }
            (Request::RunPlanJob(id) | Request::JobSummary { id, .. }, Err(error)) if *id == self.id => {
                self.error = Some(error.message.clone());
                if error.kind == FailureKind::NotFound {
                    self.polling = false;
                }
                if self.job.is_none() {
                    self.sims.load = Load::Failed(error.message.clone());
                }
                true
            }
            _ => self.sim.as_mut().is_some_and(|s| s.conversation.fetched(request, result)),
        }
    }

    pub fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if let Some(sim) = &mut self.sim {
            return sim.conversation.action(action);
        }
        let page = self.sims.page();
        match action {
            Action::Up => self.sims.move_by(-1),
            Action::Down => {
                self.sims.move_by(1);
                self.read_ahead(out);
            }
            Action::PageUp => self.sims.move_by(-page),
            Action::PageDown => {
                self.sims.move_by(page);
                self.read_ahead(out);
            }
            Action::Top => self.sims.top(),
            Action::Bottom => {
                self.sims.bottom();
                self.read_ahead(out);
            }
            Action::Sort => {
                self.sims.cycle_sort(sims::COLUMNS.len());
                self.sims.reshape(&self.shape);
            }
            Action::SortReverse => {
                self.sims.reverse_sort();
                self.sims.reshape(&self.shape);
            }
            Action::StatusFilter => {
                let mut present: Vec<String> = match (&self.job, self.windowed) {
                    (Some(job), true) => job.counts.iter().flat_map(|c| c.by_outcome.keys().cloned()).collect(),
                    _ => self.sims.items.iter().map(outcome).collect(),
                };
                present.sort();
                present.dedup();
                self.outcome_filter = super::next_filter(self.outcome_filter.as_deref(), &present);
                self.keep(out);
            }
            Action::SecondFilter => {
                let present: Vec<String> = self.progress.counts.iter().map(|(s, _)| s.clone()).collect();
                self.status_filter = super::next_filter(self.status_filter.as_deref(), &present);
                self.keep(out);
            }
            Action::NextFailure => self.jump_to_failure(1, out),
            Action::PrevFailure => self.jump_to_failure(-1, out),
            Action::Open => match self.sims.selected() {
                Some(sim) => match sim.call_id {
                    Some(call) => {
                        let mut conversation = ConversationView::open(call, out);
                        conversation.failed_checks = sim.failed_checks.clone();
                        self.sim = Some(SimView { sim: sim.clone(), conversation })
                    }
                    None => out.error(format!("this simulation has no call yet ({})", sim_status(sim))),
                },
                None => return false,
            },
            _ => return false,
        }
        true
    }

    /// Applies the outcome and status filters together (and asks the service for the rows
    /// that pass them, where it pages the simulations).
    fn keep(&mut self, out: &mut Out) {
        if self.windowed {
            self.more = None;
            self.fetch_window(None, out);
        }
        let (outcome_filter, status_filter) = (self.outcome_filter.clone(), self.status_filter.clone());
        self.shape.keep = Box::new(move |s| {
            outcome_filter.as_ref().is_none_or(|o| *o == outcome(s))
                && status_filter.as_ref().is_none_or(|k| *k == sim_status(s))
        });
        self.sims.reshape(&self.shape);
    }

    /// `]` / `[`: selects the next (or previous) failed or errored simulation, wrapping around.
    fn jump_to_failure(&mut self, step: isize, out: &mut Out) {
        let len = self.sims.len() as isize;
        let found = (1..=len)
            .map(|k| (self.sims.selected as isize + step * k).rem_euclid(len.max(1)))
            .find(|&p| self.sims.visible(p as usize).is_some_and(is_failing));
        match found {
            Some(position) => self.sims.move_by(position - self.sims.selected as isize),
            None => out.info("no failing simulation in view"),
        }
    }

    /// Esc: a value's detail, then the call; false when only the job is open.
    pub fn back(&mut self) -> bool {
        match &mut self.sim {
            Some(sim) => {
                if !sim.conversation.back() {
                    self.sim = None;
                }
                true
            }
            None => false,
        }
    }

    pub fn filter(&self) -> String {
        match &self.sim {
            Some(sim) => sim.conversation.filter(),
            None => self.sims.filter.clone(),
        }
    }

    pub fn set_filter(&mut self, text: &str) {
        match &mut self.sim {
            Some(sim) => sim.conversation.set_filter(text),
            None => {
                self.sims.filter = text.to_string();
                self.sims.reshape(&self.shape);
            }
        }
    }

    pub fn selection(&self) -> Option<Selection> {
        match &self.sim {
            Some(sim) => sim.conversation.selection(),
            None => match self.sims.selected() {
                Some(sim) => Some(Selection::of(sim.simulation_job_id, sim)),
                None => self.job.as_ref().map(|j| Selection::of(j.simulation_run_plan_job_id, j)),
            },
        }
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        if let Some(sim) = &self.sim {
            return sim.conversation.help();
        }
        vec![
            (Action::Open, "the simulation's call: transcript and metric values"),
            (Action::NextFailure, "next failing simulation"),
            (Action::PrevFailure, "previous failing simulation"),
            (Action::StatusFilter, "show one verdict only (cycles)"),
            (Action::SecondFilter, "show one status only (cycles)"),
            (Action::Sort, "sort by the next column"),
            (Action::SortReverse, "reverse the sort"),
            (Action::Back, "back to the jobs"),
        ]
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, plan: &str, poll: Duration) {
        if let Some(sim) = &self.sim {
            let [head, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
            self.draw_sim_head(frame, head, ctx, &sim.sim);
            sim.conversation.draw(frame, body, ctx);
            return;
        }
        let [top, bottom] = Layout::vertical([Length(self.top_height(area)), Fill(1)]).areas(area);
        let job = self.job.as_ref();
        if area.width >= 120 {
            let [summary, judged, spark] = Layout::horizontal([Fill(2), Fill(2), Fill(1)]).areas(top);
            self.draw_summary(frame, summary, ctx, plan);
            verdict::draw_panel(frame, judged, job, ctx.theme);
            self.draw_throughput(frame, spark, ctx, poll);
        } else {
            let [summary, judged] = Layout::horizontal([Fill(1), Fill(1)]).areas(top);
            self.draw_summary(frame, summary, ctx, plan);
            verdict::draw_panel(frame, judged, job, ctx.theme);
        }
        self.draw_sims(frame, bottom, ctx);
    }

    /// Room for the summary (its counts may wrap) and for every check and failure of the verdict,
    /// at most half the area.
    fn top_height(&self, area: Rect) -> u16 {
        let summary_width = if area.width >= 120 { area.width * 2 / 5 } else { area.width / 2 };
        let counts: usize = self.progress.counts.iter().map(|(s, n)| s.chars().count() + n.to_string().len() + 4).sum();
        let count_lines = counts.div_ceil(summary_width.saturating_sub(2).max(1) as usize).max(1) as u16;
        let error = u16::from(self.job.as_ref().is_some_and(|j| j.error_message.is_some()));
        let retries = u16::from(self.job.as_ref().is_some_and(|j| retries(j).is_some()));
        let summary = 5 + count_lines + error + retries;
        let judged = self.job.as_ref().and_then(|j| j.verdict.as_ref().map(|v| (j, v))).map_or(2, |(job, v)| {
            let failures = verdict::failures_to_show(v, !job.has_ended());
            // A failure in words takes two lines on a narrow panel.
            let per_failure = if area.width >= 160 { 1 } else { 2 };
            v.checks.len() + failures.len() * per_failure
        }) as u16;
        (summary.max(judged) + 2).min((area.height / 2).max(8))
    }

    fn draw_summary(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, plan: &str) {
        let theme = ctx.theme;
        let status = self.job.as_ref().and_then(|j| j.status.as_ref()).map(|s| s.as_str().to_string());
        let status = status.unwrap_or_else(|| if self.job.is_some() { "—".into() } else { "…".into() });
        let block = Block::default().borders(Borders::ALL).border_style(theme.dim()).title(Line::from(vec![
            Span::raw(" "),
            Span::styled(status.clone(), theme.status(&status)),
            Span::styled(format!(" · {plan} "), theme.title()),
        ]));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(job) = &self.job else {
            let text = match &self.error {
                Some(error) => Line::styled(format!("could not load job {}: {error}", self.id), theme.error()),
                None => Line::styled(format!("loading job {}…", self.id), theme.dim()),
            };
            frame.render_widget(Paragraph::new(text).wrap(Default::default()), inner);
            return;
        };
        let p = &self.progress;
        let [gauge, facts] = Layout::vertical([Length(1), Fill(1)]).areas(inner);
        let label = format!("{}/{} ended {:>3.0}%", p.ended, p.total, p.ratio() * 100.0);
        frame.render_widget(
            LineGauge::default()
                .ratio(p.ratio().clamp(0.0, 1.0))
                .label(label)
                .filled_symbol("█")
                .unfilled_symbol("░")
                .filled_style(theme.status(&status))
                .unfilled_style(theme.dim()),
            gauge,
        );
        let mut counts = Vec::new();
        for (i, (status, n)) in p.counts.iter().enumerate() {
            if i > 0 {
                counts.push(Span::styled(" · ", theme.dim()));
            }
            counts.push(Span::styled(format!("{status} {n}"), theme.status(status)));
        }
        if counts.is_empty() {
            counts.push(Span::styled("no simulation jobs yet", theme.dim()));
        }
        let elapsed = p.elapsed_ms(ctx.now).map(duration_ms).unwrap_or_else(|| "—".into());
        let eta = p.eta_ms(ctx.now).map(duration_ms).unwrap_or_else(|| "—".into());
        let fact = |label: &str, value: String| {
            Line::from(vec![Span::styled(format!("{label:<8} "), theme.dim()), Span::raw(value)])
        };
        let mut lines = vec![
            Line::from(counts),
            if p.finished { fact("took", elapsed) } else { fact("elapsed", format!("{elapsed} · ETA {eta}")) },
            fact("started", when(job.started_at.as_ref().or(job.created_at.as_ref()))),
            fact("ended", when(job.ended_at.as_ref())),
            // The whole id where it fits (y copies it whole anyway).
            fact(
                "job",
                if inner.width >= 46 { self.id.to_string() } else { format!("{}…", &self.id.to_string()[..8]) },
            ),
        ];
        if let Some(retries) = retries(job) {
            lines.push(fact("retries", retries));
        }
        if let Some(error) = &job.error_message {
            lines.push(Line::styled(fit(error, inner.width as usize), theme.error()));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), facts);
    }

    fn draw_throughput(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, poll: Duration) {
        let theme = ctx.theme;
        let interval = poll.as_millis().max(1) as i64;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.dim())
            .title(Span::styled(format!(" ended per {} ", every(interval)), theme.title()));
        let inner = block.inner(area);
        let data = self.progress.throughput(ctx.now, interval, inner.width as usize);
        frame.render_widget(Sparkline::default().block(block).data(&data).style(theme.ok()), area);
    }

    fn draw_sims(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let mut title = "simulation jobs".to_string();
        if let Some(outcome) = &self.outcome_filter {
            title.push_str(&format!(" · {outcome} only (f)"));
        }
        if let Some(status) = &self.status_filter {
            title.push_str(&format!(" · {status} only (F)"));
        }
        // Only the rows on screen are read from a service that pages them: say how many there are.
        if let (true, Some(total)) = (self.windowed, self.window_total)
            && total > self.sims.items.len() as u64
        {
            title.push_str(&format!(" · first {} of {total} read (↓ reads on)", self.sims.items.len()));
        }
        // The hosted service judges the run but not each simulation: say so rather than guess.
        let ended = self.sims.items.iter().filter(|s| s.status.as_ref().is_some_and(|s| s.is_terminal()));
        if self.sims.items.iter().all(|s| s.outcome.is_none()) && ended.count() > 0 {
            title.push_str(" · this service reports no verdict per simulation");
        }
        let context = Context::new(theme, ctx.now, ctx.marks, &());
        let view = Columns { title, columns: sims::COLUMNS, context, focused: true, empty: "no simulation jobs" };
        table::draw_columns(frame, area, &self.sims, view);
    }

    fn draw_sim_head(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx, sim: &SimulationJob) {
        let theme = ctx.theme;
        let (status, outcome) = (sim_status(sim), outcome(sim));
        // The wire counts iterations from 0; people count simulations from 1.
        let iteration = sim.iteration.map(|i| format!(" #{}", i + 1)).unwrap_or_default();
        let mut spans = vec![
            Span::styled(format!(" simulation{iteration} "), theme.heading()),
            Span::styled(outcome.clone(), theme.status(&outcome)),
            Span::styled(" · ", theme.dim()),
            Span::styled(status.clone(), theme.status(&status)),
            Span::styled(format!(" · {} · {} · {}", persona(sim), flow(sim), endpoint(sim)), theme.dim()),
        ];
        // The failed checks have their own panel in the call view; an error or invalidation does not.
        if sim.failed_checks.is_empty() && !sim.why_not_passed().is_empty() {
            spans.push(Span::styled(format!(" · {}", sim.why_not_passed()), theme.error()));
        }
        frame.render_widget(fit_line(Line::from(spans), area.width as usize), area);
    }
}

/// The job's retries of simulations the agent never spoke on, when there were any: how many of
/// its attempts were retries, how many test cases are still silent on their last attempt, and
/// how many retries wait to dial.
fn retries(job: &RunPlanJob) -> Option<String> {
    let summary = job.attempt_summary.as_ref().filter(|s| s.retry_count > 0 || s.silent_attempt_count > 0)?;
    let mut text = format!(
        "{} of {} attempts · {} still silent",
        summary.retry_count, summary.attempt_count, summary.still_silent_test_case_count
    );
    let waiting = job.pending_retries.as_ref().map_or(0, Vec::len);
    if waiting > 0 {
        text.push_str(&format!(" · {waiting} waiting"));
    }
    Some(text)
}
