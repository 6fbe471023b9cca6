//! The console, driven key by key against the real seeded local service.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "../support/mod.rs"]
mod support;

mod harness;

mod alerts;
mod bench;
mod catalog;
mod commands;
mod compare;
mod connection;
mod editor;
mod flows;
mod forms;
mod frame;
mod issues;
mod jobs;
mod marks;
mod metrics;
mod plan_form;
mod plans;
mod policy_form;
mod refresh;
mod run_forms;
mod verdicts;
