//! YAML (and JSON, which YAML 1.2 contains) read as JSON values with the line each member
//! starts on, and JSON values written back as YAML: the one place the project reads and
//! writes the files people edit (plan files, config bundles, the console's editor).

use std::collections::HashMap;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};
use serde_json::{Map, Number, Value};

use crate::api::validate::{index, join};

/// One document: its members as JSON, and the line each member (by path, `flows[0].slug`)
/// starts on.
#[derive(Debug, Clone, Default)]
pub struct Marked {
    pub value: Value,
    pub lines: HashMap<String, usize>,
}

/// Why a text is not YAML, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub line: usize,
    /// The member path it is at (empty for the document, or a syntax error).
    pub at: String,
    pub message: String,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Every document of `text` (YAML documents separated by `---`; a JSON text is one).
pub fn documents(text: &str) -> Result<Vec<Marked>, YamlError> {
    let docs = MarkedYaml::load_from_str(text).map_err(|e| {
        let at = e.marker();
        YamlError {
            line: at.line(),
            at: String::new(),
            message: format!("not valid JSON or YAML (column {}): {}", at.col() + 1, e.info()),
        }
    })?;
    docs.iter()
        .map(|root| {
            let mut lines = HashMap::new();
            let value = convert(root, "", &mut lines)?;
            Ok(Marked { value, lines })
        })
        .collect()
}

impl Marked {
    /// The line `param` (`flows[0].happyPath`) starts on, or its nearest parent's.
    pub fn line_of(&self, param: &str) -> Option<usize> {
        line_of(&self.lines, param)
    }
}

/// The line `param` starts on in `lines` (by member path), or its nearest parent's.
pub fn line_of(lines: &HashMap<String, usize>, param: &str) -> Option<usize> {
    let mut path = param.to_string();
    loop {
        if let Some(line) = lines.get(&path) {
            return Some(*line);
        }
        let cut = path.rfind(['.', '['])?;
        path.truncate(cut);
    }
}

fn convert(node: &MarkedYaml, at: &str, lines: &mut HashMap<String, usize>) -> Result<Value, YamlError> {
    lines.entry(at.to_string()).or_insert(node.span.start.line());
    let here = |message: &str| YamlError { line: node.span.start.line(), at: at.to_string(), message: message.into() };
    Ok(match &node.data {
        YamlData::Value(scalar) => scalar_value(scalar),
        YamlData::Representation(text, _, _) => Value::String(text.to_string()),
        YamlData::Sequence(items) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                values.push(convert(item, &index(at, i), lines)?);
            }
            Value::Array(values)
        }
        YamlData::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping {
                let key_text = match &key.data {
                    YamlData::Value(Scalar::String(text)) => text.to_string(),
                    YamlData::Value(other) => scalar_value(other).to_string(),
                    YamlData::Representation(text, _, _) => text.to_string(),
                    _ => return Err(here("member names must be plain text")),
                };
                let path = join(at, &key_text);
                lines.insert(path.clone(), key.span.start.line());
                object.insert(key_text, convert(value, &path, lines)?);
            }
            Value::Object(object)
        }
        YamlData::Tagged(_, inner) => convert(inner, at, lines)?,
        YamlData::Alias(_) => return Err(here("YAML aliases are not supported; write the value out")),
        YamlData::BadValue => return Err(here("this value cannot be read")),
    })
}

fn scalar_value(scalar: &Scalar) -> Value {
    match scalar {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::Integer(i) => Value::Number((*i).into()),
        Scalar::FloatingPoint(f) => Number::from_f64(f.into_inner()).map(Value::Number).unwrap_or(Value::Null),
        Scalar::String(text) => Value::String(text.to_string()),
    }
}

/// `value` as a YAML document (without the leading `---`), long texts as literal blocks.
pub fn to_text(value: &Value) -> String {
    let mut out = String::new();
    let mut emitter = saphyr::YamlEmitter::new(&mut out);
    emitter.multiline(true);
    // Writing to a String cannot fail; a value JSON holds is always YAML.
    let _ = emitter.dump(&to_yaml(value));
    let text = out.strip_prefix("---\n").or_else(|| out.strip_prefix("---")).unwrap_or(&out);
    format!("{}\n", text.trim_end())
}

fn to_yaml(value: &Value) -> saphyr::Yaml<'static> {
    use saphyr::Yaml;
    match value {
        Value::Null => Yaml::Value(Scalar::Null),
        Value::Bool(b) => Yaml::Value(Scalar::Boolean(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Yaml::Value(Scalar::Integer(i)),
            None => Yaml::Value(Scalar::FloatingPoint(n.as_f64().unwrap_or_default().into())),
        },
        Value::String(text) => Yaml::Value(Scalar::String(text.clone().into())),
        Value::Array(items) => Yaml::Sequence(items.iter().map(to_yaml).collect()),
        Value::Object(object) => Yaml::Mapping(
            object.iter().map(|(k, v)| (Yaml::Value(Scalar::String(k.clone().into())), to_yaml(v))).collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_written_as_yaml_read_back_the_same() {
        let value = serde_json::json!({
            "kind": "flow", "name": "refill", "n": 3, "rate": 0.5, "on": true, "none": null,
            "yes": "yes", "number text": "42", "empty": "", "list": [], "map": {},
            "prompt": "Line one.\nLine two: with a colon.\n",
            "graph": [{"type": "AGENT_TURN", "content": "Agent greets the caller", "steps": [{"ref": "#1"}]}],
        });
        let text = to_text(&value);
        let back = documents(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].value, value, "{text}");
        assert!(text.contains("prompt: |"), "long texts are blocks: {text}");
    }

    #[test]
    fn lines_are_kept_per_member() {
        let docs = documents("a: 1\n---\nflows:\n  - slug: x\n    happyPath: true\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].line_of("flows[0].happyPath"), Some(5));
        assert_eq!(docs[1].line_of("flows[0].nothing"), Some(4));
    }
}
