//! Telling the two input formats apart: a plan file (`gate -f`, `run -f`, `plan create -f`:
//! the body of `POST /v1/simulation/plan`) and a bundle (`config apply -f`, `--suite`: resources
//! with `kind:`). Each given where the other is expected is refused saying what it is and the
//! command that takes it (exit 2), before anything is sent.

use serde_json::Value;

use super::exit::Failure;
use super::input::Document;

/// Members only a plan file has at its top level (a bundle plan says `maxDurationSeconds`, and
/// every bundle resource has `kind`).
const PLAN_FILE_MEMBERS: [&str; 3] = ["maxSimulationDurationSeconds", "agentEndpoints", "flows"];

/// Whether a document is a bundle's: one resource with `kind`, `resources:`, or a list of them.
fn is_bundle(value: &Value) -> bool {
    let has_kind = |v: &Value| v.get("kind").is_some_and(Value::is_string);
    match value {
        Value::Object(object) => has_kind(value) || object.get("resources").is_some_and(Value::is_array),
        Value::Array(items) => items.first().is_some_and(has_kind),
        _ => false,
    }
}

/// Whether a document without `kind` reads as a plan file.
pub fn is_plan_file(value: &Value) -> bool {
    value.get("kind").is_none() && PLAN_FILE_MEMBERS.iter().any(|m| value.get(m).is_some())
}

/// The names of a bundle's plans (`kind: simulationPlan`), to name in the command to use.
fn plan_names(documents: &[Document]) -> Vec<String> {
    let mut names = Vec::new();
    for document in documents {
        let resources: Vec<&Value> = match &document.value {
            Value::Array(items) => items.iter().collect(),
            Value::Object(o) => match o.get("resources").and_then(Value::as_array) {
                Some(items) => items.iter().collect(),
                None => vec![&document.value],
            },
            _ => Vec::new(),
        };
        let plans = resources.into_iter().filter(|r| r.get("kind").and_then(Value::as_str) == Some("simulationPlan"));
        names.extend(plans.filter_map(|r| r.get("name").and_then(Value::as_str)).map(str::to_owned));
    }
    names
}

/// Refuses a bundle given where a plan file is expected, saying how to run it instead.
pub fn refuse_bundle(file: &str, documents: &[Document]) -> Result<(), Failure> {
    let Some(bundle) = documents.iter().find(|d| is_bundle(&d.value)) else { return Ok(()) };
    let names = plan_names(documents);
    let plan = names.first().map_or_else(|| "PLAN".to_owned(), |n| format!("{n:?}"));
    let plans = match names.len() {
        0 => "it holds no plan (`kind: simulationPlan`)".to_owned(),
        _ => format!("its plans: {}", names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")),
    };
    Err(Failure::invalid(
        "file",
        format!(
            "{}: {file} is a bundle (resources with `kind:`, for `config apply`), not a plan file \
             (the body of POST /v1/simulation/plan); {plans}. Apply it and run its plan by name in one \
             line: `switchboard gate {plan} --suite {file}`, or `switchboard config apply -f {file}` \
             then `switchboard gate {plan}`",
            bundle.place("kind")
        ),
    ))
}

/// Why a document of a bundle is a plan file, and the commands that take it.
pub fn plan_file_in_bundle(document: &Document) -> String {
    format!(
        "{}: this is a plan file (the body of POST /v1/simulation/plan), not a bundle resource: run it with \
         `switchboard gate -f {name}` (or `run -f`), or save it with `switchboard plan create -f {name}`; \
         in a bundle a plan is a resource with `kind: simulationPlan` (docs/config.md)",
        document.place(""),
        name = document.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_and_a_plan_file_are_told_apart() {
        let bundle = Document::parse_all("b.yaml", "kind: persona\nname: p\n---\nkind: simulationPlan\nname: Smoke\n");
        let bundle = bundle.unwrap();
        let refusal = refuse_bundle("b.yaml", &bundle).unwrap_err();
        assert_eq!(refusal.exit, super::super::exit::Exit::Usage);
        let text = &refusal.body.message;
        assert!(text.starts_with("b.yaml:1: b.yaml is a bundle"), "{text}");
        assert!(text.contains("`switchboard gate \"Smoke\" --suite b.yaml`"), "{text}");
        let plan = Document::parse_all("p.yaml", "name: Nightly\nmaxSimulationDurationSeconds: 60\n").unwrap();
        assert!(refuse_bundle("p.yaml", &plan).is_ok());
        assert!(is_plan_file(&plan[0].value));
        assert!(!is_plan_file(&bundle[1].value));
    }
}
