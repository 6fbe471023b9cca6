//! The offline judge: reads the conversation by role and order, deterministically and with
//! no model. It recognises what a prompt asks (was the request done, was identity verified
//! before anything protected was disclosed, did the agent do some thing, how empathetic,
//! which intent) and answers in plain words, quoting the deciding lines with their times.
//! See docs/judge.md for how it reads and what it cannot do.

mod conversation;
mod details;
mod disclosure;
mod expectation;
mod identity;
mod intent;
mod kind;
mod names;
mod outcome;
mod pattern;
mod scale;
mod terms;

use std::cell::RefCell;
use std::rc::Rc;

use conversation::{Conversation, Side, normalise};
use kind::Kind;

use crate::api::model::Transcript;

use super::{Answer, Question, Shape, Standing, Verdict};

/// What a boolean reader made of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    Met,
    NotMet,
    /// The conversation never reached the point the question is about.
    NotApplicable,
    /// The reader cannot tell with confidence: the judge abstains rather than guess.
    Unsure,
}

/// What a boolean reader found, by which path, why, and how sure it is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Finding {
    pub reading: Reading,
    /// The path that ended in an answer; `None` when unsure.
    pub shape: Option<Shape>,
    pub why: String,
    pub sure: f64,
}

impl Finding {
    pub fn met(shape: Shape, why: String, sure: f64) -> Finding {
        Finding { reading: Reading::Met, shape: Some(shape), why, sure }
    }

    pub fn not_met(shape: Shape, why: String, sure: f64) -> Finding {
        Finding { reading: Reading::NotMet, shape: Some(shape), why, sure }
    }

    pub fn not_applicable(shape: Shape, why: String) -> Finding {
        Finding { reading: Reading::NotApplicable, shape: Some(shape), why, sure: 0.7 }
    }

    /// No answer: `why` says what could not be read.
    pub fn unsure(why: String) -> Finding {
        Finding { reading: Reading::Unsure, shape: None, why, sure: 0.0 }
    }
}

thread_local! {
    /// The conversation last read on this thread, with the transcript it was read from: a
    /// simulation's metrics are judged one after another on one transcript, and reading it
    /// (sentences, normalised text) again for each was much of the judge's time.
    static LAST_READ: RefCell<Option<(Transcript, Rc<Conversation>)>> = const { RefCell::new(None) };
}

/// The transcript read as a conversation, once for as long as the same one is judged.
fn read(transcript: &Transcript) -> Rc<Conversation> {
    LAST_READ.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((seen, conv)) = last.as_ref()
            && seen == transcript
        {
            return conv.clone();
        }
        let conv = Rc::new(Conversation::read(transcript));
        *last = Some((transcript.clone(), conv.clone()));
        conv
    })
}

/// Judges one question offline.
pub(super) fn judge(question: &Question) -> Result<Verdict, String> {
    let conv = read(question.transcript);
    if conv.is_empty() {
        return Err("there are no turns to judge".into());
    }
    let prompt = normalise(question.prompt);
    if prompt.trim().is_empty() {
        return Err("the prompt is empty".into());
    }
    let mut verdict = match &question.answer {
        Answer::Boolean => {
            let finding = boolean(&conv, &prompt, question.agent_only);
            let answer = |value: f64| Verdict {
                value,
                label: None,
                reasoning: finding.why.clone(),
                confidence: finding.sure,
                standing: Standing::Answered,
                shape: finding.shape,
            };
            match finding.reading {
                Reading::Met => answer(1.0),
                Reading::NotMet => answer(0.0),
                Reading::NotApplicable => Verdict { shape: finding.shape, ..Verdict::not_applicable(finding.why) },
                Reading::Unsure => Verdict::abstain(finding.why),
            }
        }
        Answer::Scale { .. } if !scale::knows(&prompt) => Verdict::abstain(format!(
            "Cannot tell: the offline judge rates only manner (empathy, politeness, tone) on a scale, and \"{}\" asks \
             something else.",
            question.prompt.trim()
        )),
        Answer::Scale { min, max, labels } => {
            let (value, reasoning, confidence) = scale::read(&conv, *min, *max);
            let label = labels
                .iter()
                .find(|l| l.range_min.is_none_or(|lo| value >= lo) && l.range_max.is_none_or(|hi| value <= hi))
                .and_then(|l| l.label.clone());
            let reasoning = match &label {
                Some(name) => reasoning.replacen(&format!("Rated {value}:"), &format!("Rated {value} ({name}):"), 1),
                None => reasoning,
            };
            Verdict {
                value,
                label,
                reasoning,
                confidence,
                standing: Standing::Answered,
                shape: Some(Shape::MannerRated),
            }
        }
        Answer::Classification { options } => match intent::read(&conv, options)? {
            None => Verdict::abstain(
                "Cannot tell: nothing the caller or the agent said matches any of the options.".to_owned(),
            ),
            Some((index, reasoning, confidence)) => Verdict {
                value: index as f64 + 1.0,
                label: Some(options[index].0.clone()),
                reasoning,
                confidence,
                standing: Standing::Answered,
                shape: Some(Shape::IntentMatched),
            },
        },
    };
    if let Some(policy) = question.knowledge.and_then(|k| grounding(k, &prompt)) {
        verdict.reasoning.push_str(&format!(" Policy: \"{policy}\"."));
    }
    Ok(verdict)
}

fn boolean(conv: &Conversation, prompt: &str, agent_only: bool) -> Finding {
    let prompt = &kind::plain(prompt);
    if kind::unrecognised_check(prompt) {
        return Finding::unsure(
            "Cannot tell: the prompt reads like a check of who the caller is before something is shared, in words \
             the offline judge does not recognise as a verification prompt."
                .to_owned(),
        );
    }
    match kind::of(prompt) {
        Kind::Disclosure => disclosure::read(conv, prompt),
        Kind::Outcome { keypad } => outcome::read(conv, keypad),
        Kind::Deed => outcome::read_deed(conv, prompt),
        Kind::Expectation => expectation::read(conv, prompt),
        Kind::Other => {
            let side = agent_only.then_some(Side::Agent);
            let said: Vec<_> = conv.said().filter(|s| side.is_none_or(|side| s.side() == side)).collect();
            expectation::concept_loosely(&said, prompt)
        }
    }
}

/// The knowledge-base sentence that speaks most to the prompt, quoted as the policy applied.
fn grounding<'a>(knowledge: &'a str, prompt: &str) -> Option<&'a str> {
    let wanted = terms::terms(prompt);
    knowledge_sentences(knowledge)
        .iter()
        .map(|(at, terms)| (&knowledge[at.clone()], terms.intersection(&wanted).count()))
        .filter(|(_, n)| *n >= 2)
        .max_by_key(|(s, n)| (*n, std::cmp::Reverse(s.len())))
        .map(|(s, _)| s)
}

/// A knowledge base's sentences (where each is in the text) with their terms.
type Sentences = Rc<Vec<(std::ops::Range<usize>, std::collections::BTreeSet<String>)>>;

thread_local! {
    /// The knowledge base last split on this thread: every metric of a plan asks it again.
    static LAST_KNOWLEDGE: RefCell<Option<(String, Sentences)>> = const { RefCell::new(None) };
}

fn knowledge_sentences(knowledge: &str) -> Sentences {
    LAST_KNOWLEDGE.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((seen, sentences)) = last.as_ref()
            && seen == knowledge
        {
            return sentences.clone();
        }
        let base = knowledge.as_ptr() as usize;
        let sentences: Vec<_> = knowledge
            .split(['\n', '.'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                let start = s.as_ptr() as usize - base;
                (start..start + s.len(), terms::terms(s))
            })
            .collect();
        let sentences = Rc::new(sentences);
        *last = Some((knowledge.to_owned(), sentences.clone()));
        sentences
    })
}

#[cfg(test)]
mod tests;
