//! Config as code (`POST /v1/config/apply` and `…/diff`): a bundle decoded, its references
//! resolved, every problem found at once, the changes planned by comparing each resource with
//! what is kept, and, for an apply, written in one transaction. A diff runs the same steps on a
//! reader and writes nothing, so it answers what an apply would, refusals included.

mod build;
mod changes;
mod decode;
mod fillable;
pub mod violation;
mod workspace;
mod write;

use std::collections::HashSet;

use crate::api::model::config::{ConfigBundle, ConfigChanges};
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::{Conn, Tx};
use crate::service::vault::Vault;

pub use violation::ConfigViolation;
pub use workspace::ConfigRecord;

/// Every problem at once, each naming its resource.
fn refusal(problems: Vec<ConfigViolation>) -> DomainError {
    DomainError::ConfigRefused(problems)
}

/// Plans the bundle against the store `conn` reads and, given `tx` (the same transaction),
/// writes it. Any problem refuses the whole bundle before anything is written.
/// Every resource an apply made that is still there, by its bundle name.
pub fn records(conn: &Conn) -> DomainResult<Vec<crate::api::model::config::ConfigRecordEntry>> {
    let mut out = Vec::new();
    for record in crate::service::store::all::<ConfigRecord>(conn, crate::service::store::Kind::ConfigRecord)? {
        let Some(kind) = workspace::store_kind(&record.kind) else { continue };
        let id = record.id.to_string();
        if crate::service::store::get::<serde_json::Value>(conn, kind, &id)?.is_some() {
            out.push(crate::api::model::config::ConfigRecordEntry { kind: record.kind, name: record.name, id });
        }
    }
    Ok(out)
}

pub fn run(conn: &Conn, tx: Option<&Tx>, vault: &Vault, bundle: &ConfigBundle) -> DomainResult<ConfigChanges> {
    let resources = bundle.resources.as_deref().unwrap_or_default();
    let (entries, mut problems) = decode::decode(resources);
    let workspace = workspace::Workspace::read(conn, vault)?;
    let gone = if bundle.prune_or_default() { changes::gone(&workspace, &entries) } else { Vec::new() };
    let gone_ids: HashSet<uuid::Uuid> = gone.iter().map(|r| r.id).collect();
    let mut builder = build::Builder::new(&workspace, &entries, &gone_ids);
    builder.build_all(&entries);
    problems.append(&mut builder.problems);
    if !problems.is_empty() {
        return Err(refusal(problems));
    }
    let mut planned = changes::plan(&workspace, &builder, &entries, &gone);
    if let Some(tx) = tx {
        let stale: Vec<ConfigRecord> =
            workspace.records.iter().filter(|r| !workspace.exists(&r.kind, &r.id)).cloned().collect();
        write::write(tx, vault, &mut planned, &stale)?;
    }
    Ok(ConfigChanges::of(planned.into_iter().map(|p| p.change).collect()))
}
