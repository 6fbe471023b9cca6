//! Colour on a terminal: verdicts and check outcomes stand out; off when piped, under
//! `NO_COLOR`, or with `--color never` (`--color always` forces it on).

use std::io::IsTerminal;
use std::sync::LazyLock;

use clap::ValueEnum;
use crossterm::style::Stylize;
use regex::Regex;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColourChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColourChoice {
    /// Whether text printed to stdout is coloured; never for JSON, which scripts read.
    pub fn enabled(self, machine_output: bool) -> bool {
        match self {
            _ if machine_output => false,
            ColourChoice::Always => true,
            ColourChoice::Never => false,
            ColourChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

static WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(PASSED|PASS|FIXED|FAILED|FAIL|REGRESSED|UNSCORED|ERROR|TIMED_OUT|FLAKY|CANCELLED)\b").ok()
});

/// `text` with its verdict words coloured: green passes, red failures, yellow the rest.
pub fn paint(text: &str) -> String {
    let Some(words) = WORDS.as_ref() else { return text.to_string() };
    words
        .replace_all(text, |caps: &regex::Captures| {
            let word = &caps[0];
            match word {
                "PASSED" | "PASS" | "FIXED" => word.green().to_string(),
                "FAILED" | "FAIL" | "REGRESSED" | "UNSCORED" | "ERROR" => word.red().bold().to_string(),
                _ => word.yellow().to_string(),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_words_are_coloured_and_other_words_left_alone() {
        let painted = paint("FAILED · score 50%  PASSED\nPASSING x");
        assert!(painted.contains("\u{1b}[") && painted.contains("PASSING x"));
        assert!(painted.matches("\u{1b}[").count() >= 2);
        assert!(!ColourChoice::Always.enabled(true), "JSON is never coloured");
    }
}
