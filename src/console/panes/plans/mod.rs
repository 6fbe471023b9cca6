//! Tab 1: run plans with their latest job. Enter shows everything a plan pins (`pinned.rs`);
//! Enter there opens the plan's latest job in the jobs tab. `!` on a plan shows its flaky
//! checks over its last runs (`flaky.rs`).

mod create;
pub mod flaky;
mod pinned;
pub mod run;

use std::collections::HashMap;

use crate::console::widgets::table::Cell;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use uuid::Uuid;

use super::jobs::{JobSection, ListPoll, absorb_job, job_section};
use super::names::Names;
use super::section::Section;
use crate::api::model::config::export;
use crate::api::model::{RunPlan, RunPlanJob};
use crate::cache::Cache;
use crate::columns::{Column, fit, plan};
use crate::console::keymap::Action;
use crate::console::message::{
    Deletion, FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written,
};
use crate::console::out::Out;
use crate::console::pane::{Editable, Pane, ViewCtx};
use crate::console::tab::Tab;
use crate::console::theme::Theme;
use crate::console::widgets::confirm::Confirm;
use crate::console::widgets::detail::{self, Scroll};
use crate::console::widgets::list::{Load, by};
use crate::console::widgets::table::{self, Columns, Context, Shown};
use crate::console::widgets::text::{ago, or_dash};

/// The plans list's columns, drawn for the plans pane (which knows each plan's latest job).
/// Narrow screens show the first five.
const COLUMNS: &[Shown<RunPlan, Plans>] = &[
    Shown::plain(plan::NAME),
    Shown::plain(plan::DIRECTION),
    Shown::drawn(plan::FLOWS, |p, _| Cell::from(number(plan::flows(p)))),
    Shown::drawn(LATEST, |p, cx| Cell::from(cx.of.latest_cell(p, cx))),
    Shown::drawn(VERDICT, |p, cx| Cell::from(cx.of.verdict_cell(p, cx.theme))),
    Shown::drawn(plan::ENDPOINTS, |p, _| Cell::from(number(plan::endpoints(p)))),
    Shown::drawn(plan::METRICS, |p, _| Cell::from(number(plan::metrics(p)))),
    Shown::plain(plan::ITERATIONS),
];
const NARROW: usize = 5;

/// The plan's latest job: its status and age, which only the pane knows (a plan does not
/// know its jobs). Sorted by when the plan changed until the jobs are known (`index_jobs`).
const LATEST: Column<RunPlan> = Column::new("LATEST JOB", fit(10, 27), |_| "—".into()).by(by_updated);

/// The latest job's verdict and score: as LATEST, the pane's to know.
const VERDICT: Column<RunPlan> = Column::new("VERDICT", fit(7, 14), |_| "—".into()).by(by_updated);

fn by_updated(a: &RunPlan, b: &RunPlan) -> std::cmp::Ordering {
    by(a.updated_at.as_ref(), b.updated_at.as_ref())
}

/// What the detail view resolves ids against.
const LOOKUPS: &[ListKind] =
    &[ListKind::Flows, ListKind::AgentEndpoints, ListKind::MetricDefinitions, ListKind::Personas, ListKind::Agents];

/// A job's score in whole points, for sorting by verdict.
fn score_of(job: &RunPlanJob) -> Option<i64> {
    job.verdict.as_ref().and_then(|v| v.score).map(|s| s.round() as i64)
}

fn number(n: Option<impl ToString>) -> String {
    n.map(|n| n.to_string()).unwrap_or_else(|| "—".into())
}

pub struct Plans {
    plans: Section<RunPlan, Plans>,
    jobs: JobSection,
    /// Each plan's newest job and how many jobs it has, from the jobs list.
    latest: HashMap<Uuid, (RunPlanJob, usize)>,
    list_poll: ListPoll,
    names: Names,
    detail: bool,
    scroll: Scroll,
    /// A plan asked for by id; its detail opens when it arrives.
    pending: Option<String>,
    create: create::Create,
    run: run::RunForm,
    /// The selected plan's flaky checks (`!`), over the list and the detail.
    flaky: Option<flaky::FlakyView>,
}

impl Default for Plans {
    fn default() -> Self {
        Self::new()
    }
}

impl Plans {
    pub fn new() -> Self {
        Plans {
            plans: Section::new(
                "run plans",
                COLUMNS,
                |p| p.id.to_string(),
                |p| format!("{} {} {}", p.name(), p.plan.description.as_deref().unwrap_or(""), p.id),
            ),
            jobs: job_section(),
            latest: HashMap::new(),
            list_poll: ListPoll::default(),
            names: Names::new(),
            detail: false,
            scroll: Scroll::default(),
            pending: None,
            create: create::Create::default(),
            run: run::RunForm::default(),
            flaky: None,
        }
    }

    fn index_jobs(&mut self) {
        self.latest.clear();
        let created = |j: &RunPlanJob| j.created_at.as_ref().and_then(|t| t.parse());
        for job in &self.jobs.list.items {
            let Some(plan) = job.simulation_run_plan_id else { continue };
            let entry = self.latest.entry(plan).or_insert_with(|| (job.clone(), 0));
            entry.1 += 1;
            if created(job) > created(&entry.0) {
                entry.0 = job.clone();
            }
        }
        // The LATEST JOB column sorts by when each plan's newest job was made (never run first).
        let started: HashMap<Uuid, jiff::Timestamp> =
            self.latest.iter().filter_map(|(plan, (job, _))| Some((*plan, created(job)?))).collect();
        let verdicts: HashMap<Uuid, (&'static str, Option<i64>)> =
            self.latest.iter().map(|(plan, (job, _))| (*plan, (job.verdict_word(), score_of(job)))).collect();
        self.plans.order(&LATEST, move |a, b| by(started.get(&a.id), started.get(&b.id)));
        self.plans.order(&VERDICT, move |a, b| by(verdicts.get(&a.id), verdicts.get(&b.id)));
    }

    /// The LATEST JOB cell: the newest job's status and how long ago it was made.
    fn latest_cell(&self, p: &RunPlan, cx: &Context<'_, Plans>) -> Line<'static> {
        let theme = cx.theme;
        match self.latest.get(&p.id) {
            Some((job, _)) => {
                let status = or_dash(job.status.as_ref().map(|s| s.as_str()));
                Line::from(vec![
                    Span::styled(status.clone(), theme.status(&status)),
                    Span::styled(format!(" {}", ago(job.created_at.as_ref(), cx.now)), theme.dim()),
                ])
            }
            None if self.jobs_known() => Line::styled("never run", theme.dim()),
            None => Line::styled("—", theme.dim()),
        }
    }

    /// The VERDICT cell: the newest job's verdict, with its score once it ended.
    fn verdict_cell(&self, p: &RunPlan, theme: &Theme) -> Line<'static> {
        let Some((job, _)) = self.latest.get(&p.id) else { return Line::styled("—", theme.dim()) };
        let word = job.verdict_word();
        let mut spans = vec![Span::styled(word.to_string(), theme.status(word))];
        if job.has_ended() && job.verdict.as_ref().and_then(|v| v.score).is_some() {
            spans.push(Span::styled(format!(" {}", crate::console::panes::jobs::verdict::score(job)), theme.dim()));
        }
        Line::from(spans)
    }

    /// Whether the jobs list is there to tell a plan that never ran from one whose jobs are unknown.
    fn jobs_known(&self) -> bool {
        matches!(self.jobs.list.load, Load::Fresh | Load::Stale(_))
    }

    /// A plan's name for people (its id while the plans are not known).
    fn plan_name(&self, id: Uuid) -> String {
        match self.plans.list.items.iter().find(|p| p.id == id) {
            Some(plan) => plan.name().to_owned(),
            None => id.to_string(),
        }
    }

    fn open_detail(&mut self, out: &mut Out) {
        self.detail = true;
        self.scroll = Scroll::default();
        self.names.ensure(LOOKUPS, out);
    }
}

impl Pane for Plans {
    fn show(&mut self, out: &mut Out) {
        self.plans.ensure(out);
        self.jobs.ensure(out);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        if self.detail || self.flaky.is_some() { Vec::new() } else { vec![ListKind::RunPlans, ListKind::RunPlanJobs] }
    }

    fn refresh(&mut self, out: &mut Out) {
        if let Some(flaky) = &mut self.flaky {
            flaky.refresh(out);
            return;
        }
        self.plans.request(out);
        self.jobs.request(out);
        if self.detail {
            LOOKUPS.iter().for_each(|kind| out.fetch(Request::List(*kind)));
        }
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if let Some(flaky) = &mut self.flaky {
            return flaky.action(action, out);
        }
        match action {
            Action::Flaky => {
                match self.plans.selected() {
                    Some(plan) => self.flaky = Some(flaky::FlakyView::open(plan.id, out)),
                    None => out.error("no plan is selected"),
                }
                true
            }
            Action::Form => {
                self.create.start(out);
                true
            }
            Action::Duplicate => {
                match self.plans.selected() {
                    Some(plan) => self.create.duplicate(&plan.plan, out),
                    None => out.error("no plan is selected"),
                }
                true
            }
            // Only reached while the names a plan's YAML needs are still on their way.
            Action::Edit if self.plans.selected().is_some() => {
                self.names.ensure(LOOKUPS, out);
                out.info("fetching the flows, endpoints and personas the plan names: press e again");
                true
            }
            Action::Delete => {
                match self.plans.selected() {
                    Some(plan) => {
                        let what = format!("plan {}", plan.name());
                        let question = format!("Delete the {what}? Its jobs stay; this cannot be undone.");
                        let deletion = Deletion { kind: ListKind::RunPlans, id: plan.id, what };
                        out.modal.confirm(Confirm::new("delete plan", question, Write::Delete(deletion)));
                    }
                    None => out.error("no plan is selected"),
                }
                true
            }
            Action::Run => {
                match self.plans.selected() {
                    Some(plan) => self.run.start(plan, out),
                    None => out.error("no plan is selected"),
                }
                true
            }
            Action::Open if !self.detail => {
                if self.plans.selected().is_none() {
                    return false;
                }
                self.open_detail(out);
                true
            }
            Action::Open => {
                match self.plans.selected().and_then(|p| self.latest.get(&p.id)) {
                    Some((job, _)) => out.jump(Tab::Jobs, job.simulation_run_plan_job_id),
                    None if self.jobs_known() => out.error("this plan has not run yet"),
                    None => out.error("this service does not list run plan jobs: open one by id in the jobs tab"),
                }
                true
            }
            _ if self.detail => self.scroll.action(action),
            _ => self.plans.action(action),
        }
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let mut changed = self.plans.fetched(request, result);
        if absorb_job(&mut self.jobs, request, result) {
            self.index_jobs();
            changed = true;
        }
        changed |= self.names.fetched(request, result);
        changed |= self.create.fetched(request, result, out);
        changed |= self.run.fetched(request, result, out);
        if let Some(flaky) = &mut self.flaky {
            changed |= flaky.fetched(request, result);
        }
        if let (Request::Item(ListKind::RunPlans, id), Some(pending)) = (request, &self.pending)
            && id == pending
        {
            self.pending = None;
            if result.is_ok() {
                self.open_detail(out);
            }
        }
        changed
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        match (write, result) {
            (Write::Run(_), Ok(Written::Started(started))) => {
                self.jobs.request(out);
                out.jump(Tab::Jobs, started.simulation_run_plan_job_id);
            }
            // The new plan is selected, ready for `R`; a deprecated auto-run opens its job.
            (Write::CreatePlan(_), Ok(Written::Plan(created))) => {
                self.plans.upsert(std::slice::from_ref(&created.run_plan));
                self.plans.select(&created.run_plan.id.to_string());
                self.detail = false;
                self.plans.request(out);
                out.info(format!("created the plan {} · R runs it", created.run_plan.name()));
                if let Some(job) = &created.run_plan_job {
                    self.jobs.request(out);
                    out.jump(Tab::Jobs, job.simulation_run_plan_job_id);
                }
            }
            (Write::Delete(d), Ok(_)) if d.kind == ListKind::RunPlans => {
                out.info(format!("deleted the {}", d.what));
                self.detail = false;
                self.plans.request(out);
            }
            _ => return false,
        }
        true
    }

    /// `e`: the plan's config YAML, naming its flows, endpoints and personas from the lists
    /// the tab loads for its detail; until they have arrived, `e` asks for them (see `action`).
    fn editable(&self) -> Option<Editable> {
        if self.flaky.is_some() || !self.names.has(LOOKUPS) {
            return None;
        }
        let plan = self.plans.selected()?;
        let config = serde_json::to_value(export::plan(plan, &self.names.config_names())).ok()?;
        Some(Editable { kind: "simulationPlan", name: plan.name().to_string(), config })
    }

    fn creatable(&self) -> Option<(&'static str, &'static str)> {
        if self.flaky.is_some() {
            return None;
        }
        Some(("simulationPlan", crate::console::templates::of("simulationPlan")?))
    }

    fn tick(&mut self, _now: jiff::Timestamp, out: &mut Out) -> bool {
        self.list_poll.tick(&mut self.jobs, out)
    }

    fn back(&mut self) -> bool {
        self.flaky.take().is_some() || std::mem::take(&mut self.detail)
    }

    fn filter(&self) -> String {
        match &self.flaky {
            Some(flaky) => flaky.filter(),
            None => self.plans.list.filter.clone(),
        }
    }

    fn set_filter(&mut self, text: &str) {
        match &mut self.flaky {
            Some(flaky) => flaky.set_filter(text),
            None => self.plans.set_filter(text),
        }
    }

    fn listed(&self) -> Option<String> {
        self.plans.selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.plans.select(id)
    }

    fn selection(&self) -> Option<Selection> {
        match &self.flaky {
            Some(flaky) => {
                let check = flaky.selected()?;
                Some(Selection::of(format!("{}/{}", flaky.plan, check.metric_definition_id), check))
            }
            None => self.plans.selection(),
        }
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        self.pending = Some(id.to_string());
        out.fetch(Request::Item(ListKind::RunPlans, id.to_string()));
        true
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        if let Some(flaky) = &self.flaky {
            return flaky.help();
        }
        if self.detail {
            vec![
                (Action::Open, "the plan's latest job, in the jobs tab"),
                (Action::Down, "scroll"),
                (Action::Back, "back to the plans"),
                (Action::Raw, "raw JSON"),
                (Action::Run, "run with variables"),
                (Action::Duplicate, "a new plan from this one (the form, filled with its values)"),
            ]
        } else {
            vec![
                (Action::Open, "everything the plan pins"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::OpenById, "open a plan by id"),
                (Action::Run, "run with variables"),
                (Action::Flaky, "the plan's flaky checks over its last runs"),
                (Action::Edit, "edit the plan's YAML in $EDITOR (diff, then apply)"),
                (Action::Create, "new plan from a template in $EDITOR"),
                (Action::Form, "a new run plan (a form)"),
                (Action::Duplicate, "a new plan from this one (the form, filled with its values)"),
                (Action::Delete, "delete the plan"),
            ]
        }
    }

    fn restore(&mut self, cache: &Cache) {
        self.plans.restore(cache);
        self.jobs.restore(cache);
        self.index_jobs();
        self.names.restore(cache, LOOKUPS);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        self.draw_view(frame, area, ctx);
    }
}

impl Plans {
    fn draw_view(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        if let Some(flaky) = &self.flaky {
            let name = self.plan_name(flaky.plan);
            flaky.draw(frame, area, ctx, &name);
            return;
        }
        if self.detail
            && let Some(plan) = self.plans.selected()
        {
            let latest = self.latest.get(&plan.id);
            let runs = self.jobs_known().then(|| latest.map_or(0, |(_, n)| *n));
            let (mut left, right) = pinned::lines(plan, latest.map(|(j, _)| j), runs, &self.names, theme);
            if area.width >= 120 {
                // Both columns scroll together.
                let [a, b] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
                detail::draw(frame, a, plan.name(), left, &self.scroll, theme, true);
                detail::draw(frame, b, "metrics and options", right, &self.scroll, theme, false);
            } else {
                left.push(Line::raw(""));
                left.extend(right);
                detail::draw(frame, area, plan.name(), left, &self.scroll, theme, true);
            }
            return;
        }
        let columns = if area.width >= 110 { COLUMNS } else { &COLUMNS[..NARROW] };
        let context = Context::new(theme, ctx.now, ctx.marks, self);
        let view = Columns { title: "run plans".into(), columns, context, focused: true, empty: "no run plans" };
        table::draw_columns(frame, area, &self.plans.list, view);
    }
}
