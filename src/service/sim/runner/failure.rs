//! Why a simulation ended without running to its end, as the engine tells it apart: a
//! conversation that failed (whose side failed decides its `failureOwner`) or the service's own
//! failure. Mapped to nothing on the wire: it becomes the simulation's errorMessage.

use crate::api::model::FailureOwner;
use crate::service::error::DomainError;
use crate::service::sim::conversation::Failed;
use crate::service::store::StoreError;

/// Why a simulation ended without running to its end.
#[derive(Debug)]
pub(super) enum SimulationError {
    /// Its conversation failed, on the agent's side or the caller model's.
    Conversation(Failed),
    /// The store failed it, or another replica took it over (`StoreError::LeaseLost`).
    Store(StoreError),
    /// The service failed it otherwise (a panic, a link it cannot build, a domain refusal).
    Domain(DomainError),
}

impl From<StoreError> for SimulationError {
    fn from(error: StoreError) -> Self {
        SimulationError::Store(error)
    }
}

impl From<DomainError> for SimulationError {
    fn from(error: DomainError) -> Self {
        SimulationError::Domain(error)
    }
}

impl From<serde_json::Error> for SimulationError {
    fn from(error: serde_json::Error) -> Self {
        SimulationError::Store(error.into())
    }
}

impl SimulationError {
    /// The simulation's errorMessage and whose side failed: a conversation that failed is the
    /// agent's (unreachable, no answer); anything else, the caller model's failures too, ours.
    pub(super) fn failure(&self) -> (String, FailureOwner) {
        match self {
            SimulationError::Conversation(Failed::Agent(message)) => (message.clone(), FailureOwner::Agent),
            SimulationError::Conversation(Failed::CallerModel(message)) => (message.clone(), FailureOwner::Roark),
            SimulationError::Domain(error) => (error.told(), FailureOwner::Roark),
            // The simulation's errorMessage is public: a store fault reads as the service's
            // answer to a caller would, its cause only in the log.
            SimulationError::Store(error) => (DomainError::Store(error.clone()).told(), FailureOwner::Roark),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_conversation_the_agent_failed_is_the_agents() {
        let agent = SimulationError::Conversation(Failed::Agent("no answer".into()));
        assert_eq!(agent.failure(), ("no answer".to_owned(), FailureOwner::Agent));
        let caller = SimulationError::Conversation(Failed::CallerModel("model down".into()));
        assert_eq!(caller.failure(), ("model down".to_owned(), FailureOwner::Roark));
        let ours = SimulationError::from(DomainError::fault("store"));
        assert_eq!(ours.failure().1, FailureOwner::Roark);
    }

    #[test]
    fn a_store_fault_reads_as_the_service_answer_without_its_cause() {
        let fault = SimulationError::from(StoreError::backend("store: disk I/O error (code 10)"));
        assert_eq!(fault.failure(), ("internal error; see the service log".to_owned(), FailureOwner::Roark));
        let missing = SimulationError::from(StoreError::not_found(crate::service::store::Kind::Agent, "a1"));
        assert_eq!(missing.failure(), ("no agent a1".to_owned(), FailureOwner::Roark));
    }
}
