//! `R`: run the selected plan. The form lists the `{{variables}}` the plan's flows use, one
//! field each, filled with the value the plan pins where it pins one; a value is typed as it
//! is (commas, `=` and spaces too). Only values that differ from the plan's are sent, as the
//! run's runtime variables; names no flow shows go in a `k=v, k=v` field below. The form opens
//! once the flows have arrived; the console then opens the new job, live, in the jobs tab.

use crate::api::model::{CustomerFlow, RunPlan, RunRequest, RunVariables, Variables};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request, Write};
use crate::console::out::Out;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

/// Whether `word` can be a variable's name, so `name=` starts a new pair.
fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `k=v` pairs separated by commas or new lines. A piece that does not start with `name=` is
/// part of the value before it, so a value may hold commas (`when=Thursday, October 8`); the
/// first piece must be a pair.
pub fn parse_variables(text: &str) -> Result<Variables, String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for piece in text.split([',', '\n']) {
        match (piece.split_once('='), pairs.last_mut()) {
            (Some((key, value)), _) if is_name(key.trim()) => pairs.push((key.trim().into(), value.trim().into())),
            (_, Some((_, value))) => {
                value.push(',');
                value.push_str(piece.trim_end());
            }
            _ if piece.trim().is_empty() => {}
            _ => return Err(format!("{:?} is not key=value", piece.trim())),
        }
    }
    Ok(pairs.into_iter().map(|(k, v)| (k, v.trim().to_string())).collect())
}

/// The `k=v` pairs typed into `param` (None when blank), or a violation under it.
pub fn variables(form: &Form, param: &str, c: &mut Checks) -> Option<Variables> {
    match parse_variables(&form.value(param)) {
        Ok(variables) => (!variables.is_empty()).then_some(variables),
        Err(message) => {
            c.invalid(param, message);
            None
        }
    }
}

/// One variable of the run form: its name, the flows that use it, and what the plan pins.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub name: String,
    pub flows: Vec<String>,
    /// The plan's value; None when it pins none, or different ones for different flows.
    pub pinned: Option<String>,
    /// The plan pins different values for different flows.
    pub varies: bool,
}

/// The variables of `plan`'s flows (those of `flows` it selects), then any it pins that no
/// flow shows; in the order the flows use them.
pub fn listed(plan: &RunPlan, flows: &[CustomerFlow]) -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    let mut add = |name: &str, flow: Option<&str>, value: Option<&String>| {
        let at = match out.iter().position(|l| l.name == name) {
            Some(at) => at,
            None => {
                let entry = Listed { name: name.into(), flows: vec![], pinned: None, varies: false };
                out.push(entry);
                out.len() - 1
            }
        };
        let entry = &mut out[at];
        if let Some(flow) = flow.filter(|f| !entry.flows.iter().any(|g| g == f)) {
            entry.flows.push(flow.to_string());
        }
        match (value, &entry.pinned) {
            (Some(value), None) if !entry.varies => entry.pinned = Some(value.clone()),
            (Some(value), Some(pinned)) if value != pinned => {
                entry.pinned = None;
                entry.varies = true;
            }
            _ => {}
        }
    };
    for selection in plan.plan.flows.iter().flatten() {
        let flow = flows.iter().find(|f| {
            Some(f.id) == selection.id || (f.slug.is_some() && f.slug.as_deref() == selection.slug.as_deref())
        });
        let title = flow.and_then(|f| f.title.as_deref()).unwrap_or("a flow");
        let pinned = selection.variables.clone().unwrap_or_default();
        for name in flow.map(CustomerFlow::variables).unwrap_or_default() {
            add(&name, Some(title), pinned.get(&name));
        }
        for (name, value) in &pinned {
            add(name, Some(title), Some(value));
        }
        if let Some(crate::api::model::EdgeCases::List(cases)) = &selection.edge_cases {
            for (name, value) in cases.iter().flat_map(|c| c.variables.iter().flatten()) {
                add(name, Some(title), Some(value));
            }
        }
    }
    for (name, value) in plan.plan.scenarios.iter().flatten().flat_map(|s| s.variables.iter().flatten()) {
        add(name, None, Some(value));
    }
    out
}

/// A variable's field.
fn param(name: &str) -> String {
    format!("variables.{name}")
}

/// The field of one listed variable, with the plan's value in it; `several` flows name
/// the flows that use it.
fn field(variable: &Listed, several: bool) -> Field {
    let used = match variable.flows.as_slice() {
        flows if several && !flows.is_empty() => format!(" · in {}", flows.join(", ")),
        _ => String::new(),
    };
    let hint = match (&variable.pinned, variable.varies) {
        (_, true) => format!("pinned per flow · a value here overrides them{used}"),
        (Some(_), _) => format!("pinned · a change applies to this run only{used}"),
        (None, _) => format!("not pinned · optional{used}"),
    };
    Field::text(param(&variable.name), variable.name.clone(), variable.pinned.as_deref().unwrap_or(""), hint)
}

fn request(plan: &RunPlan, listed: &[Listed], form: &Form, c: &mut Checks) -> RunRequest {
    let mut values = variables(form, "variables", c).unwrap_or_default();
    for variable in listed {
        let value = form.value(&param(&variable.name));
        if !value.is_empty() && Some(&value) != variable.pinned.as_ref() {
            values.insert(variable.name.clone(), value);
        }
    }
    RunRequest {
        plan_id: Some(plan.id),
        variables: (!values.is_empty()).then_some(RunVariables::Flat(values)),
        ..Default::default()
    }
}

/// Opens the run form for `plan`, listing the variables `flows` show.
pub fn open(modal: &mut Modal, plan: &RunPlan, flows: &[CustomerFlow]) {
    let listed = listed(plan, flows);
    let several = plan.plan.flows.as_ref().is_some_and(|f| f.len() > 1);
    let mut fields: Vec<Field> = listed.iter().map(|v| field(v, several)).collect();
    let other = if listed.is_empty() { "runtime variables" } else { "other variables" };
    fields.push(Field::text("variables", other, "", "optional · k=v, k=v · a value may hold commas"));
    let (checked, checked_listed) = (plan.clone(), listed.clone());
    let check = move |form: &Form| -> Vec<Violation> {
        let mut c = Checks::default();
        let request = request(&checked, &checked_listed, form, &mut c);
        let mut violations = c.into_violations();
        violations.extend(request.validate());
        violations
    };
    let plan = plan.clone();
    let title = format!("run {}", plan.name());
    modal.form(Form::new(title, fields, check), move |form| {
        Write::Run(Box::new(request(&plan, &listed, form, &mut Checks::default())))
    });
}

/// `R` pressed: the plan whose form opens when the flows arrive.
#[derive(Default)]
pub struct RunForm {
    waiting: Option<RunPlan>,
}

impl RunForm {
    /// Asks for the flows, to list the variables they use.
    pub fn start(&mut self, plan: &RunPlan, out: &mut Out) {
        self.waiting = Some(plan.clone());
        out.fetch(Request::List(ListKind::Flows));
    }

    /// Opens the form when the flows arrive (with the plan's pinned values only, should they
    /// not); true when it opened.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        if *request != Request::List(ListKind::Flows) {
            return false;
        }
        let Some(plan) = self.waiting.take() else { return false };
        let flows = match result {
            Ok(Fetched::List(Listing::Flows(flows), _)) => flows.as_slice(),
            _ => &[],
        };
        open(&mut out.modal, &plan, flows);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_may_hold_commas_equals_and_spaces() {
        let vars = parse_variables("a=1, b = two\nc=x=y").unwrap();
        assert_eq!(vars.get("b").map(String::as_str), Some("two"));
        assert_eq!(vars.get("c").map(String::as_str), Some("x=y"));
        let when = parse_variables("currentAppointment=Thursday, October 8 at 9:00 AM, tier=gold").unwrap();
        assert_eq!(when.get("currentAppointment").map(String::as_str), Some("Thursday, October 8 at 9:00 AM"));
        assert_eq!(when.get("tier").map(String::as_str), Some("gold"));
        assert!(parse_variables("").unwrap().is_empty());
        assert!(parse_variables("oops, a=1").is_err(), "the first piece must be a pair");
        assert!(parse_variables("=1").is_err());
    }
}
