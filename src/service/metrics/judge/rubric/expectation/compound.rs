//! "Agent welcomes the caller and offers help": an expectation of several deeds joined by
//! "and" (or listed with commas) is judged part by part, and is met only when every part is.
//! Read whole, the second deed was taken for the first one's object ("never offered the
//! caller to the library and offers help"). A question ("Did the agent tell the caller …?")
//! is read as the statement it asks about.

use super::super::conversation::Conversation;
use super::super::pattern::patterns;
use super::super::{Finding, Reading, Shape};

patterns! {
    /// The agent and its first deed's verb, third person.
    FIRST = r"^((?:.*? )?agent )([a-z]+s) ";
    /// "…, and asks …", "… and offers …", "…, mentions …": a further deed, its verb in the third
    /// person followed by what it acts on.
    JOIN = r"(?:,? and|,) ([a-z]+s) (the|a|an|it|them|that|how|what|when|where|whether|if|to|back|up|help|him|her|their|his|which|who|on|off|out|any|some|one|for)\b";
    /// Conditions, manners and negations may govern every part: such prompts are read whole.
    WHOLE = r"\b(when|whenever|if|before|after|until|while|unless|once|never|not|doesn't|stays|remains|then|as soon as)\b";
    /// "Did the agent tell …?": a question about what the agent did.
    ASKED = r"^(did|does) (the )?agent ([a-z]+)\b";
}

/// Words ending in "s" that are not a deed's verb.
const NOT_VERBS: &[&str] =
    &["is", "was", "has", "does", "as", "its", "this", "his", "hers", "plus", "less", "thus", "yes", "us", "always"];

/// "did the agent tell the caller x?" as "the agent tells the caller x"; other prompts as they are.
pub(super) fn as_statement(prompt: &str) -> String {
    let Some(c) = ASKED.captures(prompt) else { return prompt.to_owned() };
    let (Some(whole), Some(verb)) = (c.get(0), c.get(3)) else { return prompt.to_owned() };
    let verb = verb.as_str();
    let third = if verb.ends_with('s') || verb.ends_with("sh") || verb.ends_with("ch") || verb.ends_with('x') {
        format!("{verb}es")
    } else if let Some(stem) = verb.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'o', 'u'])) {
        format!("{stem}ies")
    } else {
        format!("{verb}s")
    };
    let rest = prompt[whole.end()..].trim_end().trim_end_matches('?');
    format!("the agent {third}{rest}")
}

/// The prompt's deeds, each with the agent in front, when it joins two or more.
pub(super) fn parts(prompt: &str) -> Option<Vec<String>> {
    if WHOLE.is_match(prompt) {
        return None;
    }
    let first = FIRST.captures(prompt)?;
    let (subject, verb) = (first.get(1)?, first.get(2)?);
    if NOT_VERBS.contains(&verb.as_str()) {
        return None;
    }
    let body = &prompt[subject.end()..];
    let joins: Vec<_> = JOIN
        .captures_all(body)
        .into_iter()
        .filter_map(|c| Some((c.get(0)?, c.get(1)?)))
        .filter(|(_, verb)| !NOT_VERBS.contains(&verb.as_str()))
        .collect();
    if joins.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    let mut from = 0;
    for (join, verb) in joins {
        out.push(body[from..join.start()].to_owned());
        from = verb.start();
    }
    out.push(body[from..].to_owned());
    let deeds: Vec<String> = out
        .iter()
        .map(|d| d.trim().trim_end_matches('.').trim().to_owned())
        .filter(|d| !d.is_empty())
        .map(|d| format!("{}{d}.", subject.as_str()))
        .collect();
    (deeds.len() > 1).then_some(deeds)
}

/// Each part judged on its own: met when every part that applied is met, not met when one is
/// not, and no answer when a part cannot be told.
pub(super) fn read(conv: &Conversation, parts: &[String]) -> Finding {
    let found: Vec<(&str, Finding)> = parts.iter().map(|p| (p.as_str(), super::read(conv, p))).collect();
    let applied: Vec<&(&str, Finding)> = found.iter().filter(|(_, f)| f.reading != Reading::NotApplicable).collect();
    let said = |(part, f): &&(&str, Finding)| {
        let why = f.why.split_once(": ").map_or(f.why.as_str(), |(_, why)| why).trim_end_matches('.');
        format!("\"{}\": {why}", part.trim_end_matches('.'))
    };
    if applied.is_empty() {
        return found.into_iter().next().map_or_else(|| Finding::unsure("Cannot tell.".to_owned()), |(_, f)| f);
    }
    if let Some(missed) = applied.iter().find(|(_, f)| f.reading == Reading::NotMet) {
        return Finding::not_met(
            missed.1.shape.unwrap_or(Shape::EveryPartMet),
            format!("Not met: {}.", said(missed)),
            missed.1.sure,
        );
    }
    if let Some(unsure) = applied.iter().find(|(_, f)| f.reading == Reading::Unsure) {
        return Finding::unsure(format!("Cannot tell: {}.", said(unsure)));
    }
    let sure = applied.iter().map(|(_, f)| f.sure).fold(1.0, f64::min);
    let all: Vec<String> = applied.iter().map(said).collect();
    Finding::met(Shape::EveryPartMet, format!("Met: {}.", all.join("; ")), sure)
}
