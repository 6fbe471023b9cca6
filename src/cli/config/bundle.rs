//! A bundle read from files: every resource of every document of every file named (a directory
//! gives its `*.yaml`, `*.yml` and `*.json` in name order), each remembering the file and line
//! it was written on, so a refusal of the service points at the line, and `${NAME}` filled from
//! the environment so that secrets stay out of the files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::api::validate::{index, join};
use crate::cli::exit::Failure;
use crate::cli::file_kind::{Shape, shape};
use crate::cli::input::Document;

/// The resources of the files, in the order written, and where each was written.
#[derive(Debug, Default)]
pub struct Bundle {
    documents: Vec<Document>,
    pub resources: Vec<Value>,
    origins: Vec<Origin>,
}

/// Where one resource was written: a document and the member path of the resource in it.
#[derive(Debug, Clone)]
struct Origin {
    document: usize,
    path: String,
}

/// One problem found in the files, pointed at its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub param: String,
    pub message: String,
}

impl Bundle {
    /// Reads every path (files or directories), all of them, and reports every problem at once.
    pub fn read(paths: &[PathBuf]) -> Result<Bundle, Failure> {
        let mut bundle = Bundle::default();
        let mut problems = Vec::new();
        for file in files(paths)? {
            let text = std::fs::read_to_string(&file).map_err(|e| {
                let mut failure = Failure::io(format!("cannot read {}", file.display()), e);
                failure.exit = crate::cli::Exit::Usage;
                failure
            })?;
            match Document::parse_all(&file.display().to_string(), &text) {
                Ok(documents) => documents.into_iter().for_each(|d| bundle.add(d, &mut problems)),
                Err(failure) => problems.push(Problem { param: "file".into(), message: failure.body.message.clone() }),
            }
        }
        if bundle.resources.is_empty() && problems.is_empty() {
            problems.push(Problem { param: "file".into(), message: "the files hold no resource".into() });
        }
        problems.extend(bundle.fill_environment(&|name| std::env::var(name).ok()));
        refuse(problems)?;
        Ok(bundle)
    }

    /// A bundle read from text, for the tests of this module.
    #[cfg(test)]
    pub fn parse(name: &str, text: &str) -> Result<Bundle, Failure> {
        let mut bundle = Bundle::default();
        let mut problems = Vec::new();
        for document in Document::parse_all(name, text)? {
            bundle.add(document, &mut problems);
        }
        refuse(problems)?;
        Ok(bundle)
    }

    /// A document holds one resource (it has `kind`), a list of them, or `resources:` as the
    /// interface's request does.
    fn add(&mut self, document: Document, problems: &mut Vec<Problem>) {
        let at = self.documents.len();
        let found: Vec<(String, Value)> = match shape(&document.value) {
            Shape::Empty => Vec::new(),
            Shape::Resources(found) => found.into_iter().map(|(at, resource)| (at, resource.clone())).collect(),
            Shape::PlanFile => {
                let message = crate::cli::file_kind::plan_file_in_bundle(&document);
                problems.push(Problem { param: "kind".into(), message });
                Vec::new()
            }
            Shape::KindNotText => {
                let message = crate::cli::file_kind::kind_not_text(&document);
                problems.push(Problem { param: "kind".into(), message });
                Vec::new()
            }
            Shape::Unknown => {
                problems.push(Problem {
                    param: "kind".into(),
                    message: format!(
                        "{}: a document holds one resource (with `kind:`), a list of them, or `resources:`",
                        document.place("")
                    ),
                });
                Vec::new()
            }
        };
        for (path, resource) in found {
            self.resources.push(resource);
            self.origins.push(Origin { document: at, path });
        }
        self.documents.push(document);
    }

    /// Fills `${NAME}` in every text member from `lookup`; `$${` is a literal `${`. Every unset
    /// name is a problem naming the variable, the file and the line.
    fn fill_environment(&mut self, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<Problem> {
        let mut problems = Vec::new();
        for i in 0..self.resources.len() {
            let mut missing = Vec::new();
            fill(&mut self.resources[i], "", lookup, &mut missing);
            for (param, name) in missing {
                let message = format!("${{{name}}} is not set in the environment (export {name}=… before running)");
                problems.push(self.problem(i, &param, &message));
            }
        }
        problems
    }

    /// The resource's `KIND/NAME`, as the service's changes name it.
    pub fn config_key(&self, i: usize) -> Option<String> {
        let resource = &self.resources[i];
        Some(format!("{}/{}", resource.get("kind")?.as_str()?, resource.get("name")?.as_str()?))
    }

    /// A problem with member `param` of resource `i`, pointed at its file and line.
    fn problem(&self, i: usize, param: &str, message: &str) -> Problem {
        let origin = &self.origins[i];
        let full = match (origin.path.is_empty(), param.is_empty()) {
            (true, _) => param.to_string(),
            (false, true) => origin.path.clone(),
            (false, false) if param.starts_with('[') => format!("{}{param}", origin.path),
            (false, false) => join(&origin.path, param),
        };
        let named = self.config_key(i).map(|k| format!("{k}: ")).unwrap_or_default();
        let message = message.strip_prefix(&format!("{param}: ")).unwrap_or(message);
        let member = if param.is_empty() || message.contains(param) { String::new() } else { format!("{param}: ") };
        Problem {
            param: param.to_string(),
            message: format!("{}: {named}{member}{message}", self.documents[origin.document].place(&full)),
        }
    }

    /// The service's refusal with each violation pointed at the file and line of the member it
    /// names: by `configKey`, else by the resource's position (`resources[3].graph[0]`).
    pub fn locate(&self, error: crate::api::Error) -> Failure {
        let mut failure = Failure::from(error);
        let Some(violations) =
            failure.body.details.as_ref().and_then(|d| d.get("violations")).and_then(Value::as_array).cloned()
        else {
            return failure;
        };
        let mut lines = Vec::new();
        for violation in &violations {
            let text = |member: &str| violation.get(member).and_then(Value::as_str).unwrap_or_default().to_string();
            let (param, message) = (text("param"), text("message"));
            let located = match self.resource_of(&text("configKey"), &param) {
                Some((i, relative)) => {
                    // The service names the member from the body's root; the file, from the resource.
                    let message = match message.strip_prefix(param.as_str()) {
                        Some(rest) if !relative.is_empty() => format!("{relative}{rest}"),
                        // `unknown field resources[0].x` names it inside the message.
                        _ if !relative.is_empty() && !param.is_empty() => message.replace(&param, &relative),
                        _ => message.clone(),
                    };
                    self.problem(i, &relative, &message).message
                }
                None if param.is_empty() || message.contains(&param) => message,
                None => format!("{param}: {message}"),
            };
            lines.push(located);
        }
        failure.body.message =
            format!("the bundle was refused ({} problem(s)):\n  {}", lines.len(), lines.join("\n  "));
        failure
    }

    /// Which resource a violation is about, and its member path within that resource.
    fn resource_of(&self, config_key: &str, param: &str) -> Option<(usize, String)> {
        if let Some(rest) = param.strip_prefix("resources[") {
            let (n, tail) = rest.split_once(']')?;
            let i: usize = n.parse().ok()?;
            return (i < self.resources.len()).then(|| (i, tail.trim_start_matches('.').to_string()));
        }
        let i = (0..self.resources.len()).find(|&i| self.config_key(i).as_deref() == Some(config_key))?;
        Some((i, param.to_string()))
    }
}

/// Refuses with every problem at once (exit 2), or passes.
fn refuse(problems: Vec<Problem>) -> Result<(), Failure> {
    let Some(first) = problems.first() else { return Ok(()) };
    let text = if problems.len() == 1 {
        first.message.clone()
    } else {
        let lines: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        format!("the bundle has {} problems:\n  {}", problems.len(), lines.join("\n  "))
    };
    let mut failure = Failure::invalid(first.param.clone(), text);
    failure.body.details = Some(serde_json::json!({
        "violations": problems.iter().map(|p| serde_json::json!({"param": p.param, "message": p.message})).collect::<Vec<_>>()
    }));
    Err(failure)
}

/// The files the paths name: a file as given, a directory's bundle files in name order.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries =
                std::fs::read_dir(path).map_err(|e| Failure::io(format!("cannot read {}", path.display()), e))?;
            let mut inside: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file() && is_bundle_file(p)).collect();
            inside.sort();
            if inside.is_empty() {
                return Err(Failure::invalid(
                    "file",
                    format!("{} holds no *.yaml, *.yml or *.json file", path.display()),
                ));
            }
            found.extend(inside);
        } else if path.exists() {
            found.push(path.clone());
        } else {
            return Err(Failure::invalid("file", format!("{}: no such file or directory", path.display())));
        }
    }
    Ok(found)
}

fn is_bundle_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))
}

/// Fills `${NAME}` in every text under `value`; records `(member path, NAME)` of unset ones.
fn fill(value: &mut Value, at: &str, lookup: &dyn Fn(&str) -> Option<String>, missing: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) if text.contains("${") => {
            let (filled, unset) = substitute(text, lookup);
            missing.extend(unset.into_iter().map(|name| (at.to_string(), name)));
            *text = filled;
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                fill(item, &index(at, i), lookup, missing);
            }
        }
        Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                fill(item, &join(at, key), lookup, missing);
            }
        }
        _ => {}
    }
}

/// `text` with each `${NAME}` replaced by its value (`$${` stays a literal `${`), and the names
/// that have none.
pub fn substitute(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut unset = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        if rest[..start].ends_with('$') {
            out.push_str(&rest[..start - 1]);
            out.push_str("${");
            rest = &rest[start + 2..];
            continue;
        }
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return (out, unset);
        };
        let name = &rest[start + 2..start + end];
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None => unset.push(name.to_string()),
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    (out, unset)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUNDLE: &str = "kind: persona\nname: sam\naccent: US\n---\nresources:\n  - kind: metric\n    name: polite\n    prompt: Was the agent polite?\n    type: BOOLEAN\n  - kind: httpRequestDefinition\n    name: turn\n    url: http://127.0.0.1/turn\n    headers:\n      Authorization: Bearer ${AGENT_TOKEN}\n";

    #[test]
    fn documents_lists_and_resources_members_all_give_resources_in_order() {
        let bundle = Bundle::parse("suite.yaml", BUNDLE).unwrap();
        let keys: Vec<_> = (0..bundle.resources.len()).map(|i| bundle.config_key(i).unwrap()).collect();
        assert_eq!(keys, ["persona/sam", "metric/polite", "httpRequestDefinition/turn"]);
    }

    #[test]
    fn an_unset_variable_names_itself_the_file_and_the_line() {
        let mut bundle = Bundle::parse("suite.yaml", BUNDLE).unwrap();
        let problems = bundle.fill_environment(&|_| None);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].message.starts_with(
                "suite.yaml:14: httpRequestDefinition/turn: headers.Authorization: ${AGENT_TOKEN} is not set"
            ),
            "{problems:?}"
        );
        let problems = bundle.fill_environment(&|name| (name == "AGENT_TOKEN").then(|| "s3cret".to_string()));
        assert!(problems.is_empty());
    }

    #[test]
    fn substitution_fills_known_names_and_keeps_escaped_ones() {
        let lookup = |name: &str| (name == "A").then(|| "1".to_string());
        assert_eq!(substitute("x${A}y${B}z$${A}", &lookup), ("x1yz${A}".to_string(), vec!["B".to_string()]));
    }

    #[test]
    fn a_refusal_points_each_violation_at_its_line_by_config_key_or_position() {
        let bundle = Bundle::parse("suite.yaml", BUNDLE).unwrap();
        let body = serde_json::json!({"type": "validation", "code": "invalid_parameter",
            "message": "2 problems", "details": {"violations": [
                {"configKey": "metric/polite", "param": "type", "message": "type: unknown"},
                {"configKey": "", "param": "resources[0].accent", "message": "accent: bad"}]}});
        let error = crate::api::Error::Api(Box::new(crate::api::error::ApiError::from_response(
            400,
            body.to_string().as_bytes(),
            None,
        )));
        let failure = bundle.locate(error);
        assert!(
            failure.body.message.contains("suite.yaml:9: metric/polite: type: unknown"),
            "{}",
            failure.body.message
        );
        assert!(failure.body.message.contains("suite.yaml:3: persona/sam: accent: bad"), "{}", failure.body.message);
    }
}
