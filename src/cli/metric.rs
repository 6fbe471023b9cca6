//! `switchboard metric list | values COLLECTION_JOB [--status all]`.

use clap::Subcommand;
use serde::Serialize;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::listing::{self, ListArgs};
use super::output::{self, Format, Tabular};
use super::session::Session;
use crate::api::model::{CursorPagination, MetricDefinition, MetricValue, MetricValueGroup, ValueStatusFilter};
use crate::api::{ListQuery, routes};
use crate::columns::{Column, Holds, metric};

#[derive(Debug, Subcommand)]
pub enum MetricCommand {
    /// List metric definitions.
    List(ListArgs),
    /// The values a collection job produced (a run's metrics: its run plan job opens one).
    Values {
        /// The collection job's id.
        collection_job: Uuid,
        /// `success` (the default) or `all` (also NOT_APPLICABLE, DATA_MISSING and ERROR rows).
        #[arg(long, default_value = "success")]
        status: String,
    },
}

impl Tabular for MetricDefinition {
    fn columns() -> Vec<Column<Self>> {
        metric::CLI.to_vec()
    }
}

/// One value of a metric, flattened for a table (the JSON keeps the service's groups).
struct ValueRow<'a> {
    group: &'a MetricValueGroup,
    value: &'a MetricValue,
}

impl Serialize for ValueRow<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl Holds<MetricValueGroup> for ValueRow<'_> {
    fn item(&self) -> &MetricValueGroup {
        self.group
    }
}

impl Holds<MetricValue> for ValueRow<'_> {
    fn item(&self) -> &MetricValue {
        self.value
    }
}

impl Tabular for ValueRow<'_> {
    fn columns() -> Vec<Column<Self>> {
        metric::values().to_vec()
    }
}

pub async fn run(command: MetricCommand, session: &Session) -> Outcome {
    let client = &session.client;
    match command {
        MetricCommand::List(list) => {
            let (metrics, pagination) =
                listing::fetch::<MetricDefinition>(client, routes::METRIC_DEFINITIONS, ListQuery::default(), &list)
                    .await?;
            output::list(session.format, &metrics, &pagination)?;
        }
        MetricCommand::Values { collection_job, status } => {
            let status = match status.to_ascii_lowercase().as_str() {
                "success" => ValueStatusFilter::Success,
                "all" => ValueStatusFilter::All,
                other => {
                    return Err(Failure::invalid("--status", format!("--status is success or all, not {other:?}")));
                }
            };
            let groups = client.collection_job_values(collection_job, status).await.map_err(|e| match e.status() {
                Some(404) => Failure::not_found(format!("no collection job has the id {collection_job}")),
                _ => e.into(),
            })?;
            match session.format.resolve() {
                // The service's own shape: `{data: [groups]}`.
                Format::Json => output::emit(&output::json(&serde_json::json!({ "data": groups }))?)?,
                format => {
                    let rows: Vec<ValueRow> = groups
                        .iter()
                        .flat_map(|group| group.values.iter().map(move |value| ValueRow { group, value }))
                        .collect();
                    output::list(format, &rows, &CursorPagination::default())?;
                }
            }
        }
    }
    Ok(Exit::Ok)
}
