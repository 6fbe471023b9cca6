//! Classification answers: the option whose words best match what the caller asks for,
//! weighing the caller's first substantive sentence and what they still want at the end.
//! Words that describe what happened to the caller ("my order was cancelled") count less than
//! the words that say what they want ("I just want my money back"). When nothing anyone said
//! matches any option, it gives no answer.

use std::collections::BTreeSet;

use super::conversation::{Conversation, Said, Side};
use super::pattern::patterns;
use super::terms::terms;

/// Everyday words for the words options use, in no desk's vocabulary in particular.
const SYNONYMS: &[(&str, &str)] = &[
    ("money back", "refund"),
    ("worth it", "refund"),
    ("my money", "refund"),
    ("credit", "refund"),
    ("compensat", "refund"),
    ("ache", "emergency urgent"),
    ("pain", "emergency urgent"),
    ("hurt", "emergency urgent"),
    ("swollen", "emergency urgent"),
    ("bleeding", "emergency urgent"),
    ("broke", "emergency urgent"),
    ("chipped", "emergency urgent"),
    ("see me", "appointment book"),
    ("come in", "appointment book"),
    ("fit me in", "appointment book"),
    ("move my", "reschedule change"),
    ("move it", "reschedule change"),
    ("push it", "reschedule change"),
    ("move me", "rebook change"),
    ("put me on", "rebook"),
    ("tonight", "rebook"),
    ("earliest", "rebook"),
    ("earlier", "rebook"),
    ("bill", "billing payment"),
    ("owe", "billing payment"),
    ("pay", "billing payment"),
    ("charge", "billing payment"),
    ("cover", "coverage insurance"),
    ("hours", "hour general"),
    ("open", "hour general"),
    ("parking", "parking general"),
];

/// Words of the options' descriptions that say nothing about an intent.
const NOT_INTENT: &[&str] = &["need", "other", "access", "account", "includ", "ask", "beyond", "question"];

patterns! {
    /// A sentence about what happened to the caller, rather than what they want.
    SITUATION = r"\b(was|were|is|are|got|has been|have been|'s been|'s) (just |now |already )?(cancel\w*|delay\w*|late|lost|missed|broken|damaged|declined|overbooked|gone up)\b|\bmissed (my|the)\b";
}

/// What a sentence brings to every option: the everyday words' meanings beyond its own terms,
/// and how much its own count (half when it says what happened); worked out once a sentence.
#[derive(Debug, Clone)]
pub(super) struct Wanted {
    meant_besides: BTreeSet<String>,
    situation: f64,
}

impl Wanted {
    fn of(said: &Said) -> Wanted {
        let text = said.lower();
        let mut meant = BTreeSet::new();
        for (phrase, means) in SYNONYMS {
            if text.contains(phrase) {
                meant.extend(terms(means));
            }
        }
        let situation = if SITUATION.is_match(text) { 0.5 } else { 1.0 };
        Wanted { meant_besides: meant.difference(said.terms()).cloned().collect(), situation }
    }
}

/// A sentence's score for an option: what happened counts half, what is meant in full.
fn sentence_score(said: &Said, label: &BTreeSet<String>, description: &BTreeSet<String>) -> f64 {
    let wanted = said.sentence.kept.wanted.get_or_init(|| Wanted::of(said));
    wanted.situation * score(said.terms(), label, description) + score(&wanted.meant_besides, label, description)
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
            if label.contains(t) {
                2.0
            } else if description.contains(t) {
                1.0
            } else {
                0.0
            }
        })
        .sum()
}

/// The chosen option's index, the reasoning and the confidence; None when nothing matches.
pub(super) fn read(conv: &Conversation, options: &[(String, String)]) -> Result<Option<(usize, String, f64)>, String> {
    if options.is_empty() {
        return Err("the metric has no classification options".into());
    }
    let sets: Vec<_> = options.iter().map(|(l, d)| option_terms(l, d)).collect();
    let relevant = |s: &Said| sets.iter().any(|(l, d)| sentence_score(s, l, d) > 0.0);
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
        for (i, (l, d)) in sets.iter().enumerate() {
            totals[i] += weight * sentence_score(s, l, d);
        }
    }
    // What the agent did for the caller settles a call whose caller never says (a code, a
    // name, "that works").
    for s in conv.said_by(Side::Agent) {
        for (i, (l, d)) in sets.iter().enumerate() {
            totals[i] += 0.2 * sentence_score(&s, l, d);
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
        .map(|s| (s, sentence_score(s, l, d)))
        .filter(|(_, v)| *v > 0.0)
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal).then(b.0.order.cmp(&a.0.order)))
        .map(|(s, _)| *s);
    if best <= 0.0 {
        return Ok(None);
    }
    let why = match strongest {
        Some(s) => format!("Chose \"{label}\": the caller said {}.", s.quote()),
        None => format!("Chose \"{label}\": the caller never says; the agent's lines are about it."),
    };
    let confidence = if best >= 2.0 * runner_up { 0.8 } else { 0.6 };
    Ok(Some((index, why, confidence)))
}
