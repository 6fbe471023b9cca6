//! An alert's actions. Its `webhooks` are delivered by the webhook sender like any webhook:
//! each URL is kept as a delivery target (`Kind::AlertWebhook`, its parent the alert), which
//! gets the events of the issues the alert opens (the outbox matches them by the issue's
//! `alertId`) and, for an event trigger, the events it lists; every delivery is signed with the
//! alert's own secret, sealed like a webhook's and shown once. Slack channels are stored and
//! reported as not delivered: the local service has no Slack workspace to post to.

use uuid::Uuid;

use crate::api::model::config::{AlertTriggerType, SlackChannelConfig};
use crate::api::model::{Alert, AlertActionStatus, AlertActionType, EventType, Timestamp, Webhook};
use crate::service::error::DomainResult;
use crate::service::secrets::{self, Owner};
use crate::service::store::StoreResult;
use crate::service::store::{self, Doc, Kind, Tx, outbox};
use crate::service::vault::Vault;
use crate::service::webhooks;

/// Why a Slack action does nothing here.
pub const SLACK_NOT_DELIVERED: &str = "not delivered by the local service: it posts to no Slack workspace";

/// Keeps the alert's webhook targets in step with its `webhooks`; the signing secret made for
/// it when it had none (a new alert), to be shown this once.
pub fn keep(tx: &Tx, vault: &Vault, alert: &Alert) -> DomainResult<Option<String>> {
    let id = alert.id.to_string();
    let made = match secrets::has(tx, Owner::alert(&id), secrets::SIGNING_SECRET)? {
        true => None,
        false => {
            let secret = webhooks::new_secret();
            secrets::keep(tx, vault, Owner::alert(&id), secrets::SIGNING_SECRET, &secret)?;
            Some(secret)
        }
    };
    sync_targets(tx, alert)?;
    Ok(made)
}

/// One target per URL: those no longer listed are deleted (their pending deliveries dropped),
/// the others carry the events the alert listens for now.
fn sync_targets(tx: &Tx, alert: &Alert) -> StoreResult<()> {
    let id = alert.id.to_string();
    let urls = webhook_urls(alert);
    let events = listened(alert);
    let now = Timestamp::now();
    let kept: Vec<Webhook> = store::children(tx, Kind::AlertWebhook, &id)?;
    for target in &kept {
        if !urls.contains(&target.url) {
            drop_target(tx, &target.id.to_string(), &now)?;
        } else if target.events != events {
            let changed = Webhook { events: events.clone(), updated_at: now.clone(), ..target.clone() };
            store::update(tx, &target_doc(&changed, &id)?)?;
        }
    }
    for url in urls.iter().filter(|url| !kept.iter().any(|t| &t.url == *url)) {
        let target = Webhook {
            id: Uuid::new_v4(),
            url: url.clone(),
            events: events.clone(),
            description: Some(format!("alert {}", alert.name)),
            headers: Default::default(),
            secret_headers: Vec::new(),
            created_at: now.clone(),
            updated_at: now.clone(),
        };
        store::insert(tx, &target_doc(&target, &id)?)?;
    }
    Ok(())
}

fn target_doc(target: &Webhook, alert_id: &str) -> StoreResult<Doc> {
    Doc::of(&store::AlertTarget { webhook: target, alert_id })
}

fn drop_target(tx: &Tx, id: &str, now: &Timestamp) -> StoreResult<()> {
    store::soft_delete(tx, Kind::AlertWebhook, id, &now.0)?;
    outbox::cancel_deliveries(tx, id)
}

/// Forgets a deleted alert's targets and secret: nothing more is sent for it.
pub fn forget(tx: &Tx, alert_id: &str) -> StoreResult<()> {
    let now = Timestamp::now();
    for target in store::children::<Webhook>(tx, Kind::AlertWebhook, alert_id)? {
        drop_target(tx, &target.id.to_string(), &now)?;
    }
    secrets::forget(tx, Owner::alert(alert_id))
}

/// The alert's webhook URLs, each once.
fn webhook_urls(alert: &Alert) -> Vec<String> {
    let mut urls: Vec<String> = Vec::new();
    for url in alert.actions.iter().flat_map(|a| a.webhooks.iter().flatten()) {
        if !urls.contains(url) {
            urls.push(url.clone());
        }
    }
    urls
}

/// The events an enabled event trigger sends as they are (its issues' events need no listing).
fn listened(alert: &Alert) -> Vec<EventType> {
    match (alert.enabled, &alert.trigger.trigger_type) {
        (true, Some(AlertTriggerType::Event)) => {
            alert.trigger.events.iter().flatten().map(|e| EventType::from(e.as_str())).collect()
        }
        _ => Vec::new(),
    }
}

/// Each action and whether it is delivered here.
pub fn statuses(alert: &Alert) -> Vec<AlertActionStatus> {
    let hooks = webhook_urls(alert).into_iter().map(|url| AlertActionStatus {
        action_type: AlertActionType::Webhook,
        target: url,
        delivered: true,
        reason: None,
    });
    let slack = slack_channels(alert).into_iter().map(|channel| AlertActionStatus {
        action_type: AlertActionType::Slack,
        target: channel,
        delivered: false,
        reason: Some(SLACK_NOT_DELIVERED.to_owned()),
    });
    hooks.chain(slack).collect()
}

fn slack_channels(alert: &Alert) -> Vec<String> {
    let name = |c: &SlackChannelConfig| c.channel_name.clone().or(c.channel_id.clone()).unwrap_or_default();
    alert.actions.iter().flat_map(|a| a.slack.iter().flatten()).map(name).collect()
}

/// What an apply says of an alert whose actions include Slack channels.
pub fn warning(alert: &Alert) -> Option<String> {
    let channels = slack_channels(alert);
    (!channels.is_empty()).then(|| format!("actions.slack ({}): stored, {SLACK_NOT_DELIVERED}", channels.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::config::{AlertActionsConfig, AlertEvent, AlertTriggerConfig};

    fn alert(trigger_type: AlertTriggerType, enabled: bool) -> Alert {
        let slack = SlackChannelConfig {
            channel_id: Some("C1".into()),
            channel_name: Some("#ops".into()),
            unknown_fields: Default::default(),
        };
        Alert {
            id: Uuid::nil(),
            name: "Runs fail".into(),
            trigger: AlertTriggerConfig {
                trigger_type: Some(trigger_type),
                events: Some(vec![AlertEvent::IssueOpened]),
                ..Default::default()
            },
            actions: Some(AlertActionsConfig {
                slack: Some(vec![slack]),
                webhooks: Some(vec!["http://a/x".into(), "http://a/x".into(), "http://b/y".into()]),
                unknown_fields: Default::default(),
            }),
            enabled,
            severity: None,
            created_at: None,
            updated_at: None,
        }
    }

    #[test]
    fn webhooks_are_delivered_once_each_and_slack_is_reported_as_not() {
        let statuses = statuses(&alert(AlertTriggerType::Threshold, true));
        let shown: Vec<(&str, bool)> = statuses.iter().map(|s| (s.target.as_str(), s.delivered)).collect();
        assert_eq!(shown, [("http://a/x", true), ("http://b/y", true), ("#ops", false)]);
        assert!(statuses[2].reason.is_some());
        assert!(warning(&alert(AlertTriggerType::Threshold, true)).is_some_and(|w| w.contains("#ops")));
    }

    #[test]
    fn only_an_enabled_event_trigger_listens_for_events_as_they_are() {
        assert_eq!(listened(&alert(AlertTriggerType::Event, true)), [EventType::IssueOpened]);
        assert!(listened(&alert(AlertTriggerType::Event, false)).is_empty());
        assert!(listened(&alert(AlertTriggerType::Simulation, true)).is_empty());
    }
}
