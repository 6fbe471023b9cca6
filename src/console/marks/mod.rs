//! Marked conversations (space on a call's row anywhere): kept by the app so they survive tab
//! switches, shown beside their rows, and used as an issue's evidence (`I`) or a collection
//! job's calls (`C`, `collect.rs`). The forms are the shared `Form`, checked by the input's own
//! `validate()`.

mod collect;

use std::collections::BTreeMap;

use uuid::Uuid;

use crate::api::model::{EvidenceInput, IssueInput, Severity, issue_limits};
use crate::api::validate::Validate;
use crate::console::keymap::Action;
use crate::console::message::{Selection, Write};
use crate::console::out::Out;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

pub use collect::Collecting;

/// `space` marks or unmarks the conversation of `selection`, `U` clears the marks and `I` files
/// an issue with them (`C` waits for lists: `Collecting`).
pub fn action(action: Action, marks: &mut Marks, selection: Option<&Selection>, out: &mut Out) {
    match action {
        Action::Mark => match selection.and_then(conversation) {
            Some((id, chat)) => {
                marks.toggle(id, chat);
            }
            None => out.error("nothing to mark here: select a call, a chat or a metric value"),
        },
        Action::Unmark => {
            out.info(format!("cleared {} marks", marks.len()));
            marks.clear();
        }
        Action::FileIssue if marks.is_empty() => out.error("mark calls first (space), then file an issue"),
        Action::FileIssue => match too_many(marks) {
            Some(refusal) => out.error(refusal),
            None => issue_form(&mut out.modal, marks),
        },
        _ => {}
    }
}

/// The selection's id when it is a metric policy (it has conditions and a modality).
pub fn policy(selection: &Selection) -> Option<Uuid> {
    let json = &selection.json;
    (json.get("conditions").is_some() && json.get("modality").is_some()).then(|| selection.id.parse().ok()).flatten()
}

/// The marker drawn beside a marked row (text, never colour alone).
pub const MARKER: &str = "✓";

/// Marked calls and chats: id → whether it is a chat.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks(BTreeMap<Uuid, bool>);

impl Marks {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, id: Option<Uuid>) -> bool {
        id.is_some_and(|id| self.0.contains_key(&id))
    }

    /// Marks `id`, or unmarks it when it was marked; true when it is now marked.
    pub fn toggle(&mut self, id: Uuid, chat: bool) -> bool {
        if self.0.remove(&id).is_some() {
            return false;
        }
        self.0.insert(id, chat);
        true
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn calls(&self) -> Vec<Uuid> {
        self.0.iter().filter(|(_, chat)| !**chat).map(|(id, _)| *id).collect()
    }

    pub fn chats(&self) -> Vec<Uuid> {
        self.0.iter().filter(|(_, chat)| **chat).map(|(id, _)| *id).collect()
    }

    pub fn evidence(&self) -> Vec<EvidenceInput> {
        self.0
            .iter()
            .map(|(id, chat)| match chat {
                true => EvidenceInput { call_id: None, chat_id: Some(*id) },
                false => EvidenceInput::call(*id),
            })
            .collect()
    }
}

/// The call or chat a selection is about: a metric value row (`value.callId`), a simulation
/// (`callId`), an evidence entry, or a call or chat itself (`id` beside a transcript field).
pub fn conversation(selection: &Selection) -> Option<(Uuid, bool)> {
    let json = &selection.json;
    let id = |v: &serde_json::Value| v.as_str().and_then(|s| s.parse::<Uuid>().ok());
    for at in [&json["value"], json] {
        if let Some(call) = id(&at["callId"]) {
            return Some((call, false));
        }
        if let Some(chat) = id(&at["chatId"]) {
            return Some((chat, true));
        }
    }
    // The call itself (the conversation view with no value selected): only calls end.
    let is_call = json.get("endedStatus").is_some() || json.get("durationMs").is_some();
    id(&json["id"]).filter(|_| is_call).map(|call| (call, false))
}

/// Why the marks cannot be an issue's evidence, if they cannot.
fn too_many(marks: &Marks) -> Option<String> {
    (marks.len() > issue_limits::EVIDENCE_MAX).then(|| {
        format!(
            "{} marked: an issue takes at most {} calls as evidence; unmark some (space) or clear them (U)",
            marks.len(),
            issue_limits::EVIDENCE_MAX
        )
    })
}

/// The "file an issue" form over `modal`, with the marks as evidence.
fn issue_form(modal: &mut Modal, marks: &Marks) {
    let fields = vec![
        Field::text("title", "title", "", format!("required · up to {} characters", issue_limits::TITLE_MAX)),
        Field::text("summary", "summary", "", format!("optional · up to {} characters", issue_limits::SUMMARY_MAX)),
        Field::choice::<Severity>("severity", "severity", None, true),
    ];
    let evidence = marks.evidence();
    let title = format!("file an issue · {} marked as evidence", evidence.len());
    let check_evidence = evidence.clone();
    let check = move |form: &Form| issue_input(form, check_evidence.clone()).validate();
    modal.form(Form::new(title, fields, check), move |form| {
        Write::CreateIssue(Box::new(issue_input(form, evidence.clone())))
    });
}

fn issue_input(form: &Form, evidence: Vec<EvidenceInput>) -> IssueInput {
    IssueInput {
        title: Some(form.value("title")),
        summary: form.opt("summary"),
        severity: form.opt("severity").map(|s| Severity::from(s.as_str())),
        evidence: Some(evidence),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_and_finds_the_conversation_of_a_row() {
        let mut marks = Marks::default();
        let id = Uuid::new_v4();
        assert!(marks.toggle(id, false));
        assert!(marks.contains(Some(id)));
        assert!(!marks.toggle(id, false));
        assert!(marks.is_empty());
        let row =
            Selection { id: "x".into(), json: serde_json::json!({"value": {"chatId": id.to_string()}}), path: None };
        assert_eq!(conversation(&row), Some((id, true)));
        let sim = Selection { id: "x".into(), json: serde_json::json!({"callId": id.to_string()}), path: None };
        assert_eq!(conversation(&sim), Some((id, false)));
        let call =
            Selection { id: "x".into(), json: serde_json::json!({"id": id.to_string(), "durationMs": 1}), path: None };
        assert_eq!(conversation(&call), Some((id, false)));
        let plan = Selection {
            id: "x".into(),
            json: serde_json::json!({"id": id.to_string(), "direction": "INBOUND"}),
            path: None,
        };
        assert_eq!(conversation(&plan), None);
    }
}
