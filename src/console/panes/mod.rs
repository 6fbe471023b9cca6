//! The console's panes, one per tab (`Tab`), built in the tabs' order.

pub mod bench;
pub mod catalog;
pub mod flows;
pub mod issues;
pub mod jobs;
pub mod metrics;
pub mod names;
pub mod plans;
pub mod section;
pub mod shown;

use std::time::Duration;

use super::pane::Pane;
use super::tab::Tab;

/// Every tab's pane, in the order of `Tab::ALL`; the jobs pane polls at `poll_interval`.
pub fn all(poll_interval: Duration) -> Vec<Box<dyn Pane>> {
    Tab::ALL.iter().map(|tab| pane(*tab, poll_interval)).collect()
}

/// The pane that shows `tab`.
fn pane(tab: Tab, poll_interval: Duration) -> Box<dyn Pane> {
    match tab {
        Tab::Plans => Box::new(plans::Plans::new()),
        Tab::Jobs => Box::new(jobs::Jobs::new(poll_interval)),
        Tab::Metrics => Box::new(metrics::Metrics::new()),
        Tab::Issues => Box::new(issues::Issues::new()),
        Tab::Flows => Box::new(flows::Flows::new()),
        Tab::Catalog => Box::new(catalog::Catalog::new()),
        Tab::Bench => Box::new(bench::Bench::new()),
    }
}
