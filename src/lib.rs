//! switchboard: a terminal console, a local service and headless commands for a
//! Simulation and Call-Analytics Service.

pub mod api;
pub mod cache;
pub mod cli;
pub mod columns;
pub mod compare;
pub mod config;
pub mod connect;
pub mod console;
pub mod logging;
pub mod private_files;
pub mod service;
pub mod yaml;
