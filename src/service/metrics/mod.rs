//! Metrics: their definitions' rules (`definitions`), the collection jobs asked for through
//! the interface (`collection_requests`) and the values read back (`value_groups`); and the metric
//! engine: computations over transcripts, thresholds, the judge, and (with the simulation
//! engine) the collection jobs' runner (`collector`).

pub mod collection_requests;
pub mod collector;
pub mod compute;
pub mod definitions;
pub mod evaluate;
pub mod formula;
pub mod judge;
pub mod live;
pub mod policies;
mod step_expectations;
pub mod threshold;
pub mod value_groups;
pub mod variants;
pub mod versions;
