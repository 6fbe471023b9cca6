//! Runs the console's requests against the service, off the draw loop.

use uuid::Uuid;

use super::message::{Conversation, FetchError, Fetched, ListKind, Listing, Request, Write, WriteError, Written};
use crate::api::model::ValueStatusFilter;
use crate::api::model::{Event, EventQuery};
use crate::api::{Client, Conditional, Error};

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
        Request::JobSummary { id, etag } => match client.get_run_plan_job_if_changed(*id, true, etag.as_deref()).await?
        {
            Conditional::Changed { value, etag } => Fetched::JobSummary { job: Some(Box::new(value)), etag },
            Conditional::Unchanged => Fetched::JobSummary { job: None, etag: etag.clone() },
        },
        Request::JobWindow { id, query } => {
            Fetched::JobWindow(Box::new(client.list_job_simulations(*id, query).await?))
        }
        Request::SimulationJob(id) => Fetched::SimulationJob(Box::new(client.get_simulation_job(*id).await?)),
        Request::CallValues(id) => {
            Fetched::CallValues(*id, client.call_metrics(*id, ValueStatusFilter::Success).await?)
        }
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
        ListKind::Alerts => Listing::Alerts(vec![client.get_alert(id).await?]),
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
        Write::Delete(deletion) => {
            client.delete_at(&deletion.path()).await?;
            Written::Deleted(deletion.id)
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
        Write::ConfigDiff(edit) => {
            Written::Config(Box::new(client.config_diff(edit.resource.as_slice(), false).await?))
        }
        Write::ConfigApply(edit) => {
            Written::Config(Box::new(client.config_apply(edit.resource.as_slice(), false).await?))
        }
    })
}

/// Events come to the draw loop at most this often, a batch at a time: a run ending hundreds of
/// simulations a second costs a few updates a second, not hundreds.
const EVENT_BATCH: std::time::Duration = std::time::Duration::from_millis(200);

/// Follows the event stream for `query` until aborted, sending what it reads as
/// `Message::Events` (an empty batch first, each time the stream opens: the pane then knows
/// that changes will be told), reconnecting (with `Last-Event-ID`, so nothing is missed)
/// after a drop.
/// A service without the stream (404, the hosted one today) ends the watch: the panes go on
/// polling, which they do until events arrive.
pub async fn watch(client: Client, query: EventQuery, tx: tokio::sync::mpsc::UnboundedSender<super::message::Message>) {
    use super::message::Message;
    let mut last: Option<String> = None;
    let mut failures = 0u32;
    loop {
        match client.events(&query, last.as_deref()).await {
            Ok(mut stream) => {
                failures = 0;
                if tx.send(Message::Events(Vec::new())).is_err() {
                    return;
                }
                let mut batch: Vec<Event> = Vec::new();
                let mut due = tokio::time::Instant::now() + EVENT_BATCH;
                loop {
                    let next = if batch.is_empty() {
                        stream.next().await
                    } else {
                        match tokio::time::timeout_at(due, stream.next()).await {
                            Ok(next) => next,
                            Err(_) => {
                                if tx.send(Message::Events(std::mem::take(&mut batch))).is_err() {
                                    return;
                                }
                                continue;
                            }
                        }
                    };
                    match next {
                        Ok(Some(event)) => {
                            if batch.is_empty() {
                                due = tokio::time::Instant::now() + EVENT_BATCH;
                            }
                            last = Some(event.id.clone());
                            batch.push(event);
                        }
                        Ok(None) | Err(_) => break,
                    }
                }
                if !batch.is_empty() && tx.send(Message::Events(batch)).is_err() {
                    return;
                }
            }
            Err(error) if matches!(error.status(), Some(404 | 405 | 401 | 403)) => return,
            Err(_) => {}
        }
        failures += 1;
        tokio::time::sleep(std::time::Duration::from_millis(250u64 << failures.min(5))).await;
    }
}
