//! The diff as Markdown (for a pull request or a step summary): counts, the checks and metrics
//! over the run, the changed test case × checks worst first, and what differed.

use std::fmt::Write;

use super::{delta, rate, shown, spread};
use crate::cli::output::counted;
use crate::compare::{Change, Diff};

pub fn render(diff: &Diff, all: bool) -> String {
    let mut md = String::new();
    // Green only when nothing regressed and every check the base judged has a verdict.
    let mark = if diff.fails() { "❌" } else { "✅" };
    let plan = diff.head.plan_name.as_deref().or(diff.base.plan_name.as_deref()).unwrap_or("inline plan");
    let _ = writeln!(md, "## {mark} diff · {}\n", cell(plan));
    let _ = writeln!(
        md,
        "Base `{}` ({}) → head `{}` ({})\n",
        diff.base.run_plan_job_id,
        counted(diff.base.simulations as u64, "simulation"),
        diff.head.run_plan_job_id,
        counted(diff.head.simulations as u64, "simulation")
    );
    let _ = writeln!(md, "{}\n", super::text::counts(diff));
    md.push_str("| Check | Base | Head | Δ | Change |\n| --- | ---: | ---: | ---: | --- |\n");
    for c in &diff.checks {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            cell(&c.name),
            rate(&c.base),
            rate(&c.head),
            delta(c.delta),
            c.label()
        );
    }
    if !diff.measures.is_empty() {
        md.push_str("\n| Metric (mean / p50 / p95) | Base | Head | Δ mean | |\n| --- | ---: | ---: | ---: | --- |\n");
        for m in &diff.measures {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&m.name),
                spread(m.base.as_ref(), m.unit.as_deref()),
                spread(m.head.as_ref(), m.unit.as_deref()),
                m.delta_mean.map(|d| super::number(d, m.unit.as_deref())).unwrap_or_default(),
                if m.beyond_noise { "beyond noise" } else { "within noise" }
            );
        }
    }
    md.push_str("\n### Test cases, worst first\n\n| Change | Test case | Check | Base | Head | Δ | What differed |\n| --- | --- | --- | ---: | ---: | ---: | --- |\n");
    let mut listed = 0;
    for case in &diff.cases {
        let differed: Vec<String> = case.differences.iter().map(|d| d.in_words()).collect();
        for check in case.checks.iter().filter(|c| shown(c.change, all)) {
            listed += 1;
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                check.label(),
                cell(&case.name),
                cell(&check.name),
                rate(&check.base),
                rate(&check.head),
                delta(check.delta),
                cell(&differed.join("; "))
            );
        }
    }
    if listed == 0 {
        md.push_str("| — | nothing changed | | | | | |\n");
    }
    let unchanged = diff.counts.get(&Change::Unchanged).copied().unwrap_or(0);
    if !all && unchanged > 0 {
        let _ = writeln!(md, "\n_{unchanged} unchanged test case checks not listed._");
    }
    md
}

fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use crate::compare::context::Edits;
    use crate::compare::run::CheckRef;
    use crate::compare::run::testing::{case, run, sim};

    #[test]
    fn a_check_left_without_a_verdict_keeps_the_heading_from_going_green() {
        let check = CheckRef { id: Uuid::from_u128(7), name: "Card checked".into(), version_id: None, version: None };
        let base = run(1, vec![case("Renew", 1)], vec![check.clone()], vec![sim(0, &[true]), sim(0, &[true])]);
        let head = run(2, vec![case("Renew", 1)], vec![check], vec![sim(0, &[]), sim(0, &[])]);
        let md = super::render(&crate::compare::Diff::of(&base, &head, &Edits::default()), false);
        assert!(md.starts_with("## ❌ diff"), "{md}");
        assert!(md.contains("| UNSCORED | Renew | Card checked | 100 % (2/2) | — |"), "{md}");
    }
}
