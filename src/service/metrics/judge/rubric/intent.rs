//! Classification answers: the option whose words best match what the caller asks for,
//! weighing the caller's first substantive sentence and what they still want at the end.
//! Words that describe the situation every caller is in ("my flight was cancelled") count
//! less than the words that say what they want ("I just want my money back").

use std::collections::BTreeSet;

use super::conversation::{Conversation, Said, Side};
use super::terms::{stem, terms};

/// Everyday words for the options' words.
const SYNONYMS: &[(&str, &str)] = &[
    ("money back", "refund"),
    ("worth it", "refund"),
    ("my money", "refund"),
    ("toothache", "emergency appointment"),
    ("pain", "emergency appointment"),
    ("hurt", "emergency appointment"),
    ("swollen", "emergency appointment"),
    ("chipped", "emergency appointment"),
    ("see me", "appointment book"),
    ("come in", "appointment book"),
    ("move my appointment", "reschedule"),
    ("move my cleaning", "reschedule"),
    ("move it", "reschedule"),
    ("push it", "reschedule"),
    ("move me", "rebook flight"),
    ("bill", "billing payment"),
    ("owe", "billing payment"),
    ("pay", "billing payment"),
    ("cover", "coverage insurance"),
    ("metlife", "insurance"),
    ("delta", "insurance"),
    ("aetna", "insurance"),
    ("cigna", "insurance"),
    ("guardian", "insurance"),
    ("hours", "hour general"),
    ("open", "hour general"),
    ("parking", "parking general"),
    ("tonight", "rebook flight"),
    ("earliest", "rebook flight"),
    ("earlier", "rebook flight"),
    ("put me on", "rebook flight"),
    ("something tonight", "rebook flight"),
    ("hotel", "voucher"),
    ("meal", "voucher"),
    ("credit", "refund"),
];

/// Words of the options' descriptions that say nothing about an intent.
const NOT_INTENT: &[&str] = &["need", "other", "access", "account", "includ", "ask", "beyond", "question"];

/// The situation, not the wish: weighed at half.
const SITUATION: &[&str] = &["flight", "cancel", "delay", "connect", "dental", "appointment"];

fn wanted_terms(text: &str) -> BTreeSet<String> {
    let mut out = terms(text);
    for (phrase, means) in SYNONYMS {
        if text.contains(phrase) {
            out.extend(terms(means));
        }
    }
    out
}

fn option_terms(label: &str, description: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    // "… instead of rebooking" names what the option is not.
    let description = description.split(" instead of ").next().unwrap_or(description);
    let keep = |set: BTreeSet<String>| set.into_iter().filter(|t| !NOT_INTENT.contains(&t.as_str())).collect();
    (keep(terms(&label.to_lowercase())), keep(terms(&description.to_lowercase())))
}

fn score(said: &BTreeSet<String>, label: &BTreeSet<String>, description: &BTreeSet<String>) -> f64 {
    said.iter()
        .map(|t| {
            let weight = if SITUATION.iter().any(|s| stem(s) == *t) { 0.5 } else { 1.0 };
            weight
                * (if label.contains(t) {
                    2.0
                } else if description.contains(t) {
                    1.0
                } else {
                    0.0
                })
        })
        .sum()
}

/// The chosen option's index, the reasoning and the confidence.
pub(super) fn read(conv: &Conversation, options: &[(String, String)]) -> Result<(usize, String, f64), String> {
    if options.is_empty() {
        return Err("the metric has no classification options".into());
    }
    let sets: Vec<_> = options.iter().map(|(l, d)| option_terms(l, d)).collect();
    let relevant = |s: &Said| {
        let t = wanted_terms(s.lower());
        sets.iter().any(|(l, d)| score(&t, l, d) > 0.0)
    };
    let caller: Vec<Said> = conv.said_by(Side::Caller).filter(|s| s.turn.keypad().is_none()).collect();
    let first = caller.iter().find(|s| relevant(s)).copied();
    let last = caller.iter().rev().find(|s| relevant(s)).copied();
    let mut totals = vec![0.0; options.len()];
    for s in &caller {
        let weight = if Some(s.order) == first.map(|f| f.order) {
            2.0
        } else if Some(s.order) == last.map(|l| l.order) {
            1.5
        } else {
            1.0
        };
        let t = wanted_terms(s.lower());
        for (i, (l, d)) in sets.iter().enumerate() {
            totals[i] += weight * score(&t, l, d);
        }
    }
    // What the agent did for the caller settles a call whose caller never says (a code, a
    // name, "that works").
    for s in conv.said_by(Side::Agent) {
        let t = wanted_terms(s.lower());
        for (i, (l, d)) in sets.iter().enumerate() {
            totals[i] += 0.2 * score(&t, l, d);
        }
    }
    let (index, best) = totals
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap_or(std::cmp::Ordering::Equal).then(b.0.cmp(&a.0)))
        .map_or((0, 0.0), |(i, v)| (i, *v));
    let label = &options[index].0;
    let runner_up = totals.iter().enumerate().filter(|(i, _)| *i != index).map(|(_, v)| *v).fold(0.0, f64::max);
    // The caller's line that speaks most for the chosen option.
    let (l, d) = &sets[index];
    let strongest = caller
        .iter()
        .map(|s| (s, score(&wanted_terms(s.lower()), l, d)))
        .filter(|(_, v)| *v > 0.0)
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal).then(b.0.order.cmp(&a.0.order)))
        .map(|(s, _)| *s);
    let why = match strongest {
        Some(s) if best > 0.0 => format!("Chose \"{label}\": the caller said {}.", s.quote()),
        _ if best > 0.0 => format!("Chose \"{label}\": the caller never says; the agent's lines are about it."),
        _ => format!("Chose \"{label}\" for want of anything better: no line matches an option."),
    };
    let confidence = if best <= 0.0 {
        0.3
    } else if best >= 2.0 * runner_up {
        0.8
    } else {
        0.6
    };
    Ok((index, why, confidence))
}
