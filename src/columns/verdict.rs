//! A verdict's checks against their bars: the CHECK table `job get`, `job watch` and `gate`
//! print, and the gate's Markdown report. The console draws each check as a bar instead.

use super::Column;
use crate::api::model::{VerdictCheck, percent, percent_against};

/// `67 % (2/3)` against the check's own bar, or `not evaluated`.
fn pass_rate(check: &VerdictCheck) -> String {
    match check.pass_rate {
        Some(rate) => {
            format!("{} ({}/{})", percent_against(rate, check.min_pass_rate), check.passed_sims, check.evaluated_sims)
        }
        None => "not evaluated".into(),
    }
}

/// The bar, saying when it is the default rather than one the plan set.
fn required(check: &VerdictCheck) -> String {
    match check.inherited {
        true => format!("{} (default)", percent(check.min_pass_rate)),
        false => percent(check.min_pass_rate),
    }
}

pub const CHECK: Column<VerdictCheck> = Column::text("CHECK", VerdictCheck::name);

pub const PASS_RATE: Column<VerdictCheck> = Column::text("PASS RATE", pass_rate).right();

pub const REQUIRED: Column<VerdictCheck> = Column::text("REQUIRED", required).right();

/// Whether it met its bar, in a word a terminal's reader can grep for.
pub const PASSED: Column<VerdictCheck> =
    Column::text("", |c: &VerdictCheck| if c.passed { "pass" } else { "FAIL" }.into());

/// Whether it met its bar, as a Markdown page marks it.
pub const MARK: Column<VerdictCheck> =
    Column::text("", |c: &VerdictCheck| if c.passed { "✅" } else { "❌" }.into()).centred();

/// What a terminal prints.
pub const CLI: &[Column<VerdictCheck>] = &[CHECK, PASS_RATE, REQUIRED, PASSED];

/// What the Markdown report shows.
pub const MARKDOWN: &[Column<VerdictCheck>] = &[CHECK, PASS_RATE, REQUIRED, MARK];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{row, titles};

    fn check(pass_rate: Option<f64>, inherited: bool, passed: bool) -> VerdictCheck {
        serde_json::from_value(serde_json::json!({
            "metricDefinitionId": "00000000-0000-0000-0000-000000000001", "metricName": "Card checked",
            "evaluatedSims": 3, "passedSims": 2, "passRate": pass_rate, "minPassRate": 80.0,
            "inherited": inherited, "passed": passed,
        }))
        .unwrap()
    }

    #[test]
    fn a_check_reads_its_rate_against_its_bar_and_a_default_bar_says_so() {
        assert_eq!(titles(CLI), ["CHECK", "PASS RATE", "REQUIRED", ""]);
        assert_eq!(
            row(CLI, &check(Some(66.667), true, false)),
            ["Card checked", "66.7 % (2/3)", "80 % (default)", "FAIL"]
        );
        assert_eq!(row(MARKDOWN, &check(None, false, true)), ["Card checked", "not evaluated", "80 %", "✅"]);
    }
}
