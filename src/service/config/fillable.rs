//! A `{{variable}}` in a bundle's flow that nothing the service keeps can fill: no persona's
//! `properties` (the bundle's or the workspace's) and no saved plan's selection `variables`
//! give it. Likely a typo (`{{custmerName}}`), so `config diff` and `config apply` say so on the
//! flow's change; not a refusal, since a run's own variables (`--var`, a plan file's) may still
//! fill it, and a run that leaves it unfilled is refused when it starts.

use std::collections::BTreeSet;

use super::build::{Builder, Target};
use super::workspace::Workspace;
use crate::api::model::*;
use crate::service::sim::placeholders;

/// Every name a persona's properties or a saved plan's selection variables give.
pub fn names(workspace: &Workspace, builder: &Builder) -> BTreeSet<String> {
    let built = builder.built.values().filter_map(|t| match t {
        Target::Persona(p) => Some(p.as_ref()),
        _ => None,
    });
    let mut names: BTreeSet<String> = workspace
        .personas
        .values()
        .chain(built)
        .flat_map(|p| p.fields.properties.iter().flat_map(|props| props.keys().cloned()))
        .collect();
    for plan in workspace.plans.values() {
        for selection in plan.plan.flow_selections() {
            names.extend(selection.variables.iter().flat_map(|v| v.keys().cloned()));
            if let Some(EdgeCases::List(cases)) = &selection.edge_cases {
                names.extend(cases.iter().flat_map(|c| c.variables.iter().flat_map(|v| v.keys().cloned())));
            }
        }
    }
    names
}

/// What the change of a flow says of each `{{variable}}` its variants use that none of `known`
/// gives, with the known name it was likely meant to be.
pub fn warnings(flow: &CustomerFlow, known: &BTreeSet<String>) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for variant in flow.happy_path.iter().chain(&flow.edge_cases) {
        for used in placeholders::used_by(flow, Some(variant)) {
            if known.contains(&used.name) || !seen.insert(used.name.clone()) {
                continue;
            }
            let hint = crate::api::suggest::did_you_mean(&used.name, known.iter().map(String::as_str));
            out.push(format!(
                "warning: {} uses {{{{{}}}}}, which no persona's properties and no saved plan's variables give: a \
                 run must fill it (--var, a plan file's variables){hint}",
                used.used_in, used.name
            ));
        }
    }
    (!out.is_empty()).then(|| out.join("\n"))
}
