//! Input files (`-f FILE`, JSON or YAML, `-` for stdin) read into the interface's input types,
//! with every error naming the field and the line it is on. JSON is read by the same YAML
//! parser (YAML 1.2 is a superset of JSON), which keeps where each member starts.

use std::collections::HashMap;
use std::io::Read;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::exit::Failure;
use crate::api::validate::Validate;

/// A parsed input file: its members as JSON, and the line each member starts on.
#[derive(Debug)]
pub struct Document {
    /// The file's name as given (`stdin` for `-`).
    pub name: String,
    pub value: Value,
    lines: HashMap<String, usize>,
}

impl Document {
    /// Reads every document of `file`: its name as errors say it (`stdin` for `-`) and them.
    pub fn read_all(file: &str) -> Result<(String, Vec<Document>), Failure> {
        let (name, text) = Document::read_text(file)?;
        Ok((name.clone(), Document::parse_all(&name, &text)?))
    }

    /// The one document of a file read with `read_all`.
    pub fn only(name: &str, mut documents: Vec<Document>) -> Result<Document, Failure> {
        match documents.len() {
            1 => Ok(documents.remove(0)),
            0 => Err(Failure::invalid("file", format!("{name} is empty"))),
            _ => Err(Failure::invalid("file", format!("{name} holds several YAML documents; give one"))),
        }
    }

    fn read_text(file: &str) -> Result<(String, String), Failure> {
        Ok(if file == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| Failure::io("cannot read stdin", e))?;
            ("stdin".to_string(), text)
        } else {
            let text = std::fs::read_to_string(file).map_err(|e| {
                let mut failure = Failure::io(format!("cannot read {file}"), e);
                failure.exit = super::exit::Exit::Usage;
                failure
            })?;
            (file.to_string(), text)
        })
    }

    /// The one document of `text`.
    #[cfg(test)]
    pub fn parse(name: &str, text: &str) -> Result<Document, Failure> {
        Document::only(name, Document::parse_all(name, text)?)
    }

    /// Every document of a file (YAML documents separated by `---`; a JSON file is one).
    pub fn parse_all(name: &str, text: &str) -> Result<Vec<Document>, Failure> {
        let documents = crate::yaml::documents(text).map_err(|e| {
            let at = if e.at.is_empty() { "file".to_string() } else { e.at.clone() };
            let member = if e.at.is_empty() { String::new() } else { format!("{}: ", e.at) };
            Failure::invalid(at, format!("{name}:{}: {member}{}", e.line, e.message))
        })?;
        Ok(documents.into_iter().map(|d| Document { name: name.to_string(), value: d.value, lines: d.lines }).collect())
    }

    /// The line `param` (`flows[0].happyPath`) starts on, or its nearest parent's.
    pub fn line_of(&self, param: &str) -> Option<usize> {
        crate::yaml::line_of(&self.lines, param)
    }

    /// `name:LINE: param: message`, as a usage failure naming the field.
    pub fn error(&self, param: &str, message: &str) -> Failure {
        Failure::invalid(param, self.locate(param, message))
    }

    /// `name:LINE` of member `param` (or of its nearest parent), `name` when none is known.
    pub fn place(&self, param: &str) -> String {
        match self.line_of(param) {
            Some(line) => format!("{}:{line}", self.name),
            None => self.name.clone(),
        }
    }

    fn locate(&self, param: &str, message: &str) -> String {
        let line = self.line_of(param).map(|l| format!(":{l}")).unwrap_or_default();
        let message = message.strip_prefix(&format!("{param}: ")).unwrap_or(message);
        if param.is_empty() || message.contains(param) {
            format!("{}{line}: {message}", self.name)
        } else {
            format!("{}{line}: {param}: {message}", self.name)
        }
    }

    /// Takes a top-level member out (our extensions, such as `agent`), so the rest can be
    /// read strictly.
    pub fn take(&mut self, member: &str) -> Option<Value> {
        self.value.as_object_mut().and_then(|object| object.remove(member))
    }

    /// Decodes into `T` and checks its rules; every violation names its field and line.
    pub fn decode<T: DeserializeOwned + Validate>(&self, what: &str) -> Result<T, Failure> {
        let (decoded, unread) = super::decode_words::decode_all::<T>(&self.value);
        // Rules are checked on what could be read; a member set aside is reported once, as unread.
        let mut problems: Vec<(String, String, &str)> =
            unread.iter().map(|(param, message)| (param.clone(), message.clone(), "invalid_type")).collect();
        for violation in decoded.as_ref().map(Validate::validate).unwrap_or_default() {
            if !unread.iter().any(|(param, _)| violation.param.starts_with(param.as_str())) {
                problems.push((violation.param.clone(), violation.message.clone(), violation.code.as_str()));
            }
        }
        // Read in the file's order, as an editor shows it, not the order they were checked in;
        // a member with no line of its own (none found) goes last.
        problems.sort_by_key(|(param, _, _)| self.line_of(param).map_or((1, 0), |line| (0, line)));
        match (decoded, problems.first()) {
            (Some(value), None) => Ok(value),
            (_, first) => {
                let mut text = format!("{} is not a valid {what}:", self.name);
                for (param, message, _) in &problems {
                    text.push_str(&format!("\n  {}", self.locate(param, message)));
                }
                let mut failure = Failure::invalid(first.map(|p| p.0.clone()).unwrap_or_default(), text);
                failure.body.details = Some(
                    serde_json::json!({ "violations": problems.iter().map(|(param, message, code)| serde_json::json!({
                    "param": param, "code": code, "message": message, "line": self.line_of(param),
                })).collect::<Vec<_>>() }),
                );
                Err(failure)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::RunPlanInput;

    #[test]
    fn yaml_and_json_errors_name_the_field_and_the_line() {
        let yaml = "name: Nightly\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nagentEndpoints:\n  - id: 3ef56f2f-6852-551a-9606-085f303173de\nmetrics:\n  - slug: call_duration\n    minPassRate: 120\nflows:\n  - slug: reschedule\n    happyPath: true\n";
        let error = Document::parse("plan.yaml", yaml).unwrap().decode::<RunPlanInput>("run plan").unwrap_err();
        assert_eq!(error.body.param.as_deref(), Some("metrics[0].minPassRate"));
        assert!(
            error.body.message.contains("plan.yaml:8: metrics[0].minPassRate must be between 0 and 100"),
            "{}",
            error.body.message
        );

        let json = "{\n  \"name\": \"Nightly\",\n  \"direction\": \"INBOUND\",\n  \"iterationCount\": \"three\"\n}";
        let error = Document::parse("plan.json", json).unwrap().decode::<RunPlanInput>("run plan").unwrap_err();
        assert_eq!(error.body.param.as_deref(), Some("iterationCount"));
        assert!(
            error.body.message.contains("plan.json:4: iterationCount: must be a whole number, not \"three\""),
            "{}",
            error.body.message
        );

        // Checked in another order (a value that cannot be read before the rules), said by line.
        let yaml = "name: Nightly\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nagentEndpoints:\n  - id: 3ef56f2f-6852-551a-9606-085f303173de\nflows:\n  - slug: reschedule\n    happyPath: true\nmetrics:\n  - slug: call_duration\n    minPassRate: 120\niterationCount: three\n";
        let error = Document::parse("plan.yaml", yaml).unwrap().decode::<RunPlanInput>("run plan").unwrap_err();
        let lines: Vec<&str> = error.body.message.lines().skip(1).collect();
        assert_eq!(lines.len(), 2, "{}", error.body.message);
        assert!(lines[0].contains("plan.yaml:11: ") && lines[1].contains("plan.yaml:12: "), "{}", error.body.message);
        assert_eq!(error.body.param.as_deref(), Some("metrics[0].minPassRate"), "the first line's member");

        let broken = Document::parse("bad.yaml", "name: [unclosed\n").unwrap_err();
        assert!(broken.body.message.starts_with("bad.yaml:"), "{}", broken.body.message);
    }
}
