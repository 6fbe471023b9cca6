//! The query of the lists that take pages of up to `WIDE_LIST_LIMIT_MAX` (calls, agents):
//! every other member as `ListParams` reads and states it.

use serde::Deserialize;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::{RefOr, Schema};

use super::ListParams;
use crate::api::model::collection::collection_limits::WIDE_LIST_LIMIT_MAX;
use crate::api::validate::{Checks, Validate};

/// `ListParams` with pages of up to `WIDE_LIST_LIMIT_MAX`.
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct WideListParams(pub ListParams);

impl Validate for WideListParams {
    fn check(&self, c: &mut Checks, at: &str) {
        self.0.check_within(c, at, WIDE_LIST_LIMIT_MAX);
    }
}

impl IntoParams for WideListParams {
    fn into_params(parameter_in_provider: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut params = ListParams::into_params(parameter_in_provider);
        for param in params.iter_mut().filter(|p| p.name == "limit") {
            if let Some(RefOr::T(Schema::Object(limit))) = param.schema.as_mut() {
                limit.maximum = Some(WIDE_LIST_LIMIT_MAX.into());
            }
        }
        params
    }
}
