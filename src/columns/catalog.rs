//! The columns of the catalog's resources: personas, agents, agent endpoints, knowledge bases
//! and HTTP request definitions.

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fit, fixed, or_dash, text_cmp};
use crate::api::model::{Agent, AgentEndpoint, HttpRequestDefinition, KnowledgeBase, Persona};

/// A column of optional text, shown as `—` when missing and sorted case-insensitively with the
/// missing last.
macro_rules! text_column {
    ($title:expr, $width:expr, |$x:ident: &$ty:ty| $value:expr) => {
        Column::new($title, $width, |$x: &$ty| or_dash($value)).by(|a: &$ty, b: &$ty| {
            let text = |$x: &$ty| $value.map(|v| v.to_string());
            text_cmp(text(a).as_deref(), text(b).as_deref())
        })
    };
}

pub const PERSONAS: [Column<Persona>; 7] = [
    Column::new("NAME", fixed(Fill(2)), |p: &Persona| p.label())
        .by(|a, b| text_cmp(Some(&a.label()), Some(&b.label()))),
    text_column!("LANG", fixed(Length(5)), |p: &Persona| p.fields.language.as_ref()),
    text_column!("ACCENT", fit(6, 12), |p: &Persona| p.fields.accent.as_ref()),
    text_column!("AGE", fit(3, 11), |p: &Persona| p.fields.age.as_ref()),
    text_column!("EMOTION", fit(7, 12), |p: &Persona| p.fields.base_emotion.as_ref()),
    text_column!("PACE", fit(4, 8), |p: &Persona| p.fields.speech_pace.as_ref()),
    Column::new("SYSTEM", fixed(Length(6)), |p: &Persona| if p.is_system == Some(true) { "yes" } else { "no" }.into())
        .by(|a, b| by(a.is_system, b.is_system)),
];

pub const AGENTS: [Column<Agent>; 3] = [
    text_column!("NAME", fixed(Fill(1)), |a: &Agent| a.name.as_ref()),
    text_column!("CUSTOM ID", fixed(Fill(1)), |a: &Agent| a.custom_id.as_ref()),
    text_column!("DESCRIPTION", fixed(Fill(2)), |a: &Agent| a.description.as_ref()),
];

/// An endpoint's agent by id; the console shows the agent's name.
pub const ENDPOINT_AGENT: Column<AgentEndpoint> =
    Column::new("AGENT", fixed(Fill(1)), |e: &AgentEndpoint| or_dash(e.agent_id)).by(|a, b| by(a.agent_id, b.agent_id));

pub const ENDPOINT_VALUE: Column<AgentEndpoint> =
    text_column!("VALUE", fixed(Fill(2)), |e: &AgentEndpoint| e.value.as_ref());
pub const ENDPOINT_TYPE: Column<AgentEndpoint> =
    text_column!("TYPE", fit(4, 8), |e: &AgentEndpoint| e.endpoint_type.as_ref());
pub const ENDPOINT_DIRECTION: Column<AgentEndpoint> =
    text_column!("DIRECTION", fixed(Length(9)), |e: &AgentEndpoint| e.direction.as_ref());
pub const ENDPOINT_ENVIRONMENT: Column<AgentEndpoint> =
    text_column!("ENVIRONMENT", fit(11, 16), |e: &AgentEndpoint| e.environment.as_ref());
pub const ENDPOINT_DIAL: Column<AgentEndpoint> =
    text_column!("DIAL", fit(4, 12), |e: &AgentEndpoint| e.outbound_dial_type.as_ref());

pub const KB_NAME: Column<KnowledgeBase> = text_column!("NAME", fixed(Fill(2)), |k: &KnowledgeBase| k.name.as_ref());
pub const KB_SOURCE: Column<KnowledgeBase> =
    text_column!("SOURCE", fit(6, 10), |k: &KnowledgeBase| k.source_type.as_ref());
pub const KB_STATUS: Column<KnowledgeBase> = text_column!("STATUS", fit(6, 12), |k: &KnowledgeBase| k.status.as_ref());
pub const KB_BYTES: Column<KnowledgeBase> =
    Column::new("BYTES", fixed(Length(9)), |k: &KnowledgeBase| or_dash(k.byte_size))
        .by(|a, b| by(a.byte_size, b.byte_size));

pub const HTTP_DEFINITIONS: [Column<HttpRequestDefinition>; 4] = [
    text_column!("METHOD", fit(6, 7), |h: &HttpRequestDefinition| h.method.as_ref()),
    text_column!("URL", fixed(Fill(2)), |h: &HttpRequestDefinition| h.url.as_ref()),
    text_column!("SCOPE", fit(5, 20), |h: &HttpRequestDefinition| h.scope.as_ref()),
    text_column!("DESCRIPTION", fixed(Fill(1)), |h: &HttpRequestDefinition| h.description.as_ref()),
];
