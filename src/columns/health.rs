//! The key checked against the service (`switchboard health`).

use super::Column;
use crate::api::model::Health;

/// What `health` prints.
pub const DETAIL: &[Column<Health>] = &[
    Column::text("AUTHENTICATED", |x: &Health| x.authenticated.to_string()),
    Column::text("ACCOUNT", |x: &Health| x.account.clone()),
];
