//! Writes to a document whose row the transaction has already read for writing (on PostgreSQL,
//! locked by that read): what the read told of it, its status and its lease, is not asked
//! again, and a change of status is written with the event it announces in one statement. On
//! PostgreSQL each statement is a round trip, and a simulation's few writes are most of a
//! run's statements (issue 33).

use super::db::{Dialect, Tx};
use super::{Doc, Kind, outbox};
use super::{StoreError, StoreResult};
use crate::args;

/// A document read for writing: its body, its status, and who holds its lease.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    pub body: String,
    pub status: Option<String>,
    pub lease_owner: Option<String>,
}

/// Reads a live document for writing, its status and lease with it (one statement where a
/// lease check, a status read and a body read were three).
pub fn read(tx: &Tx, kind: Kind, id: &str) -> StoreResult<Option<Held>> {
    tx.query_row(
        &format!(
            "SELECT body, status, lease_owner FROM docs WHERE kind = ?1 AND id = ?2 AND deleted_at IS NULL{}",
            tx.row_lock()
        ),
        args![kind.as_str(), id],
        |r| Ok(Held { body: r.take(0)?, status: r.take(1)?, lease_owner: r.take(2)? }),
    )
}

/// Ends `owner`'s lease on a document, if `owner` holds it, claiming the row: its status
/// (`None` when `owner` does not hold it), in the one statement that checks and releases.
pub fn give_back(tx: &Tx, kind: Kind, id: &str, owner: &str) -> StoreResult<Option<Option<String>>> {
    tx.query_row(
        "UPDATE docs SET lease_owner = NULL, lease_until = NULL \
         WHERE kind = ?1 AND id = ?2 AND lease_owner = ?3 RETURNING status",
        args![kind.as_str(), id, owner],
        |r| r.take(0),
    )
}

/// Replaces a document whose status the transaction has read for writing (`before`), with
/// the event its change of status announces: on PostgreSQL in one statement.
pub fn update(tx: &Tx, doc: &Doc, before: Option<&str>) -> StoreResult<()> {
    if tx.dialect() == Dialect::Sqlite {
        // In process, a read costs no round trip: the general path, as it was.
        return super::update(tx, doc);
    }
    let write = "UPDATE docs SET body = ?13, status = ?14, parent_id = ?15 WHERE kind = ?11 AND id = ?12 RETURNING 1";
    let write_args = args![doc.kind.as_str(), &doc.id, &doc.body, doc.status.as_deref(), doc.parent_id.as_deref()];
    use crate::service::webhooks::status_events as events;
    let wrote = match events::event_for(doc.kind, Some(before), doc.status.as_deref()) {
        Some(event) => {
            let alert = events::alert_of(doc.kind, &doc.body);
            outbox::append_with(tx, write, write_args, &event, doc, alert.as_deref())?
        }
        None => {
            let plain = "UPDATE docs SET body = ?3, status = ?4, parent_id = ?5 WHERE kind = ?1 AND id = ?2";
            tx.execute(plain, write_args)? > 0
        }
    };
    if !wrote {
        return Err(StoreError::not_found(doc.kind, &doc.id));
    }
    Ok(())
}
