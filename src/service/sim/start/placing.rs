//! Placing a new job's simulations and the job itself: each simulation is made from its
//! combination and written with the chunk it falls in, so a 100,000-simulation job is never
//! held whole.

use std::collections::HashMap;

use uuid::Uuid;

use super::Combination;
use crate::api::model::*;
use crate::service::error::DomainResult;
use crate::service::sim::jobs::StoredRunPlanJob;
use crate::service::sim::selection::variables_for;
use crate::service::sim::verdict::Tally;
use crate::service::store::records::Kept;
use crate::service::store::{Doc, Inserts, Tx};

/// What every simulation of one new job shares.
pub(super) struct Placing<'a> {
    pub plan: &'a RunPlan,
    pub variables: Option<&'a RunVariables>,
    pub job_id: Uuid,
    pub at: &'a Timestamp,
    /// Every agent by id, for the endpoint names the simulations show.
    pub agents: HashMap<Uuid, Agent>,
}

impl Placing<'_> {
    /// Writes the simulation of the `placement`th combination, PENDING, with the chunk it
    /// falls in (`Inserts`: a statement a thousand on PostgreSQL, not one each).
    pub fn place(&self, inserts: &mut Inserts, placement: usize, combo: Combination) -> DomainResult<()> {
        let job = self.simulation(placement, combo);
        Ok(inserts.push(Doc::of(&job)?)?)
    }

    /// The simulation a combination makes.
    fn simulation(&self, placement: usize, combo: Combination) -> SimulationJob {
        let live = self.plan.plan.enrich_with_live_conversation == Some(true);
        let run_plan = JobRunPlan {
            id: self.plan.id,
            name: self.plan.name().to_owned(),
            variables: variables_for(combo.selected.clone(), self.variables, combo.flow.as_ref()),
        };
        SimulationJob {
            simulation_job_id: Uuid::new_v4(),
            status: Some(SimulationJobStatus::Pending),
            processing_status: Some(ProcessingStatus::Pending),
            agent_endpoint: Some(self.endpoint(&combo.endpoint)),
            persona: combo.persona,
            scenario: combo.scenario,
            created_at: Some(self.at.clone()),
            started_at: None,
            completed_at: None,
            customer_flow: combo.flow,
            call_id: None,
            // Live enrichment provisions a number the real call must use (the spec's name).
            roark_phone_number: live.then(|| provisioned_number(placement)),
            simulation_run_plan_job_id: Some(self.job_id),
            iteration: Some(combo.iteration as u64),
            placement: Some(placement as u64),
            error_message: None,
            outcome: None,
            failed_checks: Vec::new(),
            unscored_checks: Vec::new(),
            judged_checks: Vec::new(),
            invalidation: None,
            attempt_number: Some(1),
            retry_of_simulation_job_id: None,
            scheduled_at: None,
            background_noise: Some(combo.noise),
            enrichment: Some(enrichment(live)),
            failure_owner: None,
            queue_position: None,
            run_plan: Some(run_plan),
        }
    }

    /// The endpoint as a simulation shows it: named for its agent and environment.
    fn endpoint(&self, endpoint: &AgentEndpoint) -> JobEndpoint {
        let agent_name = endpoint.agent_id.and_then(|a| self.agents.get(&a)).and_then(|a| a.name.clone());
        let value = endpoint.value.clone().unwrap_or_default();
        let environment = endpoint.environment.clone().unwrap_or_else(|| "production".into());
        JobEndpoint {
            id: endpoint.id,
            name: Some(format!("{} ({environment})", agent_name.unwrap_or(value))),
            phone_number: endpoint.value.clone(),
            kind: endpoint.endpoint_type.clone(),
            endpoint_type: endpoint.endpoint_type.clone(),
        }
    }

    /// Writes the job PENDING over its `placed` simulations, with the tally its verdict is kept
    /// in and the plan it runs from.
    pub fn place_job(&self, tx: &Tx, tally: Tally, placed: u64, trigger: JobTrigger) -> DomainResult<RunPlanJob> {
        let job = RunPlanJob {
            verdict: tally.verdict(&RunPlanJobStatus::Pending),
            simulation_run_plan_job_id: self.job_id,
            simulation_run_plan_id: Some(self.plan.id),
            status: Some(RunPlanJobStatus::Pending),
            triggered_by: Some(trigger),
            created_at: Some(self.at.clone()),
            started_at: None,
            ended_at: None,
            simulation_jobs: Vec::new(),
            simulation_job_count: Some(placed),
            error_message: None,
            attempt_summary: None,
            pending_retries: None,
            counts: None,
        };
        let mut stored = StoredRunPlanJob {
            job: job.clone(),
            // The engine runs from the plan as it was when the job started (inline plans are not saved).
            plan: Some(Kept::new(&self.plan.plan)?),
            variables: self.variables.map(Kept::new).transpose()?,
            tally: Some(tally),
            replay: None,
            collection_job_id: None,
            rest: Default::default(),
        };
        stored.with_verdict();
        stored.insert(tx)?;
        Ok(job)
    }
}

/// Whether the simulation waits for a live call, before it has.
fn enrichment(live: bool) -> Enrichment {
    Enrichment {
        requested: live,
        outcome: if live { EnrichmentOutcome::UnknownOutcome } else { EnrichmentOutcome::NotRequested },
        wait_started_at: None,
        wait_ended_at: None,
    }
}

/// A number in the 555-01xx fictional range, distinct per simulation of a job.
fn provisioned_number(index: usize) -> String {
    let serial = Uuid::new_v4().as_u128() % 100_000;
    format!("+1555{:05}{:02}", serial, index % 100)
}
