//! Two runs, test case by test case: each check's pass rate in both and what kind of change it
//! is, each numeric metric's mean, p50 and p95 in both and whether the change is beyond noise,
//! and what differed between the runs where the interface shows it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use uuid::Uuid;

use super::context::{Difference, DifferenceKind, Edits, differences};
use super::run::{CaseKey, MeasureKey, Run};
use super::stats::{ALPHA, Summary, Tally, fisher_better, fisher_worse, mann_whitney};
use crate::api::model::{RunPlanJobStatus, Timestamp};

/// The warning both faces give when the base run started after the head run.
pub const BACKWARDS: &str = "⚠ the base ran after the head: changes read backwards";

/// What happened to one check between the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Change {
    /// The pass rate fell, and a fall this large is unlikely to be chance.
    Regressed,
    /// Judged in the base run; still in the head run's plan, but no value of the head run
    /// judged it (every value abstained, was not applicable or missing). Never a pass.
    Unscored,
    /// Iterations disagree in either run, and any change is within chance.
    Flaky,
    /// Judged in the base run only, and no longer in the head run (its plan dropped the check
    /// or the test case).
    Gone,
    /// Judged in the head run only.
    New,
    /// No change beyond chance, and every iteration agreed in both runs.
    Unchanged,
    /// The pass rate rose beyond chance.
    Fixed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Regressed => "REGRESSED",
            Change::Unscored => "UNSCORED",
            Change::Flaky => "FLAKY",
            Change::Gone => "GONE",
            Change::New => "NEW",
            Change::Unchanged => "UNCHANGED",
            Change::Fixed => "FIXED",
        }
    }

    /// Classifies a check's two samples of one test case (see `docs/compare.md`).
    /// `in_head` says whether the head run still has the check on the test case (its plan
    /// lists the check and the test case ran), so that no verdict there is UNSCORED, not GONE.
    pub fn of(base: Tally, head: Tally, in_head: bool) -> (Change, f64, f64) {
        Change::classify(base, head, true, in_head)
    }

    /// `of`, where `iterations` says whether each sample is one test case's iterations (and
    /// so can be flaky) rather than a whole run pooled.
    fn classify(base: Tally, head: Tally, iterations: bool, in_head: bool) -> (Change, f64, f64) {
        let (p_worse, p_better) = (fisher_worse(base, head), fisher_better(base, head));
        let change = match (base.evaluated, head.evaluated) {
            (0, 0) => Change::Unchanged,
            (0, _) => Change::New,
            (_, 0) if in_head => Change::Unscored,
            (_, 0) => Change::Gone,
            _ if p_worse <= ALPHA => Change::Regressed,
            _ if p_better <= ALPHA => Change::Fixed,
            // Every iteration flipped, with samples too small for the test ever to reach the
            // level (with enough, such a flip is already beyond chance): never UNCHANGED.
            _ if base.all_passed() && head.all_failed() => Change::Regressed,
            _ if base.all_failed() && head.all_passed() => Change::Fixed,
            _ if iterations && (base.mixed() || head.mixed()) => Change::Flaky,
            _ => Change::Unchanged,
        };
        (change, p_worse, p_better)
    }
}

/// A sample's pass count, as reports print it.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rate {
    pub passed: u64,
    pub evaluated: u64,
    /// 0–100.
    pub pass_rate: Option<f64>,
}

impl From<Tally> for Rate {
    fn from(t: Tally) -> Rate {
        Rate { passed: t.passed, evaluated: t.evaluated, pass_rate: t.rate() }
    }
}

/// One check on one test case (or pooled over the run).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckChange {
    pub metric_definition_id: Uuid,
    pub name: String,
    pub change: Change,
    pub base: Rate,
    pub head: Rate,
    /// Head pass rate minus base, in points.
    pub delta: Option<f64>,
    /// One-sided Fisher exact p that the head run passes less often; and more often.
    pub p_worse: f64,
    pub p_better: f64,
    /// Iterations disagreed in the base or the head run (the check is flaky there).
    pub flaky: bool,
    /// The definition changed between the runs: a regression may be the judge's, not the agent's.
    pub possible_judge_change: bool,
    /// REGRESSED or FIXED because every iteration flipped, where the samples are too small for
    /// the test to reach the level: a flip to look at, not a change shown beyond chance.
    pub too_few_to_test: bool,
    pub base_version_id: Option<Uuid>,
    pub head_version_id: Option<Uuid>,
}

impl CheckChange {
    fn new(
        id: Uuid,
        name: String,
        (base, head): (Tally, Tally),
        versions: (Option<Uuid>, Option<Uuid>),
        (iterations, in_head): (bool, bool),
    ) -> CheckChange {
        let (change, p_worse, p_better) = Change::classify(base, head, iterations, in_head);
        let delta = match (base.rate(), head.rate()) {
            (Some(b), Some(h)) => Some(h - b),
            _ => None,
        };
        let judge = matches!(versions, (Some(b), Some(h)) if b != h);
        let flipped = matches!(change, Change::Regressed | Change::Fixed) && p_worse.min(p_better) > ALPHA;
        CheckChange {
            metric_definition_id: id,
            name,
            change,
            base: base.into(),
            head: head.into(),
            delta,
            p_worse,
            p_better,
            flaky: iterations && (base.mixed() || head.mixed()),
            possible_judge_change: judge,
            too_few_to_test: flipped,
            base_version_id: versions.0,
            head_version_id: versions.1,
        }
    }

    /// The change in words, with the caveats that apply: a flip too small to test, a judge
    /// that changed.
    pub fn label(&self) -> String {
        let mut caveats = Vec::new();
        if self.too_few_to_test {
            caveats.push("every iteration flipped, too few to test");
        }
        match (self.change, self.possible_judge_change) {
            (Change::Regressed, true) => caveats.push("possible judge change, not an agent change"),
            (_, true) => caveats.push("judge changed"),
            (_, false) => {}
        }
        if caveats.is_empty() {
            self.change.as_str().into()
        } else {
            format!("{} ({})", self.change.as_str(), caveats.join("; "))
        }
    }
}

/// A numeric metric on one test case (or pooled over the run).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MeasureChange {
    pub metric_definition_id: Uuid,
    pub participant_role: Option<String>,
    pub name: String,
    pub unit: Option<String>,
    pub base: Option<Spread>,
    pub head: Option<Spread>,
    /// Head mean minus base mean.
    pub delta_mean: Option<f64>,
    /// Two-sided Mann–Whitney U p.
    pub p_value: f64,
    pub beyond_noise: bool,
}

/// Mean, p50 and p95 of a sample.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Spread {
    pub count: usize,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
}

impl From<Summary> for Spread {
    fn from(s: Summary) -> Spread {
        Spread { count: s.count, mean: s.mean, p50: s.p50, p95: s.p95 }
    }
}

impl MeasureChange {
    fn new(key: &MeasureKey, name: String, unit: Option<String>, base: &[f64], head: &[f64]) -> MeasureChange {
        let (b, h) = (Summary::of(base), Summary::of(head));
        let p_value = mann_whitney(base, head);
        MeasureChange {
            metric_definition_id: key.metric,
            participant_role: key.role.clone(),
            name,
            unit,
            base: b.map(Spread::from),
            head: h.map(Spread::from),
            delta_mean: b.zip(h).map(|(b, h)| h.mean - b.mean),
            p_value,
            beyond_noise: p_value <= ALPHA,
        }
    }
}

/// Whether a test case ran in both runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Presence {
    Both,
    New,
    Gone,
}

/// One test case in both runs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseChange {
    pub name: String,
    pub key: CaseKey,
    pub presence: Presence,
    /// The worst of its checks' changes.
    pub change: Change,
    /// How much worse its worst check got, in points (negative when everything improved).
    pub worst_drop: f64,
    pub checks: Vec<CheckChange>,
    pub measures: Vec<MeasureChange>,
    /// What differed between the runs for this test case, where the interface shows it.
    pub differences: Vec<Difference>,
    pub base_simulations: Vec<SimRef>,
    pub head_simulations: Vec<SimRef>,
}

/// A simulation of a test case, to open its call.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SimRef {
    pub simulation_job_id: Uuid,
    pub call_id: Option<Uuid>,
    /// The checks it failed.
    pub failed: Vec<Uuid>,
    /// The checks it passed; a check in neither list has no verdict on it (abstained, missing).
    pub passed: Vec<Uuid>,
    /// The judge's reasoning for each failed check, where the job gives it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<Uuid, String>,
}

/// The run a side of the diff is.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    pub run_plan_job_id: Uuid,
    pub run_plan_id: Option<Uuid>,
    pub plan_name: Option<String>,
    pub status: Option<RunPlanJobStatus>,
    pub started_at: Option<Timestamp>,
    pub simulations: usize,
    /// Simulations that count for no check (NOT_EVALUATED), as the verdict leaves them out.
    pub not_scored: usize,
    pub test_cases: usize,
    pub read_path: super::run::ReadPath,
}

impl Side {
    fn of(run: &Run) -> Side {
        Side {
            run_plan_job_id: run.job_id,
            run_plan_id: run.plan_id,
            plan_name: run.plan_name.clone(),
            status: run.status.clone(),
            started_at: run.started_at.clone(),
            simulations: run.sims.len(),
            not_scored: run.sims.iter().filter(|s| !s.scored).count(),
            test_cases: run.cases.len(),
            read_path: run.read_path,
        }
    }
}

/// Two runs compared.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub base: Side,
    pub head: Side,
    /// The level the tests are read at.
    pub alpha: f64,
    /// Each check pooled over the whole run.
    pub checks: Vec<CheckChange>,
    /// Each numeric metric pooled over the whole run.
    pub measures: Vec<MeasureChange>,
    /// Test case × check changes by kind.
    pub counts: BTreeMap<Change, usize>,
    /// Test cases, worst first.
    pub cases: Vec<CaseChange>,
}

impl Diff {
    /// Whether any check regressed, on a test case or over the run.
    pub fn regressed(&self) -> bool {
        self.any(Change::Regressed)
    }

    /// Whether any check judged in the base run has no verdict in the head run though still
    /// in it: a missing verdict is never a pass.
    pub fn unscored(&self) -> bool {
        self.any(Change::Unscored)
    }

    /// Whether the head run is worse or unjudged somewhere: what `--fail-on-regression` fails on.
    pub fn fails(&self) -> bool {
        self.regressed() || self.unscored()
    }

    /// Whether the base run started after the head run: its changes then read backwards.
    pub fn backwards(&self) -> bool {
        matches!((&self.base.started_at, &self.head.started_at), (Some(base), Some(head)) if base > head)
    }

    fn any(&self, change: Change) -> bool {
        self.counts.get(&change).is_some_and(|n| *n > 0) || self.checks.iter().any(|c| c.change == change)
    }

    /// Compares `head` against `base`. `edits` says when endpoints, their HTTP definitions and
    /// flows were last changed, where the service could say.
    pub fn of(base: &Run, head: &Run, edits: &Edits) -> Diff {
        let mut keys: Vec<&CaseKey> = base.cases.iter().map(|c| &c.key).collect();
        keys.extend(head.cases.iter().map(|c| &c.key).filter(|k| !base.cases.iter().any(|c| &c.key == *k)));
        let base_index = index(base);
        let head_index = index(head);
        let mut cases: Vec<CaseChange> = keys
            .into_iter()
            .map(|key| {
                case_change(key, (base, base_index.get(key).copied()), (head, head_index.get(key).copied()), edits)
            })
            .collect();
        note_variables_only(&mut cases);
        cases.sort_by(|a, b| severity(b).total_cmp(&severity(a)).then_with(|| a.name.cmp(&b.name)));
        let mut counts = BTreeMap::new();
        for check in cases.iter().flat_map(|c| &c.checks) {
            *counts.entry(check.change).or_insert(0) += 1;
        }
        Diff {
            base: Side::of(base),
            head: Side::of(head),
            alpha: ALPHA,
            checks: pooled_checks(base, head, None, None),
            measures: pooled_measures(base, head, None, None),
            counts,
            cases,
        }
    }
}

/// Says on each GONE and NEW test case that match but for their variables which variables
/// differ (base value → head value). They stay apart: other variables make another test case.
fn note_variables_only(cases: &mut [CaseChange]) {
    let same_but_variables = |a: &CaseKey, b: &CaseKey| {
        (a.flow_id, a.variant_id, a.scenario_id, a.persona_id, a.endpoint_id)
            == (b.flow_id, b.variant_id, b.scenario_id, b.persona_id, b.endpoint_id)
    };
    let (gone, new): (Vec<usize>, Vec<usize>) = {
        let of = |p: Presence| cases.iter().enumerate().filter(|(_, c)| c.presence == p).map(|(i, _)| i).collect();
        (of(Presence::Gone), of(Presence::New))
    };
    for &g in &gone {
        for &n in &new {
            if !same_but_variables(&cases[g].key, &cases[n].key) {
                continue;
            }
            let found = variable_differences(&cases[g].key.variables, &cases[n].key.variables);
            cases[g].differences.extend(found.iter().cloned());
            cases[n].differences.extend(found);
        }
    }
}

/// One `Variable` difference per variable whose value is not the same on both sides.
fn variable_differences(base: &BTreeMap<String, String>, head: &BTreeMap<String, String>) -> Vec<Difference> {
    let mut names: Vec<&String> = base.keys().chain(head.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|name| base.get(*name) != head.get(*name))
        .map(|name| Difference {
            what: DifferenceKind::Variable,
            subject: name.clone(),
            base: base.get(name).cloned(),
            head: head.get(name).cloned(),
        })
        .collect()
}

fn index(run: &Run) -> HashMap<&CaseKey, usize> {
    run.cases.iter().enumerate().map(|(i, c)| (&c.key, i)).collect()
}

/// Sorts regressions first, then by how far the worst check fell.
fn severity(case: &CaseChange) -> f64 {
    let rank = match case.change {
        Change::Regressed => 3000.0,
        Change::Unscored => 2500.0,
        Change::Gone => 2000.0,
        Change::Flaky => 1000.0,
        _ => 0.0,
    };
    rank + case.worst_drop
}

fn case_change(key: &CaseKey, base: (&Run, Option<usize>), head: (&Run, Option<usize>), edits: &Edits) -> CaseChange {
    let presence = match (base.1, head.1) {
        (Some(_), Some(_)) => Presence::Both,
        (None, _) => Presence::New,
        (_, None) => Presence::Gone,
    };
    let checks = pooled_checks(base.0, head.0, base.1, head.1);
    let measures = pooled_measures(base.0, head.0, base.1, head.1);
    let change = checks.iter().map(|c| c.change).min().unwrap_or(match presence {
        Presence::New => Change::New,
        Presence::Gone => Change::Gone,
        Presence::Both => Change::Unchanged,
    });
    let worst_drop = checks.iter().filter_map(|c| c.delta).map(|d| -d).fold(f64::NEG_INFINITY, f64::max);
    let base_case = base.1.map(|i| &base.0.cases[i]);
    let head_case = head.1.map(|i| &head.0.cases[i]);
    let name = head_case.or(base_case).map(|c| c.name.clone()).unwrap_or_default();
    let mut found = differences(base_case, head_case, (base.0, head.0), edits);
    for check in &checks {
        if check.possible_judge_change {
            found.push(Difference {
                what: DifferenceKind::MetricVersion,
                subject: check.name.clone(),
                base: check.base_version_id.map(|v| v.to_string()),
                head: check.head_version_id.map(|v| v.to_string()),
            });
        }
    }
    CaseChange {
        name,
        key: key.clone(),
        presence,
        change,
        worst_drop: if worst_drop.is_finite() { worst_drop } else { 0.0 },
        checks,
        measures,
        differences: found,
        base_simulations: sim_refs(base.0, base.1),
        head_simulations: sim_refs(head.0, head.1),
    }
}

fn sim_refs(run: &Run, case: Option<usize>) -> Vec<SimRef> {
    let Some(case) = case else { return Vec::new() };
    run.sims
        .iter()
        .filter(|s| s.case == case)
        .map(|s| {
            let with = |passed: bool| -> Vec<Uuid> {
                s.checks.iter().filter(|(_, p)| *p == passed).map(|(i, _)| run.checks[*i].id).collect()
            };
            let failed = with(false);
            let reasons = failed
                .iter()
                .filter_map(|id| run.reasons.get(&(s.simulation_job_id, *id)).map(|r| (*id, r.clone())))
                .collect();
            SimRef { simulation_job_id: s.simulation_job_id, call_id: s.call_id, failed, passed: with(true), reasons }
        })
        .collect()
}

/// Each check's tally in one run, over one test case or (None) all of them.
fn tallies(run: &Run, case: Option<usize>) -> HashMap<Uuid, Tally> {
    let mut out: HashMap<Uuid, Tally> = HashMap::new();
    for sim in run.sims.iter().filter(|s| case.is_none_or(|c| s.case == c)) {
        for (index, passed) in &sim.checks {
            out.entry(run.checks[*index].id).or_default().add(*passed);
        }
    }
    out
}

fn pooled_checks(base: &Run, head: &Run, base_case: Option<usize>, head_case: Option<usize>) -> Vec<CheckChange> {
    // A test case missing from one run contributes nothing there.
    let scope = |run: &Run, case: Option<usize>, whole: bool| {
        if whole || case.is_some() { tallies(run, case) } else { HashMap::new() }
    };
    let whole = base_case.is_none() && head_case.is_none();
    let (b, h) = (scope(base, base_case, whole), scope(head, head_case, whole));
    // The head run still has a check on this scope when its plan lists the check and the
    // scope ran there (the whole run, or the test case).
    let ran_in_head = whole || head_case.is_some();
    let mut ids: Vec<(Uuid, String)> = base.checks.iter().map(|c| (c.id, c.name.clone())).collect();
    for check in &head.checks {
        if !ids.iter().any(|(id, _)| *id == check.id) {
            ids.push((check.id, check.name.clone()));
        }
    }
    ids.into_iter()
        .filter(|(id, _)| b.contains_key(id) || h.contains_key(id))
        .map(|(id, name)| {
            let versions = (base.check(id).and_then(|c| c.version_id), head.check(id).and_then(|c| c.version_id));
            let tallies = (b.get(&id).copied().unwrap_or_default(), h.get(&id).copied().unwrap_or_default());
            let in_head = ran_in_head && head.check(id).is_some();
            CheckChange::new(id, name, tallies, versions, (!whole, in_head))
        })
        .collect()
}

fn values(run: &Run, case: Option<usize>) -> HashMap<&MeasureKey, Vec<f64>> {
    let mut out: HashMap<&MeasureKey, Vec<f64>> = HashMap::new();
    for sim in run.sims.iter().filter(|s| case.is_none_or(|c| s.case == c)) {
        for (index, value) in &sim.values {
            out.entry(&run.measures[*index].key).or_default().push(*value);
        }
    }
    out
}

fn pooled_measures(base: &Run, head: &Run, base_case: Option<usize>, head_case: Option<usize>) -> Vec<MeasureChange> {
    let whole = base_case.is_none() && head_case.is_none();
    let b = if whole || base_case.is_some() { values(base, base_case) } else { HashMap::new() };
    let h = if whole || head_case.is_some() { values(head, head_case) } else { HashMap::new() };
    let mut refs: Vec<&super::run::MeasureRef> = base.measures.iter().collect();
    refs.extend(head.measures.iter().filter(|m| !base.measures.iter().any(|b| b.key == m.key)));
    refs.into_iter()
        .filter(|m| b.contains_key(&m.key) || h.contains_key(&m.key))
        .map(|m| {
            let none = Vec::new();
            MeasureChange::new(
                &m.key,
                m.name.clone(),
                m.unit.clone(),
                b.get(&m.key).unwrap_or(&none),
                h.get(&m.key).unwrap_or(&none),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(passed: u64, evaluated: u64) -> Tally {
        Tally { passed, evaluated }
    }

    #[test]
    fn each_kind_of_change_is_told_apart() {
        assert_eq!(Change::of(t(3, 3), t(0, 3), true).0, Change::Regressed);
        assert_eq!(Change::of(t(0, 3), t(3, 3), true).0, Change::Fixed);
        assert_eq!(Change::of(t(3, 3), t(2, 3), true).0, Change::Flaky, "a fall within chance, iterations disagreeing");
        assert_eq!(Change::of(t(2, 4), t(2, 4), true).0, Change::Flaky);
        assert_eq!(Change::of(t(3, 3), t(3, 3), true).0, Change::Unchanged);
        assert_eq!(Change::of(t(1, 1), t(0, 1), true).0, Change::Regressed, "one iteration that flipped");
        assert_eq!(Change::of(t(2, 2), t(0, 2), true).0, Change::Regressed, "two that both flipped (p = 1/6)");
        assert_eq!(Change::of(t(0, 1), t(1, 1), true).0, Change::Fixed);
        assert_eq!(Change::of(t(2, 2), t(1, 2), true).0, Change::Flaky, "a fall that is not every iteration");
        assert_eq!(Change::of(t(0, 1), t(0, 1), true).0, Change::Unchanged, "failed in both");
        assert_eq!(Change::of(t(0, 0), t(2, 3), true).0, Change::New);
        assert_eq!(Change::of(t(2, 3), t(0, 0), false).0, Change::Gone, "no longer in the head run");
        assert_eq!(Change::of(t(2, 2), t(0, 0), true).0, Change::Unscored, "in the head run, never judged there");
        assert_eq!(Change::of(t(10, 10), t(4, 10), true).0, Change::Regressed, "a significant fall, even if flaky");
    }

    #[test]
    fn a_flip_too_small_to_test_says_so_and_one_large_enough_does_not() {
        let id = Uuid::from_u128(7);
        let small = CheckChange::new(id, "Done".into(), (t(1, 1), t(0, 1)), (None, None), (true, true));
        assert_eq!((small.change, small.too_few_to_test), (Change::Regressed, true));
        assert_eq!(small.label(), "REGRESSED (every iteration flipped, too few to test)");
        let tested = CheckChange::new(id, "Done".into(), (t(3, 3), t(0, 3)), (None, None), (true, true));
        assert_eq!((tested.change, tested.too_few_to_test), (Change::Regressed, false));
        assert_eq!(tested.label(), "REGRESSED");
    }

    /// Base: one test case whose check passed twice. Head: the same test case twice, with the
    /// check listed (`listed`) or not, and no value judging it.
    fn abstained(listed: bool) -> Diff {
        use super::super::run::CheckRef;
        use super::super::run::testing::{case, run, sim};
        let check = CheckRef { id: Uuid::from_u128(7), name: "Card checked".into(), version_id: None, version: None };
        let base = run(1, vec![case("Renew", 1)], vec![check.clone()], vec![sim(0, &[true]), sim(0, &[true])]);
        let checks = if listed { vec![check] } else { Vec::new() };
        let head = run(2, vec![case("Renew", 1)], checks, vec![sim(0, &[]), sim(0, &[])]);
        Diff::of(&base, &head, &Edits::default())
    }

    #[test]
    fn a_check_still_in_the_head_run_with_no_verdict_there_is_unscored_and_fails_not_gone() {
        let diff = abstained(true);
        assert_eq!(diff.cases[0].checks[0].change, Change::Unscored, "{diff:#?}");
        assert_eq!(diff.checks[0].change, Change::Unscored, "over the run too");
        assert_eq!(diff.cases[0].change, Change::Unscored);
        assert!(diff.fails() && diff.unscored() && !diff.regressed());
        let dropped = abstained(false);
        assert_eq!(dropped.cases[0].checks[0].change, Change::Gone, "a check the head run no longer has");
        assert!(!dropped.fails());
    }

    #[test]
    fn a_numeric_metric_reports_mean_p50_p95_and_whether_the_shift_is_beyond_noise() {
        let key = MeasureKey { metric: Uuid::from_u128(1), role: None };
        let base: Vec<f64> = (1..=20).map(f64::from).collect();
        let slower: Vec<f64> = base.iter().map(|v| v + 30.0).collect();
        let change = MeasureChange::new(&key, "Latency".into(), Some("ms".into()), &base, &slower);
        let (b, h) = (change.base.unwrap(), change.head.unwrap());
        assert_eq!((b.count, b.mean, b.p50, b.p95), (20, 10.5, 10.0, 19.0));
        assert_eq!((h.mean, h.p50, h.p95), (40.5, 40.0, 49.0));
        assert_eq!(change.delta_mean, Some(30.0));
        assert!(change.beyond_noise && change.p_value <= ALPHA, "{change:?}");
        let same = MeasureChange::new(&key, "Latency".into(), None, &base, &base);
        assert!(!same.beyond_noise && same.delta_mean == Some(0.0), "{same:?}");
        let none = MeasureChange::new(&key, "Latency".into(), None, &[], &base);
        assert!(none.base.is_none() && none.delta_mean.is_none() && !none.beyond_noise);
    }
}
