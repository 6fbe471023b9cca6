//! On PostgreSQL the counts and revisions that every write moves are kept in rows of each
//! connection's own (its shard: the server process's id), so that writes never wait on each
//! other over them, and they are summed when read. Connections end (the pool replaces them,
//! replicas restart), and their rows would pile up for every read to sum: `fold` moves the rows
//! of connections that have ended into shard 0. SQLite keeps one row each and has nothing to
//! fold.

use super::db::{Dialect, Tx};
use super::error::StoreResult;

/// The rows of ended connections whose sums `fold` keeps: a table, its key columns and its
/// summed column.
const SHARDED: [(&str, &str, &str); 3] = [
    ("doc_counts", "kind, status", "live"),
    ("child_counts", "parent_id, kind, status", "live"),
    ("child_revisions", "parent_id", "revision"),
];

/// Folds the shards of connections that have ended into shard 0, keeping every sum; how many
/// rows it folded. A connection that ends meanwhile is folded next time; one whose process id
/// is given to a new connection meanwhile has its rows taken in turn, row by row, with theirs.
pub fn fold(tx: &Tx) -> StoreResult<usize> {
    if tx.dialect() != Dialect::Postgres {
        return Ok(0);
    }
    let mut folded = 0;
    for (table, key, sum) in SHARDED {
        folded += tx.execute(
            &format!(
                "WITH ended AS (DELETE FROM {table} WHERE shard <> 0 \
                     AND shard NOT IN (SELECT pid FROM pg_stat_activity) RETURNING {key}, {sum}) \
                 INSERT INTO {table} AS t ({key}, {sum}, shard) \
                     SELECT {key}, sum({sum}), 0 FROM ended GROUP BY {key} \
                 ON CONFLICT ({key}, shard) DO UPDATE SET {sum} = t.{sum} + excluded.{sum}"
            ),
            &[],
        )?;
    }
    Ok(folded)
}
