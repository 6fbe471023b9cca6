//! A run plan's columns (`switchboard plan list|get`, the console's plans list).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, by, fixed, or_dash, text_cmp};
use crate::api::model::RunPlan;

fn count<T>(items: Option<&Vec<T>>) -> Option<usize> {
    items.map(Vec::len)
}

/// Flows, or the deprecated scenarios of older plans.
pub fn flows(p: &RunPlan) -> Option<usize> {
    count(p.plan.flows.as_ref()).or(count(p.plan.scenarios.as_ref()))
}

pub fn endpoints(p: &RunPlan) -> Option<usize> {
    count(p.plan.agent_endpoints.as_ref())
}

pub fn metrics(p: &RunPlan) -> Option<usize> {
    count(p.plan.metrics.as_ref())
}

fn direction(p: &RunPlan) -> Option<&str> {
    p.plan.direction.as_ref().map(|d| d.as_str())
}

pub const ID: Column<RunPlan> = Column::text("ID", |p: &RunPlan| p.id.to_string());

pub const NAME: Column<RunPlan> = Column::new("NAME", fixed(Fill(1)), |p: &RunPlan| p.name().to_string())
    .by(|a, b| text_cmp(Some(a.name()), Some(b.name())));

pub const DIRECTION: Column<RunPlan> = Column::new("DIRECTION", fixed(Length(9)), |p: &RunPlan| or_dash(direction(p)))
    .by(|a, b| by(direction(a), direction(b)));

/// The plan's flows (0 when it has none; the console shows the scenarios of older plans too).
pub const FLOWS: Column<RunPlan> =
    Column::new("FLOWS", fixed(Length(5)), |p: &RunPlan| p.plan.flows.as_ref().map_or(0, Vec::len).to_string())
        .by(|a, b| by(flows(a), flows(b)));

pub const ENDPOINTS: Column<RunPlan> =
    Column::new("ENDPOINTS", fixed(Length(9)), |p: &RunPlan| endpoints(p).unwrap_or(0).to_string())
        .by(|a, b| by(endpoints(a), endpoints(b)));

pub const METRICS: Column<RunPlan> =
    Column::new("METRICS", fixed(Length(7)), |p: &RunPlan| metrics(p).unwrap_or(0).to_string())
        .by(|a, b| by(metrics(a), metrics(b)));

pub const ITERATIONS: Column<RunPlan> =
    Column::new("ITERATIONS", fixed(Length(10)), |p: &RunPlan| p.plan.iteration_count_or_default().to_string())
        .by(|a, b| a.plan.iteration_count_or_default().cmp(&b.plan.iteration_count_or_default()));

pub const UPDATED: Column<RunPlan> =
    Column::text("UPDATED", |p: &RunPlan| or_dash(p.updated_at.as_ref().or(p.created_at.as_ref())))
        .by(|a, b| by(a.updated_at.as_ref(), b.updated_at.as_ref()));

/// What `plan list` and `plan get` print.
pub const CLI: &[Column<RunPlan>] = &[ID, NAME, DIRECTION, FLOWS, ENDPOINTS, METRICS, ITERATIONS, UPDATED];
