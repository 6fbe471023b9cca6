//! The catalog's sections: their order, names, aliases and what each lists, creates and writes.

use crate::console::keymap::Action;
use crate::console::message::ListKind;

/// The catalog's sections, in the order h/l walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Personas,
    Agents,
    Endpoints,
    Knowledge,
    Http,
}

impl Part {
    pub const ALL: [Part; 5] = [Part::Personas, Part::Agents, Part::Endpoints, Part::Knowledge, Part::Http];

    /// Its name in the section bar.
    pub fn name(self) -> &'static str {
        match self {
            Part::Personas => "personas",
            Part::Agents => "agents",
            Part::Endpoints => "endpoints",
            Part::Knowledge => "knowledge bases",
            Part::Http => "HTTP definitions",
        }
    }

    /// The list it shows, which `o` opens an item of.
    pub fn kind(self) -> ListKind {
        match self {
            Part::Personas => ListKind::Personas,
            Part::Agents => ListKind::Agents,
            Part::Endpoints => ListKind::AgentEndpoints,
            Part::Knowledge => ListKind::KnowledgeBases,
            Part::Http => ListKind::HttpDefinitions,
        }
    }

    /// The lists on screen with it: an agent's endpoints are listed in its detail, and an
    /// endpoint names its agent.
    pub fn lists(self) -> Vec<ListKind> {
        match self {
            Part::Agents | Part::Endpoints => vec![ListKind::Agents, ListKind::AgentEndpoints],
            other => vec![other.kind()],
        }
    }

    /// The section a `:` alias names.
    pub fn of_alias(alias: &str) -> Option<Part> {
        Some(match alias {
            "personas" | "persona" => Part::Personas,
            "agents" => Part::Agents,
            "endpoints" => Part::Endpoints,
            "kb" => Part::Knowledge,
            "http" => Part::Http,
            _ => return None,
        })
    }

    /// The next section (`l`), or the previous (`h`), round the ends.
    pub fn step(self, forward: bool) -> Part {
        crate::console::panes::shown::step_round(&Part::ALL, self, forward)
    }

    /// The bundle kind `c` creates from a template here, if any.
    pub fn creates(self) -> Option<&'static str> {
        match self {
            Part::Personas => Some("persona"),
            Part::Agents | Part::Endpoints => Some("agent"),
            Part::Http => Some("httpRequestDefinition"),
            Part::Knowledge => None,
        }
    }

    /// The writes offered on its list, for help.
    pub fn write_keys(self) -> &'static [(Action, &'static str)] {
        match self {
            Part::Personas => &[
                (Action::Edit, "edit the persona's YAML in $EDITOR (diff, then apply)"),
                (Action::Create, "new persona from a template in $EDITOR"),
                (Action::Form, "new persona (a form)"),
                (Action::Delete, "delete the persona"),
            ],
            Part::Agents => &[
                (Action::Edit, "edit the agent's YAML in $EDITOR (a copy if no apply made it)"),
                (Action::Create, "new agent from a template in $EDITOR"),
            ],
            Part::Endpoints => &[
                (Action::Edit, "edit the endpoint's agent's YAML in $EDITOR"),
                (Action::Create, "new agent from a template in $EDITOR"),
                (Action::Form, "change environment and dial type (a form)"),
            ],
            Part::Knowledge => &[],
            Part::Http => &[
                (Action::Edit, "edit the definition's YAML in $EDITOR (a copy if no apply made it)"),
                (Action::Create, "new HTTP definition from a template in $EDITOR"),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_walk_round_and_aliases_name_them() {
        assert_eq!(Part::Http.step(true), Part::Personas);
        assert_eq!(Part::Personas.step(false), Part::Http);
        assert_eq!(Part::of_alias("kb"), Some(Part::Knowledge));
        assert_eq!(Part::of_alias("persona"), Some(Part::Personas));
        assert_eq!(Part::of_alias("flows"), None);
        assert_eq!(Part::Endpoints.lists(), vec![ListKind::Agents, ListKind::AgentEndpoints]);
    }
}
