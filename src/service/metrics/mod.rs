//! The metric engine: computations over transcripts, thresholds, and (with the simulation
//! engine) the collection jobs that run them.

pub mod compute;
pub mod judge;
pub mod threshold;
