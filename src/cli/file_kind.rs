//! Telling the two input formats apart: a plan file (`gate -f`, `run -f`, `plan create -f`:
//! the body of `POST /v1/simulation/plan`) and a bundle (`config apply -f`, `--suite`: resources
//! with `kind:`). Each given where the other is expected is refused saying what it is and the
//! command that takes it (exit 2), before anything is sent.

use serde_json::Value;

use super::exit::Failure;
use super::input::Document;
use crate::api::validate::index;

/// Members only a plan file has at its top level (a bundle plan says `maxDurationSeconds`, and
/// every bundle resource has `kind`).
const PLAN_FILE_MEMBERS: [&str; 3] = ["maxSimulationDurationSeconds", "agentEndpoints", "flows"];

/// What a document holds, by its shape: the one reading of it both the bundle reader
/// (`Bundle::add`) and the plan file reader use.
pub enum Shape<'a> {
    /// Nothing (an empty YAML document).
    Empty,
    /// A bundle's resources, each with the member path it was written at: the document itself
    /// (it has `kind`, path ``), `resources:` (`resources[2]`), or a list (`[0]`).
    Resources(Vec<(String, &'a Value)>),
    /// A plan file's members and no `kind`.
    PlanFile,
    /// A `kind` that is not text (`kind: 5`): neither a resource nor a plan file, whichever
    /// reader was given it.
    KindNotText,
    /// None of these.
    Unknown,
}

/// How `value` is shaped.
pub fn shape(value: &Value) -> Shape<'_> {
    fn listed<'a>(list: &'a [Value], at: &str) -> Vec<(String, &'a Value)> {
        list.iter().enumerate().map(|(i, r)| (index(at, i), r)).collect()
    }
    match value {
        Value::Null => Shape::Empty,
        Value::Object(object) if object.get("kind").is_some_and(|kind| !kind.is_string()) => Shape::KindNotText,
        Value::Object(object) if object.contains_key("kind") => Shape::Resources(vec![(String::new(), value)]),
        Value::Object(object) => match object.get("resources") {
            Some(Value::Array(list)) => Shape::Resources(listed(list, "resources")),
            _ if is_plan_file(value) => Shape::PlanFile,
            _ => Shape::Unknown,
        },
        Value::Array(list) => Shape::Resources(listed(list, "")),
        _ => Shape::Unknown,
    }
}

/// The resources of a document that reads as a bundle's; none for any other.
fn resources(value: &Value) -> Vec<&Value> {
    match shape(value) {
        Shape::Resources(found) => found.into_iter().map(|(_, resource)| resource).collect(),
        _ => Vec::new(),
    }
}

/// Whether a document is a bundle's: a resource with `kind`, `resources:`, or a list of them.
fn is_bundle(value: &Value) -> bool {
    value.get("resources").is_some_and(Value::is_array)
        || resources(value).first().is_some_and(|r| r.get("kind").is_some_and(Value::is_string))
}

/// Whether a document without `kind` reads as a plan file.
fn is_plan_file(value: &Value) -> bool {
    value.get("kind").is_none() && PLAN_FILE_MEMBERS.iter().any(|m| value.get(m).is_some())
}

/// The names of a bundle's plans (`kind: simulationPlan`), to name in the command to use.
fn plan_names(documents: &[Document]) -> Vec<String> {
    let plans = documents
        .iter()
        .flat_map(|d| resources(&d.value))
        .filter(|r| r.get("kind").and_then(Value::as_str) == Some("simulationPlan"));
    plans.filter_map(|r| r.get("name").and_then(Value::as_str)).map(str::to_owned).collect()
}

/// Refuses a bundle given where a plan file is expected, saying how to run it instead.
pub fn refuse_bundle(file: &str, documents: &[Document]) -> Result<(), Failure> {
    if let Some(document) = documents.iter().find(|d| matches!(shape(&d.value), Shape::KindNotText)) {
        return Err(Failure::invalid("kind", kind_not_text(document)));
    }
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

/// Why a document whose `kind` is not text is neither a resource nor a plan file: the
/// service's own words for a resource's (`kind must be a string`), at the member's line.
pub fn kind_not_text(document: &Document) -> String {
    let kind = document.value.get("kind").map(Value::to_string).unwrap_or_default();
    format!(
        "{}: kind must be a string, not {kind}: a bundle resource's kind (such as `persona` or \
         `simulationPlan`, quoted if it could read as a number); a plan file has no `kind`",
        document.place("kind")
    )
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
        assert!(matches!(shape(&plan[0].value), Shape::PlanFile));
        assert!(matches!(shape(&bundle[1].value), Shape::Resources(found) if found.len() == 1));
        let listed = Document::parse_all("l.yaml", "resources:\n  - kind: persona\n  - kind: metric\n").unwrap();
        let Shape::Resources(found) = shape(&listed[0].value) else { panic!("resources: is a bundle's") };
        assert_eq!(found.iter().map(|(at, _)| at.as_str()).collect::<Vec<_>>(), ["resources[0]", "resources[1]"]);
        assert!(matches!(shape(&serde_json::json!({"name": "x"})), Shape::Unknown));
    }

    #[test]
    fn a_kind_that_is_not_text_is_refused_naming_the_member_by_either_reader() {
        for text in ["kind: 5\nname: p\n", "name: p\nkind: [persona]\nmaxSimulationDurationSeconds: 60\n"] {
            let documents = Document::parse_all("k.yaml", text).unwrap();
            assert!(matches!(shape(&documents[0].value), Shape::KindNotText), "{text}");
            let refusal = refuse_bundle("k.yaml", &documents).unwrap_err();
            assert_eq!((refusal.exit, refusal.body.param.as_deref()), (super::super::exit::Exit::Usage, Some("kind")));
            let line = if text.starts_with("kind") { 1 } else { 2 };
            let message = &refusal.body.message;
            assert!(message.starts_with(&format!("k.yaml:{line}: kind must be a string, not ")), "{message}");
            assert!(!message.contains("is a bundle"), "{message}");
        }
    }
}
