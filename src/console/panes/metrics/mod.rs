//! Tab 3: metric definitions, policies and collection jobs (h/l switch sections). Enter opens a
//! definition's or policy's every field, or a job's metric values (see `values.rs`).

mod detail;
mod lists;
mod part;
mod policy_form;
pub mod values;
mod writes;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use self::detail::Versions;
use self::part::Part;
use self::values::JobValues;
use super::section::Section;
use super::shown::ShownSection;
use crate::api::model::config::export;
use crate::api::model::*;
use crate::cache::Cache;
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request, Selection, Write, WriteError, Written};
use crate::console::out::Out;
use crate::console::pane::{Editable, Pane, ViewCtx};
use crate::console::tab::Tab;
use crate::console::widgets::detail::{self as detail_view, Scroll};
use crate::console::widgets::table::Context;

pub struct Metrics {
    definitions: Section<MetricDefinition, lists::DefinitionRows>,
    policies: Section<MetricPolicy, Metrics>,
    jobs: Section<CollectionJob>,
    /// Which section is shown.
    current: Part,
    /// Whether the selected definition's or policy's detail is open.
    detail: bool,
    scroll: Scroll,
    /// Versions of the definition whose detail is open, by its id.
    versions: Option<(String, Versions)>,
    /// A job's values, opened from the jobs section.
    pub values: Option<JobValues>,
    /// A resource asked for by id, to open when it arrives.
    pending: Option<ListKind>,
    /// Agents, so policy conditions read as names; asked for once.
    agents: Vec<Agent>,
    agents_asked: bool,
    /// People's labels on judged values, and whether they are the local cache's (the
    /// service has no labels route).
    labels: Vec<Annotation>,
    labels_local: bool,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        Metrics {
            definitions: lists::definitions(),
            policies: lists::policies(),
            jobs: lists::jobs(),
            current: Part::Definitions,
            detail: false,
            scroll: Scroll::default(),
            versions: None,
            values: None,
            pending: None,
            agents: Vec::new(),
            agents_asked: false,
            labels: Vec::new(),
            labels_local: false,
        }
    }

    /// The tab already showing `groups` as the values of `job` (all capture statuses), with
    /// nothing to fetch: for benchmarks and tests that bring their own rows.
    pub fn with_values(job: CollectionJob, groups: Vec<MetricValueGroup>) -> Self {
        Metrics { current: Part::Jobs, values: Some(JobValues::with_values(job, groups)), ..Self::new() }
    }

    /// The section shown.
    fn shown(&self) -> &dyn ShownSection {
        match self.current {
            Part::Definitions => &self.definitions,
            Part::Policies => &self.policies,
            Part::Jobs => &self.jobs,
        }
    }

    fn shown_mut(&mut self) -> &mut dyn ShownSection {
        match self.current {
            Part::Definitions => &mut self.definitions,
            Part::Policies => &mut self.policies,
            Part::Jobs => &mut self.jobs,
        }
    }

    /// The sections the shown one draws on: policies name their metrics.
    fn needed(&mut self) -> Vec<&mut dyn ShownSection> {
        match self.current {
            Part::Policies => vec![&mut self.policies, &mut self.definitions],
            _ => vec![self.shown_mut()],
        }
    }

    fn ensure_current(&mut self, out: &mut Out) {
        for section in self.needed() {
            section.ensure(out);
        }
        // Policies' conditions name agents.
        if self.current == Part::Policies && !std::mem::replace(&mut self.agents_asked, true) {
            out.fetch(Request::List(ListKind::Agents));
        }
    }

    fn open(&mut self, out: &mut Out) {
        match self.current {
            Part::Definitions => {
                let Some(id) = self.definitions.selected().map(|d| d.id.to_string()) else { return };
                self.versions = Some((id.clone(), Versions::Loading));
                out.fetch(Request::MetricVersions(id));
            }
            Part::Policies if self.policies.selected().is_none() => return,
            Part::Policies => {}
            Part::Jobs => {
                if let Some(job) = self.jobs.selected() {
                    self.values = Some(JobValues::open(job.clone(), out));
                }
                return;
            }
        }
        self.detail = true;
        self.scroll = Scroll::default();
    }

    fn versions_fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        let (Request::MetricVersions(id), Some((open, versions))) = (request, &mut self.versions) else {
            return false;
        };
        if id != open {
            return false;
        }
        *versions = match result {
            Ok(Fetched::MetricVersions(_, list)) => Versions::Loaded(list.clone()),
            Ok(_) => return false,
            Err(error) => Versions::Failed(error.message.clone()),
        };
        true
    }

    /// `t`: flips the selected policy between ACTIVE and INACTIVE (no question: `t` undoes it).
    fn toggle_policy(&mut self, out: &mut Out) {
        let Some(policy) = self.policies.selected() else { return out.error("no policy is selected") };
        let status = match policy.status {
            Some(PolicyStatus::Active) => PolicyStatus::Inactive,
            _ => PolicyStatus::Active,
        };
        out.write(Write::UpdatePolicy(policy.id, PolicyUpdate { status: Some(status), ..Default::default() }));
    }

    fn draw_bar(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let mut spans = Vec::new();
        for part in Part::ALL {
            let style = if part == self.current { theme.active_tab() } else { theme.dim() };
            spans.push(Span::styled(format!(" {} ", part.name()), style));
        }
        if let Some(values) = &self.values {
            spans.push(Span::styled(format!(" {}", values.crumb()), theme.heading()));
        }
        frame.render_widget(Line::from(spans), area);
    }
}

impl Pane for Metrics {
    fn show(&mut self, out: &mut Out) {
        self.ensure_current(out);
        // Labels change as people label: asked for again on every visit.
        out.fetch(Request::Annotations);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        match self.values.is_some() || self.detail {
            true => Vec::new(),
            false => vec![self.current.kind()],
        }
    }

    fn refresh(&mut self, out: &mut Out) {
        if let Some(values) = &mut self.values {
            return values.refresh(out);
        }
        for section in self.needed() {
            section.request(out);
        }
        if self.current == Part::Definitions
            && self.detail
            && let Some((id, _)) = &self.versions
        {
            out.fetch(Request::MetricVersions(id.clone()));
        }
    }

    fn tick(&mut self, _now: jiff::Timestamp, out: &mut Out) -> bool {
        if let Some(values) = &mut self.values {
            return values.tick(out);
        }
        // Jobs still computing move on their own: follow them while the list is in view.
        let running = self.jobs.list.items.iter().any(|j| j.status.as_ref().is_some_and(|s| !s.is_terminal()));
        if self.current == Part::Jobs && running && !self.jobs.list.fetching {
            self.jobs.request(out);
        }
        false
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if let Some(values) = &mut self.values {
            return values.action(action, out);
        }
        match action {
            Action::ToggleActive if self.current == Part::Policies => {
                self.toggle_policy(out);
                true
            }
            Action::Delete if self.current == Part::Policies => {
                match self.policies.selected() {
                    Some(policy) => writes::delete_policy(policy, out),
                    None => out.error("no policy is selected"),
                }
                true
            }
            Action::Form if self.current == Part::Policies => {
                match self.definitions.list.items.is_empty() {
                    true => out.error("the metric definitions have not arrived yet: try again in a moment"),
                    false => policy_form::open(&mut out.modal, &self.definitions.list.items, &self.agents),
                }
                true
            }
            Action::Threshold | Action::Form if self.current == Part::Definitions => {
                match (self.definitions.selected(), action) {
                    (None, _) => out.error("no metric definition is selected"),
                    (Some(d), Action::Threshold) => writes::create_threshold(&mut out.modal, d),
                    (Some(d), _) => writes::edit_definition(&mut out.modal, d),
                }
                true
            }
            _ if self.detail => self.scroll.action(action),
            Action::Left | Action::Right => {
                self.current = self.current.step(action == Action::Right);
                self.ensure_current(out);
                true
            }
            Action::Open => {
                self.open(out);
                true
            }
            _ => self.shown_mut().navigate(action),
        }
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let mut changed = self.definitions.fetched(request, result)
            | self.policies.fetched(request, result)
            | self.jobs.fetched(request, result)
            | self.versions_fetched(request, result);
        // A service without labels keeps the local cache's (see `restore`).
        if let Ok(Fetched::Annotations(labels)) = result {
            self.labels = labels.clone();
            self.labels_local = false;
            changed = true;
        }
        if let Ok(Fetched::List(Listing::Agents(agents), _)) = result {
            self.agents = agents.clone();
            changed = true;
        }
        if let Some(values) = &mut self.values {
            changed |= values.fetched(request, result, out);
        }
        if let (Request::Item(kind, _), Some(pending)) = (request, self.pending)
            && *kind == pending
        {
            self.pending = None;
            if result.is_ok() {
                self.values = None;
                self.detail = false;
                self.current = Part::of_kind(pending);
                self.open(out);
            }
            changed = true;
        }
        changed
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        match (write, result) {
            (Write::UpdatePolicy(..), Ok(_)) => self.policies.request(out),
            (Write::Delete(d), Ok(_)) if d.kind == ListKind::Policies => {
                out.info(format!("deleted the {}", d.what));
                self.detail = false;
                self.policies.request(out);
            }
            (Write::CreatePolicy(_), Ok(Written::Policy(policy))) => {
                self.policies.upsert(std::slice::from_ref(policy));
                self.policies.select(&policy.id.to_string());
                self.policies.request(out);
                out.info(format!(
                    "created the policy {} · C starts a collection job for it",
                    policy.name.as_deref().unwrap_or("")
                ));
            }
            // A job just started (`C`): follow it here, in its values view (which polls it).
            (Write::StartCollection(_), Ok(Written::CollectionJob(job))) => {
                self.jobs.request(out);
                self.current = Part::Jobs;
                out.jump(Tab::Metrics, job.id);
            }
            (Write::CreateThreshold(..) | Write::UpdateMetric { .. }, Ok(Written::Metric(after))) => {
                writes::announce(write, after, &self.definitions.list.items, out);
                self.definitions.request(out);
                if let Some((open, _)) = &self.versions {
                    out.fetch(Request::MetricVersions(open.clone()));
                }
            }
            _ => return false,
        }
        true
    }

    fn back(&mut self) -> bool {
        if let Some(values) = &mut self.values {
            if !values.back() {
                self.values = None;
            }
            return true;
        }
        std::mem::take(&mut self.detail)
    }

    fn filter(&self) -> String {
        if let Some(values) = &self.values {
            return values.filter();
        }
        self.shown().filter()
    }

    fn set_filter(&mut self, text: &str) {
        if let Some(values) = &mut self.values {
            return values.set_filter(text);
        }
        self.shown_mut().set_filter(text);
    }

    fn listed(&self) -> Option<String> {
        self.shown().selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.shown_mut().select(id)
    }

    fn selection(&self) -> Option<Selection> {
        if let Some(values) = &self.values {
            return values.selection();
        }
        self.shown().selection()
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        let kind = self.current.kind();
        out.fetch(Request::Item(kind, id.to_string()));
        self.pending = Some(kind);
        true
    }

    /// `e`: the metric (section 0) or policy (section 1) as config YAML; a policy's metrics by slug.
    fn editable(&self) -> Option<Editable> {
        if self.values.is_some() {
            return None;
        }
        match self.current {
            Part::Definitions => {
                let definition = self.definitions.selected()?;
                let name = definition.slug_or_alias()?.to_owned();
                let config = serde_json::to_value(export::metric(definition)).ok()?;
                Some(Editable { kind: "metric", name, config })
            }
            Part::Policies => {
                let policy = self.policies.selected()?;
                let name = policy.name.clone().unwrap_or_else(|| policy.id.to_string());
                let slugs = self
                    .definitions
                    .list
                    .items
                    .iter()
                    .filter_map(|d| Some((d.id, d.slug_or_alias()?.to_owned())))
                    .collect();
                let config =
                    serde_json::to_value(export::collector(policy, &name, &slugs, &std::collections::HashMap::new()))
                        .ok()?;
                Some(Editable { kind: "collector", name, config })
            }
            Part::Jobs => None,
        }
    }

    fn creatable(&self) -> Option<(&'static str, &'static str)> {
        let kind = self.current.creates()?;
        Some((kind, crate::console::templates::of(kind)?))
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        if let Some(values) = &self.values {
            return values.help();
        }
        let toggle = (Action::ToggleActive, "activate or deactivate the policy");
        let definition_writes = [
            (Action::Threshold, "a threshold on this metric"),
            (Action::Edit, "edit the metric's YAML in $EDITOR (diff, then apply)"),
            (Action::Form, "edit the metric (a form: a new version)"),
        ];
        let definition_writes = definition_writes.into_iter().filter(|_| self.current == Part::Definitions);
        if self.detail {
            let mut keys =
                vec![(Action::Down, "scroll"), (Action::Back, "back to the list"), (Action::Raw, "raw JSON")];
            keys.extend((self.current == Part::Policies).then_some(toggle));
            keys.extend(definition_writes);
            return keys;
        }
        let mut keys = vec![(Action::Open, self.current.opens())];
        keys.extend([
            (Action::Right, "next section"),
            (Action::Left, "previous section"),
            (Action::Sort, "sort by the next column"),
            (Action::SortReverse, "reverse the sort"),
            (Action::OpenById, "open one by id (or slug)"),
        ]);
        keys.extend((self.current == Part::Policies).then_some(toggle));
        keys.extend(
            (self.current == Part::Definitions).then_some((Action::Create, "new metric from a template in $EDITOR")),
        );
        if self.current == Part::Policies {
            keys.extend([
                (Action::Edit, "edit the policy's YAML in $EDITOR (a copy if no apply made it)"),
                (Action::Create, "new policy from a template in $EDITOR"),
                (Action::Form, "a new policy (a form)"),
                (Action::Delete, "delete the policy"),
            ]);
        }
        keys.extend(definition_writes);
        // Handled by the app, which fills in the selected policy.
        keys.extend(
            (self.current == Part::Policies).then_some((Action::Collect, "start a collection job for the policy")),
        );
        keys
    }

    fn restore(&mut self, cache: &Cache) {
        if let Some(labels) = cache.mark::<Vec<Annotation>>(crate::compare::agreement::LOCAL_LABELS) {
            self.labels = labels;
            self.labels_local = true;
        }
        self.definitions.restore(cache);
        self.policies.restore(cache);
        self.jobs.restore(cache);
        if let Some((Listing::Agents(agents), _)) = ListKind::Agents.from_cache(cache) {
            self.agents = agents;
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        self.draw_view(frame, area, ctx);
    }
}

impl Metrics {
    /// Agreement per definition on its current version (the newest row for labels that carry
    /// no version, as local ones do).
    fn agreement(&self, all: &[MetricDefinition]) -> Vec<crate::compare::JudgeAgreement> {
        if self.labels.is_empty() {
            return Vec::new();
        }
        let local = match self.labels_local {
            true => self.labels.iter().map(|a| a.id).collect(),
            false => std::collections::HashSet::new(),
        };
        let rows = crate::compare::agreement(&self.labels, &local, &std::collections::BTreeMap::new());
        let mut out: Vec<crate::compare::JudgeAgreement> = Vec::new();
        for row in rows {
            let current = all.iter().find(|d| d.id == row.metric_definition_id).and_then(|d| d.version);
            if row.version.is_none() || row.version == current {
                out.retain(|r| r.metric_definition_id != row.metric_definition_id);
                out.push(row);
            }
        }
        out
    }

    fn draw_view(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let [bar, body] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        self.draw_bar(frame, bar, ctx);
        if let Some(values) = &self.values {
            return values.draw(frame, body, ctx);
        }
        let all = &self.definitions.list.items;
        if self.detail {
            let (title, lines) = match self.current {
                Part::Definitions => match self.definitions.selected() {
                    Some(d) => {
                        let versions = self.versions.as_ref().filter(|(id, _)| *id == d.id.to_string()).map(|v| &v.1);
                        (detail::definition_title(d), detail::definition(d, all, versions, theme))
                    }
                    None => ("metric definition".into(), vec![]),
                },
                Part::Policies | Part::Jobs => match self.policies.selected() {
                    Some(p) => {
                        (p.name.clone().unwrap_or_else(|| "policy".into()), detail::policy(p, all, &self.agents, theme))
                    }
                    None => ("metric policy".into(), vec![]),
                },
            };
            return detail_view::draw(frame, body, &title, lines, &self.scroll, theme, true);
        }
        match self.current {
            Part::Definitions => {
                let agreement = self.agreement(all);
                let hidden = usize::from(agreement.is_empty());
                let rows =
                    lists::DefinitionRows { names: lists::source_names(all), agreement, local: self.labels_local };
                let context = Context::new(theme, ctx.now, ctx.marks, &rows);
                lists::draw(&self.definitions, true, frame, body, context, hidden)
            }
            Part::Policies => {
                lists::draw(&self.policies, false, frame, body, Context::new(theme, ctx.now, ctx.marks, self), 0)
            }
            Part::Jobs => lists::draw(&self.jobs, false, frame, body, Context::new(theme, ctx.now, ctx.marks, &()), 0),
        }
    }
}
