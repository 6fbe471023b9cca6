//! The console's tabs, in order.

pub mod catalog;
pub mod jobs;
pub mod names;
pub mod plans;
pub mod section;
mod todo;

use super::app::Settings;
use super::pane::Pane;

/// Every tab, in the order of their number keys.
pub fn all(settings: &Settings) -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(plans::Plans::new()),
        Box::new(jobs::Jobs::new(settings.poll_interval)),
        Box::new(todo::Todo("metrics")),
        Box::new(todo::Todo("issues")),
        Box::new(todo::Todo("flows")),
        Box::new(catalog::Catalog::new()),
        Box::new(todo::Todo("benchmarks")),
    ]
}
