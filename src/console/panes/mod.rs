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

/// What each tab is for, in the order of `all`: the first line of its help.
pub const ABOUT: &[&str] = &[
    "Run plans: what to test, against which agents; R runs one.",
    "Jobs, live: each run's simulations as they call and get scored.",
    "Metrics: definitions, policies, and collection jobs' values.",
    "Issues found on calls: triage, read the evidence, edit.",
    "Customer flows: the scripts simulated callers follow.",
    "Personas, agents, endpoints, knowledge bases, HTTP definitions.",
    "Benchmarks: suites, targets' scores, each sample's reasoning.",
];

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
