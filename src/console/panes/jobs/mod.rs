//! Tab 2: run plan jobs, newest first. Enter opens a job live (`job.rs`): its progress, counts,
//! ETA and throughput, polled until it ends, and its simulation jobs down to their calls.
//! `m` marks a job as the base of a comparison and `=` on another opens it (`compare.rs`).

mod compare;
mod job;
pub mod progress;
mod sims;
pub mod verdict;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::Duration;

use crate::console::widgets::table::Cell;
use ratatui::Frame;
use ratatui::layout::Rect;
use uuid::Uuid;

use self::compare::CompareView;
use self::job::JobView;
use super::names::Names;
use super::section::{Section, status_cell};
use crate::api::model::{EventType, RunPlanJob};
use crate::cache::Cache;
use crate::columns::job as columns;
use crate::columns::job::{sims, took_ms};
use crate::columns::or_dash;
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written};
use crate::console::out::Out;
use crate::console::pane::{Pane, ViewCtx};
use crate::console::widgets::confirm::Confirm;
use crate::console::widgets::list::{Load, by};
use crate::console::widgets::table::{self, Columns, Context, Shown};
use crate::console::widgets::text::{duration_ms, when};

/// The jobs list's columns, drawn for the jobs pane (which knows the plans' names and the mark).
const COLUMNS: &[Shown<RunPlanJob, Jobs>] = &[
    Shown::drawn(columns::STATUS, |j, cx| status_cell(cx.theme, j.status.as_ref().map(|s| s.as_str()))),
    Shown::drawn(columns::VERDICT, |j, cx| {
        let word = j.verdict_word();
        Cell::from(word).style(cx.theme.status(word))
    }),
    Shown::drawn(columns::SCORE, |j, _| Cell::from(verdict::score(j))),
    Shown::drawn(columns::PLAN, |j, cx| match cx.of.marked == Some(j.simulation_run_plan_job_id) {
        true => Cell::from(format!("◆ base · {}", cx.of.plan_name(j))).style(cx.theme.key()),
        false => Cell::from(cx.of.plan_name(j)),
    }),
    Shown::drawn(columns::SIMS, |j, _| Cell::from(or_dash(sims(j)))),
    Shown::drawn(columns::CREATED, |j, _| Cell::from(when(j.created_at.as_ref()))),
    Shown::drawn(columns::TOOK, |j, cx| Cell::from(took_ms(j, cx.now).map(duration_ms).unwrap_or_else(|| "—".into()))),
];
const CREATED: usize = 5;

/// The run plan jobs list, as both the plans and the jobs tab keep it.
pub type JobSection = Section<RunPlanJob, Jobs>;

/// The next value of a cycling filter: none, then each of `present`, then none again.
pub fn next_filter(current: Option<&str>, present: &[String]) -> Option<String> {
    match current.and_then(|c| present.iter().position(|p| p == c)) {
        None if current.is_none() => present.first().cloned(),
        Some(at) => present.get(at + 1).cloned(),
        None => None,
    }
}

fn status(job: &RunPlanJob) -> String {
    job.status.as_ref().map(|s| s.as_str().to_string()).unwrap_or_else(|| "—".into())
}

/// The run plan jobs list, as both the plans and the jobs tab keep it.
pub fn job_section() -> JobSection {
    Section::new("run plan jobs", COLUMNS, |j| j.simulation_run_plan_job_id.to_string(), haystack)
}

fn haystack(j: &RunPlanJob) -> String {
    let (id, plan) = (j.simulation_run_plan_job_id, j.simulation_run_plan_id.unwrap_or_default());
    format!("{} {} {id} {plan}", status(j), j.verdict_word())
}

/// `/` also finds a job by its plan's name, and the PLAN column sorts by that name, once the
/// names are known (they may arrive after the jobs). `known` is the plan names the list
/// searches now; the list is reshaped only when they change.
fn by_plan_name(jobs: &mut JobSection, names: &Names, known: &mut Rc<HashMap<Uuid, String>>) {
    let plans = jobs.list.items.iter().filter_map(|j| j.simulation_run_plan_id);
    let now: HashMap<Uuid, String> = plans.filter_map(|id| Some((id, names.get(id)?.to_lowercase()))).collect();
    if now == **known {
        return;
    }
    *known = Rc::new(now);
    let (search, sort) = (known.clone(), known.clone());
    let name =
        |names: &HashMap<Uuid, String>, j: &RunPlanJob| j.simulation_run_plan_id.and_then(|id| names.get(&id)).cloned();
    jobs.shape.haystack = Box::new(move |j| format!("{} {}", haystack(j), name(&search, j).unwrap_or_default()));
    jobs.order(&columns::PLAN, move |a, b| by(name(&sort, a), name(&sort, b)));
}

/// Takes a freshly fetched job into the list (without its simulation jobs); true when it was one.
pub fn absorb_job(jobs: &mut JobSection, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
    match (request, result) {
        (Request::RunPlanJob(_), Ok(Fetched::RunPlanJob(job)))
        | (Request::JobSummary { .. }, Ok(Fetched::JobSummary { job: Some(job), .. })) => {
            let mut job = job.as_ref().clone();
            job.simulation_job_count = sims(&job);
            job.simulation_jobs = Vec::new();
            jobs.upsert(&[job]);
            true
        }
        _ => jobs.fetched(request, result),
    }
}

/// A whole list is dearer than one job (a busy account walks many pages), so while a listed
/// job runs the list is fetched again every this many poll ticks, not every tick, and a
/// list of more pages than that once per page (as `app::refresh` paces lists on screen).
const LIST_POLL_EVERY: u32 = 5;

/// The changes that move a job in the list: it starts or ends.
const LIST_EVENTS: &[EventType] = &[
    EventType::SimulationRunPlanJobStarted,
    EventType::SimulationRunPlanJobCompleted,
    EventType::SimulationRunPlanJobFailed,
    EventType::SimulationRunPlanJobCancelled,
];

/// Polls a jobs list while one of its jobs runs.
#[derive(Debug, Default)]
pub struct ListPoll {
    ticks: u32,
}

impl ListPoll {
    /// The poll timer; true while a listed job runs (its running time changes on screen).
    pub fn tick(&mut self, jobs: &mut JobSection, out: &mut Out) -> bool {
        let running = jobs.list.load == Load::Fresh && jobs.list.items.iter().any(|j| !j.has_ended());
        if !running {
            self.ticks = 0;
            return false;
        }
        self.ticks += 1;
        let every = LIST_POLL_EVERY.max(crate::console::poll::polls_between(jobs.list.items.len()));
        if self.ticks.is_multiple_of(every) && !jobs.list.fetching {
            jobs.request(out);
        }
        true
    }
}

pub struct Jobs {
    jobs: JobSection,
    names: Names,
    open: Option<JobView>,
    /// The job `m` marked as the base of a comparison.
    marked: Option<Uuid>,
    /// Two jobs compared (`=`).
    compare: Option<CompareView>,
    list_poll: ListPoll,
    poll: Duration,
    status_filter: Option<String>,
    verdict_filter: Option<String>,
    /// Plans whose names were missing and have been asked for.
    asked_about: HashSet<Uuid>,
    /// The plan names `/` and the PLAN column use (see `by_plan_name`).
    plan_names: Rc<HashMap<Uuid, String>>,
}

impl Jobs {
    pub fn new(poll: Duration) -> Self {
        let mut jobs = job_section();
        jobs.list.sort = Some((CREATED, true));
        Jobs {
            jobs,
            names: Names::new(),
            open: None,
            marked: None,
            compare: None,
            list_poll: ListPoll::default(),
            poll,
            status_filter: None,
            verdict_filter: None,
            asked_about: HashSet::new(),
            plan_names: Rc::default(),
        }
    }

    /// A job of a plan made since the plans were listed: list them again (once per such plan).
    fn ask_unknown_plans(&mut self, out: &mut Out) {
        let plans = self.jobs.list.items.iter().filter_map(|j| j.simulation_run_plan_id);
        let unknown: Vec<Uuid> = plans.filter(|id| self.names.get(id).is_none()).collect();
        if unknown.iter().any(|id| self.asked_about.insert(*id)) {
            out.fetch(Request::List(ListKind::RunPlans));
        }
    }

    /// A run for people: its plan and when it was made (the job's id when it is not listed).
    fn run_name(&self, id: Uuid) -> String {
        match self.jobs.list.items.iter().find(|j| j.simulation_run_plan_job_id == id) {
            Some(job) => format!("{} · {}", self.plan_name(job), when(job.created_at.as_ref())),
            None => id.to_string(),
        }
    }

    /// `m`: marks the selected job as the base of a comparison (again: unmarks it).
    fn mark(&mut self, out: &mut Out) -> bool {
        let Some(job) = self.jobs.selected() else {
            out.error("no job is selected");
            return false;
        };
        let id = job.simulation_run_plan_job_id;
        if self.marked == Some(id) {
            self.marked = None;
            out.info("comparison base cleared");
        } else {
            self.marked = Some(id);
            out.info(format!("base marked: {}; press = on another job to compare", self.run_name(id)));
        }
        true
    }

    /// `=`: compares the selected job against the marked one.
    fn open_comparison(&mut self, out: &mut Out) -> bool {
        let Some(head) = self.jobs.selected().map(|j| j.simulation_run_plan_job_id) else {
            out.error("no job is selected");
            return false;
        };
        match self.marked {
            None => out.error("mark the base job first: m on it, then = on the job to compare"),
            Some(base) if base == head => out.error("this is the marked job: select another to compare with it"),
            Some(base) => self.compare = Some(CompareView::open(base, head, out)),
        }
        true
    }

    fn plan_name(&self, job: &RunPlanJob) -> String {
        match job.simulation_run_plan_id {
            Some(id) => self.names.or_key(id),
            None => "(inline plan)".into(),
        }
    }
}

impl Pane for Jobs {
    fn show(&mut self, out: &mut Out) {
        // Jobs come and go: every visit asks for the list again, not just the first.
        if !self.jobs.list.fetching {
            self.jobs.request(out);
        }
        self.names.ensure(&[ListKind::RunPlans], out);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        if self.open.is_none() && self.compare.is_none() { vec![ListKind::RunPlanJobs] } else { Vec::new() }
    }

    fn refresh(&mut self, out: &mut Out) {
        if let Some(compare) = &mut self.compare {
            compare.refresh(out);
            return;
        }
        match &mut self.open {
            Some(job) => job.refresh(out),
            None => {
                self.jobs.request(out);
                out.fetch(Request::List(ListKind::RunPlans));
            }
        }
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if action == Action::Cancel {
            self.ask_cancel(out);
            return true;
        }
        if let Some(job) = &mut self.open {
            return job.action(action, out);
        }
        if let Some(compare) = &mut self.compare {
            return compare.action(action, out);
        }
        match action {
            Action::Summary => self.mark(out),
            Action::Compare => self.open_comparison(out),
            Action::Open => match self.jobs.selected() {
                Some(job) => {
                    self.open = Some(JobView::open(job.simulation_run_plan_job_id, out));
                    true
                }
                None => false,
            },
            Action::StatusFilter => {
                let present = present(&self.jobs.list.items, |j| j.verdict_word().to_string());
                self.verdict_filter = next_filter(self.verdict_filter.as_deref(), &present);
                self.keep();
                true
            }
            Action::SecondFilter => {
                let present = present(&self.jobs.list.items, status);
                self.status_filter = next_filter(self.status_filter.as_deref(), &present);
                self.keep();
                true
            }
            other => self.jobs.action(other),
        }
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let mut changed = absorb_job(&mut self.jobs, request, result);
        if changed {
            self.ask_unknown_plans(out);
        }
        changed |= self.names.fetched(request, result);
        if changed {
            by_plan_name(&mut self.jobs, &self.names, &mut self.plan_names);
        }
        if let Some(job) = &mut self.open {
            changed |= job.fetched(request, result, out);
        }
        if let Some(compare) = &mut self.compare {
            changed |= compare.fetched(request, result);
        }
        changed
    }

    fn events(&mut self, events: &[crate::api::model::Event], out: &mut Out) -> bool {
        match &mut self.open {
            Some(job) => job.events(events, out),
            None => {
                // A job started or ended: the list is read again now, not at the next poll.
                if events.iter().any(|e| LIST_EVENTS.contains(&e.event_type)) && !self.jobs.list.fetching {
                    self.jobs.request(out);
                }
                false
            }
        }
    }

    fn watching(&self) -> Option<crate::api::model::EventQuery> {
        match &self.open {
            Some(job) => job.watching(),
            None if self.compare.is_none() => Some(crate::api::model::EventQuery::of_types(LIST_EVENTS).without_data()),
            None => None,
        }
    }

    fn tick(&mut self, now: jiff::Timestamp, out: &mut Out) -> bool {
        match &mut self.open {
            Some(job) => job.tick(now, out),
            None => self.list_poll.tick(&mut self.jobs, out),
        }
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        if let (Write::CancelJob(_), Ok(_)) = (write, result) {
            match &mut self.open {
                Some(job) => job.refresh(out),
                None => self.jobs.request(out),
            }
        }
        false
    }

    fn back(&mut self) -> bool {
        if let Some(compare) = &mut self.compare {
            if !compare.back() {
                self.compare = None;
            }
            return true;
        }
        match &mut self.open {
            Some(job) => {
                if !job.back() {
                    // Back on the list at the job that was open (a run just started included,
                    // before the list has read it), so `m`, `=` and Enter act on it.
                    if let Some(read) = job.job.clone() {
                        self.jobs.upsert(&[read]);
                    }
                    let id = job.id.to_string();
                    self.jobs.select(&id);
                    self.open = None;
                }
                true
            }
            None => false,
        }
    }

    fn filter(&self) -> String {
        if let Some(compare) = &self.compare {
            return compare.filter();
        }
        match &self.open {
            Some(job) => job.filter(),
            None => self.jobs.list.filter.clone(),
        }
    }

    fn set_filter(&mut self, text: &str) {
        if let Some(compare) = &mut self.compare {
            return compare.set_filter(text);
        }
        match &mut self.open {
            Some(job) => job.set_filter(text),
            None => self.jobs.set_filter(text),
        }
    }

    fn listed(&self) -> Option<String> {
        self.jobs.selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.jobs.select(id)
    }

    fn selection(&self) -> Option<Selection> {
        if let Some(compare) = &self.compare {
            return compare.selection();
        }
        match &self.open {
            Some(job) => job.selection(),
            None => self.jobs.selection(),
        }
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        match id.trim().parse::<Uuid>() {
            Ok(id) => {
                self.compare = None;
                self.open = Some(JobView::open(id, out));
                true
            }
            Err(_) => {
                out.error(format!("{id:?} is not a run plan job id (a UUID)"));
                false
            }
        }
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        if let Some(compare) = &self.compare {
            return compare.help();
        }
        match &self.open {
            Some(job) => {
                let mut keys = job.help();
                keys.push((Action::Cancel, "cancel the job"));
                keys
            }
            None => vec![
                (Action::Open, "the job, live"),
                (Action::StatusFilter, "show one verdict only (cycles)"),
                (Action::SecondFilter, "show one status only (cycles)"),
                (Action::Summary, "mark as the base of a comparison"),
                (Action::Compare, "compare with the marked job"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::OpenById, "open a job by id"),
                (Action::Cancel, "cancel the selected job"),
            ],
        }
    }

    fn restore(&mut self, cache: &Cache) {
        self.jobs.restore(cache);
        self.names.restore(cache, &[ListKind::RunPlans]);
        by_plan_name(&mut self.jobs, &self.names, &mut self.plan_names);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        if let Some(compare) = &self.compare {
            let (base, mut head) = (self.run_name(compare.base), self.run_name(compare.head));
            // The same plan twice: the head is told apart by when it ran.
            if let (Some((plan, _)), Some((_, at))) = (base.split_once(" · "), head.clone().split_once(" · "))
                && head.starts_with(&format!("{plan} · "))
            {
                head = at.to_owned();
            }
            compare.draw(frame, area, ctx, (&base, &head));
            return;
        }
        if let Some(job) = &self.open {
            let plan = job.job.as_ref().map(|j| self.plan_name(j)).unwrap_or_default();
            job.draw(frame, area, ctx, &plan, self.poll);
            return;
        }
        let mut title = "run plan jobs".to_string();
        if let Some(verdict) = &self.verdict_filter {
            title.push_str(&format!(" · {verdict} only (f)"));
        }
        if let Some(status) = &self.status_filter {
            title.push_str(&format!(" · {status} only (F)"));
        }
        let context = Context::new(ctx.theme, ctx.now, ctx.marks, self);
        let view = Columns { title, columns: COLUMNS, context, focused: true, empty: "no jobs yet: run a plan" };
        table::draw_columns(frame, area, &self.jobs.list, view);
    }
}

/// The distinct values of `key` among `items`, sorted: what a cycling filter steps through.
fn present(items: &[RunPlanJob], key: impl Fn(&RunPlanJob) -> String) -> Vec<String> {
    let mut present: Vec<String> = items.iter().map(key).collect();
    present.sort();
    present.dedup();
    present
}

impl Jobs {
    /// Applies the verdict and status filters together.
    fn keep(&mut self) {
        let (verdict_filter, status_filter) = (self.verdict_filter.clone(), self.status_filter.clone());
        self.jobs.keep(move |j| {
            verdict_filter.as_deref().is_none_or(|v| v == j.verdict_word())
                && status_filter.as_ref().is_none_or(|s| *s == status(j))
        });
    }

    /// `x`: asks before cancelling the open or selected job; one that has ended is refused.
    fn ask_cancel(&mut self, out: &mut Out) {
        let job = match &self.open {
            Some(view) => view.job.as_ref(),
            None => self.jobs.selected(),
        };
        match job {
            Some(job) if job.has_ended() => {
                out.error(format!("the job has ended ({}): there is nothing to cancel", status(job)))
            }
            Some(job) => {
                let question = format!(
                    "Cancel the run of {} ({})? Simulations not yet finished stop.",
                    self.plan_name(job),
                    status(job)
                );
                let write = Write::CancelJob(job.simulation_run_plan_job_id);
                out.modal.confirm(Confirm::new("cancel job", question, write));
            }
            None => out.error("no job is selected"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_filters_cycle_through_what_is_present_and_back_to_all() {
        let present = vec!["COMPLETED".to_string(), "FAILED".to_string()];
        assert_eq!(next_filter(None, &present).as_deref(), Some("COMPLETED"));
        assert_eq!(next_filter(Some("COMPLETED"), &present).as_deref(), Some("FAILED"));
        assert_eq!(next_filter(Some("FAILED"), &present), None);
        assert_eq!(next_filter(Some("GONE"), &present), None);
        assert_eq!(next_filter(None, &[]), None);
    }
}
