//! The console's tabs, in order.

pub mod bench;
pub mod catalog;
pub mod flows;
pub mod issues;
pub mod metrics;
pub mod section;
mod todo;

use super::app::Settings;
use super::pane::Pane;

/// Every tab, in the order of their number keys.
pub fn all(_settings: &Settings) -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(todo::Todo("run plans")),
        Box::new(todo::Todo("jobs")),
        Box::new(metrics::Metrics::new()),
        Box::new(issues::Issues::new()),
        Box::new(flows::Flows::new()),
        Box::new(catalog::Catalog::new()),
        Box::new(bench::Bench::new()),
    ]
}
