//! What every issue is, whoever opens it (a person through the routes, or an alert): the
//! workspace it belongs to and how it is stored.

use uuid::Uuid;

use super::store::Doc;
use crate::api::model::Issue;

/// The workspace every local issue belongs to.
pub const ORGANIZATION_ID: Uuid = Uuid::from_u128(0x6a1e_0000_0000_4000_8000_0000_0000_0001);
pub const PROJECT_ID: Uuid = Uuid::from_u128(0x6a1e_0000_0000_4000_8000_0000_0000_0002);

/// The stored document of an issue, with its status column.
pub fn issue_doc(issue: &Issue) -> crate::service::store::StoreResult<Doc> {
    Doc::of(issue)
}
