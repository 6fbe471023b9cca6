//! Secret values (webhook signing secrets, secret request headers) kept sealed, one row per
//! owner and name, apart from the owner's document (which holds only their masks). The vault
//! (`service::vault`) seals and opens them; only the engines that send them read them.

use super::Kind;
use super::db::{Conn, Tx};
use super::error::StoreResult;
use crate::args;
use crate::service::vault::Sealed;

/// One stored secret: whose, under which name, and sealed with which key.
#[derive(Debug, Clone)]
pub struct StoredSecret {
    pub owner_kind: String,
    pub owner_id: String,
    pub name: String,
    pub sealed: Sealed,
}

/// Keeps `sealed` as the owner's secret `name`, in place of any kept before.
pub fn put(tx: &Tx, kind: Kind, owner_id: &str, name: &str, sealed: &Sealed) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO secrets (owner_kind, owner_id, name, key_id, ciphertext) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (owner_kind, owner_id, name) DO UPDATE SET key_id = excluded.key_id, ciphertext = excluded.ciphertext",
        args![kind.as_str(), owner_id, name, &sealed.key_id, &sealed.ciphertext],
    )?;
    Ok(())
}

/// The owner's secrets: `(name, sealed)`, by name.
pub fn of_owner(conn: &Conn, kind: Kind, owner_id: &str) -> StoreResult<Vec<(String, Sealed)>> {
    conn.query(
        "SELECT name, key_id, ciphertext FROM secrets WHERE owner_kind = ?1 AND owner_id = ?2 ORDER BY name",
        args![kind.as_str(), owner_id],
        |r| Ok((r.take(0)?, Sealed { key_id: r.take(1)?, ciphertext: r.take(2)? })),
    )
}

/// Forgets one of the owner's secrets.
pub fn forget(tx: &Tx, kind: Kind, owner_id: &str, name: &str) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM secrets WHERE owner_kind = ?1 AND owner_id = ?2 AND name = ?3",
        args![kind.as_str(), owner_id, name],
    )?;
    Ok(())
}

/// Forgets every secret of the owner.
pub fn forget_owner(tx: &Tx, kind: Kind, owner_id: &str) -> StoreResult<()> {
    tx.execute("DELETE FROM secrets WHERE owner_kind = ?1 AND owner_id = ?2", args![kind.as_str(), owner_id])?;
    Ok(())
}

/// Every stored secret, claimed for the write that seals them again (see `Conn::row_lock`).
pub fn all(tx: &Tx) -> StoreResult<Vec<StoredSecret>> {
    tx.query(
        &format!(
            "SELECT owner_kind, owner_id, name, key_id, ciphertext FROM secrets ORDER BY owner_kind, owner_id, name{}",
            tx.row_lock()
        ),
        &[],
        |r| {
            Ok(StoredSecret {
                owner_kind: r.take(0)?,
                owner_id: r.take(1)?,
                name: r.take(2)?,
                sealed: Sealed { key_id: r.take(3)?, ciphertext: r.take(4)? },
            })
        },
    )
}

/// Replaces a stored secret's sealed value (sealed again with another key).
pub fn reseal(tx: &Tx, secret: &StoredSecret, sealed: &Sealed) -> StoreResult<()> {
    tx.execute(
        "UPDATE secrets SET key_id = ?4, ciphertext = ?5 WHERE owner_kind = ?1 AND owner_id = ?2 AND name = ?3",
        args![&secret.owner_kind, &secret.owner_id, &secret.name, &sealed.key_id, &sealed.ciphertext],
    )?;
    Ok(())
}

/// The ids of the keys stored secrets are sealed with.
pub fn key_ids(conn: &Conn) -> StoreResult<Vec<String>> {
    conn.query("SELECT DISTINCT key_id FROM secrets ORDER BY key_id", &[], |r| r.take(0))
}

/// Every document of `kind`, deleted ones too: `(id, body)`. For sealing the secrets that a
/// build before this one wrote into bodies in clear.
pub fn every_body(conn: &Conn, kind: Kind) -> StoreResult<Vec<(String, String)>> {
    conn.query("SELECT id, body FROM docs WHERE kind = ?1 ORDER BY seq", args![kind.as_str()], |r| {
        Ok((r.take(0)?, r.take(1)?))
    })
}

/// One document's body, deleted or not, claimed for the write that masks it.
pub fn body_to_mask(tx: &Tx, kind: Kind, id: &str) -> StoreResult<Option<String>> {
    tx.value(&format!("SELECT body FROM docs WHERE kind = ?1 AND id = ?2{}", tx.row_lock()), args![kind.as_str(), id])
}

/// Writes a document's body with its secrets masked over the one that held them in clear.
/// Only the body changes (no column, no event: the kinds that hold secrets announce none).
pub fn write_masked_body(tx: &Tx, kind: Kind, id: &str, body: &str) -> StoreResult<()> {
    tx.execute("UPDATE docs SET body = ?3 WHERE kind = ?1 AND id = ?2", args![kind.as_str(), id, body])?;
    Ok(())
}

/// Has SQLite overwrite with zeros what a write deletes or frees (`secure_delete`), or stop
/// doing so; nothing on PostgreSQL.
pub fn scrub_freed_space(tx: &Tx, on: bool) -> StoreResult<()> {
    if tx.dialect() == super::Dialect::Sqlite {
        tx.execute_batch(if on { "PRAGMA secure_delete = ON" } else { "PRAGMA secure_delete = OFF" })?;
    }
    Ok(())
}
