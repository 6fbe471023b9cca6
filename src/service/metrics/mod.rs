//! The metric engine: computations over transcripts, thresholds, and (with the simulation
//! engine) the collection jobs that run them.

pub mod collection;
pub mod collection_jobs;
pub mod compute;
pub mod definitions;
pub mod evaluate;
pub mod formula;
pub mod judge;
pub mod threshold;
pub mod value_groups;
pub mod versions;
