//! A flow's duplicate: a project-owned deep copy with fresh ids throughout.

use std::collections::HashMap;

use uuid::Uuid;

use crate::api::model::{CustomerFlow, FlowSource, FlowStep, FlowVariant, Timestamp};

/// A project-owned copy with fresh ids throughout; merge links are rewritten to the new node ids.
pub fn deep_copy(original: &CustomerFlow) -> CustomerFlow {
    let mut ids = HashMap::new();
    let at = Timestamp::now();
    let mut copy = original.clone();
    copy.id = Uuid::new_v4();
    copy.title = original.title.as_ref().map(|t| format!("{t} (copy)"));
    copy.source = Some(FlowSource::Custom);
    copy.slug = None;
    copy.created_at = Some(at.clone());
    copy.updated_at = Some(at.clone());
    for expectation in &mut copy.agent_expectations {
        expectation.id = Some(Uuid::new_v4());
    }
    renumber_steps(&mut copy.graph, &mut ids);
    let variants = copy.happy_path.iter_mut().chain(copy.edge_cases.iter_mut());
    for variant in variants {
        renumber_variant(variant, &mut ids, &at);
    }
    relink_steps(&mut copy.graph, &ids);
    for variant in copy.happy_path.iter_mut().chain(copy.edge_cases.iter_mut()) {
        relink_steps(&mut variant.steps, &ids);
    }
    copy
}

fn renumber_variant(variant: &mut FlowVariant, ids: &mut HashMap<String, String>, at: &Timestamp) {
    variant.id = Uuid::new_v4();
    variant.created_at = Some(at.clone());
    variant.updated_at = Some(at.clone());
    for expectation in &mut variant.additional_expectations {
        expectation.id = Some(Uuid::new_v4());
    }
    renumber_steps(&mut variant.steps, ids);
}

fn renumber_steps(steps: &mut [FlowStep], ids: &mut HashMap<String, String>) {
    for step in steps {
        if let Some(old) = step.node_id {
            let new = Uuid::new_v4();
            ids.insert(old.to_string(), new.to_string());
            step.node_id = Some(new);
        }
        renumber_steps(&mut step.steps, ids);
    }
}

fn relink_steps(steps: &mut [FlowStep], ids: &HashMap<String, String>) {
    for step in steps {
        for target in &mut step.merge_into_node_ids {
            if let Some(new) = ids.get(target) {
                *target = new.clone();
            }
        }
        relink_steps(&mut step.steps, ids);
    }
}
