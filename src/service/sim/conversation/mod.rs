//! One simulated call on a simulated clock: the customer walks the flow's step graph,
//! speaking with the persona's traits; the agent answers each line; the call ends on an
//! end-call phrase, an end-call reason, silence, the maximum duration or the end of the flow.

mod call;
mod checkable;
mod details;
mod model_caller;
mod off_script;
mod opener;
mod script;
mod voice;
mod walk;

use std::collections::BTreeMap;

use call::{Call, End};
pub use model_caller::{CallerConfig, Failed, ModelCaller};
use off_script::reach_step;
use script::actions;
use voice::Voice;
use walk::run;

use super::agent_link::AgentLink;
use crate::api::model::*;
use crate::service::metrics::compute::{WalkedStep, script as steps_of};
use crate::service::metrics::judge::Judge;

/// How the call is set up.
pub struct Setup<'a> {
    pub call_id: String,
    pub flow: &'a CustomerFlow,
    pub variant: Option<&'a FlowVariant>,
    pub persona: Option<&'a Persona>,
    pub variables: &'a BTreeMap<String, String>,
    pub end_call_phrases: Vec<String>,
    pub end_call_reasons: Vec<String>,
    pub silence_timeout_ms: i64,
    pub max_duration_ms: i64,
    pub agent_name: String,
    /// The language model that plays the caller, when the service has one (`[caller]`).
    pub caller: Option<&'a ModelCaller>,
}

/// How the call went.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub transcript: Transcript,
    pub ended_status: EndedStatus,
    pub end_reason: String,
    pub duration_ms: i64,
    /// The AGENT_TURN steps the caller reached, to be judged after the call.
    pub walked: Vec<WalkedStep>,
}

/// A key for the call that is the same every time the same variant runs as the same
/// iteration. The runner names calls `<simulation job id>-<iteration>`; the job id is new
/// each run, so the reference agent (whose flaws are rolled from the call id) and the
/// customer's voice are keyed on the variant, persona and iteration instead, and a plan run
/// twice gives the same conversations.
fn stable_key(setup: &Setup) -> String {
    let iteration = setup
        .call_id
        .rsplit_once('-')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let Some(iteration) = iteration else { return setup.call_id.clone() };
    let variant = setup.variant.map_or(setup.flow.id, |v| v.id);
    match setup.persona {
        Some(persona) => format!("{variant}-{}-{iteration}", persona.id),
        None => format!("{variant}-{iteration}"),
    }
}

/// Runs the whole call.
pub async fn converse(setup: &Setup<'_>, agent: &AgentLink, judge: &Judge) -> Result<Outcome, Failed> {
    let key = stable_key(setup);
    let seed = key.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut call = Call {
        setup,
        agent,
        judge,
        entries: Vec::new(),
        clock: 0,
        agent_turns: 0,
        voice: Voice::of(setup.persona),
        rng: fastrand::Rng::with_seed(seed),
        last_off_script: false,
        heard_call_id: if agent.is_reference() { key } else { setup.call_id.clone() },
        walked: Vec::new(),
    };
    let steps = steps_of(setup.flow, setup.variant);
    let adaptive = setup.flow.branching_mode == Some(BranchingMode::Adaptive);
    let mut plan = Vec::new();
    actions(steps, adaptive, &mut call.rng, &mut plan);
    script::mark_presses(&mut plan);
    let end = match setup.caller {
        Some(model) => model_caller::run(&mut call, plan, model).await?,
        None => run(&mut call, plan).await?,
    };
    let (ended_status, end_reason) = end;
    let duration_ms =
        call.entries.iter().map(|e| e.end_offset_ms).max().unwrap_or(0).max(call.clock).min(setup.max_duration_ms);
    Ok(Outcome {
        transcript: Transcript {
            entries: call.entries,
            participants: vec![
                Participant::new("agent", ParticipantType::Agent),
                Participant::new("customer", ParticipantType::SimulatedCustomer),
            ],
            transcription_source: None,
        },
        ended_status,
        end_reason,
        duration_ms,
        walked: call.walked,
    })
}

#[cfg(test)]
mod tests;
