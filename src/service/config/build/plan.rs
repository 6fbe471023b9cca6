//! Plans from the bundle: endpoints by agent (and value or direction), flows by name or by a
//! curated flow's slug, edge cases by name, metrics by slug, and the schedule.

use uuid::Uuid;

use super::{Builder, Target, quoted};
use crate::api::model::config::*;
use crate::api::model::*;
use crate::service::config::decode::Entry;

impl Builder<'_> {
    pub(super) fn plan(&mut self, id: Uuid, c: &SimulationPlanConfig, entry: &Entry) -> Target {
        let existing = self.workspace.plans.get(&id);
        let mut endpoints = Vec::new();
        for (i, e) in c.agent_endpoints.iter().flatten().enumerate() {
            let at = format!("{}.agentEndpoints[{i}]", entry.at);
            endpoints.extend(self.plan_endpoint(entry, &at, e).map(IdRef::from));
        }
        let mut flows = Vec::new();
        for (i, f) in c.flows.iter().flatten().enumerate() {
            let at = format!("{}.flows[{i}]", entry.at);
            flows.extend(self.plan_flow(entry, &at, f));
        }
        for (i, metric) in c.metrics.iter().flatten().enumerate() {
            self.reference(entry, &format!("{}.metrics[{i}]", entry.at), &ConfigKind::Metric, metric);
        }
        let input = RunPlanInput {
            name: c.name.clone(),
            description: c.description.clone(),
            direction: c.direction.clone(),
            iteration_count: c.iterations,
            max_concurrent_jobs: c.max_concurrent_jobs,
            max_simulation_duration_seconds: c.max_duration_seconds,
            silence_timeout_seconds: c.silence_timeout_seconds,
            end_call_phrases: c.end_call_phrases.clone(),
            end_call_reasons: c.end_call_reasons.clone(),
            execution_mode: c.execution_mode.clone(),
            flows: Some(flows),
            agent_endpoints: Some(endpoints),
            metrics: Some(c.metrics.iter().flatten().map(MetricReference::by_slug).collect()),
            include_flow_metrics: c.include_flow_metrics,
            include_automatic_metrics: c.include_automatic_metrics,
            enrich_with_live_conversation: c.enrich_with_live_conversation,
            max_no_response_retries: c.max_no_response_retries,
            no_response_retry_backoff_seconds: c.no_response_retry_backoff_seconds,
            schedule: c.schedule.clone(),
            ..Default::default()
        }
        .resolved();
        Target::Plan(Box::new(RunPlan {
            id,
            created_at: self.created(existing.and_then(|p| p.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            test_case_count: None,
            is_config_managed: Some(true),
            template: None,
            comparison_property: None,
            comparison_baseline: None,
            evaluators: Vec::new(),
            next_run_at: None,
            plan: input,
        }))
    }

    /// The endpoint a plan calls: the agent's only one, or the one whose value (and direction)
    /// the bundle gives.
    fn plan_endpoint(&mut self, entry: &Entry, at: &str, e: &PlanAgentEndpointConfig) -> Option<Uuid> {
        let agent = e.agent.as_deref()?;
        let agent_id = self.reference(entry, &format!("{at}.agent"), &ConfigKind::Agent, agent)?;
        let (_, endpoints) = self.agent_copy(&agent_id)?;
        let fits: Vec<&AgentEndpoint> = endpoints
            .iter()
            .filter(|x| e.value.as_ref().is_none_or(|v| x.value.as_ref() == Some(v)))
            .filter(|x| e.direction.as_ref().is_none_or(|d| x.direction.as_ref() == Some(d)))
            .collect();
        match fits.as_slice() {
            [one] => Some(one.id),
            [] => {
                let message = format!("{at}: agent {} has no endpoint that fits", quoted(agent));
                self.problem(entry, at, message);
                None
            }
            _ => {
                let message = format!(
                    "{at}: agent {} has {} endpoints that fit; give the endpoint's value",
                    quoted(agent),
                    fits.len()
                );
                self.problem(entry, &format!("{at}.value"), message);
                None
            }
        }
    }

    fn plan_flow(&mut self, entry: &Entry, at: &str, f: &PlanFlowConfig) -> Option<FlowSelection> {
        let (flow_id, flow) = match (&f.flow, &f.system) {
            (Some(name), _) => {
                let id = self.reference(entry, &format!("{at}.flow"), &ConfigKind::Flow, name)?;
                (Some(id), self.flow_copy(&id))
            }
            (None, Some(slug)) => {
                let flow = self.workspace.flows.values().find(|x| x.slug.as_deref() == Some(slug)).cloned();
                if flow.is_none() {
                    let message = format!("{at}.system: no curated flow has the slug {}", quoted(slug));
                    self.problem(entry, &format!("{at}.system"), message);
                }
                (None, flow)
            }
            (None, None) => return None,
        };
        let edge_cases = match f.edge_cases.as_deref() {
            None => None,
            Some([all]) if all == "ALL" => Some(EdgeCases::All),
            Some(names) => {
                let mut list = Vec::new();
                for (i, name) in names.iter().enumerate() {
                    let param = format!("{at}.edgeCases[{i}]");
                    let case = flow.as_ref().and_then(|x| {
                        x.edge_cases
                            .iter()
                            .find(|e| e.name.as_deref() == Some(name) || e.title.as_deref() == Some(name))
                    });
                    match case {
                        Some(case) => list.push(EdgeCaseSelection { id: Some(case.id), ..Default::default() }),
                        None if flow.is_some() => self.problem(
                            entry,
                            &param,
                            format!("{param}: the flow has no edge case named {}", quoted(name)),
                        ),
                        None => {}
                    }
                }
                Some(EdgeCases::List(list))
            }
        };
        let persona = f.persona_override.as_deref();
        let persona =
            persona.and_then(|p| self.reference(entry, &format!("{at}.personaOverride"), &ConfigKind::Persona, p));
        Some(FlowSelection {
            id: flow_id,
            slug: if flow_id.is_none() { f.system.clone() } else { None },
            happy_path: Some(f.happy_path.unwrap_or(true)),
            edge_cases,
            persona_override_id: persona,
            ..Default::default()
        })
    }
}
