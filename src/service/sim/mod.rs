//! The simulation engine: simulated customers calling the agent under test.

pub mod agent_link;
mod call_record;
pub mod conversation;
pub mod jobs;
pub mod limits;
mod pick;
pub(crate) mod placeholders;
pub mod plans;
pub mod reference_agent;
pub mod run_report;
pub mod runner;
pub mod schedule;
pub mod scheduler;
mod scoring;
pub(crate) mod selection;
pub mod start;
pub mod templates;
pub mod verdict;
mod work;
