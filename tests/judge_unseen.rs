//! The offline judge on calls from desks it was not built on (assets/judge/unseen/, see its
//! README): over all desks together it must answer at least 60 % of the judgements (coverage)
//! and, where it answers, agree with the label on at least 90 %; each desk must stay at or
//! above the figures docs/judge.md reports for it (`REPORTED`). An abstention is no answer;
//! an answer to a judgement people could not decide is a disagreement. `--nocapture` prints
//! the table per desk and metric that docs/judge.md quotes, a row per held-out round, and
//! every disagreement with both reasons. JUDGE_UNSEEN_TUNING=1 leaves the held-out calls out
//! entirely, for work on the judge; JUDGE_UNSEEN_HOLD_BACK=desk[,desk] leaves whole desks out,
//! so a desk written for a later first look is not seen while the judge is changed.
//! JUDGE_UNSEEN_DUMP=1 prints one line per judgement (agreed, missed or abstained, with the
//! finding's shape and the judge's reasoning), to compare two versions of the judge line by
//! line and to measure each shape's precision (docs/judge.md, "Stricter abstention by shape").
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::collections::BTreeMap;

use serde::Deserialize;
use switchboard::api::model::{Transcript, TranscriptEntry};
use switchboard::service::metrics::judge::{Answer, Judge, Question, Standing, Verdict};

/// The least share of judgements answered, over all desks (issue 28's target).
const MIN_COVERAGE: f64 = 0.6;
/// The least agreement where the judge answered, over all desks (issue 28's target).
const MIN_AGREEMENT: f64 = 0.9;

/// What docs/judge.md reports per desk: (desk, judgements, answered, agreed). A desk must not
/// fall below its reported coverage or agreement; a desk not listed is held to the targets.
const REPORTED: &[(&str, usize, usize, usize)] = &[
    ("airline_baggage", 45, 28, 28),
    // Round 20, first look (with round 19, below).
    ("bike_workshop", 50, 26, 18),
    // Rounds 17 and 18, first look (written blind during stop 41, judged once at its end).
    ("box_office", 46, 33, 27),
    ("broadband", 55, 52, 52),
    ("car_rental", 44, 39, 39),
    ("card_services", 50, 46, 46),
    // Rounds 11 and 12: council waste and driving school after stop 40's readings (first looks
    // 25/19 and 33/24, kept in docs/judge.md).
    ("council_waste", 45, 33, 33),
    ("driving_school", 45, 37, 37),
    ("energy", 33, 31, 31),
    ("gym_membership", 42, 33, 33),
    // Rounds 13 to 16 after their misses were read (first looks 26/22 after stop 40, 34/27,
    // 27/23 and 21/13, kept in docs/judge.md).
    ("heating_service", 46, 35, 32),
    // Rounds 9 and 10 after their first look (27/17 and 26/18, kept in docs/judge.md).
    ("hotel_reservations", 45, 28, 28),
    ("insurance_claims", 33, 27, 27),
    ("parcel_delivery", 45, 29, 29),
    ("pharmacy_refills", 33, 28, 28),
    ("phone_repair", 45, 26, 25),
    ("removals", 47, 26, 20),
    ("self_storage", 46, 24, 22),
    ("student_services", 45, 32, 29),
    ("vet_clinic", 51, 44, 44),
    // Rounds 19 and 20, first look (written blind during stop 42, judged once at its end).
    ("water_utility", 50, 34, 28),
];

#[derive(Deserialize)]
struct Desk {
    domain: String,
    metrics: BTreeMap<String, Metric>,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metric {
    prompt: String,
    agent_only: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Call {
    id: String,
    #[serde(default)]
    held_out: bool,
    /// Which held-out round (see the set's README); each was looked at once and the judge
    /// then fixed, and docs/judge.md keeps their first-look numbers.
    round: Option<u32>,
    transcript: Vec<TranscriptEntry>,
    judgements: Vec<Judgement>,
}

#[derive(Deserialize)]
struct Judgement {
    metric: String,
    /// An expectation's own words; other metrics use the desk's prompt.
    prompt: Option<String>,
    expected: Label,
    why: String,
}

/// What a careful reader answered.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
enum Label {
    Holds(bool),
    Word(Word),
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "camelCase")]
enum Word {
    NotApplicable,
    /// People could not decide from the transcript: any answer is a disagreement.
    Undecidable,
}

/// What the judge answered, in the labels' terms; None when it abstained.
fn answer(verdict: &Verdict) -> Option<Label> {
    match verdict.standing {
        Standing::Answered => Some(Label::Holds(verdict.holds())),
        Standing::NotApplicable => Some(Label::Word(Word::NotApplicable)),
        Standing::Abstained => None,
    }
}

fn show(label: Option<Label>) -> String {
    match label {
        Some(Label::Holds(h)) => h.to_string(),
        Some(Label::Word(Word::NotApplicable)) => "not applicable".into(),
        Some(Label::Word(Word::Undecidable)) => "undecidable".into(),
        None => "abstained".into(),
    }
}

/// Every desk but those held back for a later first look (JUDGE_UNSEEN_HOLD_BACK).
fn desks() -> Vec<Desk> {
    let held_back = std::env::var("JUDGE_UNSEEN_HOLD_BACK").unwrap_or_default();
    all_desks().into_iter().filter(|d| !held_back.split(',').any(|h| h == d.domain)).collect()
}

fn all_desks() -> Vec<Desk> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/judge/unseen");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()).collect()
}

/// Judgements, answered ones, and agreements among those.
#[derive(Default, Clone, Copy)]
struct Count {
    judged: usize,
    answered: usize,
    agreed: usize,
}

impl Count {
    fn add(&mut self, answered: bool, agreed: bool) {
        self.judged += 1;
        self.answered += usize::from(answered);
        self.agreed += usize::from(agreed);
    }

    fn coverage(&self) -> f64 {
        self.answered as f64 / self.judged.max(1) as f64
    }

    fn agreement(&self) -> f64 {
        if self.answered == 0 { 1.0 } else { self.agreed as f64 / self.answered as f64 }
    }

    /// Whether these counts fall short of a coverage and an agreement.
    fn short_of(&self, coverage: f64, agreement: f64) -> bool {
        // Compared in whole judgements, so that a reported 52 of 55 is not lost to rounding.
        let judged = self.judged as f64;
        let answered = self.answered as f64;
        answered + 1e-9 < coverage * judged || (self.answered > 0 && (self.agreed as f64) + 1e-9 < agreement * answered)
    }

    fn row(&self, desk: &str, metric: &str) -> String {
        format!(
            "| {desk} | {metric} | {} | {}/{} ({:.0} %) | {}/{} ({:.0} %) |",
            self.judged,
            self.answered,
            self.judged,
            self.coverage() * 100.0,
            self.agreed,
            self.answered,
            self.agreement() * 100.0
        )
    }
}

/// The coverage and agreement a desk must keep: what docs/judge.md reports, or the targets.
fn floor(desk: &str) -> (f64, f64) {
    REPORTED.iter().find(|(d, ..)| *d == desk).map_or((MIN_COVERAGE, MIN_AGREEMENT), |(_, judged, answered, agreed)| {
        (*answered as f64 / *judged as f64, *agreed as f64 / (*answered).max(1) as f64)
    })
}

fn shortfall(what: &str, count: &Count, coverage: f64, agreement: f64) -> String {
    format!(
        "{what}: answered {}/{} (at least {:.1} % wanted), agreed {}/{} where answered (at least {:.1} %)",
        count.answered,
        count.judged,
        coverage * 100.0,
        count.agreed,
        count.answered,
        agreement * 100.0
    )
}

#[tokio::test]
async fn the_offline_judge_answers_most_unseen_judgements_and_is_right_where_it_does() {
    let tuning = std::env::var_os("JUDGE_UNSEEN_TUNING").is_some();
    let desks = desks();
    assert!(desks.len() >= 2, "at least two desks the seed does not have");
    let mut table = vec!["| Desk | Metric | Judgements | Answered | Agreed where answered |".to_owned()];
    table.push("|---|---|---|---|---|".into());
    let mut disagreements = Vec::new();
    let mut failures = Vec::new();
    let mut everything = Count::default();
    for desk in &desks {
        let mut by_metric: BTreeMap<&str, Count> = BTreeMap::new();
        let mut total = Count::default();
        let mut by_round: BTreeMap<u32, Count> = BTreeMap::new();
        for call in desk.calls.iter().filter(|c| !(tuning && c.held_out)) {
            let transcript = Transcript { entries: call.transcript.clone(), ..Default::default() };
            for judgement in &call.judgements {
                let metric = desk.metrics.get(&judgement.metric);
                let prompt = judgement.prompt.as_deref().or(metric.map(|m| m.prompt.as_str())).expect("a prompt");
                let question = Question {
                    prompt,
                    answer: Answer::Boolean,
                    transcript: &transcript,
                    agent_only: metric.is_none_or(|m| m.agent_only),
                    knowledge: None,
                };
                let verdict = Judge::Rubric.judge(&question).await.unwrap();
                let got = answer(&verdict);
                let agreed = got.is_some() && got == Some(judgement.expected);
                by_metric.entry(&judgement.metric).or_default().add(got.is_some(), agreed);
                total.add(got.is_some(), agreed);
                everything.add(got.is_some(), agreed);
                if let Some(round) = call.round {
                    by_round.entry(round).or_default().add(got.is_some(), agreed);
                }
                if got.is_some() && !agreed {
                    disagreements.push(format!(
                        "- {} / {} \"{}\": labelled {}, judged {}\n    label's why: {}\n    judge's why: {}",
                        desk.domain,
                        call.id,
                        judgement.prompt.as_deref().unwrap_or(&judgement.metric),
                        show(Some(judgement.expected)),
                        show(got),
                        judgement.why,
                        verdict.reasoning
                    ));
                }
                if std::env::var_os("JUDGE_UNSEEN_DUMP").is_some() {
                    let mark = if got.is_none() {
                        "ABSTAIN"
                    } else if agreed {
                        "AGREE"
                    } else {
                        "MISS"
                    };
                    let label = show(Some(judgement.expected));
                    let shape = verdict.shape.map_or_else(|| "-".to_owned(), |s| format!("{s:?}"));
                    println!(
                        "@@ {mark} | {} | {} | {} | label {label} | {shape} | {}",
                        desk.domain, call.id, judgement.metric, verdict.reasoning
                    );
                }
                if got.is_none() && std::env::var_os("JUDGE_SHOW_ALL").is_some() {
                    println!("abstained: {} / {} {}: {}", desk.domain, call.id, judgement.metric, verdict.reasoning);
                }
            }
        }
        for (metric, count) in &by_metric {
            table.push(count.row(&desk.domain, metric));
        }
        table.push(total.row(&desk.domain, "**all**"));
        for (round, count) in &by_round {
            table.push(count.row(&desk.domain, &format!("of which held-out round {round}")));
        }
        let (coverage, agreement) = floor(&desk.domain);
        if !tuning && total.short_of(coverage, agreement) {
            failures.push(shortfall(&desk.domain, &total, coverage, agreement));
        }
    }
    table.push(everything.row("all desks", "**all**"));
    if everything.short_of(MIN_COVERAGE, MIN_AGREEMENT) {
        failures.push(shortfall("all desks", &everything, MIN_COVERAGE, MIN_AGREEMENT));
    }
    let report = format!("{}\n\nDisagreements:\n{}", table.join("\n"), disagreements.join("\n"));
    println!("{report}");
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}

#[tokio::test]
async fn every_desk_has_enough_judgements_of_each_kind() {
    for desk in all_desks() {
        let judgements: Vec<&Judgement> = desk.calls.iter().flat_map(|c| &c.judgements).collect();
        assert!(judgements.len() >= 25, "{}: {} judgements", desk.domain, judgements.len());
        for metric in desk.metrics.keys() {
            assert!(judgements.iter().any(|j| &j.metric == metric), "{}: nothing labelled for {metric}", desk.domain);
        }
        assert!(judgements.iter().any(|j| j.metric == "agent_expectations"), "{}: no expectations", desk.domain);
        assert!(
            judgements.iter().any(|j| j.expected == Label::Word(Word::Undecidable)),
            "{}: no judgement people could not decide",
            desk.domain
        );
    }
}
