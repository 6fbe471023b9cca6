//! A scripted flow's graph as a caller sends it, made into the steps the service keeps: node
//! ids kept or made, merges resolved, and every rule a graph has checked at once (which step
//! types the flow takes, merges that name no step or loop, references, limits). The loop and
//! limit rules are shared with the config bundle's flows (`config::build::flow`).

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::api::model::*;
use crate::api::validate::{Violation, ViolationCode, index, join, quote};
use crate::service::error::DomainResult;
use crate::service::store::{self, Conn, Kind};

fn invalid(param: String, message: String) -> Violation {
    Violation { param, code: ViolationCode::InvalidParameter, message }
}

/// The stored steps for `input`, and a violation for each rule broken (paths under `at`,
/// `graph` for a body's graph). `kept` are the node ids the flow's graph has now.
pub fn build(
    conn: &Conn,
    flow_type: &FlowType,
    input: &[FlowStepInput],
    at: &str,
    out: &mut Vec<Violation>,
) -> DomainResult<Vec<FlowStep>> {
    let mut nodes = Nodes::default();
    nodes.collect(input, at, out);
    let mut steps = Vec::with_capacity(input.len());
    for (i, step) in input.iter().enumerate() {
        steps.push(nodes.step(conn, flow_type, step, &index(at, i), out)?);
    }
    if input.is_empty() {
        out.push(invalid(at.to_owned(), format!("{at}: a scripted flow needs at least one step")));
    }
    out.extend(limit_problems(&steps).into_iter().map(|message| invalid(at.to_owned(), message)));
    out.extend(merge_loops(&steps).into_iter().map(|(from, to)| invalid(at.to_owned(), loop_message(&from, &to))));
    Ok(steps)
}

/// The node ids a graph's steps get, by `nodeId` and by `ref`.
#[derive(Default)]
struct Nodes {
    ids: HashSet<Uuid>,
    refs: HashMap<String, Uuid>,
    /// The id made for each step that had none, in the order the steps are walked.
    made: HashMap<String, Uuid>,
}

impl Nodes {
    /// Gives every step its id, reporting an id or a `ref` used twice.
    fn collect(&mut self, steps: &[FlowStepInput], at: &str, out: &mut Vec<Violation>) {
        for (i, s) in steps.iter().enumerate() {
            let here = index(at, i);
            let node = s.node_id.unwrap_or_else(Uuid::new_v4);
            if s.node_id.is_none() {
                self.made.insert(here.clone(), node);
            }
            if !self.ids.insert(node) {
                let param = join(&here, "nodeId");
                out.push(invalid(param.clone(), format!("{param}: another step of this graph has node id {node}")));
            }
            // A `ref` used twice names the first step that has it.
            if let Some(reference) = &s.step_ref {
                if self.refs.contains_key(reference) {
                    let param = join(&here, "ref");
                    let message = format!("{param}: another step of this graph is {}", quote(reference));
                    out.push(invalid(param, message));
                } else {
                    self.refs.insert(reference.clone(), node);
                }
            }
            self.collect(s.steps.as_deref().unwrap_or_default(), &join(&here, "steps"), out);
        }
    }

    fn node_of(&self, s: &FlowStepInput, at: &str) -> Uuid {
        s.node_id.or_else(|| self.made.get(at).copied()).unwrap_or_else(Uuid::new_v4)
    }

    /// A merge target: a step's node id, or its `ref`.
    fn target(&self, name: &str) -> Option<Uuid> {
        Uuid::parse_str(name).ok().filter(|id| self.ids.contains(id)).or_else(|| self.refs.get(name).copied())
    }

    fn step(
        &self,
        conn: &Conn,
        flow_type: &FlowType,
        s: &FlowStepInput,
        at: &str,
        out: &mut Vec<Violation>,
    ) -> DomainResult<FlowStep> {
        if let Some(kind) = s.step_type.as_ref().filter(|k| k.is_known() && !k.allowed_in(flow_type)) {
            let param = join(at, "type");
            let message = format!(
                "{param}: a {flow_type} flow does not take {kind} steps (voicemail flows are the service's own)"
            );
            out.push(invalid(param, message));
        }
        let mut merges = Vec::new();
        for (i, name) in s.merge_into_node_ids.iter().flatten().enumerate() {
            match self.target(name) {
                Some(node) => merges.push(node.to_string()),
                None => {
                    let param = index(&join(at, "mergeIntoNodeIds"), i);
                    let message = format!("{param}: no step of this graph has node id or ref {}", quote(name));
                    out.push(invalid(param, message));
                }
            }
        }
        if let Some(persona) = s.handoff_persona_id
            && !store::exists(conn, Kind::Persona, &persona.to_string())?
        {
            let param = join(at, "handoffPersonaId");
            out.push(invalid(param.clone(), format!("{param}: no persona {persona}")));
        }
        if let Some(flow) = s.linked_customer_flow_id
            && !store::exists(conn, Kind::CustomerFlow, &flow.to_string())?
        {
            let param = join(at, "linkedCustomerFlowId");
            out.push(invalid(param.clone(), format!("{param}: no customer flow {flow}")));
        }
        let mut steps = Vec::new();
        for (i, child) in s.steps.iter().flatten().enumerate() {
            steps.push(self.step(conn, flow_type, child, &index(&join(at, "steps"), i), out)?);
        }
        Ok(FlowStep {
            step_type: s.step_type.clone(),
            node_id: Some(self.node_of(s, at)),
            step_ref: s.step_ref.clone(),
            steps,
            merge_into_node_ids: merges,
            content: s.content.clone(),
            off_script_policy: s.off_script_policy.clone(),
            dtmf_digits: s.dtmf_digits.clone(),
            silence_duration_seconds: s.silence_duration_seconds,
            stage: s.stage.clone(),
            handoff_persona_id: s.handoff_persona_id,
            linked_customer_flow_id: s.linked_customer_flow_id,
        })
    }
}

/// What a graph breaks of `flow_limits`, as messages.
pub fn limit_problems(graph: &[FlowStep]) -> Vec<String> {
    let mut problems = Vec::new();
    let steps = step_count(graph);
    if steps > flow_limits::STEPS_MAX {
        problems.push(format!("graph: at most {} steps (it has {steps})", flow_limits::STEPS_MAX));
    }
    let paths = path_count(graph);
    if paths > flow_limits::PATHS_MAX {
        problems.push(format!("graph: at most {} paths (it has {paths})", flow_limits::PATHS_MAX));
    }
    problems
}

/// The message for a merge that loops back.
pub fn loop_message(from: &str, to: &str) -> String {
    format!(
        "graph: step {} merges into {}, which leads back to it: the conversation would loop for ever",
        quote(from),
        quote(to)
    )
}

/// The merges that lead back to a step they come from, as (from, to) step labels (`ref`, else
/// node id). The graph's edges are a step's next steps, the next step of the top-level
/// script, and its merges.
pub fn merge_loops(graph: &[FlowStep]) -> Vec<(String, String)> {
    let mut edges: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    let mut labels: HashMap<Uuid, String> = HashMap::new();
    fn walk(steps: &[FlowStep], edges: &mut HashMap<Uuid, Vec<Uuid>>, labels: &mut HashMap<Uuid, String>) {
        for s in steps {
            let Some(node) = s.node_id else { continue };
            labels.insert(node, s.step_ref.clone().unwrap_or_else(|| node.to_string()));
            let next = edges.entry(node).or_default();
            next.extend(s.steps.iter().filter_map(|n| n.node_id));
            next.extend(s.merge_into_node_ids.iter().filter_map(|m| Uuid::parse_str(m).ok()));
            walk(&s.steps, edges, labels);
        }
    }
    walk(graph, &mut edges, &mut labels);
    for pair in graph.windows(2) {
        if let (Some(a), Some(b)) = (pair[0].node_id, pair[1].node_id) {
            edges.entry(a).or_default().push(b);
        }
    }
    // Depth-first, colouring nodes on the path; an edge to a node on the path closes a loop.
    let mut state: HashMap<Uuid, u8> = HashMap::new();
    let mut loops = Vec::new();
    fn visit(n: Uuid, edges: &HashMap<Uuid, Vec<Uuid>>, state: &mut HashMap<Uuid, u8>, loops: &mut Vec<(Uuid, Uuid)>) {
        state.insert(n, 1);
        for next in edges.get(&n).into_iter().flatten() {
            match state.get(next) {
                Some(1) => loops.push((n, *next)),
                Some(_) => {}
                None => visit(*next, edges, state, loops),
            }
        }
        state.insert(n, 2);
    }
    let mut roots: Vec<Uuid> = graph.iter().filter_map(|s| s.node_id).collect();
    let mut rest: Vec<Uuid> = labels.keys().copied().collect();
    rest.sort();
    roots.extend(rest);
    for root in roots {
        if !state.contains_key(&root) {
            visit(root, &edges, &mut state, &mut loops);
        }
    }
    let label = |n: &Uuid| labels.get(n).cloned().unwrap_or_default();
    loops.iter().map(|(from, to)| (label(from), label(to))).collect()
}

/// The merges (step, target) a graph has, to tell which a new graph drops.
pub fn merges(graph: &[FlowStep]) -> HashSet<(Uuid, String)> {
    let mut found = HashSet::new();
    fn walk(steps: &[FlowStep], found: &mut HashSet<(Uuid, String)>) {
        for s in steps {
            if let Some(node) = s.node_id {
                found.extend(s.merge_into_node_ids.iter().map(|m| (node, m.clone())));
            }
            walk(&s.steps, found);
        }
    }
    walk(graph, &mut found);
    found
}

/// Every node id a graph has.
pub fn node_ids(graph: &[FlowStep]) -> HashSet<Uuid> {
    let mut found = HashSet::new();
    fn walk(steps: &[FlowStep], found: &mut HashSet<Uuid>) {
        for s in steps {
            found.extend(s.node_id);
            walk(&s.steps, found);
        }
    }
    walk(graph, &mut found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(reference: &str, steps: Vec<FlowStep>) -> FlowStep {
        FlowStep {
            step_type: Some(StepType::AgentTurn),
            node_id: Some(Uuid::new_v4()),
            step_ref: Some(reference.to_owned()),
            steps,
            ..Default::default()
        }
    }

    #[test]
    fn alternatives_add_paths_and_a_sequence_multiplies_them() {
        let fork = |name: &str| step(name, vec![step("a", vec![]), step("b", vec![]), step("c", vec![])]);
        assert_eq!(path_count(&[step("x", vec![])]), 1);
        assert_eq!(path_count(&[fork("one")]), 3);
        assert_eq!(path_count(&[fork("one"), step("mid", vec![]), fork("two")]), 9);
        assert_eq!(step_count(&[fork("one"), fork("two")]), 8);
    }

    #[test]
    fn a_merge_back_to_an_earlier_step_is_a_loop_and_a_merge_forward_is_not() {
        let mut graph = vec![step("first", vec![step("branch", vec![])]), step("last", vec![])];
        let last = graph[1].node_id.unwrap().to_string();
        graph[0].steps[0].merge_into_node_ids = vec![last];
        assert!(merge_loops(&graph).is_empty());
        let first = graph[0].node_id.unwrap().to_string();
        graph[1].merge_into_node_ids = vec![first];
        assert_eq!(merge_loops(&graph), vec![("last".to_owned(), "first".to_owned())]);
    }
}
