//! One collection job's metric values: a table of up to 100,000 rows with success/all, status,
//! metric and text filters, a per-metric summary, a value's reasoning, and the call behind it.
//! Rows live once in a `ListState`; filters reshape its index view, and the summary is
//! recomputed then (not while drawing).

use std::sync::Arc;

use crate::api::model::{CaptureStatus, CollectionJob, MetricValueGroup, ValueStatusFilter};
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request, Selection};
use crate::console::out::Out;
use crate::console::widgets::conversation::ConversationView;
use crate::console::widgets::detail::Scroll;
use crate::console::widgets::list::{ListState, Load, Shape};
use crate::console::widgets::stats::{self, MetricSummary};
use crate::console::widgets::values::{self, MetricLabel, ValueRow};

/// What the values view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Table,
    Summary,
    Detail,
}

mod view;

pub struct JobValues {
    pub job: CollectionJob,
    /// Which values were asked of the service.
    pub scope: ValueStatusFilter,
    pub rows: ListState<ValueRow>,
    shape: Shape<ValueRow>,
    /// Show only rows with this capture status.
    pub status: Option<String>,
    /// Show only rows of this metric.
    pub metric: Option<Arc<MetricLabel>>,
    /// The metrics among the rows, in the service's order (what `F` cycles through).
    metrics: Vec<Arc<MetricLabel>>,
    /// Per-metric summary of the rows in view; kept current by `reshape`.
    pub summary: ListState<MetricSummary>,
    summary_shape: Shape<MetricSummary>,
    pub mode: Mode,
    scroll: Scroll,
    /// The selected value's call, opened over everything else.
    pub conversation: Option<ConversationView>,
}

fn row_id(r: &ValueRow) -> String {
    format!(
        "{}{:?}{:?}{:?}{:?}",
        r.metric.id, r.value.call_id, r.value.chat_id, r.value.participant_role, r.value.computed_at
    )
}

impl JobValues {
    /// The values view of `job`, asking the service for its values.
    pub fn open(job: CollectionJob, out: &mut Out) -> Self {
        let mut view = JobValues::new(job, ValueStatusFilter::Success);
        view.rows.load = Load::Loading;
        view.request(out);
        view
    }

    /// The values view of `job` holding `groups` already (all statuses), without fetching.
    pub fn with_values(job: CollectionJob, groups: Vec<MetricValueGroup>) -> Self {
        let mut view = JobValues::new(job, ValueStatusFilter::All);
        view.load(&groups);
        view
    }

    fn new(job: CollectionJob, scope: ValueStatusFilter) -> Self {
        JobValues {
            job,
            scope,
            rows: ListState::new(),
            shape: Shape::columns(values::haystack, values::COLUMNS),
            status: None,
            metric: None,
            metrics: Vec::new(),
            summary: ListState::new(),
            summary_shape: Shape::columns(stats::summary_haystack, stats::SUMMARY_COLUMNS),
            mode: Mode::Table,
            scroll: Scroll::default(),
            conversation: None,
        }
    }

    fn request(&mut self, out: &mut Out) {
        self.rows.fetching = true;
        out.fetch(Request::CollectionValues(self.job.id, self.scope.clone()));
    }

    pub fn refresh(&mut self, out: &mut Out) {
        if let Some(conversation) = &mut self.conversation {
            return conversation.refresh(out);
        }
        out.fetch(Request::Item(ListKind::CollectionJobs, self.job.id.to_string()));
        self.request(out);
    }

    /// Polls a job that is still computing; its values are fetched again when it moves on.
    pub fn tick(&mut self, out: &mut Out) -> bool {
        if self.job.status.as_ref().is_some_and(|s| !s.is_terminal()) && !self.rows.fetching {
            out.fetch(Request::Item(ListKind::CollectionJobs, self.job.id.to_string()));
        }
        false
    }

    fn load(&mut self, groups: &[MetricValueGroup]) {
        let rows = values::rows(groups);
        self.metrics.clear();
        for row in &rows {
            if self.metrics.last().is_none_or(|m| !Arc::ptr_eq(m, &row.metric)) {
                self.metrics.push(row.metric.clone());
            }
        }
        self.rows.replace(rows, row_id, &self.shape);
        self.rows.load = Load::Fresh;
        self.rows.fetching = false;
        self.summarize();
    }

    /// Applies the status and metric filters, then sums up what is left.
    fn reshape(&mut self) {
        let status = self.status.clone();
        let metric = self.metric.as_ref().map(|m| m.id);
        self.shape.keep = Box::new(move |r: &ValueRow| {
            status.as_deref().is_none_or(|s| values::status_str(r) == s) && metric.is_none_or(|m| r.metric.id == m)
        });
        self.rows.reshape(&self.shape);
        self.summarize();
    }

    fn summarize(&mut self) {
        self.summary.replace(stats::summarize(&self.rows), |s| s.metric.id.to_string(), &self.summary_shape);
        self.summary.load = Load::Fresh;
    }

    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        if let Some(conversation) = &mut self.conversation
            && conversation.fetched(request, result)
        {
            return true;
        }
        match (request, result) {
            (Request::CollectionValues(id, scope), Ok(Fetched::CollectionValues(_, _, groups)))
                if *id == self.job.id && *scope == self.scope =>
            {
                self.load(groups);
                true
            }
            (Request::CollectionValues(id, scope), Err(error)) if *id == self.job.id && *scope == self.scope => {
                self.rows.fetching = false;
                self.rows.load = Load::Failed(error.message.clone());
                true
            }
            (Request::Item(ListKind::CollectionJobs, _), Ok(Fetched::Item(Listing::CollectionJobs(jobs)))) => {
                let Some(job) = jobs.iter().find(|j| j.id == self.job.id) else { return false };
                let moved = job.completed_items != self.job.completed_items || job.status != self.job.status;
                self.job = job.clone();
                if moved && !self.rows.fetching {
                    self.request(out);
                }
                true
            }
            _ => false,
        }
    }

    fn set_scope(&mut self, scope: ValueStatusFilter, out: &mut Out) {
        if self.scope != scope {
            self.scope = scope;
            self.request(out);
        }
    }

    /// `f`: any status → each capture status (known ones, then any others seen) → any.
    fn cycle_status(&mut self, out: &mut Out) {
        let mut all: Vec<String> = CaptureStatus::KNOWN.iter().map(|s| s.as_str().to_string()).collect();
        for row in &self.rows.items {
            let s = values::status_str(row);
            if !all.iter().any(|a| a == s) {
                all.push(s.to_string());
            }
        }
        self.status = match &self.status {
            None => all.first().cloned(),
            Some(now) => all.iter().position(|a| a == now).and_then(|i| all.get(i + 1)).cloned(),
        };
        // Only SUCCESS rows come back unless all are asked for.
        if self.status.as_deref().is_some_and(|s| s != "SUCCESS") {
            self.set_scope(ValueStatusFilter::All, out);
        }
        self.reshape();
    }

    /// `F`: any metric → each metric of the job → any.
    fn cycle_metric(&mut self) {
        self.metric = match &self.metric {
            None => self.metrics.first().cloned(),
            Some(now) => {
                self.metrics.iter().position(|m| m.id == now.id).and_then(|i| self.metrics.get(i + 1)).cloned()
            }
        };
        self.reshape();
    }

    fn open_conversation(&mut self, out: &mut Out) {
        match self.rows.selected().map(|r| (r.value.call_id, r.value.chat_id)) {
            Some((Some(call), _)) => self.conversation = Some(ConversationView::open(call, out)),
            Some((None, Some(chat))) => self.conversation = Some(ConversationView::open_chat(chat, out)),
            _ => out.error("this value names no call"),
        }
    }

    pub fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if let Some(conversation) = &mut self.conversation {
            return conversation.action(action);
        }
        match (self.mode, action) {
            (Mode::Detail, Action::Open | Action::Right) => self.open_conversation(out),
            (Mode::Detail, _) => return self.scroll.action(action),
            (_, Action::ToggleAll) => {
                let all = self.scope == ValueStatusFilter::Success;
                if !all && self.status.as_deref().is_some_and(|s| s != "SUCCESS") {
                    self.status = None;
                    self.reshape();
                }
                self.set_scope(if all { ValueStatusFilter::All } else { ValueStatusFilter::Success }, out);
            }
            (_, Action::StatusFilter) => self.cycle_status(out),
            (_, Action::SecondFilter) => self.cycle_metric(),
            (Mode::Summary, Action::Summary) | (Mode::Table, Action::Summary) => {
                self.mode = if self.mode == Mode::Summary { Mode::Table } else { Mode::Summary };
            }
            (Mode::Summary, Action::Open) => {
                self.metric = self.summary.selected().map(|s| s.metric.clone());
                self.mode = Mode::Table;
                self.reshape();
            }
            (Mode::Summary, _) => {
                return self.summary.navigate(action, &self.summary_shape, stats::SUMMARY_COLUMNS.len());
            }
            (Mode::Table, Action::Open) if self.rows.selected().is_some() => {
                self.mode = Mode::Detail;
                self.scroll = Scroll::default();
            }
            (Mode::Table, Action::Right) if self.rows.selected().is_some() => self.open_conversation(out),
            (Mode::Table, _) => return self.rows.navigate(action, &self.shape, values::COLUMNS.len()),
        }
        true
    }

    /// Esc: closes the innermost view; false at the values table.
    pub fn back(&mut self) -> bool {
        if let Some(conversation) = &mut self.conversation {
            if !conversation.back() {
                self.conversation = None;
            }
            return true;
        }
        match self.mode {
            Mode::Table => false,
            _ => {
                self.mode = Mode::Table;
                true
            }
        }
    }

    pub fn filter(&self) -> String {
        match &self.conversation {
            Some(c) => c.filter(),
            None => self.rows.filter.clone(),
        }
    }

    pub fn set_filter(&mut self, text: &str) {
        if let Some(c) = &mut self.conversation {
            return c.set_filter(text);
        }
        self.rows.filter = text.to_string();
        self.reshape();
    }

    pub fn selection(&self) -> Option<Selection> {
        if let Some(c) = &self.conversation {
            return c.selection();
        }
        if self.mode == Mode::Summary {
            return self.summary.selected().map(|s| {
                let json = serde_json::json!({
                    "metricDefinitionId": s.metric.id, "metric": s.metric.name, "rows": s.rows,
                    "values": s.values, "mean": s.mean, "min": s.min, "max": s.max, "bins": s.bins,
                });
                Selection::of(s.metric.id, &json)
            });
        }
        match self.rows.selected() {
            Some(row) => Some(Selection::of(values::conversation_id(row).unwrap_or(row.metric.id), row)),
            None => Some(Selection::of(self.job.id, &self.job)),
        }
    }
}
