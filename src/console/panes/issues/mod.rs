//! Tab 4: issues, worst and most recent first, filtered by status (`f`) and severity (`F`).
//! Enter opens an issue (summary and evidence); Enter on an evidence entry opens that call's
//! transcript beside its metric values.
//!
//! `a` on an alert-born issue opens its alert; `:alerts` lists the alerts with their state
//! (`alerts`).
//!
//! "New" (`●`) means not listed on the last visit: the ids listed are kept in the cache mark
//! `issues.seen` and compared with the next listing. With no mark yet (the first visit ever),
//! the first listing is the baseline, so nothing is new; switching back to the tab starts a new
//! visit, while `r` within a visit keeps the markers.

mod alerts;
mod detail;
mod edit;
mod evidence;
mod rows;

use std::collections::HashSet;

use ratatui::Frame;
use ratatui::layout::Rect;
use uuid::Uuid;

use self::rows::{COLUMNS, SEVERITIES, STATUSES, severity, status};
use super::section::Section;
use crate::api::model::{Event, EventQuery, EventType, Evidence, Issue};
use crate::cache::Cache;
use crate::console::keymap::Action;
use crate::console::message::{Effect, FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written};
use crate::console::out::Out;
use crate::console::pane::{Pane, ViewCtx};
use crate::console::widgets::conversation::ConversationView;
use crate::console::widgets::detail::Scroll;
use crate::console::widgets::list::{ListState, Load, Shape, by};
use crate::console::widgets::table::{self, Columns, Context};

/// The changes that move an issue in the list.
const LIST_EVENTS: &[EventType] = &[EventType::IssueOpened, EventType::IssueResolved];

/// Cache mark holding the ids listed on the last visit.
pub const SEEN_MARK: &str = "issues.seen";

/// What the pane shows over the list.
enum Open {
    List,
    Issue(Uuid),
    /// An evidence call, opened from this issue.
    Call(Uuid, Box<ConversationView>),
    /// The alerts with their state (`:alerts`).
    Alerts,
    /// One alert, opened from an issue (back goes to it) or from the alerts (None).
    Alert(Uuid, Option<Uuid>),
}

pub struct Issues {
    issues: Section<Issue, Issues>,
    /// Ids listed on the previous visit; None until known (cache mark or first listing).
    seen: Option<HashSet<Uuid>>,
    status_filter: usize,
    severity_filter: usize,
    open: Open,
    evidence: ListState<Evidence>,
    evidence_shape: Shape<Evidence>,
    /// The calls the evidence rows on screen describe.
    calls: evidence::EvidenceCalls,
    scroll: Scroll,
    alerts: alerts::Alerts,
}

impl Default for Issues {
    fn default() -> Self {
        Self::new()
    }
}

impl Issues {
    pub fn new() -> Self {
        let mut issues = Section::new(
            "issues",
            COLUMNS,
            |i: &Issue| i.id.to_string(),
            |i| {
                format!(
                    "{} {} {} {}",
                    i.title.as_deref().unwrap_or(""),
                    severity(i).unwrap_or(""),
                    status(i).unwrap_or(""),
                    i.summary.as_deref().unwrap_or("")
                )
            },
        );
        issues.list.sort = Some((0, true));
        Issues {
            issues,
            seen: None,
            status_filter: 0,
            severity_filter: 0,
            open: Open::List,
            evidence: ListState::new(),
            evidence_shape: Shape::new(detail::evidence_haystack, |a, b, _| {
                by(a.observed_at.as_ref().and_then(|t| t.parse()), b.observed_at.as_ref().and_then(|t| t.parse()))
            }),
            calls: evidence::EvidenceCalls::default(),
            scroll: Scroll::default(),
            alerts: alerts::Alerts::default(),
        }
    }

    /// Whether `issue` was not listed on the last visit.
    fn is_new(&self, issue: &Issue) -> bool {
        self.seen.as_ref().is_some_and(|seen| !seen.contains(&issue.id))
    }

    fn new_count(&self) -> usize {
        self.issues.list.items.iter().filter(|i| self.is_new(i)).count()
    }

    fn apply_filters(&mut self) {
        let want_status = STATUSES[self.status_filter];
        let want_severity = SEVERITIES[self.severity_filter];
        self.issues.keep(move |i| {
            want_status.is_none_or(|s| status(i) == Some(s)) && want_severity.is_none_or(|s| severity(i) == s)
        });
    }

    fn issue(&self, id: Uuid) -> Option<&Issue> {
        self.issues.list.items.iter().find(|i| i.id == id)
    }

    /// Reads the alert that raised the opened issue, once.
    fn ask_alert(&mut self, out: &mut Out) {
        if let Some(alert) = self.opened_issue().and_then(|i| i.alert_id) {
            self.alerts.ask(alert, out);
        }
    }

    fn open_alert(&mut self, id: Uuid, from: Option<Uuid>, out: &mut Out) {
        self.alerts.reread(id, out);
        self.scroll = Scroll::default();
        self.open = Open::Alert(id, from);
    }

    fn alerts_action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::Open => match self.alerts.list.selected() {
                Some(alert) => {
                    let id = alert.id;
                    self.open_alert(id, None, out);
                    true
                }
                None => false,
            },
            _ => self.alerts.list.action(action),
        }
    }

    fn opened_issue(&self) -> Option<&Issue> {
        match &self.open {
            Open::Issue(id) => self.issue(*id),
            _ => None,
        }
    }

    /// Shows issue `id`'s evidence (again, after a refresh), keeping the selected entry.
    fn sync_evidence(&mut self, id: Uuid) {
        let evidence = self.issue(id).map(|i| i.evidence.clone()).unwrap_or_default();
        self.evidence.replace(evidence, detail::evidence_id, &self.evidence_shape);
        self.evidence.load = Load::Fresh;
    }

    fn open_issue(&mut self, id: Uuid) {
        self.open = Open::Issue(id);
        self.scroll = Scroll::default();
        self.evidence = ListState::new();
        self.sync_evidence(id);
    }

    /// A fresh listing: remember its ids for the next visit.
    fn listed(&mut self, out: &mut Out) {
        let ids: Vec<Uuid> = self.issues.list.items.iter().map(|i| i.id).collect();
        if self.seen.is_none() {
            self.seen = Some(ids.iter().copied().collect());
        }
        out.effects.push(Effect::SetMark(SEEN_MARK.into(), serde_json::json!(ids)));
    }

    fn list_action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::Edit => match self.issues.selected() {
                Some(issue) => edit::open(&mut out.modal, issue, &self.issues.list.items),
                None => out.error("no issue is selected"),
            },
            Action::StatusFilter => {
                self.status_filter = (self.status_filter + 1) % STATUSES.len();
                self.apply_filters();
            }
            Action::SecondFilter => {
                self.severity_filter = (self.severity_filter + 1) % SEVERITIES.len();
                self.apply_filters();
            }
            Action::Open => match self.issues.selected() {
                Some(issue) => {
                    let id = issue.id;
                    self.open_issue(id);
                }
                None => return false,
            },
            _ => return self.issues.action(action),
        }
        true
    }

    fn detail_action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::Up => self.evidence.move_by(-1),
            Action::Down => self.evidence.move_by(1),
            Action::Top => self.evidence.top(),
            Action::Bottom => self.evidence.bottom(),
            Action::PageUp | Action::PageDown => return self.scroll.action(action),
            Action::ToggleAll => match self.opened_issue().map(|i| (i.id, i.alert_id)) {
                Some((issue, Some(alert))) => self.open_alert(alert, Some(issue), out),
                Some((_, None)) => out.error("this issue was not raised by an alert"),
                None => out.error("the issue is not loaded yet"),
            },
            Action::Edit => match self.opened_issue() {
                Some(issue) => edit::open(&mut out.modal, issue, &self.issues.list.items),
                None => out.error("the issue is not loaded yet"),
            },
            Action::Open => {
                let Open::Issue(issue) = self.open else { return false };
                match self.evidence.selected() {
                    Some(Evidence { call_id: Some(call), .. }) => {
                        let call = *call;
                        self.open = Open::Call(issue, Box::new(ConversationView::open(call, out)));
                    }
                    Some(Evidence { chat_id: Some(chat), .. }) => {
                        let chat = *chat;
                        self.open = Open::Call(issue, Box::new(ConversationView::open_chat(chat, out)));
                    }
                    _ => out.error("no evidence is selected"),
                }
            }
            _ => return false,
        }
        true
    }

    fn filters_title(&self) -> String {
        let status = STATUSES[self.status_filter].unwrap_or("all");
        let severity = match SEVERITIES[self.severity_filter] {
            None => "any",
            Some(None) => "unset",
            Some(Some(s)) => s,
        };
        let new = match self.new_count() {
            0 => String::new(),
            n => format!(" · ● {n} new"),
        };
        format!("issues · status {status} · severity {severity}{new}")
    }
}

impl Pane for Issues {
    fn show(&mut self, out: &mut Out) {
        // A new visit: what the last one listed is no longer new.
        if self.issues.list.load == Load::Fresh {
            self.seen = Some(self.issues.list.items.iter().map(|i| i.id).collect());
        }
        self.issues.ensure(out);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        match self.open {
            Open::List => vec![ListKind::Issues],
            Open::Alerts => vec![ListKind::Alerts],
            _ => Vec::new(),
        }
    }

    fn refresh(&mut self, out: &mut Out) {
        match &mut self.open {
            Open::Call(_, conversation) => conversation.refresh(out),
            Open::Alerts => self.alerts.list.request(out),
            Open::Alert(id, _) => {
                let id = *id;
                self.alerts.reread(id, out);
            }
            Open::Issue(_) => {
                self.issues.request(out);
                if let Some(alert) = self.opened_issue().and_then(|i| i.alert_id) {
                    self.alerts.reread(alert, out);
                }
            }
            Open::List => self.issues.request(out),
        }
    }

    /// `:alert ID` opens that alert (esc: the alerts); `:issue ID` the issue.
    fn open_named(&mut self, word: &str, id: &str, out: &mut Out) -> bool {
        if word != "alert" {
            return self.open_by_id(id, out);
        }
        match id.trim().parse::<Uuid>() {
            Ok(alert) => {
                self.alerts.list.ensure(out);
                self.open_alert(alert, None, out);
                true
            }
            Err(_) => {
                out.error(format!("{id:?} is not an alert id (a UUID)"));
                false
            }
        }
    }

    /// `:alerts` (or `:alert`) opens the alerts.
    fn action_alias(&mut self, alias: &str, out: &mut Out) -> bool {
        if !matches!(alias, "alerts" | "alert") {
            return false;
        }
        self.open = Open::Alerts;
        self.alerts.list.ensure(out);
        true
    }

    /// While the list shows, an issue opened or resolved anywhere reads it again at once.
    fn watching(&self) -> Option<EventQuery> {
        matches!(self.open, Open::List).then(|| EventQuery::of_types(LIST_EVENTS).without_data())
    }

    fn events(&mut self, events: &[Event], out: &mut Out) -> bool {
        if matches!(self.open, Open::List)
            && events.iter().any(|e| LIST_EVENTS.contains(&e.event_type))
            && !self.issues.list.fetching
        {
            self.issues.request(out);
        }
        false
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        let used = match &mut self.open {
            Open::Call(_, conversation) => conversation.action(action),
            Open::Issue(_) => self.detail_action(action, out),
            Open::List => self.list_action(action, out),
            Open::Alerts => self.alerts_action(action, out),
            Open::Alert(..) => matches!(action, Action::PageUp | Action::PageDown) && self.scroll.action(action),
        };
        if matches!(self.open, Open::Issue(_)) {
            self.calls.ask(&self.evidence, out);
            self.ask_alert(out);
        }
        used
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let changed = self.issues.fetched(request, result)
            | self.calls.fetched(request, result)
            | self.alerts.fetched(request, result);
        if changed && matches!((request, result), (Request::List(ListKind::Issues), Ok(_))) {
            self.listed(out);
        }
        match &mut self.open {
            Open::Call(_, conversation) => changed | conversation.fetched(request, result),
            Open::Issue(id) => {
                let id = *id;
                if changed {
                    self.sync_evidence(id);
                    self.calls.ask(&self.evidence, out);
                    self.ask_alert(out);
                }
                changed
            }
            Open::List | Open::Alerts | Open::Alert(..) => changed,
        }
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        // Edited here, or filed from the marks: the list changed.
        let mine = matches!(write, Write::UpdateIssue(..) | Write::CreateIssue(_));
        if mine && result.is_ok() {
            self.issues.request(out);
        }
        mine
    }

    fn back(&mut self) -> bool {
        match std::mem::replace(&mut self.open, Open::List) {
            Open::Call(issue, mut conversation) => {
                self.open = if conversation.back() { Open::Call(issue, conversation) } else { Open::Issue(issue) };
                true
            }
            Open::Issue(_) | Open::Alerts => true,
            Open::Alert(_, from) => {
                self.open = match from {
                    Some(issue) => Open::Issue(issue),
                    None => Open::Alerts,
                };
                true
            }
            Open::List => false,
        }
    }

    fn filter(&self) -> String {
        match &self.open {
            Open::Call(_, conversation) => conversation.filter(),
            Open::Issue(_) => self.evidence.filter.clone(),
            Open::List => self.issues.list.filter.clone(),
            Open::Alerts => self.alerts.list.list.filter.clone(),
            Open::Alert(..) => String::new(),
        }
    }

    fn set_filter(&mut self, text: &str) {
        match &mut self.open {
            Open::Call(_, conversation) => conversation.set_filter(text),
            Open::Issue(_) => {
                self.evidence.filter = text.to_string();
                self.evidence.reshape(&self.evidence_shape);
            }
            Open::List => self.issues.set_filter(text),
            Open::Alerts => self.alerts.list.set_filter(text),
            Open::Alert(..) => {}
        }
    }

    fn listed(&self) -> Option<String> {
        self.issues.selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.issues.select(id)
    }

    fn selection(&self) -> Option<Selection> {
        match &self.open {
            Open::Call(_, conversation) => conversation.selection(),
            Open::Issue(id) => self.issue(*id).map(|i| Selection::of(i.id, i)),
            Open::List => self.issues.selection(),
            Open::Alerts => self.alerts.list.selection(),
            Open::Alert(id, _) => {
                self.alerts.get(*id).map(|a| Selection::of(a.id, a).at(ListKind::Alerts.item_path(&a.id.to_string())))
            }
        }
    }

    /// In an issue, the selected evidence entry (its call or chat); elsewhere the selection.
    fn mark_target(&self) -> Option<Selection> {
        match &self.open {
            Open::Issue(_) => self.evidence.selected().map(|e| Selection::of(detail::evidence_id(e), e)),
            _ => self.selection(),
        }
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        match id.trim().parse::<Uuid>() {
            Ok(uuid) => {
                out.fetch(Request::Item(ListKind::Issues, uuid.to_string()));
                self.open_issue(uuid);
                true
            }
            Err(_) => {
                out.error(format!("{id:?} is not an issue id (a UUID)"));
                false
            }
        }
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        match &self.open {
            Open::Call(_, conversation) => conversation.help(),
            Open::Issue(_) => vec![
                (Action::ToggleAll, "the alert that raised the issue"),
                (Action::Down, "next evidence entry"),
                (Action::Up, "previous evidence entry"),
                (Action::Open, "the evidence call's transcript and metrics"),
                (Action::PageDown, "scroll the summary"),
                (Action::PageUp, "scroll the summary back"),
                (Action::Back, "back to the list"),
                (Action::Edit, "change status, severity, assignee"),
                (Action::Mark, "mark the evidence call (for an issue or a job)"),
                (Action::Raw, "raw JSON of the issue"),
            ],
            Open::Alerts => vec![
                (Action::Open, "the alert's trigger, groups and windows"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::Refresh, "read the alerts again"),
                (Action::Back, "back to the issues"),
                (Action::Raw, "raw JSON of the alert"),
            ],
            Open::Alert(..) => vec![
                (Action::Back, "back"),
                (Action::Refresh, "read the alert again"),
                (Action::PageDown, "scroll"),
                (Action::PageUp, "scroll back"),
                (Action::Raw, "raw JSON of the alert"),
            ],
            Open::List => vec![
                (Action::Open, "the issue's summary and evidence"),
                (Action::Edit, "change status, severity, assignee"),
                (Action::StatusFilter, "status: all, OPEN, ACKNOWLEDGED, RESOLVED"),
                (Action::SecondFilter, "severity: any, CRITICAL, HIGH, MEDIUM, LOW, unset"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::OpenById, "open an issue by id"),
            ],
        }
    }

    fn restore(&mut self, cache: &Cache) {
        self.issues.restore(cache);
        self.seen = cache.mark::<Vec<Uuid>>(SEEN_MARK).map(|ids| ids.into_iter().collect());
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        match &self.open {
            Open::Call(issue, conversation) => {
                let title = self.issue(*issue).and_then(|i| i.title.clone()).unwrap_or_else(|| issue.to_string());
                detail::draw_call(frame, area, &title, conversation, ctx);
            }
            Open::Issue(id) => match self.opened_issue() {
                Some(issue) => detail::draw(
                    frame,
                    area,
                    detail::IssueView {
                        issue,
                        new: self.is_new(issue),
                        evidence: &self.evidence,
                        calls: &self.calls,
                        scroll: &self.scroll,
                        alert: issue.alert_id.and_then(|id| self.alerts.get(id)),
                        alert_missing: issue.alert_id.is_some_and(|id| self.alerts.is_missing(id)),
                    },
                    ctx,
                ),
                None => detail::draw_missing(frame, area, *id, &self.issues.list.load, theme),
            },
            Open::Alerts => {
                let view = Columns {
                    title: "alerts · enter opens one · esc: issues".into(),
                    columns: alerts::COLUMNS,
                    context: Context::new(theme, ctx.now, ctx.marks, &()),
                    focused: true,
                    empty: "no alerts (kind: alert in switchboard config apply)",
                };
                table::draw_columns(frame, area, &self.alerts.list.list, view);
            }
            Open::Alert(id, _) => alerts::draw_detail(frame, area, &self.alerts, *id, &self.scroll, ctx),
            Open::List => {
                let filtered = self.status_filter != 0 || self.severity_filter != 0;
                let view = Columns {
                    title: self.filters_title(),
                    columns: COLUMNS,
                    context: Context::new(theme, ctx.now, ctx.marks, self),
                    focused: true,
                    empty: if filtered { "no issues match these filters (f, F)" } else { "no issues" },
                };
                table::draw_columns(frame, area, &self.issues.list, view);
            }
        }
    }
}
