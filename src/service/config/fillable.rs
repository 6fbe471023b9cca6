//! A `{{variable}}` in a bundle's flow that nothing the service keeps can fill: no persona's
//! `properties` (the bundle's or the workspace's) and no saved plan's selection `variables`
//! give it. Likely a typo (`{{custmerName}}`), so `config diff` and `config apply` say so on the
//! flow's change; not a refusal, since a run's own variables (`--var`, a plan file's) may still
//! fill it, and a run that leaves it unfilled is refused when it starts.

use std::collections::{BTreeSet, HashSet};

use uuid::Uuid;

use super::build::{Builder, Target};
use super::workspace::{ConfigRecord, Workspace};
use crate::api::model::*;
use crate::service::sim::placeholders;

/// Every name a persona's properties or a saved plan's selection variables give once the bundle
/// is applied: the bundle's personas and plans as it writes them, and the workspace's others.
/// A persona or plan the bundle rewrites gives only what the bundle leaves it (a property it
/// removes fills nothing), and one a prune deletes (`gone`) gives nothing.
pub fn names(workspace: &Workspace, builder: &Builder, gone: &[ConfigRecord]) -> BTreeSet<String> {
    let (mut personas, mut plans) = (Vec::new(), Vec::new());
    for target in builder.built.values() {
        match target {
            Target::Persona(persona) => personas.push(persona.as_ref()),
            Target::Plan(plan) => plans.push(plan.as_ref()),
            _ => {}
        }
    }
    let replaced: HashSet<Uuid> = personas.iter().map(|p| p.id).chain(plans.iter().map(|p| p.id)).collect();
    let kept = |id: &Uuid| !replaced.contains(id) && !gone.iter().any(|record| record.id == *id);
    personas.extend(workspace.personas.values().filter(|p| kept(&p.id)));
    plans.extend(workspace.plans.values().filter(|p| kept(&p.id)));
    let mut names: BTreeSet<String> =
        personas.iter().flat_map(|p| p.fields.properties.iter().flat_map(|props| props.keys().cloned())).collect();
    for plan in plans {
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
