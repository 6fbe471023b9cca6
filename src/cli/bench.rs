//! `switchboard bench suites | samples TARGET --suite S [--condition C] [--metric M]`.

use clap::Subcommand;
use futures_util::{StreamExt, TryStreamExt};

use super::exit::{Exit, Outcome};
use super::output::{self, Format, Tabular};
use super::session::Session;
use crate::api::model::{CursorPagination, OffsetPagination, ScoreSample, ScoreSampleQuery, SuiteEntry};
use crate::columns::{Column, bench};

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// List the benchmark suites with published results.
    Suites,
    /// A target's score samples: the scorer's value and reasoning per sampled call.
    Samples {
        /// The target's key.
        target: String,
        #[arg(long)]
        suite: String,
        /// Only this condition.
        #[arg(long)]
        condition: Option<String>,
        /// Only this metric.
        #[arg(long)]
        metric: Option<String>,
        /// How many to print at most.
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
}

impl Tabular for SuiteEntry {
    fn columns() -> Vec<Column<Self>> {
        bench::SUITES.to_vec()
    }
}

impl Tabular for ScoreSample {
    fn columns() -> Vec<Column<Self>> {
        bench::SAMPLES.to_vec()
    }
}

pub async fn run(command: BenchCommand, session: &Session) -> Outcome {
    let client = &session.client;
    match command {
        BenchCommand::Suites => {
            let suites = client.list_benchmark_suites().await?;
            match session.format.resolve() {
                Format::Json => output::emit(&output::json(&serde_json::json!({ "data": suites }))?)?,
                format => output::list(format, &suites, &CursorPagination::default())?,
            }
        }
        BenchCommand::Samples { target, suite, condition, metric, limit } => {
            let query = ScoreSampleQuery {
                suite: Some(suite),
                condition_key: condition,
                metric_key: metric,
                limit: Some(100),
                ..Default::default()
            };
            let samples: Vec<ScoreSample> = client.score_samples(&target, query).take(limit).try_collect().await?;
            match session.format.resolve() {
                Format::Json => {
                    let pagination = OffsetPagination {
                        limit: limit as u64,
                        offset: 0,
                        total: samples.len() as u64,
                        has_more: false,
                    };
                    output::emit(&output::json(&serde_json::json!({ "data": samples, "pagination": pagination }))?)?;
                }
                format => output::list(format, &samples, &CursorPagination::default())?,
            }
        }
    }
    Ok(Exit::Ok)
}
