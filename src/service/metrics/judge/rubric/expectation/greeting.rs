//! "Agent welcomes the caller", "offers help", "asks how it can help": a greeting and an offer
//! of help are recognised by their common forms ("Hello, … here", "Thank you for calling …",
//! "What can I do for you today?"), not by the prompt's words, which they rarely share. Not
//! finding one in the forms known abstains: a greeting can be worded any way.

use super::super::conversation::{Conversation, Said, Side};
use super::super::pattern::patterns;
use super::super::terms::terms;
use super::super::{Finding, Shape};

patterns! {
    /// "Agent greets the caller …": the verb, whom it greets, and what else the prompt wants.
    GREETS = r"^(?:.*? )?agent (greets|welcomes|says hello to|says hi to)(?: (?:the|a|an|our|their|each|every) [a-z'-]+)?(.*)$";
    /// A greeting in its common forms.
    GREETING = r"^(hello|hi|hey|hiya|howdy|good (morning|afternoon|evening|day)|welcome|greetings)\b|\b(thanks|thank you) for (calling|ringing|phoning|contacting|getting in touch|holding)\b|\bwelcome to\b|\byou('ve| have) reached\b|\byou're through to\b|^this is [a-z]+|\b(speaking|here)[.!]?$";
    /// What the prompt asks for is help offered: "help", "how it can help".
    HELP = r"^(to )?(help|assistance|support)( (the caller|them|him|her))?$|^how (it|he|she|they|we|the agent) (can|could|may|might) (help|assist|be of (help|assistance|service))\b|^what (it|he|she|they) can do for (them|the caller)\b";
    /// An offer of help in its common forms.
    HELP_OFFERED = r"\b(how|what) (can|may|could) (i|we) (help|assist)\b|\bwhat (can|may|could) (i|we) do for you\b|\bhow can (i|we) be of (help|assistance|service)\b|\b(anything|something) (else )?(i|we) can (help|do|assist)\b|\bhere to help\b|\bwhat brings you\b|\bwhat are you (calling|ringing) about\b|\bhow can i direct your call\b";
}

/// Words after whom the agent greets that ask for nothing more than a greeting.
const MANNER: &[&str] = &["warmly", "politely", "kindly", "friendly", "cheerfully", "properly", "call", "start"];

/// A greeting or an offer of help, read by form; `None` for any other expectation.
pub(super) fn read(conv: &Conversation, said: &[Said], prompt: &str, concept: &str) -> Option<Finding> {
    if let Some(rest) = GREETS.captures(prompt).and_then(|c| c.get(2)) {
        return greeted(conv, rest.as_str());
    }
    if !HELP.is_match(concept) || !(prompt.contains("offers") || prompt.contains("asks")) {
        return None;
    }
    Some(match said.iter().find(|s| HELP_OFFERED.is_match(s.lower())) {
        Some(s) => Finding::met(Shape::HelpOffered, format!("Met: the agent offered help: {}.", s.quote()), 0.75),
        None => Finding::unsure(
            "Cannot tell: no agent line offers help in the words the offline judge knows, and it may have been \
             offered in others."
                .to_owned(),
        ),
    })
}

/// Whether the agent's first turn greets, naming what else the prompt asks (`rest`: "to the
/// library"); `None` when it asks more than a greeting carries, for the concept readers.
fn greeted(conv: &Conversation, rest: &str) -> Option<Finding> {
    let wanted: Vec<String> = terms(rest).into_iter().filter(|t| !MANNER.contains(&t.as_str())).collect();
    let Some(first) = conv.said_by(Side::Agent).next() else {
        return Some(Finding::not_met(Shape::AgentSilent, "Not met: the agent never spoke.".to_owned(), 0.8));
    };
    let opening: Vec<Said> = conv.said_by(Side::Agent).filter(|s| s.order.0 == first.order.0).collect();
    // An agent that speaks first and offers help ("Brightsmile Dental, how can I help?") greets.
    let opens = conv.turns.first().is_some_and(|t| t.side == Side::Agent);
    let greets = |s: &&Said| GREETING.is_match(s.lower()) || (opens && HELP_OFFERED.is_match(s.lower()));
    let names = |s: &&Said| {
        let own = s.terms();
        wanted.iter().all(|t| own.contains(t))
    };
    if wanted.is_empty() {
        return Some(match opening.iter().find(greets) {
            Some(s) => Finding::met(Shape::Greeted, format!("Met: the agent greeted the caller: {}.", s.quote()), 0.75),
            None => Finding::unsure(format!(
                "Cannot tell: the agent's first words, {}, are not a greeting in the words the offline judge knows.",
                first.quote()
            )),
        });
    }
    let greeting = opening.iter().find(greets)?;
    let named = opening.iter().find(names)?;
    let why = if greeting.order == named.order {
        format!("Met: the agent greeted the caller: {}.", greeting.quote())
    } else {
        format!("Met: the agent greeted the caller: {}, then {}.", greeting.quote(), named.quote())
    };
    Some(Finding::met(Shape::Greeted, why, 0.7))
}
