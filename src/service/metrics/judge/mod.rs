//! LLM-judged metrics go through a judge: an OpenAI-compatible chat-completions judge when
//! one is configured (`[judge]` in config.toml), else the offline judge, which reads the
//! conversation by role and order and quotes the lines that decided (docs/judge.md).

mod open_ai;
mod rubric;
mod shape;

use serde::Deserialize;

use crate::api::model::{ScaleLabel, Transcript};

pub use open_ai::OpenAiJudge;
pub use shape::Shape;

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
    /// The question is about the agent's behaviour (expectations): only the agent's lines
    /// can meet it. The whole conversation is still read, since what the caller said and
    /// when decides what the agent's lines mean.
    pub agent_only: bool,
    /// Reference text the judge treats as ground truth.
    pub knowledge: Option<&'a str>,
}

/// Whether a verdict carries an answer, and if not, why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// `value` is the judge's answer.
    Answered,
    /// The conversation never reached the point the question is about: stored as
    /// NOT_APPLICABLE.
    NotApplicable,
    /// The judge could not read the prompt or the conversation with confidence and gives no
    /// answer rather than a guess: stored as DATA_MISSING, so the check is not evaluated.
    Abstained,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Meaningless unless `standing` is `Answered`.
    pub value: f64,
    pub label: Option<String>,
    pub reasoning: String,
    pub confidence: f64,
    pub standing: Standing,
    /// The offline judge's path to the answer (in-process only, never stored or sent);
    /// `None` for the model judge and for an abstention.
    pub shape: Option<Shape>,
}

impl Verdict {
    pub fn not_applicable(reasoning: String) -> Verdict {
        Verdict { value: 0.0, label: None, reasoning, confidence: 0.7, standing: Standing::NotApplicable, shape: None }
    }

    /// No answer: `reasoning` says what could not be read.
    pub fn abstain(reasoning: String) -> Verdict {
        Verdict { value: 0.0, label: None, reasoning, confidence: 0.0, standing: Standing::Abstained, shape: None }
    }

    /// Whether the verdict answers the question (neither not applicable nor abstained).
    pub fn answered(&self) -> bool {
        self.standing == Standing::Answered
    }

    /// Whether a boolean verdict says the statement holds: never when it did not answer, so
    /// an abstention can neither pass a check nor end a call.
    pub fn holds(&self) -> bool {
        self.answered() && self.value >= 1.0
    }
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
    /// The offline reader: deterministic, no network, no model.
    Rubric,
    OpenAi(Box<OpenAiJudge>),
}

impl Judge {
    pub fn open_ai(config: &JudgeConfig) -> Result<Judge, String> {
        OpenAiJudge::new(config).map(|j| Judge::OpenAi(Box::new(j)))
    }

    /// Judges one question; a failure is a message for the value's `errorMessage`.
    pub async fn judge(&self, question: &Question<'_>) -> Result<Verdict, String> {
        match self {
            Judge::Rubric => rubric::judge(question),
            Judge::OpenAi(judge) => judge.judge(question).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abstention_holds_nothing_so_it_can_neither_pass_a_check_nor_end_a_call() {
        let abstained = Verdict::abstain("Cannot tell: the line is lost.".into());
        assert_eq!(abstained.standing, Standing::Abstained);
        assert!(!abstained.holds() && !abstained.answered());
        // Even a value of 1 left on it by mistake is not an answer.
        assert!(!Verdict { value: 1.0, ..abstained }.holds());
        assert!(!Verdict::not_applicable("Not applicable".into()).holds());
    }
}
