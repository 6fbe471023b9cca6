//! A compiled regular expression that never panics: a pattern that failed to compile
//! matches nothing (the unit tests of each reader exercise every pattern, so a typo shows up
//! there rather than as a crash in the service).

use regex::{Captures, Match, Regex};

pub(super) struct Pattern(Result<Regex, regex::Error>);

impl Pattern {
    pub fn new(pattern: &str) -> Pattern {
        Pattern(Regex::new(pattern))
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.0.as_ref().is_ok_and(|r| r.is_match(text))
    }

    pub fn find<'t>(&self, text: &'t str) -> Option<Match<'t>> {
        self.0.as_ref().ok().and_then(|r| r.find(text))
    }

    /// `text` with every match replaced (unchanged when the pattern failed to compile).
    pub fn replace_all(&self, text: &str, with: &str) -> String {
        self.0.as_ref().map_or_else(|_| text.to_owned(), |r| r.replace_all(text, with).into_owned())
    }

    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        self.0.as_ref().ok().and_then(|r| r.captures(text))
    }

    pub fn captures_all<'t>(&self, text: &'t str) -> Vec<Captures<'t>> {
        self.0.as_ref().map(|r| r.captures_iter(text).collect()).unwrap_or_default()
    }

    pub fn find_all<'t>(&self, text: &'t str) -> Vec<Match<'t>> {
        self.0.as_ref().map(|r| r.find_iter(text).collect()).unwrap_or_default()
    }

    /// `text` cut at every match (whole when the pattern failed to compile).
    pub fn split<'t>(&self, text: &'t str) -> Vec<&'t str> {
        self.0.as_ref().map_or_else(|_| vec![text], |r| r.split(text).collect())
    }

    #[cfg(test)]
    pub fn compiles(&self) -> bool {
        self.0.is_ok()
    }
}

/// `static NAME: LazyLock<Pattern>` for each `NAME = "regex";`.
macro_rules! patterns {
    ($($(#[$doc:meta])* $name:ident = $pattern:expr;)*) => {
        $($(#[$doc])* static $name: std::sync::LazyLock<$crate::service::metrics::judge::rubric::pattern::Pattern> =
            std::sync::LazyLock::new(|| $crate::service::metrics::judge::rubric::pattern::Pattern::new(&$pattern));)*
        /// Every pattern of this module, for the test that they all compile.
        #[cfg(test)]
        pub(super) fn all_patterns() -> Vec<&'static $crate::service::metrics::judge::rubric::pattern::Pattern> {
            vec![$(&*$name),*]
        }
    };
}
pub(super) use patterns;
