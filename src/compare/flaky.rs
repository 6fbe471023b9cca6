//! Flakiness. Within one run, a test case whose iterations disagree on a check is flaky on it.
//! Across a plan's last runs, a test case × check is unstable when it flips between
//! consecutive runs in which nothing it ran with changed (agent endpoint, flow, the check's
//! metric version).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use uuid::Uuid;

use super::context::{Edits, differences};
use super::run::{CaseKey, Run};
use super::stats::Tally;

/// A check whose iterations disagreed on one test case of one run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlakyCheck {
    pub test_case: String,
    pub key: CaseKey,
    pub metric_definition_id: Uuid,
    pub metric_name: String,
    /// Iterations that passed, of those evaluated.
    pub passed: u64,
    pub evaluated: u64,
}

impl FlakyCheck {
    /// `2 of 3 iterations passed`.
    pub fn in_words(&self) -> String {
        format!("{} of {} iterations passed", self.passed, self.evaluated)
    }
}

/// Each test case × check tally of one run.
pub fn tallies(run: &Run) -> BTreeMap<(usize, usize), Tally> {
    let mut out: BTreeMap<(usize, usize), Tally> = BTreeMap::new();
    for sim in &run.sims {
        for (check, passed) in &sim.checks {
            out.entry((sim.case, *check)).or_default().add(*passed);
        }
    }
    out
}

/// The run's flaky test case × checks, by test case name.
pub fn within(run: &Run) -> Vec<FlakyCheck> {
    let mut out: Vec<FlakyCheck> = tallies(run)
        .into_iter()
        .filter(|(_, t)| t.mixed())
        .map(|((case, check), t)| FlakyCheck {
            test_case: run.cases[case].name.clone(),
            key: run.cases[case].key.clone(),
            metric_definition_id: run.checks[check].id,
            metric_name: run.checks[check].name.clone(),
            passed: t.passed,
            evaluated: t.evaluated,
        })
        .collect();
    out.sort_by(|a, b| a.test_case.cmp(&b.test_case).then_with(|| a.metric_name.cmp(&b.metric_name)));
    out
}

/// How one test case × check held up over a plan's runs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stability {
    pub test_case: String,
    pub key: CaseKey,
    pub metric_definition_id: Uuid,
    pub metric_name: String,
    /// Runs that evaluated it.
    pub runs: usize,
    /// Of those, runs whose iterations disagreed.
    pub mixed_runs: usize,
    /// Consecutive pairs of those runs with nothing changed in between.
    pub comparisons: usize,
    /// Of those pairs, how many flipped (the result differed: all passed, all failed, mixed).
    pub flips: usize,
    /// The share of observations that held steady, 0–1: each run in which every iteration
    /// agreed, and each comparison that did not flip, out of runs + comparisons.
    pub stability: Option<f64>,
    /// Each run's pass count, oldest first (null where it was not evaluated).
    pub history: Vec<Option<super::diff::Rate>>,
}

impl Stability {
    /// Whether it ever wavered: iterations that disagreed, or a flip between runs.
    pub fn unsteady(&self) -> bool {
        self.flips > 0 || self.mixed_runs > 0
    }
}

/// A plan's stability over its last ended runs, as both faces show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanStability {
    pub run_plan_id: Uuid,
    /// The runs read, oldest first.
    pub run_plan_job_ids: Vec<Uuid>,
    /// Worst first.
    pub checks: Vec<Stability>,
}

/// What a sample's iterations said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Said {
    Passed,
    Failed,
    Mixed,
}

fn said(t: Tally) -> Said {
    match t.passed {
        0 => Said::Failed,
        p if p == t.evaluated => Said::Passed,
        _ => Said::Mixed,
    }
}

/// Per test case × check, per run: the test case's index in that run and its tally there.
type Series = BTreeMap<(CaseKey, Uuid), Vec<Option<(usize, Tally)>>>;

/// The stability of each test case × check over `runs` (oldest first), worst first.
pub fn stability(runs: &[Run], edits: &Edits) -> Vec<Stability> {
    // (case key, check id) → per run: (case index, tally).
    let mut series: Series = BTreeMap::new();
    let mut names: HashMap<(CaseKey, Uuid), (String, String)> = HashMap::new();
    for (r, run) in runs.iter().enumerate() {
        for ((case, check), tally) in tallies(run) {
            let key = (run.cases[case].key.clone(), run.checks[check].id);
            names.entry(key.clone()).or_insert_with(|| (run.cases[case].name.clone(), run.checks[check].name.clone()));
            let entry = series.entry(key).or_insert_with(|| vec![None; runs.len()]);
            entry[r] = Some((case, tally));
        }
    }
    let mut out: Vec<Stability> = series
        .into_iter()
        .map(|((key, check), per_run)| {
            let present: Vec<(usize, usize, Tally)> =
                per_run.iter().enumerate().filter_map(|(r, s)| s.map(|(c, t)| (r, c, t))).collect();
            let mut comparisons = 0;
            let mut flips = 0;
            for pair in present.windows(2) {
                let ((ra, ca, ta), (rb, cb, tb)) = (pair[0], pair[1]);
                let (a, b) = (&runs[ra], &runs[rb]);
                let changed = !differences(Some(&a.cases[ca]), Some(&b.cases[cb]), (a, b), edits).is_empty()
                    || matches!((a.check(check).and_then(|c| c.version_id), b.check(check).and_then(|c| c.version_id)), (Some(x), Some(y)) if x != y);
                if changed {
                    continue;
                }
                comparisons += 1;
                flips += usize::from(said(ta) != said(tb));
            }
            let (test_case, metric_name) = names.get(&(key.clone(), check)).cloned().unwrap_or_default();
            let mixed_runs = present.iter().filter(|(_, _, t)| t.mixed()).count();
            let observations = present.len() + comparisons;
            let steady = present.len() - mixed_runs + comparisons - flips;
            Stability {
                test_case,
                key,
                metric_definition_id: check,
                metric_name,
                runs: present.len(),
                mixed_runs,
                comparisons,
                flips,
                stability: (observations > 0).then(|| steady as f64 / observations as f64),
                history: per_run.iter().map(|s| s.map(|(_, t)| t.into())).collect(),
            }
        })
        .collect();
    // Worst first: least stable, then most flips.
    out.sort_by(|a, b| {
        let s = |x: &Stability| x.stability.unwrap_or(2.0);
        s(a).total_cmp(&s(b))
            .then_with(|| b.flips.cmp(&a.flips))
            .then_with(|| a.test_case.cmp(&b.test_case))
            .then_with(|| a.metric_name.cmp(&b.metric_name))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::run::CheckRef;
    use crate::compare::run::testing::{case, run as built, sim};

    const CHECK: Uuid = Uuid::from_u128(0xc);

    /// A run of two test cases, "steady" and "wobbly", three iterations each: how many of
    /// each passed, and the check's definition version.
    fn run(n: u128, (steady, wobbly): (usize, usize), version: u128) -> Run {
        let mut sims = Vec::new();
        for (index, passed) in [steady, wobbly].into_iter().enumerate() {
            for i in 0..3 {
                sims.push(sim(index, &[i < passed]));
            }
        }
        let check = CheckRef {
            id: CHECK,
            name: "Task completion".into(),
            version_id: Some(Uuid::from_u128(version)),
            version: None,
        };
        built(20 + n, vec![case("steady", 1), case("wobbly", 2)], vec![check], sims)
    }

    #[test]
    fn flips_count_only_between_runs_with_nothing_changed_and_the_least_steady_comes_first() {
        // "steady" passes, fails, passes: two flips, but the second pair ran a new judge
        // version, so only the first counts. "wobbly" disagrees with itself every run.
        let runs = vec![run(1, (3, 1), 1), run(2, (0, 2), 1), run(3, (3, 1), 2)];
        let out = stability(&runs, &Edits::default());
        assert_eq!(out.len(), 2);
        let wobbly = &out[0];
        assert_eq!(wobbly.test_case, "wobbly", "the least steady first: {out:#?}");
        assert_eq!((wobbly.runs, wobbly.mixed_runs, wobbly.comparisons, wobbly.flips), (3, 3, 1, 0));
        assert_eq!(wobbly.stability, Some(1.0 / 4.0));
        let steady = &out[1];
        assert_eq!((steady.runs, steady.mixed_runs, steady.comparisons, steady.flips), (3, 0, 1, 1));
        assert_eq!(steady.stability, Some(3.0 / 4.0));
        let history: Vec<u64> = steady.history.iter().map(|r| r.map_or(99, |r| r.passed)).collect();
        assert_eq!(history, vec![3, 0, 3]);
        assert!(steady.unsteady() && wobbly.unsteady());
        assert_eq!((crate::columns::flaky::FLIPS.text)(steady), "1 of 1");
        assert_eq!((crate::columns::flaky::HISTORY.text)(steady), "3/3 0/3 3/3");
    }

    #[test]
    fn a_check_every_iteration_agreed_on_in_every_run_is_steady() {
        let runs = vec![run(1, (3, 0), 1), run(2, (3, 0), 1)];
        let out = stability(&runs, &Edits::default());
        assert!(out.iter().all(|s| !s.unsteady() && s.stability == Some(1.0)), "{out:#?}");
        assert_eq!(within(&runs[0]).len(), 0);
        let wobbly = within(&run(1, (3, 2), 1));
        assert_eq!(wobbly.len(), 1);
        assert_eq!(wobbly[0].in_words(), "2 of 3 iterations passed");
    }
}
