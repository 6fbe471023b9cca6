//! Benchmark score samples: one row per judged sample, with the columns its reads filter on.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, Transaction, params};

use crate::service::error::ServiceResult;

/// Where a sample belongs.
pub struct SampleKey<'a> {
    pub target_key: &'a str,
    pub suite: &'a str,
    pub suite_version: &'a str,
    pub condition_key: Option<&'a str>,
    pub metric_key: Option<&'a str>,
}

pub fn put(tx: &Transaction, key: &SampleKey, body: &str) -> ServiceResult<()> {
    tx.prepare_cached(
        "INSERT INTO score_samples (target_key, suite, suite_version, condition_key, metric_key, body) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![key.target_key, key.suite, key.suite_version, key.condition_key, key.metric_key, body])?;
    Ok(())
}

/// The samples of one target in one suite version (optionally one condition and one metric)
/// that carry reasoning, in the order they were written: `limit` from `offset`, and how many
/// there are in all.
pub fn page(conn: &Connection, key: &SampleKey, limit: i64, offset: i64) -> ServiceResult<(Vec<String>, u64)> {
    let mut clause = String::from("target_key = ? AND suite = ? AND suite_version = ?");
    let mut args: Vec<SqlValue> =
        vec![key.target_key.to_owned().into(), key.suite.to_owned().into(), key.suite_version.to_owned().into()];
    for (column, value) in [("condition_key", key.condition_key), ("metric_key", key.metric_key)] {
        if let Some(value) = value {
            clause.push_str(&format!(" AND {column} = ?"));
            args.push(value.to_owned().into());
        }
    }
    // Samples without reasoning are never returned.
    clause.push_str(" AND COALESCE(json_extract(body, '$.reasoning'), '') <> ''");
    let total: i64 = conn.query_row(
        &format!("SELECT COUNT(*) FROM score_samples WHERE {clause}"),
        rusqlite::params_from_iter(&args),
        |r| r.get(0),
    )?;
    args.push(limit.into());
    args.push(offset.into());
    let mut statement =
        conn.prepare_cached(&format!("SELECT body FROM score_samples WHERE {clause} ORDER BY seq LIMIT ? OFFSET ?"))?;
    let bodies = statement.query_map(rusqlite::params_from_iter(&args), |r| r.get::<_, String>(0))?;
    Ok((bodies.collect::<rusqlite::Result<_>>()?, total.max(0) as u64))
}
