//! The metric engine reproduces the seeded collection jobs' values, which were computed
//! independently from the same transcripts.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::HashMap;

use support::seed;
use switchboard::api::model::*;
use switchboard::service::metrics::compute::{Conversation, compute};

#[test]
fn computed_values_match_the_seeded_ones() {
    let calls: HashMap<String, serde_json::Value> =
        seed("calls").as_array().unwrap().iter().map(|c| (c["id"].as_str().unwrap().to_owned(), c.clone())).collect();
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for job in seed("metric_collection_jobs").as_array().unwrap() {
        for group in job["values"].as_array().unwrap() {
            let slug = group["slug"].as_str().unwrap();
            for seeded in group["values"].as_array().unwrap() {
                let Some(raw) = calls.get(seeded["callId"].as_str().unwrap()) else { continue };
                let call: Call = serde_json::from_value(raw.clone()).unwrap();
                let transcript: Transcript = serde_json::from_value(raw["transcript"].clone()).unwrap();
                let conversation =
                    Conversation { call: &call, transcript: &transcript, flow: None, variant: None, walked: None };
                let Some(values) = compute(slug, &conversation) else {
                    continue;
                };
                let seeded_status = seeded["captureStatus"].as_str().unwrap();
                if seeded_status == "ERROR" || slug == "keypad_entry" {
                    continue; // injected failures, and keypad needs the flow, which past calls do not carry
                }
                let same_row = values.iter().find(|v| {
                    v.context.as_ref().map(|c| c.as_str()) == seeded["context"].as_str()
                        && seeded["participantRole"].as_str().is_none_or(|r| v.participant_role.as_deref() == Some(r))
                        && seeded["segment"]["startOffsetMs"]
                            .as_i64()
                            .is_none_or(|s| v.segment.as_ref().and_then(|g| g.start_offset_ms) == Some(s))
                });
                let Some(ours) = same_row else {
                    mismatches.push(format!("{slug} {}: no row like {seeded}", call.id));
                    continue;
                };
                compared += 1;
                let status = ours.capture_status.as_ref().map(|s| s.as_str()).unwrap_or_default();
                let close = match (ours.value, seeded["value"].as_f64()) {
                    // Counts, offsets, seconds and labels match exactly. The engine reports words
                    // per minute in whole words, the seed to one decimal: under one word apart.
                    (Some(a), Some(b)) if slug == "words_per_minute" => a.fract() == 0.0 && (a - b).abs() < 1.0,
                    (Some(a), Some(b)) => a == b,
                    (None, None) => true,
                    _ => false,
                };
                if status != seeded_status || !close {
                    mismatches.push(format!(
                        "{slug} {}: ours {status} {:?}, seeded {seeded_status} {}",
                        call.id, ours.value, seeded["value"]
                    ));
                }
            }
        }
    }
    assert!(compared >= 100, "compared only {compared} values");
    assert!(mismatches.is_empty(), "{} of {compared} differ:\n{}", mismatches.len(), mismatches.join("\n"));
}
