//! The console, driven key by key against the real seeded local service.

#[path = "../support/mod.rs"]
mod support;

mod harness;

mod catalog;
mod frame;
mod jobs;
mod plans;
