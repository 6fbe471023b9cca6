//! The seeded production traffic and the alerts that watch it: three days of the front desk's
//! calls (assets/seed/production_calls.json) posted through the same path `POST /v1/call`
//! takes, so the ACTIVE policy scores them as it scores any call, then the alerts of
//! assets/seed/alerts.json (config-as-code resources) decided window by window by the real
//! engine, each window at the moment it would have been decided live. Nothing here writes an
//! issue: the one open and the one resolved are what the engine made of the calls.

use serde::Deserialize;
use serde_json::json;
use uuid::Uuid;

use crate::api::model::config::{AlertConfig, ConfigKind};
use crate::api::model::{Alert, CallInput, ParticipantType, Timestamp, TranscriptEntry};
use crate::api::validate::Validate;
use crate::service::alerts::{DEFAULT_QUIET, window};
use crate::service::calls::ingest;
use crate::service::config::ConfigRecord;
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::{self, Doc, Kind, Tx};

/// The namespace of every seeded id (assets/seed/README.md).
const NAMESPACE: Uuid = Uuid::from_u128(0xf1c092d5_9051_50e5_8279_97a5d013673f);

/// A gap between turns when nobody waits on anything.
const TURN_GAP_MS: i64 = 700;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Traffic {
    agent: Uuid,
    endpoint: Uuid,
    to_number: String,
    callers: Vec<Caller>,
    script: Vec<Line>,
    /// The script's entry after which the agent checks eligibility (a call's `checkMs` of silence).
    check_after: usize,
    calls: Vec<Planned>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Caller {
    label: String,
    phone_number_e164: String,
    born: String,
}

#[derive(Deserialize)]
struct Line {
    role: ParticipantType,
    text: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Planned {
    key: String,
    started_at: String,
    caller: usize,
    check_ms: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeededAlert {
    id: Uuid,
    created_at: Timestamp,
    config: AlertConfig,
}

fn seed_error(what: impl std::fmt::Display) -> DomainError {
    DomainError::fault(format!("seeded production traffic: {what}"))
}

/// Writes the alerts, ingests the calls, and has the engine decide every window they fill.
pub fn seed(tx: &Tx, alerts_text: &str, calls_text: &str) -> DomainResult<()> {
    let alerts: Vec<SeededAlert> = serde_json::from_str(alerts_text).map_err(seed_error)?;
    for alert in alerts {
        keep_alert(tx, alert)?;
    }
    let traffic: Traffic = serde_json::from_str(calls_text).map_err(seed_error)?;
    for planned in &traffic.calls {
        let input = call_input(&traffic, planned)?;
        let id = Uuid::new_v5(&NAMESPACE, format!("call:{}", planned.key).as_bytes());
        ingest::call(tx, id, input, &arrival(planned, &traffic)?)?;
    }
    window::decide_all(tx, DEFAULT_QUIET)?;
    Ok(())
}

/// An alert as `config apply` keeps it: the alert, and the record of its bundle name (marked
/// seeded, so a prune leaves it).
fn keep_alert(tx: &Tx, seeded: SeededAlert) -> DomainResult<()> {
    let c = seeded.config;
    let name = c.name.clone().ok_or_else(|| seed_error("an alert has no name"))?;
    let alert = Alert {
        id: seeded.id,
        name: c.display_name.clone().unwrap_or_else(|| name.clone()),
        trigger: c.trigger.unwrap_or_default(),
        actions: c.actions,
        enabled: c.enabled.unwrap_or(true),
        severity: c.severity,
        created_at: Some(seeded.created_at.clone()),
        updated_at: Some(seeded.created_at.clone()),
    };
    let at = seeded.created_at.0;
    store::insert(tx, &Doc::of(&alert)?)?;
    let record = ConfigRecord { kind: ConfigKind::Alert, name, id: alert.id, seeded: true };
    // A record is not a model: it carries no time of its own, so it is made with the alert.
    Ok(store::insert(tx, &Doc::new(Kind::ConfigRecord, alert.id, &record, at)?)?)
}

/// The call as its telephony would post it, validated as the route validates it.
fn call_input(traffic: &Traffic, planned: &Planned) -> DomainResult<CallInput> {
    let caller =
        traffic.callers.get(planned.caller).ok_or_else(|| seed_error(format!("{}: no caller", planned.key)))?;
    let body = json!({
        "agent": {"roarkId": traffic.agent, "endpoint": {"id": traffic.endpoint}},
        "customer": {"label": caller.label, "phoneNumberE164": caller.phone_number_e164},
        "fromNumber": caller.phone_number_e164,
        "toNumber": traffic.to_number,
        "startedAt": planned.started_at,
        "endedStatus": "CUSTOMER_ENDED_CALL",
        "externalId": format!("brightsmile-{}", planned.key),
        "transcript": transcript(traffic, caller, planned.check_ms),
    });
    let input: CallInput = serde_json::from_value(body).map_err(seed_error)?;
    match input.validate().as_slice() {
        [] => Ok(input),
        problems => Err(seed_error(format!("{}: {problems:?}", planned.key))),
    }
}

/// The script spoken at an even pace, the caller's name filled in, with `check_ms` of silence
/// while the agent checks eligibility.
fn transcript(traffic: &Traffic, caller: &Caller, check_ms: i64) -> Vec<TranscriptEntry> {
    let first = caller.label.split(' ').next().unwrap_or_default();
    let mut at = 600;
    let mut entries = Vec::with_capacity(traffic.script.len());
    for (i, line) in traffic.script.iter().enumerate() {
        let text = line.text.replace("{name}", &caller.label).replace("{born}", &caller.born).replace("{first}", first);
        let end = at + 330 * text.split_whitespace().count() as i64 + 250;
        entries.push(TranscriptEntry {
            start_offset_ms: at,
            end_offset_ms: end,
            text,
            role: Some(line.role.clone()),
            participant_id: None,
        });
        at = end + if i == traffic.check_after { check_ms } else { TURN_GAP_MS };
    }
    entries
}

/// When the call was posted: as it ended (its start plus its transcript).
fn arrival(planned: &Planned, traffic: &Traffic) -> DomainResult<Timestamp> {
    let start: jiff::Timestamp = planned.started_at.parse().map_err(seed_error)?;
    let caller = traffic.callers.get(planned.caller).ok_or_else(|| seed_error("no caller"))?;
    let end = transcript(traffic, caller, planned.check_ms).last().map_or(0, |e| e.end_offset_ms);
    let at = start.checked_add(jiff::SignedDuration::from_millis(end)).map_err(seed_error)?;
    Ok(Timestamp::from(at))
}
