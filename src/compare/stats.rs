//! The statistics a comparison rests on, each with its test and level stated once here and in
//! `docs/compare.md`: a one-sided Fisher exact test for pass rates, a two-sided Mann–Whitney U
//! test for numeric metrics, both at `ALPHA`; Cohen's κ for judge agreement.

use statrs::distribution::{ContinuousCDF, DiscreteCDF, Hypergeometric, Normal};

/// The level: a change is beyond chance when its p-value is at most this.
pub const ALPHA: f64 = 0.05;

/// Passes out of evaluated simulations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: u64,
    pub evaluated: u64,
}

impl Tally {
    pub fn add(&mut self, passed: bool) {
        self.evaluated += 1;
        self.passed += u64::from(passed);
    }

    /// 0–100, or None when nothing was evaluated.
    pub fn rate(&self) -> Option<f64> {
        (self.evaluated > 0).then(|| self.passed as f64 * 100.0 / self.evaluated as f64)
    }

    /// Whether the sample disagrees with itself: some passed and some failed.
    pub fn mixed(&self) -> bool {
        self.passed > 0 && self.passed < self.evaluated
    }

    /// Whether every iteration of the sample passed (and there was one).
    pub fn all_passed(&self) -> bool {
        self.evaluated > 0 && self.passed == self.evaluated
    }

    /// Whether every iteration of the sample failed (and there was one).
    pub fn all_failed(&self) -> bool {
        self.evaluated > 0 && self.passed == 0
    }
}

/// One-sided Fisher exact test that `head` passes less often than `base`: the probability,
/// with both runs' totals fixed, of the base run holding at least as many of the passes as it
/// does. 1 when either sample is empty.
pub fn fisher_worse(base: Tally, head: Tally) -> f64 {
    fisher(base, head, true)
}

/// The same test in the other direction: that `head` passes more often than `base`.
pub fn fisher_better(base: Tally, head: Tally) -> f64 {
    fisher(base, head, false)
}

fn fisher(base: Tally, head: Tally, worse: bool) -> f64 {
    if base.evaluated == 0 || head.evaluated == 0 {
        return 1.0;
    }
    let population = base.evaluated + head.evaluated;
    let passes = base.passed + head.passed;
    // X, the base run's passes, is hypergeometric given the margins.
    let Ok(x) = Hypergeometric::new(population, passes, base.evaluated) else { return 1.0 };
    let p = if worse {
        // P(X >= base.passed)
        if base.passed == 0 { 1.0 } else { x.sf(base.passed - 1) }
    } else {
        // P(X <= base.passed)
        x.cdf(base.passed)
    };
    p.clamp(0.0, 1.0)
}

/// Mean, median and 95th percentile of a sample (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
}

impl Summary {
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        Some(Summary { count: sorted.len(), mean, p50: nearest_rank(&sorted, 50.0), p95: nearest_rank(&sorted, 95.0) })
    }
}

/// The nearest-rank percentile of a sorted, non-empty sample.
fn nearest_rank(sorted: &[f64], percentile: f64) -> f64 {
    let rank = ((percentile / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Two-sided Mann–Whitney U test (normal approximation with the tie correction and a
/// continuity correction): the probability of two samples this far apart in rank if they came
/// from one distribution. 1 when a sample is empty or every value is the same.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = a.iter().map(|v| (*v, true)).chain(b.iter().map(|v| (*v, false))).collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let mut rank_sum_a = 0.0;
    let mut ties = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let group = (j - i + 1) as f64;
        ties += group * group * group - group;
        rank_sum_a += all[i..=j].iter().filter(|(_, from_a)| *from_a).count() as f64 * rank;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let total = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 || !variance.is_finite() {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    let Ok(normal) = Normal::new(0.0, 1.0) else { return 1.0 };
    (2.0 * normal.sf(z)).clamp(0.0, 1.0)
}

/// How a judge's yes/no answers agree with people's: the count, the share that agree, and
/// Cohen's κ (agreement beyond what the two answer rates alone would give; None when chance
/// agreement is already total, as when both always say the same thing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    pub labelled: u64,
    pub agreed: u64,
    pub kappa: Option<f64>,
}

impl Agreement {
    /// From (judge said yes, people say yes) pairs.
    pub fn of(pairs: impl IntoIterator<Item = (bool, bool)>) -> Agreement {
        let (mut both_yes, mut both_no, mut judge_yes, mut people_yes, mut n) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for (judge, people) in pairs {
            n += 1;
            judge_yes += u64::from(judge);
            people_yes += u64::from(people);
            both_yes += u64::from(judge && people);
            both_no += u64::from(!judge && !people);
        }
        let agreed = both_yes + both_no;
        let kappa = (n > 0).then(|| {
            let n = n as f64;
            let observed = agreed as f64 / n;
            let (pj, pp) = (judge_yes as f64 / n, people_yes as f64 / n);
            let chance = pj * pp + (1.0 - pj) * (1.0 - pp);
            (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
        });
        Agreement { labelled: n, agreed, kappa: kappa.flatten() }
    }

    /// 0–100, or None before any label.
    pub fn rate(&self) -> Option<f64> {
        (self.labelled > 0).then(|| self.agreed as f64 * 100.0 / self.labelled as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(passed: u64, evaluated: u64) -> Tally {
        Tally { passed, evaluated }
    }

    #[test]
    fn a_full_flip_of_three_iterations_is_exactly_at_the_level() {
        // 1 / C(6, 3): the smallest p three iterations a side can give.
        let p = fisher_worse(t(3, 3), t(0, 3));
        assert!((p - 0.05).abs() < 1e-12, "{p}");
        assert!(p <= ALPHA);
        assert!((fisher_better(t(0, 3), t(3, 3)) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn fisher_matches_known_tables() {
        // 8/10 against 1/6: (C(9,8)·C(7,2) + C(9,9)·C(7,1)) / C(16,10) = 196 / 8008
        let p = fisher_worse(t(8, 10), t(1, 6));
        assert!((p - 196.0 / 8008.0).abs() < 1e-12, "{p}");
        // (C(4,2)·C(2,1) + C(4,3)·C(2,0)) / C(6,3) = 16 / 20
        assert!((fisher_worse(t(2, 3), t(2, 3)) - 0.8).abs() < 1e-12);
        assert!(fisher_worse(t(1, 1), t(0, 1)) > ALPHA, "one iteration a side never shows a regression");
        assert_eq!(fisher_worse(t(0, 0), t(0, 3)), 1.0);
        assert!(fisher_better(t(3, 3), t(0, 3)) > 0.99);
    }

    #[test]
    fn large_runs_stay_finite() {
        let p = fisher_worse(t(4_900, 5_000), t(4_700, 5_000));
        assert!(p.is_finite() && p < 1e-10, "{p}");
    }

    #[test]
    fn summaries_use_nearest_rank() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.count, s.mean, s.p50, s.p95), (5, 3.0, 3.0, 5.0));
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn mann_whitney_separates_shifted_samples_and_not_equal_ones() {
        let a: Vec<f64> = (0..20).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = (0..20).map(|i| 140.0 + i as f64).collect();
        assert!(mann_whitney(&a, &b) < 0.001);
        assert!(mann_whitney(&a, &a) > 0.9);
        assert_eq!(mann_whitney(&[3.0, 3.0], &[3.0, 3.0]), 1.0);
        assert!(mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]) > ALPHA, "three a side is never significant");
    }

    #[test]
    fn kappa_is_one_for_perfect_agreement_and_zero_for_chance() {
        let perfect = Agreement::of([(true, true), (false, false), (true, true), (false, false)]);
        assert_eq!((perfect.labelled, perfect.agreed, perfect.kappa), (4, 4, Some(1.0)));
        // Judge says yes half the time, people half, independent: observed 0.5 = chance.
        let chance = Agreement::of([(true, true), (true, false), (false, true), (false, false)]);
        assert_eq!(chance.kappa, Some(0.0));
        let all_yes = Agreement::of([(true, true), (true, true)]);
        assert_eq!((all_yes.rate(), all_yes.kappa), (Some(100.0), None));
    }
}
