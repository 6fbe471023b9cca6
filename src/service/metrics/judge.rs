//! LLM-judged metrics go through a judge: an OpenAI-compatible chat-completions judge when
//! one is configured, else the offline rubric judge, which is deterministic and says in its
//! reasoning exactly which terms it matched and where.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Deserialize;

use crate::api::model::{ParticipantType, ScaleLabel, Transcript, TranscriptEntry};

/// What kind of answer a question wants.
#[derive(Debug, Clone)]
pub enum Answer {
    Boolean,
    Scale { min: i64, max: i64, labels: Vec<ScaleLabel> },
    Classification { options: Vec<(String, String)> },
}

/// One thing to judge about one conversation.
#[derive(Debug, Clone)]
pub struct Question<'a> {
    pub prompt: &'a str,
    pub answer: Answer,
    pub transcript: &'a Transcript,
    /// Only the agent's turns count (expectations are about the agent).
    pub agent_only: bool,
    /// Reference text the judge treats as ground truth.
    pub knowledge: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub value: f64,
    pub label: Option<String>,
    pub reasoning: String,
    pub confidence: f64,
}

/// Where a configured judge lives.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    pub base_url: String,
    pub model: String,
    /// Environment variable holding the key.
    pub api_key_env: Option<String>,
}

/// The judge in use.
#[derive(Debug, Clone)]
pub enum Judge {
    Rubric,
    OpenAi { http: reqwest::Client, base_url: String, model: String, key: Option<String> },
}

impl Judge {
    pub fn open_ai(config: &JudgeConfig) -> Result<Judge, String> {
        let key = match &config.api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| format!("judge key variable ${var} is not set"))?),
            None => None,
        };
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().map_err(|e| e.to_string())?;
        Ok(Judge::OpenAi {
            http,
            base_url: config.base_url.trim_end_matches('/').to_owned(),
            model: config.model.clone(),
            key,
        })
    }

    /// Judges one question; a failure is a message for the value's `errorMessage`.
    pub async fn judge(&self, question: &Question<'_>) -> Result<Verdict, String> {
        match self {
            Judge::Rubric => rubric(question),
            Judge::OpenAi { http, base_url, model, key } => {
                open_ai(http, base_url, model, key.as_deref(), question).await
            }
        }
    }
}

const STOPWORDS: &[&str] = &[
    "about", "after", "agent", "also", "before", "being", "caller", "could", "does", "from", "have", "into", "their",
    "there", "they", "this", "that", "what", "when", "where", "which", "while", "with", "would", "your", "call",
    "customer", "should", "must", "whether", "during", "every", "them", "then", "than", "were", "will",
];

/// Lower-cased content words, lightly stemmed, so "verifies" and "verified" meet.
fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 4 && !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn stem(word: &str) -> String {
    for suffix in ["ation", "ing", "ies", "ied", "ed", "es", "s", "y"] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.len() >= 4
        {
            return root.to_owned();
        }
    }
    word.to_owned()
}

fn speaker_lines<'a>(question: &'a Question) -> Vec<&'a TranscriptEntry> {
    question
        .transcript
        .entries
        .iter()
        .filter(|e| !question.agent_only || e.role == Some(ParticipantType::Agent))
        .collect()
}

/// The offline rubric: the share of the prompt's key terms that the conversation contains.
fn rubric(question: &Question) -> Result<Verdict, String> {
    let lines = speaker_lines(question);
    if lines.is_empty() {
        return Err("there are no turns to judge".into());
    }
    let mut wanted = terms(question.prompt);
    let mut grounding = String::new();
    if let Some(knowledge) = question.knowledge {
        // Ground truth: the reference sentences that speak to the prompt add their terms.
        let relevant: Vec<&str> =
            knowledge.split(['.', '\n']).filter(|s| terms(s).intersection(&wanted).count() >= 2).take(2).collect();
        for sentence in &relevant {
            wanted.extend(terms(sentence));
        }
        if !relevant.is_empty() {
            grounding = format!(" Ground truth from the knowledge base: \"{}\".", relevant[0].trim());
        }
    }
    if wanted.is_empty() {
        return Err("the prompt has no terms to look for".into());
    }
    let mut found = BTreeSet::new();
    let mut evidence: Option<&TranscriptEntry> = None;
    let mut best = 0;
    for line in &lines {
        let here: BTreeSet<String> = terms(&line.text).intersection(&wanted).cloned().collect();
        if here.len() > best {
            best = here.len();
            evidence = Some(line);
        }
        found.extend(here);
    }
    let missing: Vec<&String> = wanted.difference(&found).collect();
    let score = found.len() as f64 / wanted.len() as f64;
    let whose = if question.agent_only { "the agent's turns" } else { "the conversation" };
    let mut reasoning = format!(
        "Matched {} of {} key terms in {whose} ({}).",
        found.len(),
        wanted.len(),
        found.iter().cloned().collect::<Vec<_>>().join(", ")
    );
    if let Some(line) = evidence {
        reasoning.push_str(&format!(
            " Best evidence at {:.1} s: \"{}\".",
            line.start_offset_ms as f64 / 1000.0,
            line.text
        ));
    }
    if !missing.is_empty() {
        let missing: Vec<&str> = missing.iter().take(6).map(|s| s.as_str()).collect();
        reasoning.push_str(&format!(" Not found: {}.", missing.join(", ")));
    }
    reasoning.push_str(&grounding);
    let confidence = (0.55 + (score - 0.5).abs() * 0.8).min(0.95);
    let verdict = match &question.answer {
        Answer::Boolean => {
            let met = score >= 0.5;
            reasoning.push_str(if met {
                " Judged met (at least half the terms)."
            } else {
                " Judged not met (under half the terms)."
            });
            Verdict { value: if met { 1.0 } else { 0.0 }, label: None, reasoning, confidence }
        }
        Answer::Scale { min, max, labels } => {
            let value = (*min as f64 + score * (*max - *min) as f64).round();
            let label = labels
                .iter()
                .find(|l| l.range_min.is_none_or(|lo| value >= lo) && l.range_max.is_none_or(|hi| value <= hi))
                .and_then(|l| l.label.clone());
            reasoning.push_str(&format!(" Scaled to {value} on {min}–{max}."));
            Verdict { value, label, reasoning, confidence }
        }
        Answer::Classification { options } => {
            let all: BTreeSet<String> = lines.iter().flat_map(|l| terms(&l.text)).collect();
            let (index, overlap) = options
                .iter()
                .enumerate()
                .map(|(i, (label, description))| {
                    (i, terms(&format!("{label} {description}")).intersection(&all).count())
                })
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .ok_or("the metric has no classification options")?;
            let label = options[index].0.clone();
            let reasoning = format!("Chose \"{label}\": {overlap} of its terms occur in {whose}.{grounding}");
            Verdict {
                value: index as f64 + 1.0,
                label: Some(label),
                reasoning,
                confidence: if overlap > 0 { 0.7 } else { 0.4 },
            }
        }
    };
    Ok(verdict)
}

/// Asks an OpenAI-compatible chat-completions endpoint for `{value, label?, reasoning, confidence}`.
async fn open_ai(
    http: &reqwest::Client,
    base_url: &str,
    model: &str,
    key: Option<&str>,
    question: &Question<'_>,
) -> Result<Verdict, String> {
    let transcript: String = speaker_lines(question)
        .iter()
        .map(|e| format!("[{} ms] {}: {}\n", e.start_offset_ms, e.role.as_ref().map_or("?", |r| r.as_str()), e.text))
        .collect();
    let shape = match &question.answer {
        Answer::Boolean => "value is 1 if the statement holds, else 0".to_owned(),
        Answer::Scale { min, max, .. } => format!("value is a whole number from {min} to {max}"),
        Answer::Classification { options } => {
            let names: Vec<String> = options.iter().enumerate().map(|(i, (l, _))| format!("{} = {l}", i + 1)).collect();
            format!("value is the number of the best option ({}) and label its name", names.join(", "))
        }
    };
    let mut system = format!(
        "You judge a conversation. Answer only with a JSON object {{\"value\": number, \"label\": string|null, \
         \"reasoning\": string, \"confidence\": number between 0 and 1}}; {shape}."
    );
    if let Some(knowledge) = question.knowledge {
        system.push_str(&format!(" Treat this reference as ground truth:\n{knowledge}"));
    }
    let body = serde_json::json!({
        "model": model,
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": format!("{}\n\nConversation:\n{transcript}", question.prompt)},
        ],
    });
    let mut request = http.post(format!("{base_url}/chat/completions")).json(&body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.map_err(|e| format!("judge unreachable: {e}"))?;
    let status = response.status();
    let reply: serde_json::Value =
        response.json().await.map_err(|e| format!("judge answered {status} without JSON: {e}"))?;
    if !status.is_success() {
        return Err(format!("judge answered {status}: {}", reply["error"]["message"].as_str().unwrap_or("no message")));
    }
    let content = reply["choices"][0]["message"]["content"].as_str().ok_or("judge reply has no message content")?;
    #[derive(Deserialize)]
    struct Answered {
        value: f64,
        label: Option<String>,
        reasoning: String,
        confidence: Option<f64>,
    }
    let answered: Answered =
        serde_json::from_str(content).map_err(|e| format!("judge reply is not the asked JSON: {e}"))?;
    Ok(Verdict {
        value: answered.value,
        label: answered.label,
        reasoning: answered.reasoning,
        confidence: answered.confidence.unwrap_or(0.5).clamp(0.0, 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(lines: &[(ParticipantType, &str)]) -> Transcript {
        Transcript {
            entries: lines
                .iter()
                .enumerate()
                .map(|(i, (role, text))| TranscriptEntry {
                    start_offset_ms: i as i64 * 3000,
                    end_offset_ms: i as i64 * 3000 + 2500,
                    text: (*text).into(),
                    role: Some(role.clone()),
                    participant_id: None,
                })
                .collect(),
            participants: Vec::new(),
        }
    }

    fn dental() -> Transcript {
        use ParticipantType::*;
        transcript(&[
            (Agent, "Brightsmile Dental, how can I help?"),
            (Customer, "I need to reschedule my cleaning."),
            (Agent, "Before I look at your appointment, can you confirm your date of birth?"),
            (Customer, "March twelfth, 1984."),
            (Agent, "Thank you, verified. Your cleaning is rescheduled to Tuesday at 9."),
        ])
    }

    fn ask<'a>(prompt: &'a str, t: &'a Transcript, answer: Answer) -> Verdict {
        rubric(&Question { prompt, answer, transcript: t, agent_only: true, knowledge: None }).unwrap()
    }

    #[test]
    fn a_met_expectation_is_true_with_the_evidence_quoted() {
        let t = dental();
        let v =
            ask("Agent verifies the patient's date of birth before discussing the appointment", &t, Answer::Boolean);
        assert_eq!(v.value, 1.0, "{}", v.reasoning);
        assert!(v.reasoning.contains("date of birth"), "{}", v.reasoning);
        assert!(v.reasoning.starts_with("Matched"));
        assert!(v.confidence > 0.5 && v.confidence <= 0.95);
    }

    #[test]
    fn a_missed_expectation_is_false_and_names_what_is_missing() {
        let t = dental();
        let v = ask("Agent offers the cancellation policy and mentions the late fee amount", &t, Answer::Boolean);
        assert_eq!(v.value, 0.0, "{}", v.reasoning);
        assert!(v.reasoning.contains("Not found"));
    }

    #[test]
    fn the_rubric_is_deterministic() {
        let t = dental();
        let a = ask("Agent confirms the rescheduled appointment time", &t, Answer::Boolean);
        let b = ask("Agent confirms the rescheduled appointment time", &t, Answer::Boolean);
        assert_eq!(a, b);
    }

    #[test]
    fn scale_and_classification_answers() {
        let t = dental();
        let labels = vec![
            ScaleLabel { range_min: Some(1.0), range_max: Some(2.0), label: Some("Poor".into()), ..Default::default() },
            ScaleLabel { range_min: Some(3.0), range_max: Some(5.0), label: Some("Good".into()), ..Default::default() },
        ];
        let v = ask("Agent confirms the rescheduled appointment", &t, Answer::Scale { min: 1, max: 5, labels });
        assert!((1.0..=5.0).contains(&v.value));
        assert!(v.label.is_some());
        let options = vec![
            ("Billing question".to_owned(), "insurance, invoice, payment".to_owned()),
            ("Reschedule".to_owned(), "move or reschedule an existing appointment".to_owned()),
        ];
        let v = ask("What did the caller want?", &t, Answer::Classification { options });
        assert_eq!(v.label.as_deref(), Some("Reschedule"));
        assert_eq!(v.value, 2.0);
    }

    #[test]
    fn knowledge_is_read_as_ground_truth() {
        let t = dental();
        let knowledge = "Opening hours are 8 to 5. Staff must verify identity with the date of birth before discussing any appointment details.";
        let v = rubric(&Question {
            prompt: "Identity verified before appointment details",
            answer: Answer::Boolean,
            transcript: &t,
            agent_only: true,
            knowledge: Some(knowledge),
        })
        .unwrap();
        assert!(v.reasoning.contains("Ground truth"), "{}", v.reasoning);
        assert!(v.reasoning.contains("verify identity"), "{}", v.reasoning);
    }

    #[test]
    fn nothing_to_judge_is_an_error_not_a_panic() {
        let empty = Transcript::default();
        let err = rubric(&Question {
            prompt: "x",
            answer: Answer::Boolean,
            transcript: &empty,
            agent_only: true,
            knowledge: None,
        });
        assert!(err.is_err());
    }
}
