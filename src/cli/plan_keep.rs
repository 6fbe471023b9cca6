//! A plan file's runs kept together: the first run of a file whose name no saved plan has saves
//! it as that plan, so later runs of the file (run as inline copies, which the service lists
//! under the saved plan of their name) are one plan's runs for `job list --plan`, `flaky`,
//! `diff` and the console. A later file that sets a member to another value updates that member
//! of the saved plan once its run has started (a member the file leaves out is not cleared),
//! and says what changed, as `--agent-url` does for its request.

use super::exit::{Exit, Failure};
use super::input::Document;
use super::session::Session;
use crate::api::model::{IdRef, RunPlanInput, RunPlanUpdate};

/// What the run of a plan file does about its plan.
#[derive(Debug, PartialEq)]
pub enum Kept {
    /// A saved plan has the file's name (brought up to date): the run is one of its runs.
    Found,
    /// None has: the run saves the file as it is (`saveAsPlan`), in the run's own request, so a
    /// refused run leaves no plan behind.
    SaveWithRun,
    /// The saved plan of the file's name differs from the file: `update` once the run is
    /// started, so a refused run leaves the plan as it was.
    Update(Update),
}

/// The members of a saved plan that a plan file changed, to be written after its run starts.
#[derive(Debug, PartialEq)]
pub struct Update {
    id: uuid::Uuid,
    /// Boxed: a plan's worth of members, where the other outcomes carry none.
    members: Box<RunPlanUpdate>,
    /// What is said once written: `plan "Mine": mine.yaml changed (…); updated`.
    says: String,
}

/// Finds or saves the plan `file_plan` (the file as written; `endpoints` the run's, when an
/// agent of the run's own replaces the file's) is a run of. A run of some of the file's test
/// cases (`narrowed`) saves the whole file first.
pub async fn keep(
    session: &Session,
    document: &Document,
    mut file_plan: RunPlanInput,
    endpoints: Option<Vec<IdRef>>,
    narrowed: bool,
) -> Result<Kept, Failure> {
    let file = document.name.as_str();
    let Some(name) = file_plan.name.clone() else { return Ok(Kept::Found) };
    let saved = match super::plan::resolve(&session.client, &name).await {
        Ok(saved) => Some(saved),
        Err(failure) if failure.exit == Exit::NotFound => None,
        // Several plans of that name: the service lists the run under none of them; leave them be.
        Err(failure) if failure.exit == Exit::Usage => return Ok(Kept::Found),
        Err(failure) => return Err(failure),
    };
    let agent_of_its_own = endpoints.is_some();
    if let Some(endpoints) = endpoints {
        file_plan.agent_endpoints = Some(endpoints);
    }
    let Some(saved) = saved else {
        if !narrowed {
            return Ok(Kept::SaveWithRun);
        }
        let created = session.client.create_run_plan(&file_plan).await.map_err(|e| super::plan::locate(document, e))?;
        eprintln!("{}", saved_from(&name, file, created.run_plan.id));
        return Ok(Kept::Found);
    };
    let changed = differing(&file_plan, &saved.plan, agent_of_its_own);
    let names = changed_members(&changed);
    if names.is_empty() {
        return Ok(Kept::Found);
    }
    if saved.is_config_managed == Some(true) {
        eprintln!(
            "plan {name:?}: {file} differs from the saved plan ({}); it is a bundle's, so it is left as it is \
             and this run runs the file",
            names.join(", ")
        );
        return Ok(Kept::Found);
    }
    Ok(Kept::Update(Update {
        id: saved.id,
        members: Box::new(changed),
        says: format!("plan {name:?}: {file} changed ({}); updated", names.join(", ")),
    }))
}

/// Writes what a plan file changed to its saved plan (the run of the file has started).
pub async fn update(session: &Session, document: &Document, update: &Update) -> Result<(), Failure> {
    let sent = session.client.update_run_plan(update.id, &update.members).await;
    sent.map_err(|e| super::plan::locate(document, e))?;
    eprintln!("{}", update.says);
    Ok(())
}

/// What a run that saved its plan file says.
pub fn saved_from(name: &str, file: &str, id: uuid::Uuid) -> String {
    format!("plan {name:?}: saved from {file} (id {id}); later runs of a plan file of this name are its runs")
}

/// The members the file sets (defaults written out, as the service keeps a plan) whose value
/// the saved plan does not have, with the file's value. A run with an agent of its own
/// (`--agent-url`) never rewrites the plan's endpoints.
fn differing(file: &RunPlanInput, saved: &RunPlanInput, agent_of_its_own: bool) -> RunPlanUpdate {
    // Both as the input that makes them: the metric ids the service writes beside their slugs,
    // and the empty lists it writes out, are not the file's changes.
    let file = file.clone().as_input().resolved();
    let saved = saved.clone().as_input().resolved();
    let mut update = RunPlanUpdate::default();
    macro_rules! changed {
        ($($member:ident),+) => {$(
            if file.$member.is_some() && file.$member != saved.$member {
                update.$member = file.$member.clone();
            }
        )+};
    }
    changed!(name, description, direction, iteration_count, max_concurrent_jobs, max_simulation_duration_seconds);
    changed!(silence_timeout_seconds, end_call_phrases, end_call_reasons, execution_mode, scenarios, flows);
    changed!(personas, agent_endpoints, metrics, include_flow_metrics, include_automatic_metrics);
    changed!(enrich_with_live_conversation, max_no_response_retries, no_response_retry_backoff_seconds);
    if file.schedule.is_some() && file.schedule != saved.schedule {
        update.schedule = Some(file.schedule.clone());
    }
    if agent_of_its_own {
        update.agent_endpoints = None;
    }
    update
}

/// The wire names of the members an update gives (`maxSimulationDurationSeconds`), as said.
fn changed_members(update: &RunPlanUpdate) -> Vec<String> {
    match serde_json::to_value(update) {
        Ok(serde_json::Value::Object(members)) => members.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_file_changed_differs() {
        let file: RunPlanInput = serde_json::from_value(serde_json::json!({
            "name": "Mine", "direction": "INBOUND", "maxSimulationDurationSeconds": 60,
            "agentEndpoints": [{"id": uuid::Uuid::nil()}], "metrics": [{"slug": "task_completion"}],
        }))
        .unwrap();
        let mut saved = file.clone().resolved();
        saved.metrics.iter_mut().flatten().for_each(|m| m.id = Some(uuid::Uuid::from_u128(7)));
        assert_eq!(
            differing(&file, &saved, false),
            RunPlanUpdate::default(),
            "defaults and metric ids are the service's"
        );
        saved.max_simulation_duration_seconds = Some(90);
        saved.agent_endpoints = Some(vec![IdRef { id: uuid::Uuid::from_u128(1) }]);
        saved.description = Some("kept: the file leaves it out".into());
        let update = differing(&file, &saved, true);
        assert_eq!(update.max_simulation_duration_seconds, Some(60));
        assert_eq!(changed_members(&update), ["maxSimulationDurationSeconds"]);
        let update = differing(&file, &saved, false);
        assert_eq!(update.agent_endpoints, file.agent_endpoints);
        let mut names = changed_members(&update);
        names.sort();
        assert_eq!(names, ["agentEndpoints", "maxSimulationDurationSeconds"]);
    }
}
