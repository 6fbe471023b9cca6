//! Stored metric values as the interface answers them: grouped by metric definition, each
//! group headed by the definition as it stands now.

use crate::service::store::Conn;
use uuid::Uuid;

use crate::api::model::*;
use crate::service::error::DomainResult;
use crate::service::store::{self, Kind};

/// Groups stored values (definition id, value body) by definition, in first-seen order, with
/// each group's header read from the current definition.
pub fn value_groups(
    conn: &Conn,
    rows: Vec<(String, String)>,
    filter: &ValueStatusFilter,
) -> DomainResult<Vec<MetricValueGroup>> {
    let mut groups: Vec<MetricValueGroup> = Vec::new();
    for (definition_id, body) in rows {
        let mut value: MetricValue = serde_json::from_str(&body)?;
        let success = value.capture_status == Some(CaptureStatus::Success);
        if *filter == ValueStatusFilter::Success && !success {
            continue;
        }
        if !success {
            value.value = None;
        }
        // Values have no TURN context in the hosted interface: a turn is a segment range.
        if value.context == Some(MetricContext::Turn) {
            value.context = Some(MetricContext::SegmentRange);
        }
        let index = match groups.iter().position(|g| g.metric_definition_id.to_string() == definition_id) {
            Some(index) => index,
            None => {
                let definition: Option<MetricDefinition> = store::get(conn, Kind::MetricDefinition, &definition_id)?;
                groups.push(group_header(&definition_id, definition));
                groups.len() - 1
            }
        };
        groups[index].values.push(value);
    }
    Ok(groups)
}

fn group_header(id: &str, definition: Option<MetricDefinition>) -> MetricValueGroup {
    let definition_id = Uuid::parse_str(id).unwrap_or_default();
    match definition {
        // Every member the hosted interface requires is there, even for a metric since deleted.
        Some(d) => MetricValueGroup {
            metric_definition_id: d.id,
            slug: d.slug.clone(),
            metric_id: d.slug,
            name: d.name,
            description: Some(d.description.unwrap_or_default()),
            metric_type: d.metric_type,
            scope: d.scope,
            unit: d.unit,
            values: Vec::new(),
        },
        None => MetricValueGroup {
            metric_definition_id: definition_id,
            slug: Some(id.to_owned()),
            metric_id: Some(id.to_owned()),
            name: Some(id.to_owned()),
            description: Some(String::new()),
            metric_type: Some(MetricType::Numeric),
            scope: Some(MetricScope::Global),
            unit: None,
            values: Vec::new(),
        },
    }
}
