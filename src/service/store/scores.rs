//! Benchmark score samples: one row per judged sample, with the columns its reads filter on.

use super::db::{Arg, Conn, Tx};
use super::error::StoreResult;
use crate::args;

/// Where a sample belongs.
pub struct SampleKey<'a> {
    pub target_key: &'a str,
    pub suite: &'a str,
    pub suite_version: &'a str,
    pub condition_key: Option<&'a str>,
    pub metric_key: Option<&'a str>,
}

pub fn put(tx: &Tx, key: &SampleKey, body: &str) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO score_samples (target_key, suite, suite_version, condition_key, metric_key, body) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![key.target_key, key.suite, key.suite_version, key.condition_key, key.metric_key, body],
    )?;
    Ok(())
}

/// The samples of one target in one suite version (optionally one condition and one metric)
/// that carry reasoning, in the order they were written: `limit` from `offset`, and how many
/// there are in all.
pub fn page(conn: &Conn, key: &SampleKey, limit: i64, offset: i64) -> StoreResult<(Vec<String>, u64)> {
    let mut clause = String::from("target_key = ? AND suite = ? AND suite_version = ?");
    let mut args: Vec<Arg> = vec![key.target_key.into(), key.suite.into(), key.suite_version.into()];
    for (column, value) in [("condition_key", key.condition_key), ("metric_key", key.metric_key)] {
        if let Some(value) = value {
            clause.push_str(&format!(" AND {column} = ?"));
            args.push(value.into());
        }
    }
    clause.push_str(&format!(" AND COALESCE({}, '') <> ''", conn.dialect().member("body", "$.reasoning")?));
    let total: i64 = conn.value(&format!("SELECT COUNT(*) FROM score_samples WHERE {clause}"), &args)?.unwrap_or(0);
    args.push(limit.into());
    args.push(offset.into());
    let bodies = conn.query(
        &format!("SELECT body FROM score_samples WHERE {clause} ORDER BY seq LIMIT ? OFFSET ?"),
        &args,
        |r| r.take(0),
    )?;
    Ok((bodies, total.max(0) as u64))
}
