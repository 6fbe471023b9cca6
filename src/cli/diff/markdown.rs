//! The diff as Markdown (for a pull request or a step summary): counts, the checks and metrics
//! over the run, the changed test case × checks worst first, and what differed.

use std::fmt::Write;

use crate::cli::markdown::{cell, table};
use crate::cli::output::counted;
use crate::columns::diff as diff_columns;
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
    md.push_str(&table(diff_columns::RUN_CHECKS, &diff.checks));
    if !diff.measures.is_empty() {
        let _ = write!(md, "\n{}", table(diff_columns::MEASURES_MARKDOWN, &diff.measures));
    }
    let mut cases = diff_columns::case_checks().to_vec();
    cases.push(diff_columns::what_differed());
    let rows = super::listed(diff, all);
    let _ = write!(md, "\n### Test cases, worst first\n\n{}", table(&cases, &rows));
    if rows.is_empty() {
        let _ = writeln!(md, "| — | nothing changed |{}", " |".repeat(cases.len().saturating_sub(2)));
    }
    let unchanged = diff.counts.get(&Change::Unchanged).copied().unwrap_or(0);
    if !all && unchanged > 0 {
        let _ = writeln!(md, "\n_{unchanged} unchanged test case checks not listed._");
    }
    md
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
        let cases = "| Change | Test case | Check | Base | Head | Δ | What differed |\n| --- | --- | --- | ---: | ---: | ---: | --- |\n";
        assert!(md.contains(cases), "the run's check columns, then what differed: {md}");
    }

    /// A GONE and a NEW test case alike but for their variables stay apart, and every output
    /// names the variables that differ.
    #[test]
    fn a_gone_and_a_new_test_case_differing_only_in_variables_name_those_variables() {
        let check = CheckRef { id: Uuid::from_u128(7), name: "Card checked".into(), version_id: None, version: None };
        let with = |pairs: &[(&str, &str)]| {
            let mut case = case("Renew · Dana", 1);
            case.key.variables = pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
            case
        };
        let base_case = with(&[("customerName", "Dana"), ("tier", "gold")]);
        let head_case = with(&[("customerName", "Sam"), ("tier", "gold")]);
        let base = run(1, vec![base_case], vec![check.clone()], vec![sim(0, &[true])]);
        let head = run(2, vec![head_case], vec![check], vec![sim(0, &[true])]);
        let diff = crate::compare::Diff::of(&base, &head, &Edits::default());
        assert_eq!(diff.cases.len(), 2, "different test cases, not paired: {diff:#?}");
        let said = "variable customerName: Dana → Sam (a GONE and a NEW test case differ only in variables)";
        for case in &diff.cases {
            let words: Vec<String> = case.differences.iter().map(|d| d.in_words()).collect();
            assert_eq!(words, [said], "tier is the same on both: not named");
        }
        let json = serde_json::to_value(&diff).unwrap();
        let difference = &json["cases"][0]["differences"][0];
        assert_eq!(difference["what"], "VARIABLE", "{json:#}");
        assert_eq!([&difference["subject"], &difference["base"], &difference["head"]], ["customerName", "Dana", "Sam"]);
        let text = super::super::text::render(&diff, false);
        assert!(text.contains(&format!("differed: {said}")), "{text}");
        let md = super::render(&diff, false);
        assert!(md.contains(said), "{md}");
    }
}
