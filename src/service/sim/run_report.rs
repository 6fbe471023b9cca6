//! A run's results in one read (the hosted run report's `run`, `summary`, `metrics`, `calls`
//! and `verdict`), built from the stored simulations and the values of the run's collection
//! job. Values are read with SQLite's JSON functions rather than decoded, so a 10,000-
//! simulation run with per-turn metrics reads in well under a second. The run's test cases
//! are listed once (`testCases`) and each call names its own, so a comparison needs no other
//! read of the run.

use std::collections::{BTreeMap, HashMap};

use crate::service::store::Conn;
use uuid::Uuid;

use super::jobs::StoredRunPlanJob;
use super::selection::simulation_variables;
use crate::api::model::*;
use crate::service::error::DomainResult;
use crate::service::metrics::versions::AtInstant;
use crate::service::store::StoreResult;
use crate::service::store::values::{ValueRow as Row, values_by_call as rows_by_call};
use crate::service::store::{self, Kind};

/// The results of run plan job `job_id`, or 404.
pub fn run_results(conn: &Conn, job_id: &str) -> DomainResult<RunResults> {
    let started = std::time::Instant::now();
    let stored = StoredRunPlanJob::load(conn, job_id)?;
    let (plan, runtime) = (stored.plan()?, stored.variables()?);
    let collection_id = stored.collection_job_id.map(|id| id.to_string());
    let job = stored.job;
    let simulations = simulations(conn, job_id)?;
    let read_simulations = started.elapsed();
    let rows = match &collection_id {
        Some(id) => rows_by_call(conn, id)?,
        None => HashMap::new(),
    };
    let read_values = started.elapsed();
    // The run read its definitions when it opened its collection job.
    let read_at = collection_id
        .as_deref()
        .map(|id| store::get::<CollectionJob>(conn, Kind::CollectionJob, id))
        .transpose()?
        .flatten()
        .and_then(|c| c.created_at)
        .or(job.started_at.clone())
        .or(job.created_at.clone())
        .unwrap_or_else(Timestamp::now);
    let definitions = Definitions::read(conn, &job, &rows, &read_at)?;

    let mut calls = Vec::with_capacity(simulations.len());
    let mut test_cases = TestCases::default();
    for sim in &simulations {
        let own = sim.call_id.and_then(|c| rows.get(&c.to_string())).map(Vec::as_slice).unwrap_or_default();
        let variables = simulation_variables(plan.as_ref(), runtime.as_ref(), sim);
        let mut call = call(sim, own, &definitions, &variables);
        call.test_case_id = Some(test_cases.of(sim, variables));
        calls.push(call);
    }
    let built_calls = started.elapsed();
    let metrics = definitions.metrics(&calls);
    let summary = summary(&calls, job.verdict.as_ref());
    let plan_name = job
        .simulation_run_plan_id
        .map(|id| store::get::<RunPlan>(conn, Kind::RunPlan, &id.to_string()))
        .transpose()?
        .flatten()
        .and_then(|p| p.plan.name);
    let duration_ms =
        match (job.started_at.as_ref().and_then(Timestamp::parse), job.ended_at.as_ref().and_then(Timestamp::parse)) {
            (Some(start), Some(end)) => Some(end.as_millisecond() - start.as_millisecond()),
            _ => None,
        };
    tracing::debug!(
        simulations = simulations.len(),
        values = rows.values().map(Vec::len).sum::<usize>(),
        ?read_simulations,
        ?read_values,
        ?built_calls,
        total = ?started.elapsed(),
        "check-results read of {job_id} built"
    );
    Ok(RunResults {
        run: RunSummaryHead {
            simulation_run_plan_job_id: job.simulation_run_plan_job_id,
            simulation_run_plan_id: job.simulation_run_plan_id,
            simulation_run_plan_name: plan_name,
            status: job.status.clone(),
            created_at: job.created_at.clone(),
            started_at: job.started_at.clone(),
            ended_at: job.ended_at.clone(),
            duration_ms,
        },
        summary: Some(summary),
        metrics,
        calls,
        test_cases: Some(test_cases.cases),
        verdict: job.verdict,
    })
}

/// The run's test cases in the order their first simulations come.
#[derive(Default)]
struct TestCases {
    cases: Vec<ResultsTestCase>,
    seen: std::collections::HashSet<Uuid>,
}

impl TestCases {
    /// The id of `sim`'s test case, listing it when it is new.
    fn of(&mut self, sim: &SimulationJob, variables: BTreeMap<String, String>) -> Uuid {
        let flow = sim.customer_flow.as_ref();
        let key = format!(
            "{:?}/{:?}/{:?}/{:?}/{:?}/{:?}",
            flow.map(|f| f.id),
            flow.and_then(|f| f.variant_id),
            sim.scenario.as_ref().map(|s| s.id),
            sim.persona.as_ref().map(|p| p.id),
            sim.agent_endpoint.as_ref().map(|e| e.id),
            variables
        );
        let id = Uuid::new_v5(&Uuid::NAMESPACE_OID, key.as_bytes());
        if self.seen.insert(id) {
            self.cases.push(ResultsTestCase {
                test_case_id: id,
                customer_flow: sim.customer_flow.clone(),
                scenario: sim.scenario.clone(),
                persona: sim.persona.clone(),
                agent_endpoint: sim.agent_endpoint.clone(),
                variables,
            });
        }
        id
    }
}

fn simulations(conn: &Conn, job_id: &str) -> StoreResult<Vec<SimulationJob>> {
    store::children(conn, Kind::SimulationJob, job_id)
}

/// The run's metrics, as they stood when it read them.
struct Definitions {
    /// In the order results list them: the verdict's checks, then the rest as first seen.
    order: Vec<MetricDefinition>,
    /// Each definition's place in `order`, by its id as the values name it.
    index: HashMap<String, usize>,
    checks: Vec<Uuid>,
}

impl Definitions {
    fn read(
        conn: &Conn,
        job: &RunPlanJob,
        rows: &HashMap<String, Vec<Row>>,
        at: &Timestamp,
    ) -> DomainResult<Definitions> {
        let mut at_instant = AtInstant::default();
        let mut order: Vec<MetricDefinition> = Vec::new();
        let mut add = |conn: &Conn, id: &str, order: &mut Vec<MetricDefinition>| -> DomainResult<()> {
            if order.iter().any(|d| d.id.to_string() == id) {
                return Ok(());
            }
            if let Some(definition) = at_instant.get(conn, id, at)? {
                order.push(definition.clone());
            }
            Ok(())
        };
        let checks: Vec<Uuid> = match &job.verdict {
            Some(verdict) => verdict.checks.iter().map(|c| c.metric_definition_id).collect(),
            None => Vec::new(),
        };
        for id in &checks {
            add(conn, &id.to_string(), &mut order)?;
        }
        let mut seen: Vec<&str> = rows.values().flatten().map(|r| r.definition.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        for id in seen {
            add(conn, id, &mut order)?;
        }
        // Checks first, then other metrics, each group by name.
        let is_check = |d: &MetricDefinition| checks.contains(&d.id);
        order.sort_by(|a, b| is_check(b).cmp(&is_check(a)).then_with(|| a.name.cmp(&b.name)));
        let index = order.iter().enumerate().map(|(i, d)| (d.id.to_string(), i)).collect();
        Ok(Definitions { order, index, checks })
    }

    fn get(&self, id: &str) -> Option<&MetricDefinition> {
        self.index.get(id).map(|i| &self.order[*i])
    }

    /// Each metric's aggregate over the calls.
    fn metrics(&self, calls: &[ResultsCall]) -> Vec<ResultsMetric> {
        self.order
            .iter()
            .map(|d| {
                let is_check = self.checks.contains(&d.id);
                let mut tally = MetricCheckTally::default();
                let mut numbers = Vec::new();
                let mut evaluated = 0u64;
                for call in calls.iter().filter(|c| c.counted) {
                    if is_check {
                        if let Some(check) = call.checks.iter().find(|c| c.metric_definition_id == d.id) {
                            tally.evaluated_calls += 1;
                            tally.passed_calls += u64::from(check.passed);
                            evaluated += 1;
                        }
                        continue;
                    }
                    let own: Vec<f64> = call
                        .values
                        .iter()
                        .filter(|v| v.metric_definition_id == d.id)
                        .filter_map(|v| v.value.as_ref().and_then(ResultValue::number))
                        .collect();
                    evaluated += u64::from(!own.is_empty());
                    numbers.extend(own);
                }
                tally.failed_calls = tally.evaluated_calls - tally.passed_calls;
                tally.pass_rate = (tally.evaluated_calls > 0)
                    .then(|| tally.passed_calls as f64 * 100.0 / tally.evaluated_calls as f64);
                let sample_size = if is_check { tally.evaluated_calls } else { numbers.len() as u64 };
                ResultsMetric {
                    metric_definition_id: d.id,
                    metric_id: d.slug.clone(),
                    name: d.name.clone(),
                    output_type: d.metric_type.clone(),
                    is_check,
                    check: is_check.then_some(tally),
                    numeric: if is_numeric(d) { numeric(&mut numbers) } else { None },
                    evaluated_calls: evaluated,
                    sample_size,
                    unit_symbol: d.unit.as_ref().and_then(|u| u.symbol.clone()),
                    version_id: d.version_id,
                    version: d.version,
                }
            })
            .collect()
    }
}

fn is_numeric(definition: &MetricDefinition) -> bool {
    matches!(
        definition.metric_type,
        Some(MetricType::Numeric | MetricType::Scale | MetricType::Count | MetricType::Offset)
    )
}

fn numeric(values: &mut [f64]) -> Option<NumericSummary> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = |p: f64| values[((p / 100.0 * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
    Some(NumericSummary {
        average: values.iter().sum::<f64>() / values.len() as f64,
        min: values[0],
        max: values[values.len() - 1],
        median: rank(50.0),
        p95: rank(95.0),
    })
}

/// One simulation's results from its values.
fn call(
    sim: &SimulationJob,
    rows: &[Row],
    definitions: &Definitions,
    variables: &BTreeMap<String, String>,
) -> ResultsCall {
    let counted = sim.invalidation.is_none();
    let completed = sim.status == Some(SimulationJobStatus::Completed);
    let mut checks = Vec::new();
    let mut values = Vec::new();
    if counted && completed {
        // Only a simulation the verdict counts lists checks, so the read and the verdict agree.
        for id in definitions.checks.iter().filter(|_| sim.counts_for_checks()) {
            let key = id.to_string();
            let own = rows.iter().filter(|r| r.definition == key).map(|r| (r.status.as_ref(), r.value));
            if let Some(passed) = check_result(own) {
                let name = definitions.get(&key).and_then(|d| d.name.clone());
                let reasoning = match passed {
                    true => None,
                    false => sim
                        .failed_checks
                        .iter()
                        .find(|f| f.metric_definition_id == *id)
                        .and_then(|f| f.value_reasoning.clone()),
                };
                checks.push(CallCheck { metric_definition_id: *id, metric_name: name, passed, reasoning });
            }
        }
        for row in
            rows.iter().filter(|r| r.call_level && r.status.as_ref().is_none_or(|s| *s == CaptureStatus::Success))
        {
            let Some(definition) = definitions.get(&row.definition) else { continue };
            if definitions.checks.contains(&definition.id) {
                continue;
            }
            let value = match (&definition.metric_type, &row.label, row.value) {
                (Some(MetricType::Text | MetricType::Classification), Some(label), _) => {
                    Some(ResultValue::Text(label.clone()))
                }
                (Some(MetricType::Boolean), _, Some(v)) => Some(ResultValue::Bool(v != 0.0)),
                (_, _, Some(v)) => Some(ResultValue::Number(v)),
                _ => None,
            };
            values.push(CallValue {
                metric_definition_id: definition.id,
                metric_name: definition.name.clone(),
                output_type: definition.metric_type.clone(),
                participant_role: row.role.clone(),
                reasoning: None,
                value,
            });
        }
    }
    let passed = (counted && !checks.is_empty()).then(|| checks.iter().all(|c| c.passed));
    let variables = (!variables.is_empty()).then(|| variables.clone());
    ResultsCall {
        simulation_job_id: sim.simulation_job_id,
        call_id: sim.call_id,
        status: Some(status(sim)),
        counted,
        passed,
        checks,
        values,
        persona_name: sim.persona.as_ref().map(Persona::label),
        agent_name: sim.agent_endpoint.as_ref().and_then(|e| e.name.clone()),
        duration_ms: None,
        variables,
        test_case_id: None,
    }
}

/// A simulation's status in the results read's words.
fn status(sim: &SimulationJob) -> CallResultStatus {
    if sim.invalidation.is_some() {
        return CallResultStatus::Invalidated;
    }
    match &sim.status {
        Some(SimulationJobStatus::Completed) => CallResultStatus::Completed,
        Some(SimulationJobStatus::Failed) => CallResultStatus::Error,
        Some(SimulationJobStatus::TimedOut) => CallResultStatus::TimedOut,
        Some(SimulationJobStatus::Cancelled) => CallResultStatus::Cancelled,
        Some(SimulationJobStatus::Processing) => match &sim.processing_status {
            Some(ProcessingStatus::Connecting) => CallResultStatus::Connecting,
            Some(ProcessingStatus::Simulating) => CallResultStatus::InCall,
            _ => CallResultStatus::Processing,
        },
        Some(SimulationJobStatus::Unknown(other)) => CallResultStatus::Unknown(other.clone()),
        _ => CallResultStatus::Queued,
    }
}

fn summary(calls: &[ResultsCall], verdict: Option<&Verdict>) -> ResultsSummary {
    let counted: Vec<&ResultsCall> = calls.iter().filter(|c| c.counted).collect();
    let evaluated = counted.iter().filter(|c| c.passed.is_some()).count() as u64;
    let passed = counted.iter().filter(|c| c.passed == Some(true)).count() as u64;
    let (checks_passed, checks_total) =
        counted.iter().flat_map(|c| &c.checks).fold((0u64, 0u64), |(p, t), c| (p + u64::from(c.passed), t + 1));
    let rate = |part: u64, whole: u64| (whole > 0).then(|| part as f64 * 100.0 / whole as f64);
    ResultsSummary {
        total_calls: calls.len() as u64,
        counted_calls: counted.len() as u64,
        completed_calls: counted.iter().filter(|c| c.status == Some(CallResultStatus::Completed)).count() as u64,
        evaluated_calls: evaluated,
        passed_calls: passed,
        failed_calls: evaluated - passed,
        call_pass_rate: rate(passed, evaluated),
        check_pass_rate: rate(checks_passed, checks_total),
        score: verdict.and_then(|v| v.score),
    }
}

#[cfg(test)]
mod tests;
