//! `c` in the metrics tab's policies: a new policy, modality first, then only the metrics that
//! support it, then condition groups; saved on the seeded service.

use futures_util::TryStreamExt;
use switchboard::api::ListQuery;
use switchboard::api::model::{Agent, MetricDefinition, MetricPolicy, Modality, PolicyStatus};
use switchboard::api::routes;
use switchboard::console::message::{Effect, Write};

use crate::assert_screen;
use crate::harness::Harness;

async fn all<T: serde::de::DeserializeOwned + Send + 'static>(h: &Harness, route: &str) -> Vec<T> {
    h.client.list_all::<T>(route, ListQuery::default().limit(50)).try_collect().await.unwrap()
}

fn sent(h: &Harness) -> usize {
    h.performed.iter().filter(|e| matches!(e, Effect::Write(Write::CreatePolicy(_)))).count()
}

#[tokio::test]
async fn a_chat_policy_offers_only_chat_metrics_and_saves_its_condition_groups() {
    let mut h = Harness::seeded().await;
    let definitions: Vec<MetricDefinition> = all(&h, routes::METRIC_DEFINITIONS).await;
    let chat = definitions.iter().filter(|d| d.supports_modality(&Modality::Chat)).count();
    assert!(chat < definitions.len(), "the seed has call-only metrics");
    h.keys(&["3", "l", "E"]).await;
    assert_screen!("policy_form_80x24", h.render(80, 24));
    // Modality first: chat; then the name.
    h.keys(&["right", "tab"]).await;
    h.type_text("Chat quality").await;
    // The metrics pick offers the chat metrics only; pick every one of them.
    h.key("tab").await;
    let screen = h.render(160, 48);
    assert!(screen.contains(&format!("1/{chat} · 0 picked")), "only the {chat} chat metrics: {screen}");
    for _ in 0..chat {
        h.keys(&["space", "right"]).await;
    }
    // Status stays ACTIVE; two condition groups, the second naming an agent by its name.
    h.keys(&["tab", "tab"]).await;
    h.type_text("direction=INBOUND, environment=staging").await;
    h.key("tab").await;
    h.type_text("agentId=SkyBridge Air — Rebooking Desk").await;
    assert_screen!("policy_form_filled_160x48", h.render(160, 48));
    h.keys(&["enter", "enter"]).await;
    assert_eq!(sent(&h), 1, "sent once");

    let policies: Vec<MetricPolicy> = all(&h, routes::POLICIES).await;
    let saved = policies.iter().find(|p| p.name.as_deref() == Some("Chat quality")).expect("saved");
    assert_eq!(saved.modality, Some(Modality::Chat));
    assert_eq!(saved.status, Some(PolicyStatus::Active));
    assert_eq!(saved.metrics.len(), chat);
    for metric in &saved.metrics {
        let d = definitions.iter().find(|d| d.id == metric.id).unwrap();
        assert!(d.supports_modality(&Modality::Chat), "{:?} does not support chat", d.name);
    }
    let agents: Vec<Agent> = all(&h, routes::AGENTS).await;
    let skybridge = agents.iter().find(|a| a.name.as_deref().is_some_and(|n| n.starts_with("SkyBridge"))).unwrap();
    let groups: Vec<Vec<(String, String)>> = saved
        .conditions
        .iter()
        .map(|g| {
            let pairs =
                g.conditions.iter().map(|c| (c.condition_key.clone().unwrap(), c.condition_value.clone().unwrap()));
            pairs.collect()
        })
        .collect();
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(
        groups,
        vec![
            vec![pair("direction", "INBOUND"), pair("environment", "staging")],
            vec![pair("agentId", &skybridge.id.to_string())],
        ]
    );
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(saved.id.to_string()), "the new policy is selected");
}

#[tokio::test]
async fn a_condition_that_is_not_key_value_blocks_the_send() {
    let mut h = Harness::seeded().await;
    h.keys(&["3", "l", "E"]).await;
    h.type_text("").await;
    h.key("tab").await;
    h.type_text("Bad conditions").await;
    h.keys(&["tab", "space", "tab", "tab"]).await;
    h.type_text("direction").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("\"direction\" is not key=value"), "{screen}");
    h.key("enter").await;
    assert_eq!(sent(&h), 0);
    h.type_text("=OUTBOUND").await;
    h.key("enter").await;
    assert_eq!(sent(&h), 1);
}
