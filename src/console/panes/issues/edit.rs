//! The issue's status/severity/assignee form (`e` on an issue, listed or open): PATCH
//! /v1/issue/{id}. The assignee is picked among the users the console has seen assigned to
//! issues, or typed (a user id no issue has yet).

use std::collections::BTreeMap;

use uuid::Uuid;

use crate::api::model::{Issue, IssueStatus, IssueUpdate, Severity};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::Write;
use crate::console::widgets::form::{Field, Form, Opt};
use crate::console::widgets::modal::Modal;

/// How an assignee reads: the service keeps a user's id only (there is no users resource to
/// name them by), so the id cut to the 8 characters the other screens show ids by, as a user:
/// `user 5dd1249a…`; the form's value and the raw JSON keep it whole.
pub fn assignee(id: Option<Uuid>) -> String {
    match id {
        Some(id) => format!("user {}…", &id.simple().to_string()[..8]),
        None => "unassigned".into(),
    }
}

/// The users assigned to `issues`, most issues first, as options: `5dd1249a-… · 2 issues`.
fn assignees(issues: &[Issue]) -> Vec<Opt> {
    let mut counts: BTreeMap<Uuid, usize> = BTreeMap::new();
    for id in issues.iter().filter_map(|i| i.assignee_user_id) {
        *counts.entry(id).or_default() += 1;
    }
    let mut counted: Vec<(Uuid, usize)> = counts.into_iter().collect();
    counted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let label = |id: Uuid, n: usize| format!("{} · {n} issue{}", assignee(Some(id)), plural(n));
    counted.into_iter().map(|(id, n)| Opt::new(id.to_string(), label(id, n))).collect()
}

/// Opens the form over `modal`, filled with the issue's current values; `issues` are those
/// the console knows, whose assignees it offers.
pub fn open(modal: &mut Modal, issue: &Issue, issues: &[Issue]) {
    let assignee = issue.assignee_user_id.map(|id| id.to_string());
    let fields = vec![
        Field::choice("status", "status", issue.status.as_ref(), false),
        Field::choice("severity", "severity", issue.severity.as_ref(), true),
        Field::options("assigneeUserId", "assignee", assignees(issues), assignee.as_deref(), true)
            .free()
            .with_hint("seen on issues, or type a user id · (none) unassigns"),
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
