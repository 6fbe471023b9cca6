//! Flows from the bundle: a scripted flow's graph with node ids and its merges resolved
//! (refusing a merge that loops back), an improv flow's happy path and edge cases with their
//! personas and environments.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::{Builder, Target, quoted};
use crate::api::model::config::*;
use crate::api::model::*;
use crate::service::config::decode::Entry;
use crate::service::flows::graph;

fn expectations(prompts: Option<&Vec<String>>) -> Vec<Expectation> {
    prompts.into_iter().flatten().map(|p| Expectation { id: Some(Uuid::new_v4()), prompt: Some(p.clone()) }).collect()
}

fn off_script(c: &OffScriptConfig) -> OffScriptPolicy {
    OffScriptPolicy {
        reaction: c.reaction.clone(),
        max_attempts: c.max_attempts,
        then: c.then.clone(),
        say_line: c.say_line.clone(),
        wait_seconds: c.wait_seconds,
    }
}

impl Builder<'_> {
    fn flow_agents(&mut self, entry: &Entry, names: Option<&Vec<String>>) -> Vec<Agent> {
        let mut agents = Vec::new();
        for (i, name) in names.into_iter().flatten().enumerate() {
            let param = format!("{}.agents[{i}]", entry.at);
            if let Some(id) = self.reference(entry, &param, &ConfigKind::Agent, name) {
                agents.extend(self.agent_copy(&id).map(|(agent, _)| agent));
            }
        }
        agents
    }

    pub(super) fn scripted_flow(&mut self, id: Uuid, c: &ScriptedFlowConfig, entry: &Entry) -> Target {
        let existing = self.workspace.flows.get(&id);
        let name = c.name.clone().unwrap_or_default();
        let title = c.title.clone().unwrap_or(name);
        let agents = self.flow_agents(entry, c.agents.as_ref());
        let mut nodes = HashMap::new();
        let mut seen = HashSet::new();
        let graph = c.graph.as_deref().unwrap_or_default();
        self.collect_refs(entry, graph, &format!("{}.graph", entry.at), &mut nodes, &mut seen);
        let steps: Vec<FlowStep> = graph
            .iter()
            .enumerate()
            .map(|(i, s)| self.step(entry, s, &format!("{}.graph[{i}]", entry.at), &nodes))
            .collect();
        self.refuse_merge_cycles(entry, &steps);
        // What a scripted flow's bundle does not say (its variants' personas and steps, its edge
        // cases and metrics) stays as it is, as the flow's update and graph routes leave it.
        let was_scripted = existing.filter(|f| f.flow_type != Some(FlowType::Improv));
        let happy_path = match was_scripted.and_then(|f| f.happy_path.as_ref()) {
            Some(kept) => {
                FlowVariant { title: Some(title.clone()), updated_at: Some(self.now.clone()), ..kept.clone() }
            }
            None => crate::service::flows::blank_variant(&FlowType::Scripted, &title, &self.now),
        };
        Target::Flow(Box::new(CustomerFlow {
            id,
            title: Some(title),
            source: Some(FlowSource::Custom),
            description: c.description.clone(),
            created_at: self.created(existing.and_then(|f| f.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            agents,
            agent_expectations: expectations(c.expectations.as_ref()),
            flow_type: Some(FlowType::Scripted),
            script_adherence: c.adherence.clone(),
            off_script_policy: c.off_script.as_ref().map(off_script),
            branching_mode: c.branching_mode.clone(),
            happy_path: Some(happy_path),
            edge_cases: was_scripted.map(|f| f.edge_cases.clone()).unwrap_or_default(),
            graph: steps,
            slug: self.flow_slug(id, entry),
            metrics: existing.and_then(|f| f.metrics.clone()),
        }))
    }

    /// Gives every step with a `ref` its node id, reporting a `ref` used twice.
    fn collect_refs(
        &mut self,
        entry: &Entry,
        steps: &[ConfigFlowStep],
        at: &str,
        nodes: &mut HashMap<String, Uuid>,
        seen: &mut HashSet<String>,
    ) {
        for (i, s) in steps.iter().enumerate() {
            let here = format!("{at}[{i}]");
            if let Some(reference) = &s.step_ref
                && !seen.insert(reference.clone())
            {
                let message = format!("{here}.ref: another step of this graph is {}", quoted(reference));
                self.problem(entry, &format!("{here}.ref"), message);
            } else if let Some(reference) = &s.step_ref {
                nodes.insert(reference.clone(), Uuid::new_v4());
            }
            self.collect_refs(entry, s.steps.as_deref().unwrap_or_default(), &format!("{here}.steps"), nodes, seen);
        }
    }

    fn step(&mut self, entry: &Entry, s: &ConfigFlowStep, at: &str, nodes: &HashMap<String, Uuid>) -> FlowStep {
        if let Some(kind) = s.step_type.as_ref().filter(|k| k.is_known()) {
            if !kind.allowed_in(&FlowType::Scripted) {
                let message = format!(
                    "{at}.type: a scripted flow does not take {kind} steps (voicemail flows are the service's own)"
                );
                self.problem(entry, &format!("{at}.type"), message);
            }
            let given = [
                (StepMember::Content, "content", s.content.is_some()),
                (StepMember::OffScript, "offScript", s.off_script.is_some()),
                (StepMember::DtmfDigits, "dtmfDigits", s.dtmf_digits.is_some()),
                (StepMember::SilenceDuration, "silenceDurationSeconds", s.silence_duration_seconds.is_some()),
                (StepMember::HandoffPersona, "handoffPersona", s.handoff_persona.is_some()),
                (StepMember::LinkedFlow, "flow", s.flow.is_some()),
            ];
            for (_, member, _) in given.iter().filter(|(m, _, present)| *present && !kind.takes(*m)) {
                self.problem(
                    entry,
                    &format!("{at}.{member}"),
                    format!("{at}.{member}: a {kind} step does not take {member}"),
                );
            }
        }
        let mut merges = Vec::new();
        for (i, target) in s.merge_into.iter().flatten().enumerate() {
            match nodes.get(target) {
                Some(node) => merges.push(node.to_string()),
                None => {
                    let param = format!("{at}.mergeInto[{i}]");
                    self.problem(entry, &param, format!("{param}: no step of this graph has ref {}", quoted(target)));
                }
            }
        }
        let handoff = s
            .handoff_persona
            .as_deref()
            .and_then(|name| self.reference(entry, &format!("{at}.handoffPersona"), &ConfigKind::Persona, name));
        let linked =
            s.flow.as_deref().and_then(|name| self.reference(entry, &format!("{at}.flow"), &ConfigKind::Flow, name));
        let children = s.steps.as_deref().unwrap_or_default();
        FlowStep {
            step_type: s.step_type.clone(),
            node_id: Some(s.step_ref.as_ref().and_then(|r| nodes.get(r).copied()).unwrap_or_else(Uuid::new_v4)),
            step_ref: s.step_ref.clone(),
            steps: children
                .iter()
                .enumerate()
                .map(|(i, n)| self.step(entry, n, &format!("{at}.steps[{i}]"), nodes))
                .collect(),
            merge_into_node_ids: merges,
            content: s.content.clone(),
            off_script_policy: s.off_script.as_ref().map(off_script),
            dtmf_digits: s.dtmf_digits.clone(),
            silence_duration_seconds: s.silence_duration_seconds,
            stage: s.stage.as_ref().map(|stage| match stage {
                StageConfig::Name(name) => Stage { name: name.clone(), analyze: None, required: None },
                StageConfig::Detail(d) => {
                    Stage { name: d.name.clone().unwrap_or_default(), analyze: d.analyze, required: d.required }
                }
            }),
            handoff_persona_id: handoff,
            linked_customer_flow_id: linked,
        }
    }

    /// A merge that leads back to a step it comes from would loop for ever; a graph over the
    /// limits is refused as the flow routes refuse it.
    fn refuse_merge_cycles(&mut self, entry: &Entry, graph: &[FlowStep]) {
        let at = format!("{}.graph", entry.at);
        for (from, to) in graph::merge_loops(graph) {
            self.problem(entry, &at, graph::loop_message(&from, &to));
        }
        for message in graph::limit_problems(graph) {
            self.problem(entry, &at, message);
        }
    }

    pub(super) fn improv_flow(&mut self, id: Uuid, c: &ImprovFlowConfig, entry: &Entry) -> Target {
        let existing = self.workspace.flows.get(&id);
        let name = c.name.clone().unwrap_or_default();
        let title = c.title.clone().unwrap_or(name);
        let agents = self.flow_agents(entry, c.agents.as_ref());
        let happy = c.happy_path.clone().unwrap_or_default();
        let at = format!("{}.happyPath", entry.at);
        let persona = happy.persona.as_deref().and_then(|p| self.persona_named(entry, &format!("{at}.persona"), p));
        let environment =
            happy.environment.as_deref().and_then(|e| self.environment(entry, &format!("{at}.environment"), e));
        let kept_happy = existing.and_then(|f| f.happy_path.as_ref());
        let happy_path = self.variant(VariantParts {
            id: kept_happy.map_or_else(Uuid::new_v4, |h| h.id),
            kept: kept_happy,
            title: happy.title.clone().unwrap_or(title.clone()),
            name: None,
            persona: persona.clone(),
            environment: environment.clone(),
            expectations: happy.expectations.as_ref(),
            include_flow_expectations: Some(true),
            prompt: happy.prompt.clone(),
        });
        let mut edge_cases = Vec::new();
        for (i, case) in c.edge_cases.iter().flatten().enumerate() {
            let at = format!("{}.edgeCases[{i}]", entry.at);
            let case_name = case.name.clone().unwrap_or_default();
            // An edge case is known by the name export gives it (its name, else title, else id).
            let kept = existing.and_then(|f| f.edge_cases.iter().find(|e| e.config_name() == case_name));
            let own_persona = match case.persona.as_deref() {
                Some(p) => self.persona_named(entry, &format!("{at}.persona"), p),
                None => persona.clone(),
            };
            let own_environment = match case.environment.as_deref() {
                Some(e) => self.environment(entry, &format!("{at}.environment"), e),
                None => environment.clone(),
            };
            edge_cases.push(self.variant(VariantParts {
                id: kept.map_or_else(Uuid::new_v4, |k| k.id),
                kept,
                title: case.title.clone().unwrap_or(case_name.clone()),
                name: Some(case_name),
                persona: own_persona,
                environment: own_environment,
                expectations: case.expectations.as_ref(),
                include_flow_expectations: case.include_flow_expectations,
                prompt: case.prompt.clone(),
            }));
        }
        Target::Flow(Box::new(CustomerFlow {
            id,
            title: Some(title),
            source: Some(FlowSource::Custom),
            description: c.description.clone(),
            created_at: self.created(existing.and_then(|f| f.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            agents,
            agent_expectations: expectations(c.expectations.as_ref()),
            flow_type: Some(FlowType::Improv),
            script_adherence: None,
            off_script_policy: None,
            branching_mode: None,
            happy_path: Some(happy_path),
            edge_cases,
            graph: Vec::new(),
            slug: self.flow_slug(id, entry),
            metrics: existing.and_then(|f| f.metrics.clone()),
        }))
    }

    /// The flow's slug: the one it has, else, for a flow an apply makes, its bundle `name`, so a
    /// plan file selects it by `slug:` as a bundle plan does by `flow:`. A name longer than a
    /// slug may be, or that another flow has as its slug, gives none (the slug would not name it
    /// alone); a flow the seed or the routes made keeps what it has, as an apply leaves slugs.
    fn flow_slug(&self, id: Uuid, entry: &Entry) -> Option<String> {
        let existing = self.workspace.flows.get(&id);
        if let Some(slug) = existing.and_then(|f| f.slug.clone()) {
            return Some(slug);
        }
        let made_by_apply = existing.is_none() || self.workspace.record(&ConfigKind::Flow, &entry.name).is_some();
        let name = entry.name.as_str();
        let taken = self.workspace.flows.values().any(|f| f.id != id && f.slug.as_deref() == Some(name));
        let fits = !name.trim().is_empty() && name.chars().count() <= run_plan_limits::SLUG_MAX;
        (made_by_apply && fits && !taken).then(|| name.to_owned())
    }

    fn persona_named(&mut self, entry: &Entry, param: &str, name: &str) -> Option<Persona> {
        let id = self.reference(entry, param, &ConfigKind::Persona, name)?;
        self.persona_copy(&id)
    }

    fn variant(&self, parts: VariantParts) -> FlowVariant {
        FlowVariant {
            id: parts.id,
            title: Some(parts.title),
            name: parts.name,
            preceded_by_customer_flow_id: None,
            preceded_by_customer_flow_variant_id: None,
            is_generated: Some(false),
            include_flow_expectations: parts.include_flow_expectations,
            created_at: self.created(parts.kept.and_then(|k| k.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            persona_override: parts.persona,
            environment: parts.environment,
            additional_expectations: expectations(parts.expectations),
            variant_type: Some(FlowType::Improv),
            prompt: parts.prompt,
            // What a bundle does not say about a variant stays as it was.
            handoff_personas: Some(parts.kept.and_then(|k| k.handoff_personas.clone()).unwrap_or_default()),
            steps: parts.kept.map(|k| k.steps.clone()).unwrap_or_default(),
            system_key: parts.kept.and_then(|k| k.system_key.clone()),
        }
    }
}

struct VariantParts<'a> {
    id: Uuid,
    kept: Option<&'a FlowVariant>,
    title: String,
    name: Option<String>,
    persona: Option<Persona>,
    environment: Option<Environment>,
    expectations: Option<&'a Vec<String>>,
    include_flow_expectations: Option<bool>,
    prompt: Option<String>,
}
