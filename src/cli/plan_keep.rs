//! A plan file's runs kept together: the first run of a file whose name no saved plan has saves
//! it as that plan, so later runs of the file (run as inline copies, which the service lists
//! under the saved plan of their name) are one plan's runs for `job list --plan`, `flaky`,
//! `diff` and the console. A later file that sets a member to another value updates that member
//! of the saved plan once its run has started (a member the file leaves out is not cleared),
//! and says what changed, as `--agent-url` does for its request.

use serde_json::Value;

use super::exit::{Exit, Failure};
use super::input::Document;
use super::session::Session;
use crate::api::model::{IdRef, RunPlanInput};

/// What the run of a plan file does about its plan.
#[derive(Debug, PartialEq, Eq)]
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
#[derive(Debug, PartialEq, Eq)]
pub struct Update {
    id: uuid::Uuid,
    members: Value,
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
    // The run's own agent is not the plan's: an `--agent-url` run never rewrites its endpoints.
    let ignore: &[&str] = if agent_of_its_own { &["agentEndpoints"] } else { &[] };
    let changed = differing(&file_plan, &saved.plan, ignore);
    if changed.is_empty() {
        return Ok(Kept::Found);
    }
    let names: Vec<&str> = changed.iter().map(|(member, _)| member.as_str()).collect();
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
        members: Value::Object(changed.iter().cloned().collect()),
        says: format!("plan {name:?}: {file} changed ({}); updated", names.join(", ")),
    }))
}

/// Writes what a plan file changed to its saved plan (the run of the file has started).
pub async fn update(session: &Session, document: &Document, update: &Update) -> Result<(), Failure> {
    let path = format!("/v1/simulation/plan/{}", update.id);
    let sent = session.client.send::<(), _, Value>(reqwest::Method::PUT, &path, None, Some(&update.members)).await;
    sent.map_err(|e| super::plan::locate(document, e))?;
    eprintln!("{}", update.says);
    Ok(())
}

/// What a run that saved its plan file says.
pub fn saved_from(name: &str, file: &str, id: uuid::Uuid) -> String {
    format!("plan {name:?}: saved from {file} (id {id}); later runs of a plan file of this name are its runs")
}

/// The members the file sets (defaults written out, as the service keeps a plan) whose value
/// the saved plan does not have, with the file's value; `ignore`d members aside.
fn differing(file: &RunPlanInput, saved: &RunPlanInput, ignore: &[&str]) -> Vec<(String, Value)> {
    let (mut file, mut saved) = (json(&file.clone().resolved()), json(saved));
    for plan in [&mut file, &mut saved] {
        // The service names each metric by its id as well; the file names it by slug.
        for metric in plan.get_mut("metrics").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(members) = metric.as_object_mut().filter(|m| m.contains_key("slug")) {
                members.remove("id");
            }
        }
    }
    let Value::Object(file) = file else { return Vec::new() };
    file.into_iter()
        .filter(|(member, value)| !ignore.contains(&member.as_str()) && saved.get(member) != Some(value))
        .collect()
}

fn json(plan: &RunPlanInput) -> Value {
    serde_json::to_value(plan).unwrap_or_default()
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
        assert!(differing(&file, &saved, &[]).is_empty(), "defaults and metric ids are the service's");
        saved.max_simulation_duration_seconds = Some(90);
        saved.agent_endpoints = Some(vec![IdRef { id: uuid::Uuid::from_u128(1) }]);
        let changed: Vec<String> = differing(&file, &saved, &["agentEndpoints"]).into_iter().map(|c| c.0).collect();
        assert_eq!(changed, ["maxSimulationDurationSeconds"]);
    }
}
