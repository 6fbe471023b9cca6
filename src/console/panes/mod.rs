//! The console's tabs, in order.

pub mod bench;
pub mod catalog;
pub mod flows;
pub mod issues;
pub mod jobs;
pub mod metrics;
pub mod names;
pub mod plans;
pub mod section;

use super::app::Settings;
use super::pane::Pane;

/// Every tab, in the order of their number keys.
pub fn all(settings: &Settings) -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(plans::Plans::new()),
        Box::new(jobs::Jobs::new(settings.poll_interval)),
        Box::new(metrics::Metrics::new()),
        Box::new(issues::Issues::new()),
        Box::new(flows::Flows::new()),
        Box::new(catalog::Catalog::new()),
        Box::new(bench::Bench::new()),
    ]
}
