//! `R`: run the selected plan with runtime variables (`k=v, k=v` or one pair a line); the
//! console then opens the new job, live, in the jobs tab.

use crate::api::model::{RunPlan, RunRequest, RunVariables, Variables};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::Write;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

/// `k=v` pairs separated by commas or new lines; the first pair that is not one is the error.
pub fn parse_variables(text: &str) -> Result<Variables, String> {
    let mut variables = Variables::new();
    for pair in text.split([',', '\n']).map(str::trim).filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                variables.insert(key.trim().to_string(), value.trim().to_string());
            }
            _ => return Err(format!("{pair:?} is not key=value")),
        }
    }
    Ok(variables)
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

fn request(plan: &RunPlan, form: &Form, c: &mut Checks) -> RunRequest {
    RunRequest {
        plan_id: Some(plan.id),
        variables: variables(form, "variables", c).map(RunVariables::Flat),
        ..Default::default()
    }
}

pub fn open(modal: &mut Modal, plan: &RunPlan) {
    let fields = vec![Field::text("variables", "runtime variables", "", "optional · k=v, k=v")];
    let checked = plan.clone();
    let check = move |form: &Form| -> Vec<Violation> {
        let mut c = Checks::default();
        let request = request(&checked, form, &mut c);
        let mut violations = c.into_violations();
        violations.extend(request.validate());
        violations
    };
    let plan = plan.clone();
    let title = format!("run {}", plan.name());
    modal.form(Form::new(title, fields, check), move |form| {
        Write::Run(Box::new(request(&plan, form, &mut Checks::default())))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pairs_by_comma_or_line() {
        let vars = parse_variables("a=1, b = two\nc=x=y").unwrap();
        assert_eq!(vars.get("b").map(String::as_str), Some("two"));
        assert_eq!(vars.get("c").map(String::as_str), Some("x=y"));
        assert!(parse_variables("").unwrap().is_empty());
        assert!(parse_variables("a=1, oops").is_err());
        assert!(parse_variables("=1").is_err());
    }
}
