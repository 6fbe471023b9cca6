//! A bundle's resources decoded and checked one by one: unknown kinds and members, values of
//! the wrong shape or outside their enum, missing members, and names used twice in a kind.

use std::collections::HashMap;

use serde_json::Value;

use super::ConfigViolation;
use crate::api::model::config::{ConfigKind, ConfigResource, config_key};
use crate::api::validate::{Checks, index, join};

/// One bundle resource, decoded, with where it sits in the body.
#[derive(Debug, Clone)]
pub struct Entry {
    /// `resources[3]`.
    pub at: String,
    pub key: String,
    pub name: String,
    pub resource: ConfigResource,
}

/// Every resource that decodes, and a violation for each problem found on the way.
pub fn decode(resources: &[Value]) -> (Vec<Entry>, Vec<ConfigViolation>) {
    let mut entries = Vec::with_capacity(resources.len());
    let mut problems = Vec::new();
    let mut first: HashMap<String, String> = HashMap::new();
    for (i, value) in resources.iter().enumerate() {
        let at = index("resources", i);
        let key = guessed_key(value);
        let resource = match ConfigResource::decode(value, &at) {
            Ok(resource) => resource,
            Err(violation) => {
                problems.push(ConfigViolation::of(&key, violation));
                continue;
            }
        };
        let mut checks = Checks::default();
        resource.check(&mut checks, &at);
        problems.extend(checks.into_violations().into_iter().map(|v| ConfigViolation::of(&key, v)));
        let Some(name) = resource.name().map(str::to_owned) else { continue };
        let key = resource.config_key();
        if let Some(earlier) = first.get(&key) {
            let message = format!("{key} is named twice: {earlier} has the same kind and name");
            problems.push(ConfigViolation::invalid(&key, &join(&at, "name"), message));
            continue;
        }
        first.insert(key.clone(), at.clone());
        entries.push(Entry { at, key, name, resource });
    }
    (entries, problems)
}

/// `KIND/NAME` as far as a resource that does not decode says it.
fn guessed_key(value: &Value) -> String {
    let text = |member: &str| value.get(member).and_then(Value::as_str).unwrap_or_default();
    config_key(&ConfigKind::from(text("kind")), text("name"))
}
