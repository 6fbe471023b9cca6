//! `c`: a new run plan. The form opens once the endpoints, flows, metrics and personas it
//! offers have arrived. Each picked flow brings its own fields (happy path, edge cases `ALL` or
//! picked ones, persona override, variables) and each picked metric its conversation source;
//! every option shows its default, and the deprecated members are there, marked as such.
mod fields;
mod input;
mod prefill;

use crate::api::model::{Agent, AgentEndpoint, CustomerFlow, MetricDefinition, Persona, RunPlanInput};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::{FetchError, Fetched, ListKind, Listed, Listing, Request, Write};
use crate::console::out::Out;
use crate::console::widgets::form::Form;
use fields::{fields, metric_param};
use input::input;

/// What the form offers, asked for fresh each time it opens (agents name the endpoints).
const KINDS: [ListKind; 5] =
    [ListKind::AgentEndpoints, ListKind::Flows, ListKind::MetricDefinitions, ListKind::Personas, ListKind::Agents];

/// The edge-case choices of a flow: none, every one (`ALL`, also ones added later), or picked.
const EDGE_NONE: &str = "";
const EDGE_ALL: &str = "ALL";
const EDGE_PICKED: &str = "picked";

#[derive(Default, Clone)]
struct Choices {
    endpoints: Option<Vec<AgentEndpoint>>,
    flows: Option<Vec<CustomerFlow>>,
    metrics: Option<Vec<MetricDefinition>>,
    personas: Option<Vec<Persona>>,
    agents: Option<Vec<Agent>>,
}

impl Choices {
    fn take(&mut self, listing: &Listing) {
        fn put<T: Listed + Clone>(slot: &mut Option<Vec<T>>, listing: &Listing) {
            if let Some(items) = T::take(listing) {
                *slot = Some(items.clone());
            }
        }
        put(&mut self.endpoints, listing);
        put(&mut self.flows, listing);
        put(&mut self.metrics, listing);
        put(&mut self.personas, listing);
        put(&mut self.agents, listing);
    }

    fn complete(&self) -> bool {
        self.endpoints.is_some()
            && self.flows.is_some()
            && self.metrics.is_some()
            && self.personas.is_some()
            && self.agents.is_some()
    }
}

/// The create form, from `c` until its choices arrive.
#[derive(Default)]
pub struct Create {
    gathering: Option<Choices>,
    /// The plan `D` duplicates, whose values fill the form when it opens.
    from: Option<Box<RunPlanInput>>,
}

impl Create {
    pub fn start(&mut self, out: &mut Out) {
        self.gathering = Some(Choices::default());
        self.from = None;
        KINDS.iter().for_each(|kind| out.fetch(Request::List(*kind)));
    }

    /// `D`: the form, filled with `plan`'s values.
    pub fn duplicate(&mut self, plan: &RunPlanInput, out: &mut Out) {
        self.start(out);
        self.from = Some(Box::new(plan.clone()));
    }

    /// Takes the lists it waits for and opens the form when it has them all. Personas and
    /// agents are optional (overrides use the one, endpoint names the other); without any of
    /// the others there is no plan to make.
    /// True when the form opened.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let (Some(choices), Request::List(kind)) = (&mut self.gathering, request) else { return false };
        if !KINDS.contains(kind) {
            return false;
        }
        match result {
            Ok(Fetched::List(listing, _)) => choices.take(listing),
            Err(_) if *kind == ListKind::Personas => choices.personas = Some(Vec::new()),
            Err(_) if *kind == ListKind::Agents => choices.agents = Some(Vec::new()),
            Err(error) => {
                self.gathering = None;
                out.error(format!("cannot create a plan without the {}: {}", kind.label(), error.message));
                return true;
            }
            Ok(_) => return false,
        }
        if !choices.complete() {
            return false;
        }
        let choices = self.gathering.take().unwrap_or_default();
        open(&mut out.modal, choices, self.from.take().as_deref());
        true
    }
}
/// `flows[1].happyPath` is the field of the second picked flow; `metrics[0].conversationSource`
/// that of the first picked metric.
fn rename(form: &Form, param: &str) -> Option<String> {
    let (array, rest) = param.split_once('[')?;
    let (index, rest) = rest.split_once(']')?;
    let value = form.field(array)?.picked().into_iter().nth(index.parse().ok()?)?;
    match array {
        // `flows[0].edgeCases[1].variables` is the second picked edge case's own field.
        "flows" => match rest.strip_prefix(".edgeCases") {
            Some(case) if case.starts_with('[') => {
                let picked = format!("flow:{value}.edgeCaseIds");
                let renamed = rename(form, &format!("{picked}{case}"))?;
                Some(renamed).filter(|r| form.field(r).is_some()).or(Some(format!("flow:{value}{rest}")))
            }
            _ => Some(format!("flow:{value}{rest}")),
        },
        "metrics" if rest.starts_with(".conversationSource") => Some(metric_param(&value)),
        "metrics" if rest.starts_with(".minPassRate") => Some(fields::min_pass_rate_param(&value)),
        _ if array.ends_with(".edgeCaseIds") => Some(format!("edge:{value}{rest}")),
        _ => None,
    }
}

fn check(form: &Form) -> Vec<Violation> {
    let mut c = Checks::default();
    let input = input(form, &mut c);
    let mut violations = c.into_violations();
    violations.extend(input.validate());
    violations
}

fn open(modal: &mut crate::console::widgets::modal::Modal, choices: Choices, from: Option<&RunPlanInput>) {
    let title = if from.is_some() { "new run plan (a copy)" } else { "new run plan" };
    let mut form = Form::new(title, fields(&choices), check).with_rename(rename);
    if let Some(plan) = from {
        prefill::prefill(&mut form, plan, choices.metrics.as_deref().unwrap_or_default());
        form.revalidate();
    }
    modal.form(form, |form| Write::CreatePlan(Box::new(input(form, &mut Checks::default()))));
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::fields::{edge_param, flow_param};
    use super::*;

    #[test]
    fn an_error_on_the_second_picked_flow_lands_on_its_field() {
        let flows: Vec<CustomerFlow> = (0..3)
            .map(|i| {
                serde_json::from_value(serde_json::json!({"id": Uuid::from_u128(i + 1), "title": format!("f{i}")}))
                    .unwrap()
            })
            .collect();
        let choices = Choices {
            flows: Some(flows.clone()),
            endpoints: Some(vec![]),
            metrics: Some(vec![]),
            personas: Some(vec![]),
            agents: Some(vec![]),
        };
        let mut form = Form::new("t", fields(&choices), |_| vec![]).with_rename(rename);
        let picks = form.field_mut("flows").unwrap();
        picks.set_picked(&flows[0].id.to_string(), true);
        picks.set_picked(&flows[2].id.to_string(), true);
        assert_eq!(rename(&form, "flows[1].happyPath"), Some(format!("flow:{}.happyPath", flows[2].id)));
        form.failed(&crate::console::message::WriteError {
            missing_route: false,
            unreachable: false,
            forbidden: false,
            message: "no".into(),
            fields: vec![("flows[1].happyPath".into(), "nothing to run".into())],
        });
        let param = flow_param(&flows[2].id, "happyPath");
        assert_eq!(form.field(&param).unwrap().error.as_deref(), Some("nothing to run"));
    }

    #[test]
    fn an_error_on_a_picked_edge_case_lands_on_its_own_field() {
        let case = |i: u128| serde_json::json!({"id": Uuid::from_u128(100 + i), "title": format!("case {i}")});
        let flow: CustomerFlow = serde_json::from_value(
            serde_json::json!({"id": Uuid::from_u128(1), "title": "f", "edgeCases": [case(0), case(1)]}),
        )
        .unwrap();
        let choices = Choices {
            flows: Some(vec![flow.clone()]),
            endpoints: Some(vec![]),
            metrics: Some(vec![]),
            personas: Some(vec![]),
            agents: Some(vec![]),
        };
        let mut form = Form::new("t", fields(&choices), |_| vec![]).with_rename(rename);
        form.field_mut("flows").unwrap().set_picked(&flow.id.to_string(), true);
        let picked = flow_param(&flow.id, "edgeCaseIds");
        form.field_mut(&picked).unwrap().set_picked(&Uuid::from_u128(101).to_string(), true);
        form.focus_on(&flow_param(&flow.id, "edgeCases"));
        for _ in 0..2 {
            form.key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Right));
        }
        assert_eq!(form.value(&flow_param(&flow.id, "edgeCases")), EDGE_PICKED);
        let variables = edge_param(&Uuid::from_u128(101), "variables");
        assert_eq!(rename(&form, "flows[0].edgeCases[0].variables").as_deref(), Some(variables.as_str()));
        let unknown = rename(&form, "flows[0].edgeCases[0].id");
        assert_eq!(unknown, Some(format!("flow:{}.edgeCases[0].id", flow.id)), "owned by the edge-case choice");
    }
}
