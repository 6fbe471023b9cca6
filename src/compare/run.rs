//! A run as a comparison sees it: its test cases, and for each simulation which checks passed
//! and the call-level numbers it produced. Built from the job read and either the results read
//! or each call's metrics, so both paths give the same `Run`.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use uuid::Uuid;

use crate::api::model::*;

/// What identifies a test case across runs: the flow and its variant (or the scenario), the
/// persona, the endpoint and the variables. Its iterations in a run form one sample.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseKey {
    pub flow_id: Option<Uuid>,
    pub variant_id: Option<Uuid>,
    pub scenario_id: Option<Uuid>,
    pub persona_id: Option<Uuid>,
    pub endpoint_id: Option<Uuid>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, String>,
}

/// A test case as one run ran it: its key, a name for people, and what it ran with.
#[derive(Debug, Clone)]
pub struct TestCase {
    pub key: CaseKey,
    /// Flow · variant · persona (· endpoint, where the run had several).
    pub name: String,
    pub flow: Option<JobFlow>,
    pub persona: Option<Persona>,
    pub endpoint: Option<JobEndpoint>,
}

/// A check of the run, with the definition version that judged it where the service says.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRef {
    pub id: Uuid,
    pub name: String,
    pub version_id: Option<Uuid>,
    pub version: Option<u64>,
}

/// A numeric series: a metric that is not a check, on one side of the call where it has sides.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeasureKey {
    pub metric: Uuid,
    pub role: Option<String>,
}

#[derive(Debug, Clone)]
pub struct MeasureRef {
    pub key: MeasureKey,
    pub name: String,
    pub unit: Option<String>,
}

/// One counted simulation's results.
#[derive(Debug, Clone)]
pub struct SimResult {
    pub simulation_job_id: Uuid,
    pub call_id: Option<Uuid>,
    /// Index into `Run::cases`.
    pub case: usize,
    /// (index into `Run::checks`, passed).
    pub checks: Vec<(usize, bool)>,
    /// (index into `Run::measures`, value).
    pub values: Vec<(usize, f64)>,
}

/// How the run's per-simulation results were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReadPath {
    /// One results read (`GET …/check-results`).
    Results,
    /// Each call's metrics, judged here by the service's rule.
    CallByCall,
}

/// A run, ready to compare.
#[derive(Debug, Clone)]
pub struct Run {
    pub job_id: Uuid,
    pub plan_id: Option<Uuid>,
    pub plan_name: Option<String>,
    pub status: Option<RunPlanJobStatus>,
    /// Whether the run has ended (by its status or its end time): only an ended run is compared.
    pub ended: bool,
    /// When the run started (created, before it has).
    pub started_at: Option<Timestamp>,
    pub verdict: Option<Verdict>,
    pub read_path: ReadPath,
    pub checks: Vec<CheckRef>,
    pub measures: Vec<MeasureRef>,
    pub cases: Vec<TestCase>,
    /// Counted simulations only (invalidated ones never count).
    pub sims: Vec<SimResult>,
    /// The simulations' failed checks with the judge's reasoning, where the job gives them.
    pub reasons: HashMap<(Uuid, Uuid), String>,
}

/// Test cases as the job's simulations define them.
struct Cases {
    cases: Vec<TestCase>,
    index: HashMap<CaseKey, usize>,
    several_endpoints: bool,
}

impl Cases {
    fn new(job: &RunPlanJob) -> Cases {
        let mut endpoints: Vec<Uuid> =
            job.simulation_jobs.iter().filter_map(|s| s.agent_endpoint.as_ref().map(|e| e.id)).collect();
        endpoints.sort_unstable();
        endpoints.dedup();
        Cases { cases: Vec::new(), index: HashMap::new(), several_endpoints: endpoints.len() > 1 }
    }

    fn of(&mut self, sim: &SimulationJob, variables: Option<&BTreeMap<String, String>>) -> usize {
        let key = CaseKey {
            flow_id: sim.customer_flow.as_ref().map(|f| f.id),
            variant_id: sim.customer_flow.as_ref().and_then(|f| f.variant_id),
            scenario_id: sim.scenario.as_ref().map(|s| s.id),
            persona_id: sim.persona.as_ref().map(|p| p.id),
            endpoint_id: sim.agent_endpoint.as_ref().map(|e| e.id),
            variables: variables.cloned().unwrap_or_default(),
        };
        if let Some(index) = self.index.get(&key) {
            return *index;
        }
        let case = TestCase {
            name: case_name(sim, self.several_endpoints),
            key: key.clone(),
            flow: sim.customer_flow.clone(),
            persona: sim.persona.clone(),
            endpoint: sim.agent_endpoint.clone(),
        };
        self.cases.push(case);
        self.index.insert(key, self.cases.len() - 1);
        self.cases.len() - 1
    }

    /// The test cases, their variables named where they tell cases apart.
    fn finish(self) -> Vec<TestCase> {
        let mut cases = self.cases;
        let same = cases.windows(2).all(|w| w[0].key.variables == w[1].key.variables);
        if !same {
            for case in &mut cases {
                let pairs: Vec<String> = case.key.variables.iter().map(|(k, v)| format!("{k}={v}")).collect();
                if !pairs.is_empty() {
                    case.name = format!("{} · {}", case.name, pairs.join(", "));
                }
            }
        }
        cases
    }
}

/// Flow · variant · persona, then the endpoint where the run had several.
pub fn case_name(sim: &SimulationJob, with_endpoint: bool) -> String {
    let mut parts = Vec::new();
    if let Some(flow) = &sim.customer_flow {
        parts.push(flow.title.clone().unwrap_or_else(|| flow.id.to_string()));
        let variant =
            flow.variant_title.clone().or_else(|| (flow.happy_path == Some(true)).then(|| "happy path".into()));
        parts.extend(variant);
    } else if let Some(scenario) = &sim.scenario {
        parts.push(scenario.description.clone().unwrap_or_else(|| scenario.id.to_string()));
    }
    if let Some(persona) = &sim.persona {
        parts.push(persona.label());
    }
    if with_endpoint && let Some(endpoint) = &sim.agent_endpoint {
        parts.push(endpoint.name.clone().or(endpoint.phone_number.clone()).unwrap_or_else(|| endpoint.id.to_string()));
    }
    parts.join(" · ")
}

fn counts(sim: &SimulationJob) -> bool {
    sim.invalidation.is_none()
}

impl Run {
    fn empty(job: &RunPlanJob, read_path: ReadPath) -> Run {
        let reasons = job
            .simulation_jobs
            .iter()
            .flat_map(|s| {
                s.failed_checks.iter().filter_map(move |f| {
                    f.value_reasoning.clone().map(|r| ((s.simulation_job_id, f.metric_definition_id), r))
                })
            })
            .collect();
        Run {
            job_id: job.simulation_run_plan_job_id,
            plan_id: job.simulation_run_plan_id,
            plan_name: None,
            status: job.status.clone(),
            ended: job.has_ended(),
            started_at: job.started_at.clone().or(job.created_at.clone()),
            verdict: job.verdict.clone(),
            read_path,
            checks: job
                .verdict
                .iter()
                .flat_map(|v| &v.checks)
                .map(|c| CheckRef { id: c.metric_definition_id, name: c.name(), version_id: None, version: None })
                .collect(),
            measures: Vec::new(),
            cases: Vec::new(),
            sims: Vec::new(),
            reasons,
        }
    }

    fn check_index(&mut self, id: Uuid, name: Option<&str>) -> usize {
        match self.checks.iter().position(|c| c.id == id) {
            Some(index) => index,
            None => {
                let name = name.map(str::to_owned).unwrap_or_else(|| id.to_string());
                self.checks.push(CheckRef { id, name, version_id: None, version: None });
                self.checks.len() - 1
            }
        }
    }

    fn measure_index(&mut self, key: MeasureKey, name: Option<&str>, unit: Option<&str>) -> usize {
        match self.measures.iter().position(|m| m.key == key) {
            Some(index) => index,
            None => {
                let mut label = name.map(str::to_owned).unwrap_or_else(|| key.metric.to_string());
                if let Some(role) = &key.role {
                    label = format!("{label} ({})", role.to_lowercase());
                }
                self.measures.push(MeasureRef { key, name: label, unit: unit.map(str::to_owned) });
                self.measures.len() - 1
            }
        }
    }

    /// The run from its job and its results read.
    pub fn from_results(job: &RunPlanJob, results: &RunResults) -> Run {
        let mut run = Run::empty(job, ReadPath::Results);
        run.plan_name = results.run.simulation_run_plan_name.clone();
        for metric in &results.metrics {
            if metric.is_check {
                let index = run.check_index(metric.metric_definition_id, metric.name.as_deref());
                run.checks[index].version_id = metric.version_id;
                run.checks[index].version = metric.version;
            }
        }
        let numeric: HashMap<Uuid, &ResultsMetric> = results
            .metrics
            .iter()
            .filter(|m| !m.is_check && is_numeric(m.output_type.as_ref()))
            .map(|m| (m.metric_definition_id, m))
            .collect();
        let by_sim: HashMap<Uuid, &ResultsCall> = results.calls.iter().map(|c| (c.simulation_job_id, c)).collect();
        let mut cases = Cases::new(job);
        for sim in job.simulation_jobs.iter().filter(|s| counts(s)) {
            let call = by_sim.get(&sim.simulation_job_id);
            if call.is_some_and(|c| !c.counted) {
                continue;
            }
            let case = cases.of(sim, call.and_then(|c| c.variables.as_ref()));
            let mut result = SimResult {
                simulation_job_id: sim.simulation_job_id,
                call_id: sim.call_id,
                case,
                checks: Vec::new(),
                values: Vec::new(),
            };
            for check in call.map(|c| c.checks.as_slice()).unwrap_or_default() {
                let index = run.check_index(check.metric_definition_id, check.metric_name.as_deref());
                result.checks.push((index, check.passed));
            }
            for value in call.map(|c| c.values.as_slice()).unwrap_or_default() {
                let Some(metric) = numeric.get(&value.metric_definition_id) else { continue };
                let Some(number) = value.value.as_ref().and_then(ResultValue::number) else { continue };
                let key = MeasureKey { metric: value.metric_definition_id, role: value.participant_role.clone() };
                let index = run.measure_index(key, metric.name.as_deref(), metric.unit_symbol.as_deref());
                result.values.push((index, number));
            }
            run.sims.push(result);
        }
        run.cases = cases.finish();
        run
    }

    /// The run from its job and each call's metrics (`status=all`), judged by the service's
    /// rule: a check passes on a simulation when every SUCCESS value it produced is true.
    pub fn from_calls(job: &RunPlanJob, metrics: &HashMap<Uuid, Vec<MetricValueGroup>>) -> Run {
        let mut run = Run::empty(job, ReadPath::CallByCall);
        let check_ids: Vec<Uuid> = run.checks.iter().map(|c| c.id).collect();
        let mut cases = Cases::new(job);
        for sim in job.simulation_jobs.iter().filter(|s| counts(s)) {
            let case = cases.of(sim, None);
            let mut result = SimResult {
                simulation_job_id: sim.simulation_job_id,
                call_id: sim.call_id,
                case,
                checks: Vec::new(),
                values: Vec::new(),
            };
            let groups = sim.call_id.and_then(|c| metrics.get(&c)).map(Vec::as_slice).unwrap_or_default();
            let completed = sim.status == Some(SimulationJobStatus::Completed);
            for group in groups.iter().filter(|_| completed) {
                if check_ids.contains(&group.metric_definition_id) {
                    let values = group.values.iter().map(|v| (v.capture_status.as_ref(), v.value));
                    if let Some(passed) = check_result(values) {
                        let index = run.check_index(group.metric_definition_id, group.name.as_deref());
                        result.checks.push((index, passed));
                    }
                    continue;
                }
                if !is_numeric(group.metric_type.as_ref()) {
                    continue;
                }
                for value in &group.values {
                    let call_level = value.context.as_ref().is_none_or(|c| *c == MetricContext::Call);
                    let success = value.capture_status.as_ref().is_none_or(|s| *s == CaptureStatus::Success);
                    let (true, true, Some(number)) = (call_level, success, value.value) else { continue };
                    let key = MeasureKey { metric: group.metric_definition_id, role: value.participant_role.clone() };
                    let unit = group.unit.as_ref().and_then(|u| u.symbol.clone());
                    let index = run.measure_index(key, group.name.as_deref(), unit.as_deref());
                    result.values.push((index, number));
                }
            }
            run.sims.push(result);
        }
        run.cases = cases.finish();
        run
    }

    /// The check with this definition id.
    pub fn check(&self, id: Uuid) -> Option<&CheckRef> {
        self.checks.iter().find(|c| c.id == id)
    }
}

fn is_numeric(kind: Option<&MetricType>) -> bool {
    matches!(kind, Some(MetricType::Numeric | MetricType::Scale | MetricType::Count | MetricType::Offset))
}
