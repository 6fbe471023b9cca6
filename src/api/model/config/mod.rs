//! Config as code: the hosted interface's bundle (`POST /v1/config/apply` and `…/diff`), its
//! resources tagged by `kind`, the changes an apply makes, and the mappings from the service's
//! resources back to the bundle's shapes (`export`).
//!
//! Every member is kept, known or not (`unknown_fields`), so a client reading a bundle tolerates
//! extras; the service refuses them through `validate()`, as it does for any other input.

mod agent;
mod alert;
mod change;
pub mod export;
mod flow;
mod metric;
mod persona;
mod plan;
mod skipped;

pub use agent::*;
pub use alert::*;
pub use change::*;
pub use flow::*;
pub use metric::*;
pub use persona::*;
pub use plan::*;
pub use skipped::*;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::validate::{Checks, Validate, Violation, ViolationCode, join, quote};
use crate::wire_enum;

wire_enum! {
    /// What a bundle resource is (`kind`), and what a change names.
    pub enum ConfigKind {
        Agent = "agent",
        Persona = "persona",
        HttpRequestDefinition = "httpRequestDefinition",
        Flow = "flow",
        Collector = "collector",
        Metric = "metric",
        SimulationPlan = "simulationPlan",
        SimulationGroup = "simulationGroup",
        Alert = "alert",
        Tool = "tool",
        Dashboard = "dashboard",
        Project = "project",
        Member = "member",
    }
}

impl ConfigKind {
    /// The kinds a bundle may hold (`member` only names changes inside a project).
    pub const IN_BUNDLES: &'static [ConfigKind] = &[
        ConfigKind::Agent,
        ConfigKind::HttpRequestDefinition,
        ConfigKind::Persona,
        ConfigKind::Flow,
        ConfigKind::Collector,
        ConfigKind::Metric,
        ConfigKind::SimulationPlan,
        ConfigKind::SimulationGroup,
        ConfigKind::Alert,
        ConfigKind::Tool,
        ConfigKind::Dashboard,
        ConfigKind::Project,
    ];
}

/// Limits of bundle members, beside the limits of the resources they become.
pub mod config_limits {
    /// Resources in one bundle.
    pub const RESOURCES_MAX: usize = 2_000;
    /// A resource's `name` (its identity within its kind).
    pub const NAME_MAX: usize = 200;
    /// A metric's `name`, which is its slug.
    pub const METRIC_NAME_MAX: usize = 50;
    pub const TITLE_MAX: usize = 200;
    pub const DESCRIPTION_MAX: usize = 2_000;
    pub const PROMPT_MAX: usize = 10_000;
    pub const TEXT_MAX: usize = 2_000;
    /// Entries of a list of names or texts.
    pub const LIST_MAX: usize = 100;
    /// Steps of a scripted flow's graph, counting nested ones.
    pub const STEPS_MAX: usize = 500;
    /// How deep `steps` may nest.
    pub const STEP_DEPTH_MAX: usize = 32;
}

/// One resource of a bundle, by its `kind` (and a flow by its `type`, a plan by its `template`).
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigResource {
    Agent(AgentConfig),
    HttpRequestDefinition(HttpRequestDefinitionConfig),
    Persona(PersonaConfig),
    ScriptedFlow(ScriptedFlowConfig),
    ImprovFlow(ImprovFlowConfig),
    Collector(CollectorConfig),
    Metric(MetricConfig),
    SimulationPlan(SimulationPlanConfig),
    QaSimulationPlan(QaSimulationPlanConfig),
    SimulationGroup(SimulationGroupConfig),
    Alert(AlertConfig),
    Tool(ToolConfig),
    Dashboard(DashboardConfig),
    Project(ProjectConfig),
}

/// Runs `$body` on the config inside any variant, bound to `$c`.
macro_rules! each_config {
    ($value:expr, $c:ident => $body:expr) => {
        match $value {
            ConfigResource::Agent($c) => $body,
            ConfigResource::HttpRequestDefinition($c) => $body,
            ConfigResource::Persona($c) => $body,
            ConfigResource::ScriptedFlow($c) => $body,
            ConfigResource::ImprovFlow($c) => $body,
            ConfigResource::Collector($c) => $body,
            ConfigResource::Metric($c) => $body,
            ConfigResource::SimulationPlan($c) => $body,
            ConfigResource::QaSimulationPlan($c) => $body,
            ConfigResource::SimulationGroup($c) => $body,
            ConfigResource::Alert($c) => $body,
            ConfigResource::Tool($c) => $body,
            ConfigResource::Dashboard($c) => $body,
            ConfigResource::Project($c) => $body,
        }
    };
}

impl ConfigResource {
    pub fn kind(&self) -> ConfigKind {
        match self {
            ConfigResource::Agent(_) => ConfigKind::Agent,
            ConfigResource::HttpRequestDefinition(_) => ConfigKind::HttpRequestDefinition,
            ConfigResource::Persona(_) => ConfigKind::Persona,
            ConfigResource::ScriptedFlow(_) | ConfigResource::ImprovFlow(_) => ConfigKind::Flow,
            ConfigResource::Collector(_) => ConfigKind::Collector,
            ConfigResource::Metric(_) => ConfigKind::Metric,
            ConfigResource::SimulationPlan(_) | ConfigResource::QaSimulationPlan(_) => ConfigKind::SimulationPlan,
            ConfigResource::SimulationGroup(_) => ConfigKind::SimulationGroup,
            ConfigResource::Alert(_) => ConfigKind::Alert,
            ConfigResource::Tool(_) => ConfigKind::Tool,
            ConfigResource::Dashboard(_) => ConfigKind::Dashboard,
            ConfigResource::Project(_) => ConfigKind::Project,
        }
    }

    /// The resource's identity within its kind.
    pub fn name(&self) -> Option<&str> {
        each_config!(self, c => c.name.as_deref())
    }

    /// `KIND/NAME`, as changes and refusals name the resource.
    pub fn config_key(&self) -> String {
        config_key(&self.kind(), self.name().unwrap_or_default())
    }

    /// Decodes one element of `resources`; a refusal names the member at fault under `at`
    /// (`resources[3]`). Members this build does not define are kept for `validate()`.
    pub fn decode(value: &Value, at: &str) -> Result<ConfigResource, Violation> {
        let Some(object) = value.as_object() else {
            return Err(invalid(at, format!("{at} must be an object with a kind")));
        };
        let Some(kind) = object.get("kind") else { return Err(missing(&join(at, "kind"))) };
        let Some(kind) = kind.as_str() else { return Err(invalid(&join(at, "kind"), "kind must be a string")) };
        let mut rest = object.clone();
        rest.remove("kind");
        let text = |member: &str| rest.get(member).and_then(Value::as_str).map(str::to_owned);
        let resource = match ConfigKind::from(kind) {
            ConfigKind::Agent => ConfigResource::Agent(typed(rest, at)?),
            ConfigKind::HttpRequestDefinition => ConfigResource::HttpRequestDefinition(typed(rest, at)?),
            ConfigKind::Persona => ConfigResource::Persona(typed(rest, at)?),
            ConfigKind::Flow => match text("type").as_deref() {
                Some("scripted") => ConfigResource::ScriptedFlow(typed(without(rest, "type"), at)?),
                Some("improv") => ConfigResource::ImprovFlow(typed(without(rest, "type"), at)?),
                None if !rest.contains_key("type") => return Err(missing(&join(at, "type"))),
                _ => {
                    let shown = rest.get("type").map(Value::to_string).unwrap_or_default();
                    let message = format!("a flow's type {shown} is not one of scripted, improv");
                    return Err(invalid(&join(at, "type"), message));
                }
            },
            ConfigKind::Collector => ConfigResource::Collector(typed(rest, at)?),
            ConfigKind::Metric => ConfigResource::Metric(typed(rest, at)?),
            ConfigKind::SimulationPlan => match text("template").as_deref() {
                Some(QA_TEMPLATE) => ConfigResource::QaSimulationPlan(typed(rest, at)?),
                _ => {
                    if let Some(refusal) = plan::metric_with_a_bar(&rest, at) {
                        return Err(refusal);
                    }
                    ConfigResource::SimulationPlan(typed(rest, at)?)
                }
            },
            ConfigKind::SimulationGroup => ConfigResource::SimulationGroup(typed(rest, at)?),
            ConfigKind::Alert => ConfigResource::Alert(typed(rest, at)?),
            ConfigKind::Tool => ConfigResource::Tool(typed(rest, at)?),
            ConfigKind::Dashboard => ConfigResource::Dashboard(typed(rest, at)?),
            ConfigKind::Project => ConfigResource::Project(typed(rest, at)?),
            ConfigKind::Member | ConfigKind::Unknown(_) => {
                let known = ConfigKind::IN_BUNDLES.iter().map(ConfigKind::as_str).collect::<Vec<_>>().join(", ");
                let message = format!("kind {} is not one of {known}", quote(kind));
                return Err(invalid(&join(at, "kind"), message));
            }
        };
        Ok(resource)
    }

    /// The resource as a bundle holds it, `kind` (and a flow's `type`) included.
    pub fn to_value(&self) -> Value {
        let mut value = each_config!(self, c => serde_json::to_value(c)).unwrap_or(Value::Null);
        if let Value::Object(members) = &mut value {
            members.insert("kind".into(), Value::String(self.kind().as_str().to_owned()));
            match self {
                ConfigResource::ScriptedFlow(_) => members.insert("type".into(), "scripted".into()),
                ConfigResource::ImprovFlow(_) => members.insert("type".into(), "improv".into()),
                _ => None,
            };
        }
        value
    }

    /// Members this build does not define, anywhere in the resource, as paths under `at`.
    pub fn check(&self, c: &mut Checks, at: &str) {
        each_config!(self, r => r.check(c, at))
    }
}

impl Serialize for ConfigResource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ConfigResource {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ConfigResource::decode(&value, "").map_err(|v| serde::de::Error::custom(v.to_string()))
    }
}

/// The template that makes a plan a question-and-answer check.
pub const QA_TEMPLATE: &str = "question-answer-check";

/// `KIND/NAME`.
pub fn config_key(kind: &ConfigKind, name: &str) -> String {
    format!("{}/{name}", kind.as_str())
}

fn without(mut members: serde_json::Map<String, Value>, member: &str) -> serde_json::Map<String, Value> {
    members.remove(member);
    members
}

/// Decodes a resource's members, naming the one whose value has the wrong shape.
fn typed<T: serde::de::DeserializeOwned>(members: serde_json::Map<String, Value>, at: &str) -> Result<T, Violation> {
    serde_path_to_error::deserialize(Value::Object(members)).map_err(|error| {
        let inner = error.path().to_string();
        let param = if inner == "." { at.to_owned() } else { join(at, &inner) };
        let why = error.inner().to_string();
        // serde's own words, without its "at line 1 column 2" (there are no lines here).
        let why = why.split(" at line ").next().unwrap_or_default();
        invalid(&param, format!("{param}: {why}"))
    })
}

fn invalid(param: &str, message: impl Into<String>) -> Violation {
    Violation { param: param.to_owned(), code: ViolationCode::InvalidParameter, message: message.into() }
}

fn missing(param: &str) -> Violation {
    Violation {
        param: param.to_owned(),
        code: ViolationCode::MissingRequiredField,
        message: format!("{param} is required"),
    }
}

/// Checks a resource's `name`: present, not blank, within `max`.
pub(crate) fn check_name(c: &mut Checks, at: &str, name: &Option<String>, max: usize) {
    if c.required(at, "name", name).is_some_and(|n| n.trim().is_empty()) {
        c.invalid(join(at, "name"), format!("{} must not be empty", join(at, "name")));
    }
    c.length(at, "name", name.as_deref(), 1, Some(max));
}

/// A list of names or texts: at most `LIST_MAX` entries, none blank, each within `max`.
pub(crate) fn check_texts(c: &mut Checks, at: &str, member: &str, list: Option<&[String]>, max: usize) {
    c.items(at, member, list, 0, Some(config_limits::LIST_MAX));
    c.entries_not_blank(at, member, list);
    c.each_length(at, member, list, max);
}
