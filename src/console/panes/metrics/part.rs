//! The metrics tab's sections: their order, names and what each lists, opens and creates.

use crate::console::message::ListKind;

/// The tab's sections, in the order h/l walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Definitions,
    Policies,
    Jobs,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Definitions, Part::Policies, Part::Jobs];

    /// Its name in the section bar.
    pub fn name(self) -> &'static str {
        match self {
            Part::Definitions => "definitions",
            Part::Policies => "policies",
            Part::Jobs => "collection jobs",
        }
    }

    /// The list it shows, which `o` opens an item of.
    pub fn kind(self) -> ListKind {
        match self {
            Part::Definitions => ListKind::MetricDefinitions,
            Part::Policies => ListKind::Policies,
            Part::Jobs => ListKind::CollectionJobs,
        }
    }

    /// The section showing `kind`'s list.
    pub fn of_kind(kind: ListKind) -> Part {
        Part::ALL.into_iter().find(|p| p.kind() == kind).unwrap_or(Part::Definitions)
    }

    /// The next section (`l`), or the previous (`h`), round the ends.
    pub fn step(self, forward: bool) -> Part {
        crate::console::panes::shown::step_round(&Part::ALL, self, forward)
    }

    /// The bundle kind `c` creates from a template here, if any.
    pub fn creates(self) -> Option<&'static str> {
        match self {
            Part::Definitions => Some("metric"),
            Part::Policies => Some("collector"),
            Part::Jobs => None,
        }
    }

    /// What Enter opens here, for help.
    pub fn opens(self) -> &'static str {
        match self {
            Part::Definitions => "every field, thresholds and versions",
            Part::Policies => "every field of the policy",
            Part::Jobs => "the job's metric values",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_walk_round_and_are_found_by_their_list() {
        assert_eq!(Part::Jobs.step(true), Part::Definitions);
        assert_eq!(Part::Definitions.step(false), Part::Jobs);
        assert_eq!(Part::Definitions.step(true), Part::Policies);
        for part in Part::ALL {
            assert_eq!(Part::of_kind(part.kind()), part);
        }
    }
}
