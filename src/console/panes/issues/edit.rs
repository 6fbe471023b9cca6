//! The issue's status/severity/assignee form (`e` on an open issue): PATCH /v1/issue/{id}.

use uuid::Uuid;

use crate::api::model::{Issue, IssueStatus, IssueUpdate, Severity};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::Write;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

/// Opens the form over `modal`, filled with the issue's current values.
pub fn open(modal: &mut Modal, issue: &Issue) {
    let assignee = issue.assignee_user_id.map(|id| id.to_string()).unwrap_or_default();
    let fields = vec![
        Field::choice("status", "status", issue.status.as_ref(), false),
        Field::choice("severity", "severity", issue.severity.as_ref(), true),
        Field::text("assigneeUserId", "assignee", &assignee, "a user id (UUID) · empty unassigns"),
    ];
    let title = format!("edit issue {}", issue.title.as_deref().unwrap_or("(untitled)"));
    let id = issue.id;
    modal.form(Form::new(title, fields, check), move |form| Write::UpdateIssue(id, update(form).0));
}

/// The form as the PATCH body, with what cannot even be parsed.
fn update(form: &Form) -> (IssueUpdate, Vec<Violation>) {
    let mut c = Checks::default();
    let assignee = match form.opt("assigneeUserId") {
        None => None,
        Some(text) => match text.parse::<Uuid>() {
            Ok(id) => Some(id),
            Err(_) => {
                c.invalid("assigneeUserId", "assigneeUserId must be a user id (a UUID)");
                None
            }
        },
    };
    let update = IssueUpdate {
        status: form.opt("status").map(|s| IssueStatus::from(s.as_str())),
        severity: Some(form.opt("severity").map(|s| Severity::from(s.as_str()))),
        assignee_user_id: Some(assignee),
        ..Default::default()
    };
    (update, c.into_violations())
}

fn check(form: &Form) -> Vec<Violation> {
    let (update, mut violations) = update(form);
    violations.extend(update.validate());
    violations
}
