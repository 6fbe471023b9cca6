//! The console's tabs, in order.

pub mod catalog;
pub mod flows;
pub mod issues;
pub mod section;
mod todo;

use super::app::Settings;
use super::pane::Pane;

/// Every tab, in the order of their number keys.
pub fn all(_settings: &Settings) -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(todo::Todo("run plans")),
        Box::new(todo::Todo("jobs")),
        Box::new(todo::Todo("metrics")),
        Box::new(issues::Issues::new()),
        Box::new(flows::Flows::new()),
        Box::new(catalog::Catalog::new()),
        Box::new(todo::Todo("benchmarks")),
    ]
}
