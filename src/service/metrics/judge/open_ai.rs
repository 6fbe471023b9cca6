//! The OpenAI-compatible judge: one chat-completions request per question, asking for a
//! JSON object `{value, label, reasoning, confidence}` and refusing any reply that is not
//! that object or whose value the question does not allow. The key is sent as a bearer
//! token and never appears in an error or a debug print.

use std::time::Duration;

use serde::Deserialize;

use super::{Answer, JudgeConfig, Question, Standing, Verdict};
use crate::service::chat_completions::{ChatCompletions, Message, Request};

/// How long one question may take, from sending it to the whole answer.
const QUESTION_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub struct OpenAiJudge {
    chat: ChatCompletions,
}

/// What the judge must answer.
#[derive(Deserialize)]
struct Answered {
    value: Option<serde_json::Value>,
    label: Option<String>,
    reasoning: String,
    confidence: Option<f64>,
}

impl OpenAiJudge {
    pub fn new(config: &JudgeConfig) -> Result<OpenAiJudge, String> {
        let chat = ChatCompletions::new("judge", &config.base_url, &config.model, config.api_key_env.as_deref())?;
        Ok(OpenAiJudge { chat })
    }

    pub async fn judge(&self, question: &Question<'_>) -> Result<Verdict, String> {
        self.ask(question).await.map_err(|e| self.chat.redact(e))
    }

    async fn ask(&self, question: &Question<'_>) -> Result<Verdict, String> {
        let content = self.chat.complete(&request(question)).await?;
        let answered: Answered =
            serde_json::from_str(&content).map_err(|e| format!("judge reply is not the asked JSON: {e}"))?;
        verdict(&question.answer, answered)
    }
}

/// Checks the reply against what the question allows.
fn verdict(answer: &Answer, answered: Answered) -> Result<Verdict, String> {
    let confidence = answered.confidence.unwrap_or(0.5).clamp(0.0, 1.0);
    let value = match answered.value {
        None | Some(serde_json::Value::Null) => return Ok(Verdict::not_applicable(answered.reasoning)),
        Some(serde_json::Value::Bool(b)) if matches!(answer, Answer::Boolean) => f64::from(u8::from(b)),
        Some(v) => v.as_f64().ok_or_else(|| format!("judge value {v} is not a number"))?,
    };
    let label = match answer {
        Answer::Boolean if value != 0.0 && value != 1.0 => {
            return Err(format!("judge value {value} is out of range: a boolean answer must be 0 or 1"));
        }
        Answer::Boolean => None,
        Answer::Scale { min, max, labels } => {
            if value < *min as f64 || value > *max as f64 || value.fract() != 0.0 {
                return Err(format!(
                    "judge value {value} is out of range: the scale takes whole numbers {min} to {max}"
                ));
            }
            labels
                .iter()
                .find(|l| l.range_min.is_none_or(|lo| value >= lo) && l.range_max.is_none_or(|hi| value <= hi))
                .and_then(|l| l.label.clone())
        }
        Answer::Classification { options } => {
            let n = options.len();
            if value < 1.0 || value > n as f64 || value.fract() != 0.0 {
                return Err(format!("judge value {value} is out of range: the options are numbered 1 to {n}"));
            }
            let name = options[value as usize - 1].0.clone();
            if let Some(said) = &answered.label
                && !said.eq_ignore_ascii_case(&name)
            {
                return Err(format!("judge label \"{said}\" is not option {value} (\"{name}\")"));
            }
            Some(name)
        }
    };
    Ok(Verdict { value, label, reasoning: answered.reasoning, confidence, standing: Standing::Answered, shape: None })
}

/// The request: the prompt and the whole conversation with each line's role and time.
fn request(question: &Question<'_>) -> Request {
    let transcript: String = question
        .transcript
        .entries
        .iter()
        .map(|e| {
            format!("[{} ms] {}: {}\n", e.start_offset_ms, e.role.as_ref().map_or("UNKNOWN", |r| r.as_str()), e.text)
        })
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
        "You judge a conversation. Answer only with a JSON object {{\"value\": number or null, \"label\": string or \
         null, \"reasoning\": string, \"confidence\": number between 0 and 1}}; {shape}. Use null for value when the \
         conversation never reached the point the question is about. Quote the deciding lines with their times."
    );
    if question.agent_only {
        system.push_str(" The question is about the AGENT's behaviour: only the agent's own lines can meet it.");
    }
    if let Some(knowledge) = question.knowledge {
        system.push_str(&format!(" Treat this reference as ground truth:\n{knowledge}"));
    }
    Request {
        messages: vec![
            Message::system(system),
            Message::user(format!("{}\n\nConversation:\n{transcript}", question.prompt)),
        ],
        temperature: 0.0,
        json: true,
        max_tokens: None,
        seed: None,
        timeout: QUESTION_TIMEOUT,
    }
}
