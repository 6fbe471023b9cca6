//! `C`: the "start a collection job" form. Its policies and metrics are picked by name from the
//! service's lists (asked for fresh when `C` is pressed; the form opens once both are here),
//! the selected policy already picked; the marked calls and chats become the job's
//! `callIds`/`chatIds`.

use uuid::Uuid;

use super::Marks;
use crate::api::model::{CollectionJobInput, IdRef, MetricDefinition, MetricPolicy, collection_limits};
use crate::api::validate::Validate;
use crate::console::message::{FetchError, Fetched, ListKind, Listed, Request, Write};
use crate::console::out::Out;
use crate::console::widgets::form::{Field, Form, Opt};
use crate::console::widgets::modal::Modal;

/// The lists the form picks from.
const KINDS: [ListKind; 2] = [ListKind::Policies, ListKind::MetricDefinitions];

/// `C` pressed: waiting for the policies and metrics to offer.
#[derive(Debug)]
pub struct Collecting {
    /// The policy selected when `C` was pressed, picked already.
    policy: Option<Uuid>,
    policies: Option<Vec<MetricPolicy>>,
    metrics: Option<Vec<MetricDefinition>>,
}

impl Collecting {
    /// Asks for the lists; the form opens when `fetched` has them.
    pub fn start(policy: Option<Uuid>, out: &mut Out) -> Collecting {
        KINDS.iter().for_each(|kind| out.fetch(Request::List(*kind)));
        Collecting { policy, policies: None, metrics: None }
    }

    /// Takes a list it waits for; true once both have arrived (a list that failed counts as
    /// empty: the app has said why, and the other list may still do).
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        fn put<T: Listed + Clone>(slot: &mut Option<Vec<T>>, result: &Result<Fetched, FetchError>) {
            *slot = Some(match result {
                Ok(Fetched::List(listing, _)) => T::take(listing).cloned().unwrap_or_default(),
                _ => Vec::new(),
            });
        }
        match request {
            Request::List(ListKind::Policies) => put(&mut self.policies, result),
            Request::List(ListKind::MetricDefinitions) => put(&mut self.metrics, result),
            _ => return false,
        }
        self.policies.is_some() && self.metrics.is_some()
    }

    /// Opens the form over `modal`, for the marks.
    pub fn open(self, modal: &mut Modal, marks: &Marks) {
        let policies = self.policies.unwrap_or_default();
        let metrics = self.metrics.unwrap_or_default();
        let policy_options = policies.iter().map(|p| {
            let status = p.status.as_ref().map(|s| format!(" · {}", s.as_str())).unwrap_or_default();
            Opt::new(p.id.to_string(), format!("{}{status}", p.name.as_deref().unwrap_or("unnamed policy")))
        });
        let metric_options = metrics.iter().map(|m| {
            let name = m.name.clone().or_else(|| m.slug.clone()).unwrap_or_else(|| m.id.to_string());
            Opt::new(m.id.to_string(), name)
        });
        let mut policy_field = Field::pick(
            "policyIds",
            "policies",
            policy_options.collect(),
            "by name · type to filter, space picks · or pick metrics",
        );
        if let Some(policy) = self.policy {
            policy_field.set_picked(&policy.to_string(), true);
        }
        let fields = vec![
            policy_field,
            Field::pick(
                "metrics",
                "metrics",
                metric_options.collect(),
                format!("by name · up to {} · computed on the marked calls", collection_limits::METRICS_MAX),
            ),
        ];
        let (calls, chats) = (marks.calls(), marks.chats());
        let title = match marks.len() {
            0 => "start a collection job".to_string(),
            n => format!("start a collection job · {n} marked"),
        };
        let (c2, h2) = (calls.clone(), chats.clone());
        let check = move |form: &Form| input(form, c2.clone(), h2.clone()).validate();
        modal.form(Form::new(title, fields, check), move |form| {
            Write::StartCollection(Box::new(input(form, calls.clone(), chats.clone())))
        });
    }
}

/// The job the form stands for: only what was picked is sent.
fn input(form: &Form, calls: Vec<Uuid>, chats: Vec<Uuid>) -> CollectionJobInput {
    let picked = |param: &str| -> Option<Vec<Uuid>> {
        let ids: Vec<Uuid> = form.field(param)?.picked().iter().filter_map(|id| id.parse().ok()).collect();
        Some(ids).filter(|ids| !ids.is_empty())
    };
    CollectionJobInput {
        metrics: picked("metrics").map(|ids| ids.into_iter().map(IdRef::from).collect()),
        policy_ids: picked("policyIds"),
        call_ids: Some(calls).filter(|c| !c.is_empty()),
        chat_ids: Some(chats).filter(|c| !c.is_empty()),
        ..Default::default()
    }
}
