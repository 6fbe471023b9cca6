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
    /// Whether its checks count (`SimulationJob::counts_for_checks`); one that does not has none.
    pub scored: bool,
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

/// What a simulation ran with, as the job read or the results read's test case says it.
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    pub flow: Option<&'a JobFlow>,
    pub scenario: Option<&'a ScenarioSummary>,
    pub persona: Option<&'a Persona>,
    pub endpoint: Option<&'a JobEndpoint>,
}

impl<'a> Setup<'a> {
    pub fn of(sim: &'a SimulationJob) -> Setup<'a> {
        Setup {
            flow: sim.customer_flow.as_ref(),
            scenario: sim.scenario.as_ref(),
            persona: sim.persona.as_ref(),
            endpoint: sim.agent_endpoint.as_ref(),
        }
    }

    fn of_case(case: &'a ResultsTestCase) -> Setup<'a> {
        Setup {
            flow: case.customer_flow.as_ref(),
            scenario: case.scenario.as_ref(),
            persona: case.persona.as_ref(),
            endpoint: case.agent_endpoint.as_ref(),
        }
    }
}

/// Test cases as the run's simulations define them.
struct Cases {
    cases: Vec<TestCase>,
    index: HashMap<CaseKey, usize>,
    several_endpoints: bool,
}

impl Cases {
    /// Test cases of a run whose simulations dialled `endpoints`.
    fn new(endpoints: impl Iterator<Item = Uuid>) -> Cases {
        let mut endpoints: Vec<Uuid> = endpoints.collect();
        endpoints.sort_unstable();
        endpoints.dedup();
        Cases { cases: Vec::new(), index: HashMap::new(), several_endpoints: endpoints.len() > 1 }
    }

    fn of_job(job: &RunPlanJob) -> Cases {
        Cases::new(job.simulation_jobs.iter().filter_map(|s| s.agent_endpoint.as_ref().map(|e| e.id)))
    }

    fn of(&mut self, setup: Setup<'_>, variables: Option<&BTreeMap<String, String>>) -> usize {
        let key = CaseKey {
            flow_id: setup.flow.map(|f| f.id),
            variant_id: setup.flow.and_then(|f| f.variant_id),
            scenario_id: setup.scenario.map(|s| s.id),
            persona_id: setup.persona.map(|p| p.id),
            endpoint_id: setup.endpoint.map(|e| e.id),
            variables: variables.cloned().unwrap_or_default(),
        };
        if let Some(index) = self.index.get(&key) {
            return *index;
        }
        let case = TestCase {
            name: case_name(setup, self.several_endpoints),
            key: key.clone(),
            flow: setup.flow.cloned(),
            persona: setup.persona.cloned(),
            endpoint: setup.endpoint.cloned(),
        };
        self.cases.push(case);
        self.index.insert(key, self.cases.len() - 1);
        self.cases.len() - 1
    }

    /// The test cases, each named by the variables that tell it apart from the cases that
    /// share its flow, variant and persona (and by no others).
    fn finish(self) -> Vec<TestCase> {
        let mut cases = self.cases;
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, case) in cases.iter().enumerate() {
            by_name.entry(case.name.clone()).or_default().push(i);
        }
        for same_name in by_name.into_values().filter(|group| group.len() > 1) {
            let sets: Vec<BTreeMap<String, String>> =
                same_name.iter().map(|&i| cases[i].key.variables.clone()).collect();
            let differing = differing_variables(&sets);
            for &i in &same_name {
                let vars = &cases[i].key.variables;
                let pairs: Vec<String> =
                    differing.iter().filter_map(|k| vars.get(k).map(|v| format!("{k}={v}"))).collect();
                if !pairs.is_empty() {
                    cases[i].name = format!("{} · {}", cases[i].name, pairs.join(", "));
                }
            }
        }
        cases
    }
}

/// The variable names whose values are not the same in every one of `sets` (absent counts).
fn differing_variables(sets: &[BTreeMap<String, String>]) -> Vec<String> {
    let mut names: Vec<&String> = sets.iter().flat_map(|vars| vars.keys()).collect();
    names.sort();
    names.dedup();
    let differs = |name: &String| sets.iter().any(|vars| vars.get(name) != sets[0].get(name));
    names.into_iter().filter(|name| differs(name)).cloned().collect()
}

/// Flow · variant · persona, then the endpoint where the run had several.
pub fn case_name(setup: Setup<'_>, with_endpoint: bool) -> String {
    let mut parts = Vec::new();
    if let Some(flow) = setup.flow {
        parts.extend(flow_parts(flow));
    } else if let Some(scenario) = setup.scenario {
        parts.push(scenario.description.clone().unwrap_or_else(|| scenario.id.to_string()));
    }
    if let Some(persona) = setup.persona {
        parts.push(persona.label());
    }
    if with_endpoint && let Some(endpoint) = setup.endpoint {
        parts.push(endpoint.name.clone().or(endpoint.phone_number.clone()).unwrap_or_else(|| endpoint.id.to_string()));
    }
    parts.join(" · ")
}

/// A flow's title and its variant's (`happy path` for an untitled happy path), the variant left
/// out where it only repeats the flow's title (a happy path named after its flow).
pub fn flow_parts(flow: &JobFlow) -> Vec<String> {
    let title = flow.title.clone().unwrap_or_else(|| flow.id.to_string());
    let variant = flow.variant_title.clone().or_else(|| (flow.happy_path == Some(true)).then(|| "happy path".into()));
    let repeats = |v: &String| v.trim().eq_ignore_ascii_case(title.trim());
    let variant = variant.filter(|v| !repeats(v));
    std::iter::once(title).chain(variant).collect()
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

    /// The run from its job and its results read (a results read that does not list the
    /// run's test cases: the job says what each simulation ran with).
    pub fn from_results(job: &RunPlanJob, results: &RunResults) -> Run {
        let mut run = Run::empty(job, ReadPath::Results);
        run.plan_name = results.run.simulation_run_plan_name.clone();
        let numeric = run.metrics_of(results);
        let by_sim: HashMap<Uuid, &ResultsCall> = results.calls.iter().map(|c| (c.simulation_job_id, c)).collect();
        let mut cases = Cases::of_job(job);
        for sim in job.simulation_jobs.iter().filter(|s| counts(s)) {
            let call = by_sim.get(&sim.simulation_job_id).copied();
            if call.is_some_and(|c| !c.counted) {
                continue;
            }
            let case = cases.of(Setup::of(sim), call.and_then(|c| c.variables.as_ref()));
            let mut result = SimResult {
                simulation_job_id: sim.simulation_job_id,
                call_id: sim.call_id,
                case,
                scored: sim.counts_for_checks(),
                checks: Vec::new(),
                values: Vec::new(),
            };
            if let Some(call) = call {
                run.add_call(&mut result, call, &numeric, sim.counts_for_checks());
            }
            run.sims.push(result);
        }
        run.cases = cases.finish();
        run
    }

    /// The run from its results read alone, where the read lists the run's test cases and
    /// names each call's (the local service's extension); None where it does not, and the
    /// job must be read for them (`from_results`).
    pub fn from_results_alone(results: &RunResults) -> Option<Run> {
        let test_cases = results.test_cases.as_ref()?;
        if results.calls.iter().any(|c| c.test_case_id.is_none()) {
            return None;
        }
        let head = &results.run;
        let job = RunPlanJob {
            simulation_run_plan_job_id: head.simulation_run_plan_job_id,
            simulation_run_plan_id: head.simulation_run_plan_id,
            status: head.status.clone(),
            triggered_by: None,
            created_at: head.created_at.clone(),
            started_at: head.started_at.clone(),
            ended_at: head.ended_at.clone(),
            simulation_jobs: Vec::new(),
            simulation_job_count: None,
            error_message: None,
            verdict: results.verdict.clone(),
            attempt_summary: None,
            pending_retries: None,
            counts: None,
        };
        let mut run = Run::empty(&job, ReadPath::Results);
        run.plan_name = head.simulation_run_plan_name.clone();
        let numeric = run.metrics_of(results);
        let by_id: HashMap<Uuid, &ResultsTestCase> = test_cases.iter().map(|t| (t.test_case_id, t)).collect();
        let mut cases = Cases::new(test_cases.iter().filter_map(|t| t.agent_endpoint.as_ref().map(|e| e.id)));
        for call in results.calls.iter().filter(|c| c.counted) {
            let test_case = by_id.get(&call.test_case_id?)?;
            let case = cases.of(Setup::of_case(test_case), Some(&test_case.variables));
            let mut result = SimResult {
                simulation_job_id: call.simulation_job_id,
                call_id: call.call_id,
                case,
                scored: call.passed.is_some(),
                checks: Vec::new(),
                values: Vec::new(),
            };
            // The local service lists checks only where they count (`SimulationJob::counts_for_checks`).
            run.add_call(&mut result, call, &numeric, true);
            for check in call.checks.iter().filter(|c| !c.passed) {
                if let Some(reasoning) = &check.reasoning {
                    run.reasons.insert((call.simulation_job_id, check.metric_definition_id), reasoning.clone());
                }
            }
            run.sims.push(result);
        }
        run.cases = cases.finish();
        Some(run)
    }

    /// Takes the checks' versions from a results read; its numeric metrics that are not checks.
    fn metrics_of<'r>(&mut self, results: &'r RunResults) -> HashMap<Uuid, &'r ResultsMetric> {
        for metric in &results.metrics {
            if metric.is_check {
                let index = self.check_index(metric.metric_definition_id, metric.name.as_deref());
                self.checks[index].version_id = metric.version_id;
                self.checks[index].version = metric.version;
            }
        }
        results
            .metrics
            .iter()
            .filter(|m| !m.is_check && is_numeric(m.output_type.as_ref()))
            .map(|m| (m.metric_definition_id, m))
            .collect()
    }

    /// One call's numeric values, and its check results where they count (`scored`), from a
    /// results read.
    fn add_call(
        &mut self,
        result: &mut SimResult,
        call: &ResultsCall,
        numeric: &HashMap<Uuid, &ResultsMetric>,
        scored: bool,
    ) {
        for check in call.checks.iter().filter(|_| scored) {
            let index = self.check_index(check.metric_definition_id, check.metric_name.as_deref());
            result.checks.push((index, check.passed));
        }
        for value in &call.values {
            let Some(metric) = numeric.get(&value.metric_definition_id) else { continue };
            let Some(number) = value.value.as_ref().and_then(ResultValue::number) else { continue };
            let key = MeasureKey { metric: value.metric_definition_id, role: value.participant_role.clone() };
            let index = self.measure_index(key, metric.name.as_deref(), metric.unit_symbol.as_deref());
            result.values.push((index, number));
        }
    }

    /// The run from its job and each call's metrics (`status=all`, kept as `CallMetrics`),
    /// judged by the service's rule: a check passes on a simulation when every SUCCESS value
    /// it produced is true, and counts only where the simulation does
    /// (`SimulationJob::counts_for_checks`).
    pub fn from_calls(job: &RunPlanJob, metrics: &HashMap<Uuid, CallMetrics>) -> Run {
        let mut run = Run::empty(job, ReadPath::CallByCall);
        let mut cases = Cases::of_job(job);
        for sim in job.simulation_jobs.iter().filter(|s| counts(s)) {
            let case = cases.of(Setup::of(sim), None);
            let mut result = SimResult {
                simulation_job_id: sim.simulation_job_id,
                call_id: sim.call_id,
                case,
                scored: sim.counts_for_checks(),
                checks: Vec::new(),
                values: Vec::new(),
            };
            let completed = sim.status == Some(SimulationJobStatus::Completed);
            if let Some(call) = sim.call_id.and_then(|c| metrics.get(&c)).filter(|_| completed) {
                for (id, name, passed) in call.checks.iter().filter(|_| sim.counts_for_checks()) {
                    let index = run.check_index(*id, name.as_deref());
                    result.checks.push((index, *passed));
                }
                for (key, name, unit, number) in &call.values {
                    let index = run.measure_index(key.clone(), name.as_deref(), unit.as_deref());
                    result.values.push((index, *number));
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

/// What a comparison keeps of one call's metrics (`GET /v1/call/{id}/metrics?status=all`): each
/// check's result by the service's rule, and the numeric call-level SUCCESS values of the other
/// metrics. Kept instead of the whole read, so a run read call by call holds only this much
/// per call (no reasoning, no per-turn values).
#[derive(Debug, Clone, Default)]
pub struct CallMetrics {
    /// (definition, name, passed).
    pub checks: Vec<(Uuid, Option<String>, bool)>,
    /// (series, name, unit, value).
    pub values: Vec<(MeasureKey, Option<String>, Option<String>, f64)>,
}

impl CallMetrics {
    /// `groups` as a comparison keeps them; `checks` are the run's checks.
    pub fn of(groups: &[MetricValueGroup], checks: &[Uuid]) -> CallMetrics {
        let mut out = CallMetrics::default();
        for group in groups {
            if checks.contains(&group.metric_definition_id) {
                let values = group.values.iter().map(|v| (v.capture_status.as_ref(), v.value));
                if let Some(passed) = check_result(values) {
                    out.checks.push((group.metric_definition_id, group.name.clone(), passed));
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
                out.values.push((key, group.name.clone(), unit, number));
            }
        }
        out
    }
}

fn is_numeric(kind: Option<&MetricType>) -> bool {
    matches!(kind, Some(MetricType::Numeric | MetricType::Scale | MetricType::Count | MetricType::Offset))
}

/// Small runs built by hand, for the comparison's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A test case of scenario `id` (nothing else set).
    pub fn case(name: &str, id: u128) -> TestCase {
        TestCase {
            key: CaseKey {
                flow_id: None,
                variant_id: None,
                scenario_id: Some(Uuid::from_u128(id)),
                persona_id: None,
                endpoint_id: None,
                variables: BTreeMap::new(),
            },
            name: name.into(),
            flow: None,
            persona: None,
            endpoint: None,
        }
    }

    /// An ended run `n`, started on day `n` of October 2026 at 09:00 UTC.
    pub fn run(n: u128, cases: Vec<TestCase>, checks: Vec<CheckRef>, sims: Vec<SimResult>) -> Run {
        Run {
            job_id: Uuid::from_u128(n),
            plan_id: None,
            plan_name: None,
            status: None,
            ended: true,
            started_at: Some(Timestamp(format!("2026-10-{n:02}T09:00:00Z"))),
            verdict: None,
            read_path: ReadPath::Results,
            checks,
            measures: Vec::new(),
            cases,
            sims,
            reasons: HashMap::new(),
        }
    }

    /// A simulation of case `case` with one result per check, in the run's check order.
    pub fn sim(case: usize, passed: &[bool]) -> SimResult {
        SimResult {
            simulation_job_id: Uuid::new_v4(),
            call_id: None,
            case,
            scored: true,
            checks: passed.iter().copied().enumerate().collect(),
            values: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::case;
    use super::*;

    fn with_variables(name: &str, id: u128, pairs: &[(&str, &str)]) -> TestCase {
        let mut case = case(name, id);
        case.key.variables = pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        case
    }

    fn flow(title: &str, variant: Option<&str>) -> JobFlow {
        serde_json::from_value(serde_json::json!({
            "id": Uuid::from_u128(1), "title": title, "variantTitle": variant, "happyPath": true
        }))
        .unwrap()
    }

    #[test]
    fn a_variant_named_after_its_flow_is_not_said_twice() {
        let named_after = flow("Renew a book over the phone", Some("Renew a book over the phone "));
        assert_eq!(flow_parts(&named_after), ["Renew a book over the phone"]);
        assert_eq!(flow_parts(&flow("Renew", Some("Forgot card"))), ["Renew", "Forgot card"]);
        assert_eq!(flow_parts(&flow("Renew", None)), ["Renew", "happy path"]);
    }

    #[test]
    fn variables_name_only_the_cases_they_tell_apart_and_only_those_that_differ() {
        let cases = Cases {
            cases: vec![
                with_variables("Reschedule · Dana", 1, &[("dob", "March 12"), ("tier", "gold")]),
                with_variables("Reschedule · Dana", 2, &[("dob", "March 12"), ("tier", "silver")]),
                with_variables("Reschedule · Harold", 3, &[("dob", "November 30")]),
            ],
            ..Cases::new(std::iter::empty())
        };
        let names: Vec<String> = cases.finish().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["Reschedule · Dana · tier=gold", "Reschedule · Dana · tier=silver", "Reschedule · Harold"]);
    }
}
