//! A call opened over the tab, from anywhere: `:call ID`, or a pane asking (`Out::open_call`,
//! a benchmark sample's source call). Its transcript and metric values stay until Esc, which
//! shows the tab again; a call the service does not have is said to be not on this service.
//! While it is open, the selection, filter and help are the call's.

use uuid::Uuid;

use super::App;
use crate::api::model::{Annotation, AnnotationLabel, Timestamp};
use crate::console::keymap::Action;
use crate::console::message::{
    FailureKind, FetchError, Fetched, Level, Request, Selection, Write, WriteError, Written,
};
use crate::console::out::Out;
use crate::console::widgets::conversation::{ConversationView, LOCAL_LABEL_NOTE};

/// The cache mark holding labels made against a service without the labels route.
use crate::compare::agreement::LOCAL_LABELS;

/// What help says the call view is for.
const ABOUT: &str = "A call: its transcript beside its metric values; esc closes it.";

impl App {
    /// Opens call `id` over the current tab.
    pub(super) fn open_call(&mut self, id: Uuid) {
        let mut out = Out::default();
        self.overlay = None;
        self.call = Some(ConversationView::open(id, &mut out));
        self.apply(out);
    }

    /// A key's action for the open call; Esc closes it once nothing inside is open.
    pub(super) fn call_action(&mut self, action: Action) -> bool {
        let Some(call) = &mut self.call else { return false };
        if action == Action::Back {
            if !call.back() {
                self.call = None;
            }
            return true;
        }
        if let Action::LabelRight | Action::LabelWrong = action {
            match call.label(action == Action::LabelRight) {
                Ok(input) => {
                    let mut out = Out::default();
                    out.write(Write::Annotate(Box::new(input)));
                    self.apply(out);
                }
                Err(why) => self.toast(Level::Error, why),
            }
            return true;
        }
        call.action(action)
    }

    /// A label's answer: shown on the value; where the service has no labels route, kept in
    /// the local cache instead, and said so. True when it was a label's.
    pub(super) fn annotation_written(&mut self, write: &Write, result: &Result<Written, WriteError>) -> bool {
        let Write::Annotate(input) = write else { return false };
        let (Some(call), Some(metric), Some(label)) = (input.call_id, input.metric_definition_id, input.label.clone())
        else {
            return true;
        };
        let index = input.value_index.unwrap_or(0).max(0) as usize;
        let words = |label: &AnnotationLabel| if *label == AnnotationLabel::Right { "right" } else { "wrong" };
        match result {
            Ok(Written::Annotation(annotation)) => {
                if let Some(view) = self.call.as_mut().filter(|v| v.call_id == call) {
                    view.labelled(metric, index, annotation.label.clone(), false);
                }
                self.toast(Level::Info, format!("labelled {}", words(&annotation.label)));
            }
            Err(error) if error.missing_route => {
                let judged = self.call.as_ref().filter(|v| v.call_id == call).and_then(|v| {
                    v.values.items.iter().find(|r| r.metric.id == metric && r.index == index).map(|r| r.value.clone())
                });
                let kept = Annotation {
                    id: uuid::Uuid::new_v5(&call, format!("{metric}/{index}").as_bytes()),
                    call_id: call,
                    metric_definition_id: metric,
                    value_index: index as u64,
                    label: label.clone(),
                    note: input.note.clone(),
                    judge_value: judged.as_ref().and_then(|v| v.value),
                    judge_label: judged.as_ref().and_then(|v| v.label.clone()),
                    boolean: self
                        .call
                        .as_ref()
                        .is_some_and(|v| v.values.items.iter().any(|r| r.metric.id == metric && r.metric.yes_no)),
                    version_id: None,
                    version: None,
                    created_at: Some(Timestamp::now()),
                    updated_at: Some(Timestamp::now()),
                };
                let mut kept_labels: Vec<Annotation> =
                    self.cache.as_ref().and_then(|c| c.mark(LOCAL_LABELS)).unwrap_or_default();
                kept_labels.retain(|a| a.id != kept.id);
                kept_labels.push(kept);
                let mut out = Out::default();
                match serde_json::to_value(&kept_labels) {
                    Ok(value) => out.effects.push(crate::console::message::Effect::SetMark(LOCAL_LABELS.into(), value)),
                    Err(e) => tracing::warn!("a label could not be kept: {e}"),
                }
                self.apply(out);
                if let Some(view) = self.call.as_mut().filter(|v| v.call_id == call) {
                    view.labelled(metric, index, label.clone(), true);
                }
                self.toast(Level::Info, format!("labelled {}: {LOCAL_LABEL_NOTE}", words(&label)));
            }
            Ok(_) | Err(_) => return false,
        }
        true
    }

    /// A fetch result for the open call; true when it changed what is shown. A call the
    /// service does not have closes with a note instead of the client's error.
    pub(super) fn call_fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        if self.is_missing_call(request, result) {
            let id = self.call.take().map(|c| c.call_id).unwrap_or_default();
            self.toast(Level::Error, format!("call {id} is not on this service"));
            return true;
        }
        self.call.as_mut().is_some_and(|call| call.fetched(request, result))
    }

    /// Whether `request`'s failure is the open call's own (reported by `call_fetched`).
    pub(super) fn is_missing_call(&self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        let missing = matches!(result, Err(e) if e.kind == FailureKind::NotFound);
        missing && self.call.as_ref().is_some_and(|c| *request == Request::Conversation(c.call_id))
    }

    /// What copy, raw and marks act on: the open call's selection, else the pane's.
    pub fn selection(&self) -> Option<Selection> {
        match &self.call {
            Some(call) => call.selection(),
            None => self.pane().selection(),
        }
    }

    /// The keys of what is shown, with what they do there.
    pub fn help_keys(&self) -> Vec<(Action, &'static str)> {
        match &self.call {
            Some(call) => call.help(),
            None => self.pane().help(),
        }
    }

    /// One line on what is shown: the open call, or the tab.
    pub fn about(&self) -> &'static str {
        match &self.call {
            Some(_) => ABOUT,
            None => self.tab.about(),
        }
    }

    /// The `/` filter of what is shown.
    pub(super) fn filter(&self) -> String {
        match &self.call {
            Some(call) => call.filter(),
            None => self.pane().filter(),
        }
    }

    pub(super) fn set_filter(&mut self, text: &str) {
        match &mut self.call {
            Some(call) => call.set_filter(text),
            None => self.panes[self.tab.index()].set_filter(text),
        }
    }
}
