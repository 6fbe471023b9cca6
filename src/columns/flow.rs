//! A customer flow's columns (the console's flows list).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, fit, fixed, or_dash, text_cmp};
use crate::api::model::{CustomerFlow, FlowStep};

pub fn flow_type(flow: &CustomerFlow) -> Option<&str> {
    flow.flow_type.as_ref().map(|t| t.as_str())
}

fn source(flow: &CustomerFlow) -> Option<&str> {
    flow.source.as_ref().map(|s| s.as_str())
}

/// The happy path and the edge cases.
fn variants(flow: &CustomerFlow) -> usize {
    flow.happy_path.is_some() as usize + flow.edge_cases.len()
}

/// Every step of the graph, nested ones included.
fn steps(flow: &CustomerFlow) -> usize {
    fn count(steps: &[FlowStep]) -> usize {
        steps.iter().map(|s| 1 + count(&s.steps)).sum()
    }
    count(&flow.graph)
}

/// The agents it is for, by name (else id), `—` for none.
pub fn agents(flow: &CustomerFlow) -> String {
    let names: Vec<String> = flow.agents.iter().map(|a| a.name.clone().unwrap_or_else(|| a.id.to_string())).collect();
    if names.is_empty() { "—".into() } else { names.join(", ") }
}

pub const COLUMNS: [Column<CustomerFlow>; 6] = [
    Column::new("TITLE", fixed(Fill(2)), |f: &CustomerFlow| or_dash(f.title.as_deref()))
        .by(|a, b| text_cmp(a.title.as_deref(), b.title.as_deref())),
    Column::new("TYPE", fit(4, 9), |f: &CustomerFlow| or_dash(flow_type(f)))
        .by(|a, b| text_cmp(flow_type(a), flow_type(b))),
    Column::new("SOURCE", fit(6, 7), |f: &CustomerFlow| or_dash(source(f))).by(|a, b| text_cmp(source(a), source(b))),
    Column::new("VARIANTS", fixed(Length(8)), |f: &CustomerFlow| variants(f).to_string())
        .by(|a, b| variants(a).cmp(&variants(b))),
    Column::new("STEPS", fixed(Length(5)), |f: &CustomerFlow| steps(f).to_string()).by(|a, b| steps(a).cmp(&steps(b))),
    Column::new("AGENTS", fixed(Fill(1)), agents).by(|a, b| text_cmp(Some(&agents(a)), Some(&agents(b)))),
];
