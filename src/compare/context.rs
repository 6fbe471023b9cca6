//! What differed between two runs of a test case, where the interface shows it: the endpoint
//! as each simulation recorded it and when the endpoint (or its HTTP request definition) was
//! last edited, the flow likewise, the persona each simulation carried, and (in `diff`) the
//! version of each check's definition.

use std::collections::HashMap;

use serde::Serialize;
use uuid::Uuid;

use super::run::{Run, TestCase};
use crate::api::model::Timestamp;

/// What kind of thing differed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DifferenceKind {
    AgentEndpoint,
    HttpRequestDefinition,
    Flow,
    Persona,
    /// A check's definition has another `versionId`: a changed judge prompt, say.
    MetricVersion,
    /// A GONE and a NEW test case ran the same flow, variant and persona with other values of
    /// this variable: different test cases, said so that GONE + NEW is not a puzzle.
    Variable,
}

/// One thing that differed, with what it was in each run where known.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    pub what: DifferenceKind,
    /// Which one (an endpoint's, flow's, persona's or metric's name).
    pub subject: String,
    pub base: Option<String>,
    pub head: Option<String>,
}

impl Difference {
    pub fn in_words(&self) -> String {
        let what = match self.what {
            DifferenceKind::AgentEndpoint => "agent endpoint",
            DifferenceKind::HttpRequestDefinition => "endpoint's HTTP request definition",
            DifferenceKind::Flow => "flow",
            DifferenceKind::Persona => "persona",
            DifferenceKind::MetricVersion => "metric version",
            DifferenceKind::Variable => {
                let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".into());
                return format!(
                    "variable {}: {} → {} (a GONE and a NEW test case differ only in variables)",
                    self.subject,
                    shown(&self.base),
                    shown(&self.head)
                );
            }
        };
        match (&self.base, &self.head) {
            (Some(b), Some(h)) => format!("{what} {}: {b} → {h}", self.subject),
            (_, Some(h)) => format!("{what} {}: {h}", self.subject),
            _ => format!("{what} {} changed", self.subject),
        }
    }
}

/// When resources the runs used were last edited (`updatedAt`), as the service says now.
#[derive(Debug, Clone, Default)]
pub struct Edits {
    pub endpoints: HashMap<Uuid, Timestamp>,
    /// By endpoint id: its HTTP request definition's last edit.
    pub http_definitions: HashMap<Uuid, Timestamp>,
    pub flows: HashMap<Uuid, Timestamp>,
}

/// Whether `edited` falls after the earlier run started and no later than the later one did.
fn between(edited: Option<&Timestamp>, runs: (&Run, &Run)) -> bool {
    let parse = |t: Option<&Timestamp>| t.and_then(Timestamp::parse);
    let (Some(edited), Some(a), Some(b)) =
        (parse(edited), parse(runs.0.started_at.as_ref()), parse(runs.1.started_at.as_ref()))
    else {
        return false;
    };
    let (from, to) = if a <= b { (a, b) } else { (b, a) };
    from < edited && edited <= to
}

/// The differences between one test case's two runs (none where it ran in only one).
pub fn differences(
    base: Option<&TestCase>,
    head: Option<&TestCase>,
    runs: (&Run, &Run),
    edits: &Edits,
) -> Vec<Difference> {
    let (Some(base), Some(head)) = (base, head) else { return Vec::new() };
    let mut out = Vec::new();
    if let (Some(b), Some(h)) = (&base.endpoint, &head.endpoint) {
        let subject = h.name.clone().or(h.phone_number.clone()).unwrap_or_else(|| h.id.to_string());
        let shown = |e: &crate::api::model::JobEndpoint| {
            format!("{} {}", e.name.clone().unwrap_or_default(), e.phone_number.clone().unwrap_or_default())
                .trim()
                .to_string()
        };
        if b.name != h.name || b.phone_number != h.phone_number || b.endpoint_type != h.endpoint_type {
            out.push(Difference {
                what: DifferenceKind::AgentEndpoint,
                subject: subject.clone(),
                base: Some(shown(b)),
                head: Some(shown(h)),
            });
        } else if between(edits.endpoints.get(&h.id), runs) {
            out.push(edited(DifferenceKind::AgentEndpoint, subject.clone(), edits.endpoints.get(&h.id)));
        }
        if between(edits.http_definitions.get(&h.id), runs) {
            out.push(edited(DifferenceKind::HttpRequestDefinition, subject, edits.http_definitions.get(&h.id)));
        }
    }
    if let (Some(b), Some(h)) = (&base.flow, &head.flow) {
        let subject = h.title.clone().unwrap_or_else(|| h.id.to_string());
        if b.title != h.title || b.variant_title != h.variant_title {
            let shown = |f: &crate::api::model::JobFlow| {
                format!("{} · {}", f.title.clone().unwrap_or_default(), f.variant_title.clone().unwrap_or_default())
            };
            out.push(Difference { what: DifferenceKind::Flow, subject, base: Some(shown(b)), head: Some(shown(h)) });
        } else if between(edits.flows.get(&h.id), runs) {
            out.push(edited(DifferenceKind::Flow, subject, edits.flows.get(&h.id)));
        }
    }
    if let (Some(b), Some(h)) = (&base.persona, &head.persona) {
        let fields = changed_fields(b, h);
        if !fields.is_empty() {
            out.push(Difference {
                what: DifferenceKind::Persona,
                subject: h.label(),
                base: None,
                head: Some(format!("changed: {}", fields.join(", "))),
            });
        }
    }
    out
}

fn edited(what: DifferenceKind, subject: String, at: Option<&Timestamp>) -> Difference {
    Difference { what, subject, base: None, head: at.map(|t| format!("edited at {} (between the runs)", t.0)) }
}

/// The members in which two persona snapshots differ (timestamps aside).
fn changed_fields(a: &crate::api::model::Persona, b: &crate::api::model::Persona) -> Vec<String> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    let mut keys: Vec<&String> =
        a.keys().chain(b.keys()).filter(|k| !matches!(k.as_str(), "createdAt" | "updatedAt")).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::{EndpointType, JobEndpoint, JobFlow, Persona};
    use crate::compare::run::testing::{case, run};

    const ENDPOINT: Uuid = Uuid::from_u128(0xe);
    const FLOW: Uuid = Uuid::from_u128(0xf);

    fn endpoint(name: &str) -> JobEndpoint {
        JobEndpoint {
            id: ENDPOINT,
            name: Some(name.into()),
            phone_number: Some("+15035550123".into()),
            kind: Some(EndpointType::Phone),
            endpoint_type: Some(EndpointType::Phone),
        }
    }

    fn flow(variant: &str) -> JobFlow {
        JobFlow {
            id: FLOW,
            title: Some("Reschedule".into()),
            variant_id: None,
            variant_title: Some(variant.into()),
            happy_path: Some(false),
        }
    }

    fn persona(accent: &str) -> Persona {
        serde_json::from_value(serde_json::json!({"id": Uuid::from_u128(0xa), "name": "Dana", "accent": accent}))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn test_case(endpoint_name: &str, variant: &str, accent: &str) -> TestCase {
        let mut case = case("reschedule", 1);
        case.endpoint = Some(endpoint(endpoint_name));
        case.flow = Some(flow(variant));
        case.persona = Some(persona(accent));
        case
    }

    fn at(day: u32) -> Timestamp {
        Timestamp(format!("2026-10-{day:02}T12:00:00Z"))
    }

    #[test]
    fn what_each_simulation_recorded_differs_by_endpoint_flow_and_persona() {
        let (base, head) = (run(1, Vec::new(), Vec::new(), Vec::new()), run(2, Vec::new(), Vec::new(), Vec::new()));
        let same = test_case("Front desk", "Presses 2", "US");
        let found = differences(Some(&same), Some(&same.clone()), (&base, &head), &Edits::default());
        assert!(found.is_empty(), "nothing differed: {found:#?}");
        let changed = test_case("Front desk v2", "Presses 3", "GB");
        let found = differences(Some(&same), Some(&changed), (&base, &head), &Edits::default());
        let kinds: Vec<DifferenceKind> = found.iter().map(|d| d.what).collect();
        assert_eq!(kinds, vec![DifferenceKind::AgentEndpoint, DifferenceKind::Flow, DifferenceKind::Persona]);
        assert_eq!(
            found[0].in_words(),
            "agent endpoint Front desk v2: Front desk +15035550123 → Front desk v2 +15035550123"
        );
        assert_eq!(found[1].in_words(), "flow Reschedule: Reschedule · Presses 2 → Reschedule · Presses 3");
        assert_eq!(found[2].in_words(), "persona Dana: changed: accent");
        assert!(differences(None, Some(&same), (&base, &head), &Edits::default()).is_empty(), "one run only");
    }

    #[test]
    fn edits_count_only_between_the_runs_starts() {
        // The runs started on October 2 and 5, at 09:00.
        let (base, head) = (run(2, Vec::new(), Vec::new(), Vec::new()), run(5, Vec::new(), Vec::new(), Vec::new()));
        let same = test_case("Front desk", "Presses 2", "US");
        let mut edits = Edits::default();
        edits.endpoints.insert(ENDPOINT, at(3));
        edits.http_definitions.insert(ENDPOINT, at(3));
        edits.flows.insert(FLOW, at(3));
        let found = differences(Some(&same), Some(&same), (&base, &head), &edits);
        let kinds: Vec<DifferenceKind> = found.iter().map(|d| d.what).collect();
        assert_eq!(
            kinds,
            vec![DifferenceKind::AgentEndpoint, DifferenceKind::HttpRequestDefinition, DifferenceKind::Flow],
            "{found:#?}"
        );
        assert!(found[1].in_words().contains("edited at 2026-10-03T12:00:00Z (between the runs)"), "{found:#?}");
        // The same edits read the other way round (head older than base) still fall between.
        assert_eq!(differences(Some(&same), Some(&same), (&head, &base), &edits).len(), 3);
        // An edit after both runs started, or before either, is not a difference between them.
        for day in [6, 1] {
            let mut later = Edits::default();
            later.endpoints.insert(ENDPOINT, at(day));
            later.flows.insert(FLOW, at(day));
            assert!(differences(Some(&same), Some(&same), (&base, &head), &later).is_empty(), "day {day}");
        }
    }
}
