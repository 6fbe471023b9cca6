//! A problem with one resource of a bundle: below the config module's steps, so the domain's
//! error type can carry a bundle's problems without an import circle through them.

use serde::Serialize;

use crate::api::validate::{Violation, ViolationCode};

/// A problem with one bundle resource: its `KIND/NAME`, the member at fault from the body's root.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigViolation {
    pub config_key: String,
    pub param: String,
    pub code: ViolationCode,
    pub message: String,
}

impl ConfigViolation {
    pub fn of(key: &str, violation: Violation) -> ConfigViolation {
        ConfigViolation {
            config_key: key.to_owned(),
            param: violation.param,
            code: violation.code,
            message: violation.message,
        }
    }

    pub fn invalid(key: &str, param: &str, message: String) -> ConfigViolation {
        ConfigViolation {
            config_key: key.to_owned(),
            param: param.to_owned(),
            code: ViolationCode::InvalidParameter,
            message,
        }
    }
}
