//! The interface: its types, its rules and the one HTTP client. The only place that knows the wire.

pub mod client;
pub mod error;
pub mod events;
pub mod model;
pub mod operations;
pub mod page;
pub mod suggest;
pub mod validate;
pub mod wire_enum;

pub use client::{ApiKey, Client, ClientConfig, Conditional, USER_AGENT};
pub use error::{ApiError, Error, ErrorBody, ErrorType};
pub use events::EventStream;
pub use operations::{ListQuery, routes};
