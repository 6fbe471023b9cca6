//! The offline judge agrees with the labelled set in assets/judge/labelled.json: on at least
//! 90 % of the boolean questions, and on at least 90 % of the true and of the false ones
//! separately, so that neither "always met" nor "always not met" could pass. Intents must
//! match and empathy ratings must be within one point of the label. On failure every
//! disagreement is printed with the judge's reasoning (JUDGE_SHOW_ALL=1 prints every verdict).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use serde::Deserialize;
use switchboard::api::model::{ScaleLabel, Transcript, TranscriptEntry};
use switchboard::service::metrics::judge::{Answer, Judge, Question, Standing, Verdict};

#[derive(Deserialize)]
struct Labelled {
    items: Vec<Item>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    id: String,
    domain: String,
    question: ItemQuestion,
    transcript: Vec<TranscriptEntry>,
    expected: Expected,
    why: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemQuestion {
    prompt: String,
    answer: ItemAnswer,
    agent_only: bool,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum ItemAnswer {
    Boolean,
    Scale { min: i64, max: i64, labels: Vec<ScaleLabel> },
    Classification { options: Vec<OptionItem> },
}

#[derive(Deserialize)]
struct OptionItem {
    label: String,
    description: String,
}

#[derive(Deserialize)]
struct Expected {
    value: Option<serde_json::Value>,
    label: Option<String>,
}

fn labelled() -> Vec<Item> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/judge/labelled.json");
    let set: Labelled = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    set.items
}

async fn judged(item: &Item) -> Verdict {
    let transcript = Transcript { entries: item.transcript.clone(), ..Default::default() };
    let answer = match &item.question.answer {
        ItemAnswer::Boolean => Answer::Boolean,
        ItemAnswer::Scale { min, max, labels } => Answer::Scale { min: *min, max: *max, labels: labels.clone() },
        ItemAnswer::Classification { options } => Answer::Classification {
            options: options.iter().map(|o| (o.label.clone(), o.description.clone())).collect(),
        },
    };
    let question = Question {
        prompt: &item.question.prompt,
        answer,
        transcript: &transcript,
        agent_only: item.question.agent_only,
        knowledge: None,
    };
    Judge::Rubric.judge(&question).await.unwrap_or_else(|e| panic!("{}: the judge failed: {e}", item.id))
}

/// Agreement on one class of items, as (agreed, total).
#[derive(Default)]
struct Tally {
    agreed: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, agreed: bool) {
        self.total += 1;
        self.agreed += usize::from(agreed);
    }

    fn share(&self) -> f64 {
        if self.total == 0 { 1.0 } else { self.agreed as f64 / self.total as f64 }
    }

    fn line(&self, name: &str) -> String {
        format!("{name}: {}/{} ({:.0} %)", self.agreed, self.total, self.share() * 100.0)
    }
}

#[tokio::test]
async fn the_offline_judge_agrees_with_the_labelled_set() {
    let items = labelled();
    assert!(items.len() >= 30, "the labelled set has at least 30 items");
    for domain in ["dental", "airline"] {
        assert!(items.iter().any(|i| i.domain == domain), "{domain} items are labelled");
    }
    let (mut positives, mut negatives, mut intents, mut ratings) =
        (Tally::default(), Tally::default(), Tally::default(), Tally::default());
    let mut disagreements = Vec::new();
    for item in &items {
        let verdict = judged(item).await;
        let (agreed, expected, got) = match &item.question.answer {
            ItemAnswer::Boolean => {
                let expected = item.expected.value.as_ref().and_then(|v| v.as_bool()).expect("a boolean label");
                let got = match verdict.standing {
                    Standing::Answered => verdict.holds().to_string(),
                    Standing::NotApplicable => "not applicable".to_owned(),
                    Standing::Abstained => "abstained".to_owned(),
                };
                // On the set it was built on, an abstention is a miss like any other.
                let agreed = verdict.answered() && verdict.holds() == expected;
                if expected {
                    positives.add(agreed)
                } else {
                    negatives.add(agreed)
                }
                (agreed, expected.to_string(), got)
            }
            ItemAnswer::Classification { .. } => {
                let expected = item.expected.label.clone().expect("a label");
                let agreed = verdict.label.as_deref() == Some(expected.as_str());
                intents.add(agreed);
                (agreed, expected, verdict.label.clone().unwrap_or_default())
            }
            ItemAnswer::Scale { .. } => {
                let expected = item.expected.value.as_ref().and_then(|v| v.as_f64()).expect("a number");
                let agreed = verdict.answered() && (verdict.value - expected).abs() <= 1.0;
                ratings.add(agreed);
                (agreed, expected.to_string(), verdict.value.to_string())
            }
        };
        if std::env::var_os("JUDGE_SHOW_ALL").is_some() {
            let shape = verdict.shape.map_or_else(|| "-".to_owned(), |s| format!("{s:?}"));
            println!("{} [{}] [expected {expected}] [{shape}] {}", item.id, got, verdict.reasoning);
        }
        if !agreed {
            disagreements.push(format!(
                "- {}: expected {expected}, judged {got}\n    label's why: {}\n    judge's why: {}",
                item.id, item.why, verdict.reasoning
            ));
        }
    }
    let booleans = Tally { agreed: positives.agreed + negatives.agreed, total: positives.total + negatives.total };
    let summary = [
        booleans.line("boolean"),
        positives.line("true labels"),
        negatives.line("false labels"),
        intents.line("intents"),
        ratings.line("ratings within one point"),
    ]
    .join("; ");
    println!("{summary}\n{}", disagreements.join("\n"));
    let pass = booleans.share() >= 0.9
        && positives.share() >= 0.9
        && negatives.share() >= 0.9
        && intents.share() >= 0.9
        && ratings.share() >= 0.75;
    assert!(pass, "{summary}\nDisagreements:\n{}", disagreements.join("\n"));
}

#[tokio::test]
async fn every_boolean_reasoning_quotes_a_line_with_its_time() {
    for item in labelled().iter().filter(|i| matches!(i.question.answer, ItemAnswer::Boolean)) {
        let verdict = judged(item).await;
        let r = &verdict.reasoning;
        assert!(
            r.starts_with("Met")
                || r.starts_with("Not met")
                || r.starts_with("Not applicable")
                || r.starts_with("Cannot tell"),
            "{}: {r}",
            item.id
        );
        if verdict.answered() && !verdict.holds() {
            assert!(r.contains(" s") && r.contains('"'), "{}: a false verdict quotes a line: {r}", item.id);
        }
    }
}
