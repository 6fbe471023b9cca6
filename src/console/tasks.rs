//! Runs the console's requests against the service, off the draw loop.

use uuid::Uuid;

use super::message::{Conversation, FetchError, Fetched, ListKind, Listing, Request, Write, WriteError, Written};
use crate::api::model::ValueStatusFilter;
use crate::api::{Client, Error};

/// Performs one request; the result goes back into the queue as a message.
pub async fn perform(client: &Client, request: &Request) -> Result<Fetched, FetchError> {
    Ok(match request {
        Request::Health => Fetched::Health(client.health().await?),
        Request::List(kind) => {
            let (listing, unreadable) = kind.fetch(client).await?;
            Fetched::List(listing, unreadable)
        }
        Request::Item(kind, id) => Fetched::Item(item(client, *kind, id).await?),
        Request::Raw(path) => Fetched::Raw(client.get_raw(path).await?),
        Request::RunPlanJob(id) => Fetched::RunPlanJob(Box::new(client.get_run_plan_job(*id).await?)),
        Request::SimulationJob(id) => Fetched::SimulationJob(Box::new(client.get_simulation_job(*id).await?)),
        Request::Conversation(id) => {
            let (call, transcript, metrics) = tokio::try_join!(
                client.get_call(*id),
                client.call_transcript(*id),
                client.call_metrics(*id, ValueStatusFilter::All),
            )?;
            Fetched::Conversation(Box::new(Conversation { call: Some(call), chat: None, transcript, metrics }))
        }
        Request::ChatConversation(id) => {
            let (chat, transcript, metrics) = tokio::try_join!(
                client.get_chat(*id),
                client.chat_transcript(*id),
                client.chat_metrics(*id, ValueStatusFilter::All),
            )?;
            Fetched::Conversation(Box::new(Conversation { call: None, chat: Some(chat), transcript, metrics }))
        }
        Request::CollectionValues(id, filter) => {
            Fetched::CollectionValues(*id, filter.clone(), client.collection_job_values(*id, filter.clone()).await?)
        }
        Request::MetricVersions(id) => {
            Fetched::MetricVersions(id.clone(), client.metric_definition_versions(id).await?)
        }
        Request::Comparison { base, head } => {
            use crate::compare::{Diff, fetch};
            let (base, head) = fetch::read_pair(client, *base, *head, None).await;
            let (base, head) = (base?, head?);
            let edits = fetch::edits(client, &[&base, &head]).await;
            Fetched::Comparison(Box::new(Diff::of(&base, &head, &edits)))
        }
        Request::Flaky { plan, runs } => {
            Fetched::Flaky(Box::new(crate::compare::fetch::plan_stability(client, *plan, *runs).await?))
        }
        Request::Annotations => Fetched::Annotations(crate::compare::fetch::labels(client, None).await?),
        Request::BenchmarkSuites => Fetched::BenchmarkSuites(client.list_benchmark_suites().await?),
        Request::BenchmarkTargets(suite) => {
            Fetched::BenchmarkTargets(suite.clone(), client.list_benchmark_targets(suite).await?)
        }
        Request::ScoreSamples { target, query } => Fetched::ScoreSamples(
            target.clone(),
            query.clone(),
            Box::new(client.list_score_samples(target, query).await?),
        ),
    })
}

fn uuid(id: &str) -> Result<Uuid, Error> {
    id.trim().parse().map_err(|_| Error::Request(format!("{id:?} is not an id (a UUID)")))
}

/// One resource by id, as a one-item listing of its kind.
async fn item(client: &Client, kind: ListKind, id: &str) -> Result<Listing, Error> {
    Ok(match kind {
        ListKind::RunPlans => Listing::RunPlans(vec![client.get_run_plan(uuid(id)?).await?]),
        ListKind::RunPlanJobs => Listing::RunPlanJobs(vec![client.get_run_plan_job(uuid(id)?).await?]),
        ListKind::MetricDefinitions => Listing::MetricDefinitions(vec![client.get_metric_definition(id).await?]),
        ListKind::Policies => Listing::Policies(vec![client.get_policy(uuid(id)?).await?]),
        ListKind::CollectionJobs => Listing::CollectionJobs(vec![client.get_collection_job(uuid(id)?).await?]),
        ListKind::Issues => Listing::Issues(vec![client.get_issue(uuid(id)?).await?]),
        ListKind::Flows => Listing::Flows(vec![client.get_flow(uuid(id)?).await?]),
        ListKind::Personas => Listing::Personas(vec![client.get_persona(uuid(id)?).await?]),
        ListKind::Agents => {
            let path = format!("{}/{}", ListKind::Agents.route(), uuid(id)?);
            Listing::Agents(vec![client.get::<crate::api::model::Data<_>>(&path).await?.data])
        }
        ListKind::AgentEndpoints => Listing::AgentEndpoints(vec![client.get_agent_endpoint(uuid(id)?).await?]),
        ListKind::KnowledgeBases => Listing::KnowledgeBases(vec![client.get_knowledge_base(uuid(id)?).await?]),
        ListKind::HttpDefinitions => {
            Listing::HttpDefinitions(vec![client.get_http_request_definition(uuid(id)?).await?])
        }
        ListKind::Calls => Listing::Calls(vec![client.get_call(uuid(id)?).await?]),
    })
}

/// Performs one write; the result goes back into the queue as `Message::Written`.
pub async fn write(client: &Client, write: &Write) -> Result<Written, WriteError> {
    Ok(match write {
        Write::UpdateIssue(id, update) => Written::Issue(Box::new(client.update_issue(*id, update).await?)),
        Write::CreatePlan(input) => Written::Plan(Box::new(client.create_run_plan(input).await?)),
        Write::Run(request) => Written::Started(Box::new(client.run(request).await?)),
        Write::CreateThreshold(id, input) => Written::Metric(Box::new(client.create_threshold(id, input).await?)),
        Write::UpdateMetric { id, variant: None, update } => {
            Written::Metric(Box::new(client.update_metric_definition(id, update).await?))
        }
        Write::UpdateMetric { id, variant: Some(variant), update } => {
            Written::Metric(Box::new(client.update_metric_variant_definition(id, variant, update).await?))
        }
        Write::CreatePersona(fields) => Written::Persona(Box::new(client.create_persona(fields).await?)),
        Write::DeletePersona(id) => {
            client.delete_persona(*id).await?;
            Written::Deleted(*id)
        }
        Write::DuplicateFlow(id) => Written::Flow(Box::new(client.duplicate_flow(*id).await?)),
        Write::UpdateEndpoint(id, update) => {
            Written::Endpoint(Box::new(client.update_agent_endpoint(*id, update).await?))
        }
        Write::CreatePolicy(input) => Written::Policy(Box::new(client.create_policy(input).await?)),
        Write::UpdatePolicy(id, update) => Written::Policy(Box::new(client.update_policy(*id, update).await?)),
        Write::CancelJob(id) => Written::Job(Box::new(client.cancel_run_plan_job(*id).await?)),
        Write::CreateIssue(input) => Written::Issue(Box::new(client.create_issue(input).await?)),
        Write::StartCollection(input) => Written::CollectionJob(Box::new(client.create_collection_job(input).await?)),
        Write::Annotate(input) => Written::Annotation(Box::new(client.annotate(input).await?)),
    })
}
