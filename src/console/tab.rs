//! The console's tabs: their order (the number keys), titles and help lines, in one place.

/// One tab of the console; the order of `ALL` is the order of the number keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    Plans,
    Jobs,
    Metrics,
    Issues,
    Flows,
    Catalog,
    Bench,
}

impl Tab {
    /// Every tab, in the order of their number keys.
    pub const ALL: [Tab; 7] = [Tab::Plans, Tab::Jobs, Tab::Metrics, Tab::Issues, Tab::Flows, Tab::Catalog, Tab::Bench];

    /// Its place in `ALL` (its number key, less one).
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    /// The tab at `index`, the last one past the end (a cached place from a longer list).
    pub fn at(index: usize) -> Tab {
        Tab::ALL[index.min(Tab::ALL.len() - 1)]
    }

    /// The next tab, after the last the first.
    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::ALL.len()]
    }

    /// The previous tab, before the first the last.
    pub fn previous(self) -> Tab {
        Tab::ALL[(self.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
    }

    /// The title in the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Plans => "run plans",
            Tab::Jobs => "jobs",
            Tab::Metrics => "metrics",
            Tab::Issues => "issues",
            Tab::Flows => "flows",
            Tab::Catalog => "personas & agents",
            Tab::Bench => "benchmarks",
        }
    }

    /// The title in a narrow tab bar.
    pub fn short(self) -> &'static str {
        match self {
            Tab::Plans => "plans",
            Tab::Catalog => "personas",
            Tab::Bench => "bench",
            other => other.title(),
        }
    }

    /// What its number key does, in the help.
    pub fn key_help(self) -> &'static str {
        match self {
            Tab::Jobs => "jobs (live)",
            other => other.title(),
        }
    }

    /// What the tab is for: the first line of its help.
    pub fn about(self) -> &'static str {
        match self {
            Tab::Plans => "Run plans: what to test, against which agents; R runs one.",
            Tab::Jobs => "Jobs, live: each run's simulations as they call and get scored.",
            Tab::Metrics => "Metrics: definitions, policies, and collection jobs' values.",
            Tab::Issues => "Issues found on calls: triage, read the evidence, edit.",
            Tab::Flows => "Customer flows: the scripts simulated callers follow.",
            Tab::Catalog => "Personas, agents, endpoints, knowledge bases, HTTP definitions.",
            Tab::Bench => "Benchmarks: suites, targets' scores, each sample's reasoning.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_and_previous_wrap_and_index_round_trips() {
        assert_eq!(Tab::Bench.next(), Tab::Plans);
        assert_eq!(Tab::Plans.previous(), Tab::Bench);
        assert_eq!(Tab::Metrics.next(), Tab::Issues);
        for (i, tab) in Tab::ALL.iter().enumerate() {
            assert_eq!(tab.index(), i);
            assert_eq!(Tab::at(i), *tab);
        }
        assert_eq!(Tab::at(99), Tab::Bench, "a cached place past the end lands on the last tab");
    }
}
